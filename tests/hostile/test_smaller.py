"""Probe 12 of issue 17: UTF-16/UTF-32 files are reported (never skipped silently), and an output
that cannot be written exits 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "utf-32-be"])
def test_wide_encodings_are_reported_even_under_check(tmp_path: Path, encoding: str) -> None:
    src = tmp_path / "w.py"
    src.write_bytes(LEGACY.decode().encode(encoding))
    before = src.read_bytes()
    proc = tfm("rewrite", "--check", "--no-cache", "w.py", cwd=tmp_path)
    assert proc.returncode == 2 and f"w.py: {encoding[:6].upper()} encoded" in proc.stderr, proc.stderr
    assert src.read_bytes() == before


def test_unwritable_output_exits_2_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "--format", "json", "-o", "missing/dir/out.json", "a.py", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "cannot write" in proc.stderr


@pytest.mark.parametrize("depth", [150, 190])
def test_deeply_nested_call_reaches_the_fixed_point(tmp_path: Path, depth: int) -> None:
    src = tmp_path / "deep.py"
    src.write_text("import tensorflow as tf\nx = " + "f(" * depth + "tf.placeholder(tf.float32)" + ")" * depth + "\n")
    first = tfm("rewrite", "--no-cache", "-q", "deep.py", cwd=tmp_path)
    assert first.returncode == 0 and "tf.compat.v1.placeholder" in src.read_text(), first.stderr
    second = tfm("rewrite", "--check", "--no-cache", "-q", "deep.py", cwd=tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
