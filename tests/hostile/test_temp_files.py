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


MODEL = '''import tensorflow as tf

FEATURES = [tf.feature_column.numeric_column("x", shape=[4])]
c = tf.estimator.DNNClassifier(feature_columns=FEATURES, hidden_units=[{units}], n_classes=3)
'''
TRAP = ROOT / "samples" / "iris_checkpoint_trap" / "models" / "iris"


def _ckpt_diff(tmp_path: Path, temporary: Path, units: str) -> subprocess.Popen:
    model = tmp_path / "model.py"
    model.write_text(MODEL.format(units=units), encoding="utf-8")
    return subprocess.Popen([sys.executable, "-m", "tfmigrate", "ckpt", "diff", str(TRAP), "--model", f"{model}:4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "TMPDIR": str(temporary)})


@pytest.mark.slow
@pytest.mark.parametrize("units", ["10, 10", "10, -1"])  # a model that builds, and one whose construction fails in the child
def test_ckpt_diff_leaves_no_model_directory(tmp_path: Path, units: str) -> None:
    """Issue 26: every `ckpt diff --model` left a `tfmigrate-model-*` directory in the temporary directory."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    proc = _ckpt_diff(tmp_path, temporary, units)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == (0 if units == "10, 10" else 2), out + err
    assert sorted(p.name for p in temporary.iterdir()) == []


@pytest.mark.slow
def test_ckpt_diff_interrupted_leaves_no_model_directory(tmp_path: Path) -> None:
    """Ctrl-C while the TensorFlow child works: the child is stopped and its temporary directory removed."""
    import signal
    import time

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    proc = _ckpt_diff(tmp_path, temporary, "10, 10")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any(temporary.glob("*/tfmigrate-model-*")):
        time.sleep(0.05)
    assert any(temporary.glob("*/tfmigrate-model-*")), "the child never made its model directory"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert sorted(p.name for p in temporary.iterdir()) == []
