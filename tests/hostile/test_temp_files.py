"""A validation leaves nothing in the temporary directory.

TensorFlow does: AutoGraph writes ``__autograph_generated_file*.py`` modules there and removes them
only in the interpreter's exit handlers (which the validation child skips to exit fast), and an
Estimator made without a model_dir creates a directory there that nothing removes. Every TensorFlow
child of ``validate`` therefore gets a temporary directory of its own, removed when it ends
(``childproc.child_env(tmpdir=...)``); the cluster case is checked in
``tests/test_validate_cluster_sample.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_validation_leaves_nothing_in_the_temporary_directory(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "validate", str(ROOT / "samples" / "learn_dnn_fit" / "expected.py"),
         "--steps", "4", "--device", "cpu"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, env={**os.environ, "TMPDIR": str(temporary)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in temporary.iterdir()) == []
