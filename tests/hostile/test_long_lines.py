"""Issue 26, inputs that abort everything: one 5 MB line took 10 GB of memory and minutes, because a
chunk of the rewrite cannot split a line or a top-level statement. A line over 200,000 characters,
a top-level statement over 1,000,000 bytes, and a file parsed whole (at most 4,000 lines) over
1,000,000 bytes are refused with one line naming the file and line; the file is left unchanged and
the run goes on. Each is run with a memory limit (RLIMIT_AS 1.5 GB) that the old code exceeded."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.codemod.limits import MAX_LINE_CHARS, MAX_STATEMENT_BYTES

from .helpers import LEGACY

LIMIT_AS = 1536 << 20


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))

    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "tfmigrate", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env, preexec_fn=limited)


def _dense(n_bytes: int) -> str:
    return "[" + ", ".join("7" for _ in range(n_bytes // 3)) + "]"


def _check(tmp_path: Path, name: str, expected: str) -> None:
    (tmp_path / "ok.py").write_bytes(LEGACY)
    before = (tmp_path / name).read_bytes()
    proc = _run(tmp_path, "rewrite", "--no-cache", "--format", "json", ".")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    files = {f["path"]: f for f in json.loads(proc.stdout)["files"]}
    assert files[name]["status"] == "error"
    assert files[name]["error"].startswith(expected), files[name]["error"]
    assert files["ok.py"]["status"] == "changed"  # the run goes on
    assert (tmp_path / name).read_bytes() == before


def test_a_5mb_line_is_refused_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text("import tensorflow as tf\nx = " + _dense(5_000_000) + "\ny = tf.placeholder(tf.float32)\n")
    _check(tmp_path, "big.py", "big.py:2:1: line of 5,000,00")


def test_a_statement_over_many_lines_is_refused(tmp_path: Path) -> None:
    """1.2 MB in 13,500 lines (a file chunked by statements, none of which can split this one)."""
    items = "".join("    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,\n" for _ in range(13_500))
    (tmp_path / "table.py").write_text("import tensorflow as tf\n\nTABLE = [\n" + items + "]\ny = tf.placeholder(tf.float32)\n")
    _check(tmp_path, "table.py", "table.py:3:1: top-level statement of ")


def test_a_short_file_of_long_lines_is_refused(tmp_path: Path) -> None:
    row = "x = " + _dense(150_000) + "\n"
    (tmp_path / "rows.py").write_text("import tensorflow as tf\n" + row * 10)
    _check(tmp_path, "rows.py", "rows.py:1:1: 1,500,")  # 10 lines: parsed whole


def test_the_limits_leave_real_code_alone(tmp_path: Path) -> None:
    """Just under both limits: processed (the largest line of TensorFlow 2.15's own sources is 28,027
    characters, its largest top-level statement 140,235 bytes)."""
    line = "x = " + _dense(MAX_LINE_CHARS - 100) + "\n"
    assert len(line) < MAX_LINE_CHARS and len(LEGACY) + len(line) < MAX_STATEMENT_BYTES
    (tmp_path / "near.py").write_text(LEGACY.decode() + line)
    proc = _run(tmp_path, "rewrite", "--no-cache", "--check", "--format", "json", "near.py")
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["files"][0]["status"] == "changed"


@pytest.mark.parametrize("n", [199_999, 200_000, 200_001])
def test_the_line_limit_is_exact(tmp_path: Path, n: int) -> None:
    from tfmigrate.codemod.files import SourceError
    from tfmigrate.codemod.limits import check_size

    data = b"a = 1\n" + b"#" * n + b"\n"
    if n <= MAX_LINE_CHARS:
        check_size(data, "f.py")
    else:
        with pytest.raises(SourceError, match=r"^f.py:2:1: line of 200,001 bytes"):
            check_size(data, "f.py")
