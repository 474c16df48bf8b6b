"""Probe 6 of issue 17: one bad input never aborts the run; it gets one line and the others go on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm, snapshot

not_root = pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permissions")


def hostile_sources(root: Path) -> None:
    elif_chain = "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, 260))
    (root / "a_elif.py").write_text(f"import tensorflow as tf\nx = 1\nif x == 0:\n    y = tf.placeholder(tf.float32)\n{elif_chain}")
    (root / "b_plus.py").write_text("import tensorflow as tf\ny = tf.placeholder(tf.float32)\nx = " + " + ".join(["y"] * 500) + "\n")
    (root / "c_nested.ipynb").write_text("[" * 2000 + "]" * 2000)
    (root / "d_ok.py").write_bytes(LEGACY)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_deep_and_long_code_is_that_files_one_line_error(tmp_path: Path, jobs: str) -> None:
    hostile_sources(tmp_path)
    before = snapshot(tmp_path)
    proc = tfm("rewrite", "--no-cache", "-q", "--jobs", jobs, ".", cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error: ")]
    assert sorted(ln.split(":")[1].strip() for ln in errors) == ["a_elif.py", "b_plus.py", "c_nested.ipynb"], proc.stderr
    assert all("recursion limit" in ln for ln in errors)
    after = snapshot(tmp_path)
    assert after["d_ok.py"] != LEGACY  # the run went on
    assert {k: v for k, v in after.items() if k != "d_ok.py"} == {k: v for k, v in before.items() if k != "d_ok.py"}


@not_root
def test_read_only_directory_and_unreadable_subdirectory(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "a.py").write_bytes(LEGACY)
    (tmp_path / "locked").mkdir()
    (tmp_path / "z.py").write_bytes(LEGACY)
    os.chmod(tmp_path / "ro", 0o555)
    os.chmod(tmp_path / "locked", 0)
    try:
        proc = tfm("rewrite", "--no-cache", ".", cwd=tmp_path)
    finally:
        os.chmod(tmp_path / "ro", 0o755)
        os.chmod(tmp_path / "locked", 0o755)
    assert "Traceback" not in proc.stderr and proc.returncode == 2
    assert "ro/a.py: cannot write" in proc.stderr and "locked: cannot read directory" in proc.stderr
    assert (tmp_path / "ro" / "a.py").read_bytes() == LEGACY
    assert (tmp_path / "z.py").read_bytes() != LEGACY

