"""Issue 26: `validate --target keras --program` wrote `model.ckpt-*.weights.h5` into the user's real
`models/` directory (the scratch working directory linked to what lay beside the program). Now a program
runs in a copy of its tree (tfmigrate/validate/scratch.py), for --target keras and for the estimator's
`validate --program` alike: the user's files, and what a symlink among them points to, stay as they were."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import snapshot

# a "Keras program" that needs no TensorFlow: it checkpoints under a model_dir tfmigrate cannot see statically
# and resumes from it, as validate --program expects, and writes beside it (its data directory, a symlinked one)
KERAS_PROGRAM = '''\
import os

model_dir = os.path.join("models", "iris")
os.makedirs(model_dir, exist_ok=True)
done = [int(n[len("model.ckpt-"):-len(".weights.h5")]) for n in os.listdir(model_dir) if n.endswith(".weights.h5")]
step = max(done, default=0) + 10
open(os.path.join(model_dir, f"model.ckpt-{step}.weights.h5"), "w").write("weights")
open(os.path.join("data", "log.txt"), "a").write("ran\\n")
open(os.path.join("shared", "through-the-link.txt"), "a").write("ran\\n")
'''

ESTIMATOR_PROGRAM = '''\
import os

import numpy as np
import tensorflow as tf

os.makedirs(os.path.join("models", "run"), exist_ok=True)
open(os.path.join("models", "run", "started.txt"), "w").write("before training")
open(os.path.join("shared", "through-the-link.txt"), "a").write("ran\\n")


def input_fn():
    x = np.random.RandomState(0).rand(8, 4).astype("float32")
    return tf.data.Dataset.from_tensor_slices(({"x": x}, np.arange(8) % 3)).batch(4).repeat()


if __name__ == "__main__":
    est = tf.estimator.DNNClassifier(feature_columns=[tf.feature_column.numeric_column("x", shape=[4])], hidden_units=[4],
                                     n_classes=3, model_dir=os.path.join("models", "run"))
    est.train(input_fn, steps=5)
'''


def tree(tmp_path: Path, program: str) -> Path:
    root = tmp_path / "project"
    (root / "models").mkdir(parents=True)
    (root / "models" / "README.txt").write_text("the user's models\n")
    (root / "data").mkdir()
    (root / "data" / "train.csv").write_text("1,2,3\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept.txt").write_text("the user's other directory\n")
    (root / "shared").symlink_to(outside, target_is_directory=True)
    (root / "train.py").write_text(program, encoding="utf-8")
    return root


def validate(root: Path, *args: str) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", *args, "--format", "json"], cwd=root,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    return proc.returncode, json.loads(proc.stdout)


def test_keras_program_runs_in_a_copy(tmp_path: Path) -> None:
    root = tree(tmp_path, KERAS_PROGRAM)
    before = snapshot(tmp_path)
    code, result = validate(root, "--target", "keras", "--program", "train.py", "--python", sys.executable)
    assert code == 0, result
    assert "models/iris: model.ckpt-10 -> model.ckpt-20.weights.h5" in next(s for s in result["stages"] if s["name"] == "resume")["detail"]
    assert snapshot(tmp_path) == before  # nothing written in models/, data/, nor through the link
    assert not Path(result["model_dir"]).exists()  # the copy is removed after a passing run


@pytest.mark.slow
def test_estimator_program_runs_in_a_copy(tmp_path: Path) -> None:
    root = tree(tmp_path, ESTIMATOR_PROGRAM)
    before = snapshot(tmp_path)
    code, result = validate(root, "--program", "train.py", "--steps", "2", "--device", "cpu")
    assert code == 0, result
    assert "the program ran as __main__ up to its first Estimator.train" in result["stages"][0]["detail"]
    assert snapshot(tmp_path) == before
    assert not list(tmp_path.rglob("started.txt"))
