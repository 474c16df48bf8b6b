"""Probe 7 (interrupts) of issue 17: Ctrl-C with ``--jobs 1`` stops the run like ``--jobs N`` does,
wherever it lands (inside libcst's code generation too): exit 130, one line, no traceback, every file
old or new."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

from .helpers import LEGACY


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.9, 1.1, 1.3, 1.5, 1.7, 1.9])
def test_ctrl_c_with_one_job_is_clean(tmp_path: Path, delay: float) -> None:
    body = (LEGACY.decode() + "def f(a):\n    return tf.reduce_sum(tf.nn.relu(tf.matmul(a, a)))\n") * 60
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(body)
    proc = subprocess.Popen([sys.executable, "-m", "tfmigrate", "rewrite", "--no-cache", "--jobs", "1", "-q", "."],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    stderr = err.decode()
    rewritten = rewrite_source(body.encode(), load_catalog().selected(None)).new.decode()
    assert all(p.read_text() in (body, rewritten) for p in tmp_path.iterdir())
    assert "Traceback" not in stderr, stderr[-2000:]
    if proc.returncode == -signal.SIGINT:  # on a loaded machine, before Python itself had started (the interpreter's
        assert stderr == ""                 # own start-up, before tfmigrate/__main__.py runs): nothing read, nothing said
    elif proc.returncode != 0:  # the run may finish before the signal on a fast machine
        assert proc.returncode == 130 and "interrupted" in stderr
