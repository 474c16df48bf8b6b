"""Probe 5 of issue 17: a FIFO, socket or device named like a source never hangs a run."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "x.py")
    os.mkfifo(tmp_path / "n.ipynb")
    os.mkfifo(tmp_path / ".gitignore")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s.py"))
    sock.close()
    (tmp_path / "ok.py").write_bytes(LEGACY)
    return tmp_path


@pytest.mark.parametrize("args", [("rewrite", "."), ("rewrite", "--check", "."), ("rewrite", "x.py", "ok.py"),
                                  ("rewrite", "--jobs", "1", "."), ("report", ".")])
def test_non_regular_files_are_skipped_with_one_line(tree: Path, args: tuple[str, ...]) -> None:
    proc = tfm(*args, cwd=tree, timeout=60)  # a hang is a TimeoutExpired
    assert proc.returncode in (1, 2), proc.stderr
    assert "Traceback" not in proc.stderr
    assert "x.py: a FIFO, not a regular file: skipped" in proc.stderr + proc.stdout
    if args[0] == "rewrite" and "--check" not in args:
        assert (tree / "ok.py").read_bytes() != LEGACY


def test_read_source_does_not_block_on_a_fifo(tmp_path: Path) -> None:
    from tfmigrate.codemod.files import SourceError, read_source

    os.mkfifo(tmp_path / "x.py")
    with pytest.raises(SourceError, match="a FIFO, not a regular file"):
        read_source(tmp_path / "x.py")
