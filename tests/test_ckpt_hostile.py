"""Hostile and corrupt checkpoints: one clear error line, exit 2, no traceback, no huge allocation.

Uses the small checked-in sample checkpoints (written by tests/ckpt_factory.py with TF 2.15), so
this module needs no TensorFlow at all.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import clichildren
from tests.ckpt_factory import snappy_compress, table_entries, varint, write_table
from tfmigrate.checkpoint import index
from tfmigrate.cli.ckpt import ckpt
from tfmigrate.checkpoint.index import CheckpointError, crc32c, parse_fields, snappy_decompress

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "checkpoints"


@pytest.fixture
def v2(tmp_path: Path) -> Path:
    d = tmp_path / "contrib1x"
    shutil.copytree(SAMPLES / "contrib1x", d)
    return d


def prefix_of(d: Path) -> Path:
    return next(d.glob("*.index")).with_suffix("")


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(ckpt, list(args))
    return result.exit_code, result.output


def assert_one_line_error(code: int, output: str, mentions: str) -> str:
    assert code == 2, output
    lines = [ln for ln in output.splitlines() if ln.strip()]
    assert len(lines) == 1, output
    assert lines[0].startswith("error: ")
    assert "Traceback" not in output
    assert mentions in lines[0], lines[0]
    return lines[0]


def encode_fields(fields: list[tuple[int, int, object]]) -> bytes:
    out = bytearray()
    for number, wire, value in fields:
        out += varint(number << 3 | wire)
        if wire == 0:
            out += varint(value)  # type: ignore[arg-type]
        elif wire == 2:
            out += varint(len(value)) + value  # type: ignore[arg-type]
        elif wire == 5:
            out += struct.pack("<I", value)
        elif wire == 1:
            out += struct.pack("<Q", value)
    return bytes(out)


def shape_proto(dims: list[int]) -> bytes:
    return b"".join(encode_fields([(2, 2, encode_fields([(1, 0, d)]))]) for d in dims)


# ------------------------------------------------------------------ pure decoders


def test_crc32c_known_vector() -> None:
    assert crc32c(b"123456789") == 0xE3069283
    rotated = (index.mask_crc(0x12345678) - 0xA282EAD8) & 0xFFFFFFFF  # LevelDB's unmask undoes the mask
    assert ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF == 0x12345678


@pytest.mark.parametrize("data", [b"", b"a", b"abcd" * 100, bytes(range(256)) * 3, b"xyz" * 7 + b"q" * 500])
def test_snappy_roundtrip(data: bytes) -> None:
    assert snappy_decompress(snappy_compress(data)) == data


def test_snappy_rejects_bad_offset_and_bombs() -> None:
    with pytest.raises(index._Corrupt):
        snappy_decompress(varint(10) + bytes([1 | (2 << 2), 50]))  # copy from before the start
    with pytest.raises(index._Corrupt):
        snappy_decompress(varint(1 << 40) + b"\x00a")  # claims a terabyte


def test_snappy_compressed_index_reads_the_same(v2: Path, tmp_path: Path) -> None:
    src = prefix_of(v2)
    entries = table_entries(f"{src}.index")
    out = tmp_path / "snappy"
    out.mkdir()
    (out / "model.ckpt-1.index").write_bytes(write_table(entries, snappy=True))
    shutil.copy(f"{src}.data-00000-of-00001", out / "model.ckpt-1.data-00000-of-00001")
    raw = (out / "model.ckpt-1.index").read_bytes()
    assert raw[-48 + 0:] and struct.unpack("<Q", raw[-8:])[0] == index.MAGIC
    a = index.read(src)
    b = index.read(out / "model.ckpt-1")
    assert [(e.name, e.dtype, e.shape, e.bytes) for e in a.entries] == [(e.name, e.dtype, e.shape, e.bytes) for e in b.entries]
    # at least one block really is snappy-compressed (type byte 1 before the crc)
    table = index.Table.open(out / "model.ckpt-1.index")
    _, _, off, size = table.footer()
    assert raw[off + size] == 1


# ------------------------------------------------------------------ hostile inputs through the CLI


def test_truncated_index(v2: Path) -> None:
    idx = next(v2.glob("*.index"))
    data = idx.read_bytes()
    for cut in (0, 10, 47, len(data) // 2, len(data) - 1):
        idx.write_bytes(data[:cut])
        assert_one_line_error(*run_cli("inspect", str(idx)), mentions=str(idx))


def test_bad_magic(v2: Path) -> None:
    idx = next(v2.glob("*.index"))
    data = bytearray(idx.read_bytes())
    data[-1] ^= 0xFF
    idx.write_bytes(bytes(data))
    line = assert_one_line_error(*run_cli("inspect", str(v2)), mentions=str(idx))
    assert "magic" in line


def test_wrong_crc(v2: Path) -> None:
    idx = next(v2.glob("*.index"))
    data = bytearray(idx.read_bytes())
    data[5] ^= 0x01  # inside the first data block
    idx.write_bytes(bytes(data))
    line = assert_one_line_error(*run_cli("inspect", str(prefix_of(v2))), mentions=str(idx))
    assert "crc32c" in line


def test_huge_shape_is_an_error_not_an_allocation(v2: Path) -> None:
    idx = next(v2.glob("*.index"))
    entries = table_entries(idx)
    key, value = next((k, v) for k, v in entries if k == b"dnn/logits/weights")
    fields = [(n, w, shape_proto([10**15]) if n == 2 else v) for n, w, v in parse_fields(value)]
    entries = [(k, encode_fields(fields) if k == key else v) for k, v in entries]
    idx.write_bytes(write_table(entries))
    line = assert_one_line_error(*run_cli("inspect", str(v2), "--format", "json"), mentions="dnn/logits/weights")
    assert "1e+15 elements" in line


def test_missing_data_shard(v2: Path, tmp_path: Path) -> None:
    """inspect works from the index alone (tests/test_ckpt_index_only.py); convert needs the values."""
    data = next(v2.glob("*.data-*"))
    data.unlink()
    line = assert_one_line_error(*run_cli("convert", str(v2), str(tmp_path / "out")), mentions=str(data))
    assert "missing" in line


def test_truncated_data_shard(v2: Path, tmp_path: Path) -> None:
    data = next(v2.glob("*.data-*"))
    data.write_bytes(data.read_bytes()[:10])
    assert_one_line_error(*run_cli("convert", str(v2), str(tmp_path / "out")), mentions="truncated data file")


def test_directory_without_checkpoint(tmp_path: Path) -> None:
    line = assert_one_line_error(*run_cli("inspect", str(tmp_path)), mentions=str(tmp_path))
    assert "no checkpoint" in line


def test_state_file_pointing_elsewhere(v2: Path) -> None:
    (v2 / "checkpoint").write_text('model_checkpoint_path: "/nonexistent/old_model_dir/model.ckpt-1"\n')
    line = assert_one_line_error(*run_cli("inspect", str(v2)), mentions="/nonexistent/old_model_dir/model.ckpt-1")
    assert "model_dir moved?" in line  # and says where the checkpoint really is
    assert str(v2 / "model.ckpt-1") in line


def test_state_file_without_path(v2: Path) -> None:
    (v2 / "checkpoint").write_text("garbage\n")
    assert_one_line_error(*run_cli("inspect", str(v2)), mentions="model_checkpoint_path")


def test_not_a_checkpoint(tmp_path: Path) -> None:
    f = tmp_path / "notes.index"
    f.write_bytes(b"hello world" * 10)
    assert_one_line_error(*run_cli("inspect", str(f)), mentions=str(f))
    assert_one_line_error(*run_cli("inspect", str(tmp_path / "nope")), mentions="no such checkpoint")


def test_diff_and_convert_fail_the_same_way(v2: Path, tmp_path: Path) -> None:
    idx = next(v2.glob("*.index"))
    idx.write_bytes(idx.read_bytes()[:30])
    assert_one_line_error(*run_cli("diff", str(v2), "--model", str(SAMPLES / "contrib1x")), mentions=str(idx))
    assert_one_line_error(*run_cli("convert", str(v2), str(tmp_path / "out")), mentions=str(idx))
    assert not (tmp_path / "out").exists()


def test_convert_never_writes_over_input(v2: Path) -> None:
    before = sorted((p.name, p.stat().st_mtime_ns) for p in v2.iterdir())
    assert_one_line_error(*run_cli("convert", str(v2), str(v2)), mentions="never writes over")
    assert sorted((p.name, p.stat().st_mtime_ns) for p in v2.iterdir()) == before


def test_whole_process_error_has_no_traceback(tmp_path: Path) -> None:
    proc = clichildren.run_cli(["ckpt", "inspect", str(tmp_path / "x.index")])  # python -m tfmigrate, a fork
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


# ------------------------------------------------------------------ fuzz


SAMPLE_INDEXES = [p.read_bytes() for p in sorted(SAMPLES.glob("*/*.index"))]
V1_SAMPLE = (SAMPLES / "skflow" / "model.ckpt-200").read_bytes()  # a V1 table: metadata + data in one file
SAMPLE_INDEXES.append(V1_SAMPLE)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    which=st.integers(0, len(SAMPLE_INDEXES) - 1),
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=6),
    cut=st.one_of(st.none(), st.integers(0, 10_000)),
    fix_crc=st.booleans(),
)
def test_fuzz_mutated_index(tmp_path_factory: pytest.TempPathFactory, which: int, edits: list[tuple[int, int]],
                            cut: int | None, fix_crc: bool) -> None:
    data = bytearray(SAMPLE_INDEXES[which])
    for pos, byte in edits:
        data[pos % len(data)] = byte
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    if fix_crc and len(data) >= 48:  # recompute crcs so the decoders behind the checksum get exercised
        try:
            t = index.Table(Path("x"), bytes(data))
            _, _, off, size = t.footer()
            if off + size + 5 <= len(data):
                data[off + size + 1:off + size + 5] = struct.pack("<I", index.mask_crc(crc32c(bytes(data[off:off + size + 1]))))
        except Exception:  # noqa: BLE001 - any failure just means no crc fix-up
            pass
    d = tmp_path_factory.mktemp("fuzz")
    if SAMPLE_INDEXES[which] is V1_SAMPLE:
        (d / "m").write_bytes(bytes(data))
    else:
        (d / "m.index").write_bytes(bytes(data))
        (d / "m.data-00000-of-00001").write_bytes(b"\x00" * 4096)
    try:
        ck = index.read(d / "m")
    except CheckpointError as exc:
        assert "\n" not in str(exc) and str(d / "m") in str(exc)
    else:
        assert all(isinstance(e.name, str) for e in ck.entries)
