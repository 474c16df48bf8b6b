"""``ckpt inspect`` / ``ckpt diff`` from the ``.index`` alone, and the era named from evidence.

Repositories often commit ``checkpoint``, ``model.ckpt.index`` and ``model.ckpt.meta`` but not the
large ``.data-*`` shard (issue 30). Names, shapes and dtypes are in the index: inspect and diff must
work without the shard and say so in one line; only convert (and value checks) need it. The
checkpoints are the checked-in samples (written by TF 2.15 under legacy names): no TensorFlow here.
The ``.meta`` files are MetaGraphDefs built field by field (what ``export_meta_graph`` writes first).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.ckpt_factory import varint
from tfmigrate.checkpoint import api, era, index
from tfmigrate.cli.ckpt import ckpt

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "checkpoints"


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(ckpt, list(args))
    return result.exit_code, result.output


def ld(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def meta_graph(version: str | None, saver_version: int | None = 2, graph_bytes: int = 5000) -> bytes:
    """A MetaGraphDef: meta_info_def (1: meta_graph_version, 5: tensorflow_version), a graph_def
    (2) of GRAPH_BYTES and a saver_def (3) with version (7)."""
    info = ld(1, b"")
    if version is not None:
        info += ld(5, version.encode()) + ld(6, b"v" + version.encode() + b"-0-gdeadbeef")
    saver = ld(1, b"save/Const:0")
    if saver_version is not None:
        saver += varint(7 << 3) + varint(saver_version)
    return ld(1, info) + ld(2, b"\x0a" + varint(graph_bytes - 3) + b"x" * (graph_bytes - 3)) + ld(3, saver)


@pytest.fixture(params=["missing", "truncated"])
def no_values(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict]:
    """contrib1x with its data shard deleted or cut short, and what inspect said with it whole."""
    d = tmp_path / "contrib1x"
    shutil.copytree(SAMPLES / "contrib1x", d)
    whole = api.inspect(d)
    data = next(d.glob("*.data-*"))
    if request.param == "missing":
        data.unlink()
    else:
        data.write_bytes(data.read_bytes()[:10])
    return d, whole


def test_inspect_from_the_index_alone(no_values: tuple[Path, dict]) -> None:
    d, whole = no_values
    got = api.inspect(d)
    assert got["variables"] == whole["variables"]  # every name, shape, dtype, byte count
    assert whole["data"] == "complete"
    assert got["data"].startswith("index only: ")
    assert ("is missing" in got["data"]) or ("truncated data file" in got["data"])
    code, out = run_cli("inspect", str(d))
    assert code == 0, out
    notices = [ln for ln in out.splitlines() if ln.startswith("index only: ")]
    assert len(notices) == 1 and "data-00000-of-00001" in notices[0]
    assert "dnn/hiddenlayer_0/weights" in out
    code, out = run_cli("inspect", str(d), "--format", "json")
    assert code == 0 and json.loads(out)["data"] == got["data"]


def test_diff_from_the_index_alone(no_values: tuple[Path, dict]) -> None:
    """A checkpoint compared with itself (a checkpoint target runs no TF child): compatible, with
    the index-only note first, and the same pairs as with the shard there."""
    d, _ = no_values
    got = api.diff(d, str(d))
    assert got["compatible"] is True
    assert got["notes"][0].startswith("index only: ")
    code, out = run_cli("diff", str(d), "--model", str(d))
    assert code == 0, out
    assert sum(ln.startswith("note: index only: ") for ln in out.splitlines()) == 1


def test_values_still_need_the_shard(no_values: tuple[Path, dict], tmp_path: Path) -> None:
    d, _ = no_values
    with pytest.raises(index.CheckpointError, match="data-00000-of-00001"):
        index.read(d)
    code, out = run_cli("convert", str(d), str(tmp_path / "out"))
    assert code == 2 and len(out.strip().splitlines()) == 1 and out.startswith("error: ")


@pytest.mark.parametrize(("version", "saver", "label", "says"), [
    ("1.4.0", 2, "TF 1.4.0", "tensorflow_version = '1.4.0', saver_def.version = V2"),
    ("0.12.1", 1, "TF 0.12.1", "saver_def.version = V1"),
    ("2.15.1", None, "TF 2.15.1", "saver_def.version = LEGACY (V1)"),  # proto3: version 0 is absent
    (None, 1, "TF <= 0.11", "has no tensorflow_version"),
])
def test_era_from_the_meta(tmp_path: Path, version: str | None, saver: int | None, label: str, says: str) -> None:
    d = tmp_path / "ck"
    shutil.copytree(SAMPLES / "contrib1x", d)
    (d / "model.ckpt-1.meta").write_bytes(meta_graph(version, saver))
    got = api.inspect(d)
    assert got["era"] == label
    assert any(says in line for line in got["era_evidence"]), got["era_evidence"]
    assert any("V2 bundle format" in line for line in got["era_evidence"])


def test_era_without_a_meta_says_what_the_format_and_names_show() -> None:
    """The TF-2.15-written skflow sample: skflow *names*, and no claim that skflow 0.8 wrote it."""
    got = api.inspect(SAMPLES / "skflow")
    assert got["writer"] == "skflow-0.8"
    assert got["era"] == "TF <= 0.11 (V1 format; or a later TF asked for V1)"
    assert any("names do not date a file" in line for line in got["era_evidence"])
    v2 = api.inspect(SAMPLES / "contrib1x")
    assert v2["era"].startswith("TF >= 0.12")


def test_skflow_names_in_a_v2_file_are_not_dated_by_their_names(tmp_path: Path) -> None:
    entries = {"dnn/layer0/Linear/Matrix": (2, 3), "dnn/layer0/Linear/Bias": (3,)}
    ck = index.Checkpoint(prefix=str(tmp_path / "x"), format="v2",
                          entries=[index.Entry(n, "float32", list(s), 4) for n, s in entries.items()])
    got = era.era(ck)
    assert got["era"].startswith("TF >= 0.12")
    assert any("not by skflow 0.8 itself" in line for line in got["evidence"])


@pytest.mark.parametrize("cut", [0, 1, 7, 40, 5010])
def test_a_broken_meta_is_one_evidence_line_never_a_crash(tmp_path: Path, cut: int) -> None:
    d = tmp_path / "ck"
    shutil.copytree(SAMPLES / "contrib1x", d)
    (d / "model.ckpt-1.meta").write_bytes(meta_graph("1.4.0")[:cut])
    got = api.inspect(d)
    assert got["era"] == "TF >= 0.12 (V2 format; no .meta to date it further)"  # the format still dates it
    assert all("\n" not in line for line in got["era_evidence"])
    assert sum("not readable as a MetaGraphDef" in line for line in got["era_evidence"]) == 1


def test_a_v1_table_without_its_state_file_is_found_in_its_directory(tmp_path: Path) -> None:
    """TF 0.x programs saved one file (``model.ckpt``), often committed without ``checkpoint``."""
    d = tmp_path / "skflow"
    shutil.copytree(SAMPLES / "skflow", d)
    (d / "checkpoint").unlink()
    (d / "notes.ckpt").write_bytes(b"not a table")  # named like one, not one: passed over
    assert api.inspect(d)["checkpoint"] == str(d / "model.ckpt-200")
    (d / "model.ckpt-200").unlink()
    code, out = run_cli("inspect", str(d))
    assert code == 2 and "no V1 *.ckpt table" in out


def node(name: str, op: str, dtype: int = 1, shape: list[int] | None = None) -> bytes:
    """A NodeDef (1 name, 2 op, 5 attr: dtype as AttrValue.type, shape as AttrValue.shape)."""
    out = ld(1, name.encode()) + ld(2, op.encode())
    out += ld(5, ld(1, b"dtype") + ld(2, varint(6 << 3) + varint(dtype)))
    if shape is not None:
        dims = b"".join(ld(2, varint(1 << 3) + varint(d)) for d in shape)
        out += ld(5, ld(1, b"shape") + ld(2, ld(7, dims)))
    return out


def test_only_a_meta_lists_the_graph_s_variables(tmp_path: Path) -> None:
    """A ``.meta`` committed without its checkpoint: the graph's variable nodes (a partitioned one
    and its slots joined along the first axis, as a Saver saves them); values stay unreadable."""
    nodes = [node("w", "VariableV2", 1, [2, 3]), node("b/part_0", "VariableV2", 1, [2]), node("b/part_1", "VariableV2", 1, [3]),
             node("b/part_0/Adagrad", "VariableV2", 1, [2]), node("b/part_1/Adagrad", "VariableV2", 1, [3]),
             node("global_step", "VariableV2", 9, []), node("c", "Const", 1)]
    graph = b"".join(ld(1, n) for n in nodes)
    info = ld(1, b"") + ld(5, b"1.2.1")
    (tmp_path / "model.ckpt.meta").write_bytes(ld(1, info) + ld(2, graph))
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model.ckpt"\n')
    got = api.inspect(tmp_path)
    assert got["format"] == "meta-only" and got["era"] == "TF 1.2.1"
    assert got["data"].startswith("graph only: ") and "only model.ckpt.meta is here" in got["data"]
    assert {v["name"]: (v["dtype"], v["shape"], v["kind"]) for v in got["variables"]} == {
        "w": ("float32", [2, 3], "model"), "b": ("float32", [5], "model"), "b/Adagrad": ("float32", [5], "optimizer"),
        "global_step": ("int64", [], "bookkeeping")}
    assert api.inspect(tmp_path / "model.ckpt.meta")["variables"] == got["variables"]
    assert api.diff(tmp_path, str(tmp_path))["notes"][0].startswith("graph only: ")
    code, out = run_cli("convert", str(tmp_path), str(tmp_path / "out"))
    assert code == 2 and "only model.ckpt.meta is here" in out  # values need the checkpoint
    (tmp_path / "model.ckpt.meta").write_bytes(ld(1, info) + ld(2, ld(1, nodes[-1])))  # a graph without variables: one line
    code, out = run_cli("inspect", str(tmp_path))
    assert code == 2 and "makes no variables" in out and len(out.strip().splitlines()) == 1
