"""The pure-Python index reader against ``tf.train.list_variables`` on every checkpoint kind.

One TF child process (tests/ckpt_factory.py) writes every kind, with legacy names and shapes, and
records what TensorFlow itself lists; the reader must agree exactly (names, shapes, dtypes), keep
partitioned variables' slice keys apart, and recognise the writer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.checkpoint import api, classify, index
from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

EXPECTED_WRITER = {
    "skflow": "skflow-0.8", "contrib09": "contrib.learn-0.9", "contrib1x": "contrib.learn-1.x",
    "estimator_v1": "estimator-v1", "estimator_v2": "estimator-v2", "v2_iris_10x10": "estimator-v2",
    "keras": "object-based", "tfcheckpoint": "object-based", "partitioned": "contrib.learn-1.x",
}
KINDS = ["skflow", "contrib09", "contrib1x", "estimator_v1", "estimator_v2", "keras", "tfcheckpoint", "partitioned"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("ckpts")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    run_python([str(ROOT / "tests" / "ckpt_factory.py"), str(out), *KINDS], check=True, env=env, timeout=600)
    return json.loads((out / "manifest.json").read_text())


@pytest.mark.parametrize("kind", KINDS)
def test_reader_matches_tf_list_variables(made: dict, kind: str) -> None:
    m = made[kind]
    ck = index.read(m["prefix"])
    assert sorted([e.name, e.shape] for e in ck.entries) == sorted(m["list_variables"])
    assert {e.name: e.dtype for e in ck.entries} == m["dtypes"]
    # the model_dir and the .index file resolve to the same checkpoint
    assert index.read(m["dir"]).prefix == ck.prefix if kind not in ("keras",) else True
    assert index.read(m["prefix"] + ".index").prefix == ck.prefix if ck.format == "v2" else True


@pytest.mark.parametrize("kind", KINDS)
def test_writer_and_kinds(made: dict, kind: str) -> None:
    data = api.inspect(made[kind]["prefix"])
    assert data["writer"] == EXPECTED_WRITER[kind]
    assert set(data) == {"schema", "checkpoint", "format", "writer", "era", "era_evidence", "data", "variables"}
    assert data["data"] == "complete"
    if kind.startswith("estimator"):  # a TF 2.15 Estimator writes model.ckpt-N.meta: its version dates the file
        assert data["era"].startswith("TF 2.15"), data["era_evidence"]
    elif kind in ("skflow", "contrib09"):  # V1 written by TF 2.15 without a .meta: not called skflow 0.8's
        assert data["era"] == "TF <= 0.11 (V1 format; or a later TF asked for V1)"
    assert all(set(v) == {"name", "dtype", "shape", "bytes", "kind"} for v in data["variables"])
    kinds = {v["name"]: v["kind"] for v in data["variables"]}
    if "global_step" in kinds:
        assert kinds["global_step"] == "bookkeeping"
    for name, k in kinds.items():
        if name.endswith(("/Adagrad", "/accumulator")) or name.startswith("training/") or "/t_0/" in name:
            assert k == "optimizer", name
        if name.endswith(("/kernel", "/weights", "/Matrix")):
            assert k == "model", name


def test_formats(made: dict) -> None:
    assert index.read(made["skflow"]["prefix"]).format == "v1"
    assert index.read(made["contrib09"]["prefix"]).format == "v1"
    assert index.read(made["estimator_v2"]["prefix"]).format == "v2"


def test_v1_and_v2_optimizer_slots(made: dict) -> None:
    v1 = {v["name"]: v["kind"] for v in api.inspect(made["estimator_v1"]["prefix"])["variables"]}
    v2 = {v["name"]: v["kind"] for v in api.inspect(made["estimator_v2"]["prefix"])["variables"]}
    assert v1["dnn/hiddenlayer_0/kernel/t_0/Adagrad"] == "optimizer"
    assert v2["training/Adagrad/dnn/hiddenlayer_0/kernel/accumulator"] == "optimizer"
    assert v2["training/Adagrad/learning_rate"] == "optimizer"
    keras = api.inspect(made["keras"]["prefix"])["variables"]
    assert {v["kind"] for v in keras if v["name"] == "_CHECKPOINTABLE_OBJECT_GRAPH"} == {"bookkeeping"}
    assert any(v["kind"] == "optimizer" and v["name"].startswith("optimizer/") for v in keras)


def test_partitioned_slices_kept_apart(made: dict) -> None:
    ck = index.read(made["partitioned"]["prefix"])
    name = "dnn/input_from_feature_columns/words_embedding/weights"
    entry = ck.by_name()[name]
    assert entry.partitioned and entry.shape == [30, 4]
    assert len(ck.slices) == 3 and {s.name for s in ck.slices} == {name}
    assert entry.bytes == 30 * 4 * 4 == sum(s.bytes for s in ck.slices)
    assert not any(e.name.startswith("\x00") for e in ck.entries)


def test_bytes_match_data_file_for_plain_checkpoints(made: dict) -> None:
    m = made["estimator_v2"]
    ck = index.read(m["prefix"])
    data = Path(m["prefix"] + ".data-00000-of-00001").stat().st_size
    assert sum(e.bytes for e in ck.entries) == data


def test_writer_labels_cover_every_key() -> None:
    assert set(EXPECTED_WRITER.values()) <= set(classify.WRITERS)


@pytest.mark.parametrize("command", ["inspect", "diff"])
def test_checkpoint_side_never_imports_tensorflow(made: dict, command: str) -> None:
    ck = made["estimator_v2"]["prefix"]
    other = made["estimator_v1"]["dir"]
    code = (
        "import sys, json\n"
        "from tfmigrate.checkpoint import api\n"
        f"r = api.inspect({ck!r}) if {command!r} == 'inspect' else api.diff({ck!r}, {other!r})\n"
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'\n"
        "print(json.dumps(r)[:50])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


def test_inspect_whole_process_never_imports_tensorflow(made: dict, tmp_path: Path) -> None:
    """`tfmigrate ckpt inspect` as a whole process reads the checkpoint itself: a tensorflow module first on
    the path would leave a mark (how long the process takes: benchmarks/bench_ckpt_inspect.py, which times it
    against tf.train.list_variables; this test had a 3 s wall-time bound, TF's own import being longer)."""
    fake = tmp_path / "fake"
    fake.mkdir()
    mark = tmp_path / "imported"
    (fake / "tensorflow.py").write_text(f"open({str(mark)!r}, 'w').close()\nraise ImportError('fake')\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "ckpt", "inspect", made["estimator_v2"]["dir"], "--format", "json"],
                          capture_output=True, text=True, timeout=60, check=False, env={**os.environ, "PYTHONPATH": str(fake)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["writer"] == "estimator-v2"
    assert not mark.exists()
