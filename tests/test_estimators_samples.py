"""The migrated estimator samples run on TensorFlow 2.15 and keep the legacy model (TFM1).

For each sample one child process runs ``expected.py`` (the three start together) (cwd: a temporary directory, tiny data, few
steps). The child records every ``tf.estimator`` canned estimator the program builds (a subclass
that remembers its constructor arguments; the real estimator runs), then builds a fresh estimator
with the same arguments, which restores the checkpoint from ``model_dir``, and compares its
predictions with the trained one's. It reads the checkpoint with ``tf.train.load_checkpoint`` and
prints one JSON summary; the assertions below are on that JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.tfchildren import run_python

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

CHILD = r'''
import json, os, runpy, sys
import numpy as np
import tensorflow as tf

sample, mode = sys.argv[1], sys.argv[2]
created = []
original = tf.estimator.DNNClassifier


class Recording(original):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        created.append((self, args, kwargs))


tf.estimator.DNNClassifier = Recording
g = runpy.run_path(sample, run_name="sample")
if mode == "main":
    g["main"]([])
    test_x, test_y = g["load_data"](1, 30)
    predict_input = lambda: (lambda: g["eval_input_fn"](test_x, test_y, 100))
else:
    data = g[mode]
    predict_input = lambda: tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": data}, shuffle=False, num_epochs=1)

estimator, args, kwargs = created[0]
fresh = original(*args, **kwargs)  # a new estimator on the same model_dir restores the checkpoint
out_trained = list(estimator.predict(input_fn=predict_input()))
out_restored = list(fresh.predict(input_fn=predict_input()))
trained = [p["class_ids"][0] for p in out_trained]
restored = [p["class_ids"][0] for p in out_restored]
probabilities_trained = np.array([p["probabilities"] for p in out_trained])
probabilities_restored = np.array([p["probabilities"] for p in out_restored])

reader = tf.train.load_checkpoint(estimator.model_dir)
shapes = reader.get_variable_to_shape_map()
optimizers = sorted({name.split("/")[1] for name in shapes if name.startswith("training/")})
summary = {
    "estimators": len(created),
    "model_dir": os.path.relpath(estimator.model_dir),
    "equal_predictions": [int(v) for v in trained] == [int(v) for v in restored],
    "probabilities_close": bool(np.allclose(probabilities_trained, probabilities_restored)),
    "n_predictions": len(trained),
    "kernels": [shapes[f"dnn/hiddenlayer_{i}/kernel"] for i in range(10) if f"dnn/hiddenlayer_{i}/kernel" in shapes],
    "logits": shapes["dnn/logits/kernel"],
    "optimizers": optimizers,
    "slots": sorted(n for n in shapes if n.endswith("/accumulator")),
    "learning_rate": float(reader.get_tensor(f"training/{optimizers[0]}/learning_rate")),
    "global_step": int(reader.get_tensor("global_step")),
    "checkpoints": sorted(f for f in os.listdir(estimator.model_dir) if f.endswith(".index")),
    "program": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in g.items()
                if k in ("predicted", "predictions", "restored_predictions", "accuracy", "labels")},
}
if mode == "features":  # the optimizer callable builds a fresh optimizer: a second train() works
    estimator.train(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"x": data}, y=g["labels"], batch_size=32, shuffle=True, num_epochs=None), steps=2)
    summary["second_train_step"] = int(tf.train.load_checkpoint(estimator.model_dir).get_tensor("global_step"))
print("JSON:" + json.dumps(summary, default=lambda o: o.item()))
'''


MODES = {"skflow_dnn_save_restore": "features", "learn_dnn_fit": "x_test", "iris_premade": "main"}
CATALOG = Path(__file__).resolve().parent.parent / "rules" / "estimators.toml"
# catalog examples whose `after` is a whole program (no names defined elsewhere): they must run on TF 2.15
RUNNABLE = ["TFM101-1", "TFM101-2", "TFM101-5", "TFM106-1", "TFM108-1", "TFM108-4", "TFM109-1", "TFM109-2", "TFM112-3"]

EXAMPLES_CHILD = r'''
import json, os, sys, tempfile, tomllib
import tensorflow as tf

rules = {r["id"]: r for r in tomllib.load(open(sys.argv[1], "rb"))["rules"]}
result = {}
for key in sys.argv[2:]:
    rule, number = key.rsplit("-", 1)
    program = rules[rule]["examples"][int(number) - 1]["after"]
    os.chdir(tempfile.mkdtemp())
    try:
        exec(compile(program, key, "exec"), {"__name__": key})
        result[key] = "ok"
    except Exception as exc:  # reported to the parent, which fails the test with it
        result[key] = f"{type(exc).__name__}: {exc}"[:500]
print("JSON:" + json.dumps(result))
'''


@pytest.fixture(scope="module")
def children(tmp_path_factory):
    """The three sample programs and the catalog examples: each one TensorFlow child (a fork of the
    suite's TensorFlow server, tests/tfchildren.py), run when a test first asks for it."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", PYTHONHASHSEED="0")
    jobs = {}
    for name, mode in MODES.items():
        cwd = tmp_path_factory.mktemp(name)
        program = cwd / "expected.py"
        program.write_bytes((SAMPLES / name / "expected.py").read_bytes())
        jobs[name] = (["-c", CHILD, str(program), mode], cwd)
    jobs["examples"] = (["-c", EXAMPLES_CHILD, str(CATALOG), *RUNNABLE], tmp_path_factory.mktemp("examples"))
    done = {}

    def run(name: str):
        if name not in done:
            args, cwd = jobs[name]
            done[name] = run_python(args, cwd=cwd, env=env, timeout=300)
        return done[name]

    return run


def run_sample(children, name: str) -> dict:
    child = children(name)
    lines = [line for line in child.stdout.splitlines() if line.startswith("JSON:")]
    assert child.returncode == 0 and lines, child.stderr[-3000:]
    return json.loads(lines[-1][5:])


def _adagrad_slots(kernels: list[list[int]]) -> list[str]:
    layers = [f"dnn/hiddenlayer_{i}" for i in range(len(kernels))] + ["dnn/logits"]
    return sorted(f"training/Adagrad/{layer}/{leaf}/accumulator" for layer in layers for leaf in ("bias", "kernel"))


@pytest.mark.slow
def test_seed000_skflow_dnn_trains_saves_and_restores_with_its_optimizer(children):
    """TensorFlowDNNClassifier(hidden_units=[10, 20, 10], n_classes=3, steps=30, optimizer=AdagradOptimizer(0.05))."""
    summary = run_sample(children, "skflow_dnn_save_restore")
    assert summary["estimators"] == 2  # the trained one and the one restore() became
    assert summary["model_dir"] == "model_dnn"  # the save() path became model_dir
    assert summary["checkpoints"] == ["model.ckpt-0.index", "model.ckpt-30.index"]
    assert summary["equal_predictions"] and summary["probabilities_close"] and summary["n_predictions"] == 150
    assert summary["kernels"] == [[4, 10], [10, 20], [20, 10]]  # hidden_units=[10, 20, 10] on 4 features
    assert summary["logits"] == [10, 3]  # n_classes=3
    assert summary["optimizers"] == ["Adagrad"]  # the legacy optimizer object's class...
    assert summary["slots"] == _adagrad_slots(summary["kernels"])
    assert summary["learning_rate"] == pytest.approx(0.05)  # ...and its rate, not the Keras default
    assert summary["global_step"] == 30  # steps=30 from the constructor
    assert summary["second_train_step"] == 32  # an optimizer instance would fail here ("Cannot set iterations")
    program = summary["program"]
    assert len(program["predicted"]) == 150 and set(program["predicted"]) <= {0, 1, 2}  # classes, as legacy predict


@pytest.mark.slow
def test_seed000_learn_dnn_classifier_fit_evaluate_predict(children):
    """learn.DNNClassifier(hidden_units=[16, 8], n_classes=2, model_dir=...).fit(x=, y=, steps=40)."""
    summary = run_sample(children, "learn_dnn_fit")
    assert summary["estimators"] == 2 and summary["model_dir"] == "model_learn"
    assert summary["equal_predictions"] and summary["probabilities_close"] and summary["n_predictions"] == 40
    assert summary["kernels"] == [[5, 16], [16, 8]]  # width inferred from x_train (5 features)
    assert summary["logits"] == [8, 1]  # binary: one logit
    assert summary["optimizers"] == ["Adagrad"] and summary["slots"] == _adagrad_slots(summary["kernels"])
    assert summary["learning_rate"] == pytest.approx(0.05)  # contrib.learn's default, not TF 2's 0.001
    assert summary["global_step"] == 40
    program = summary["program"]
    assert program["predictions"] == program["restored_predictions"]
    assert 0.0 <= program["accuracy"] <= 1.0


@pytest.mark.slow
def test_seed001_iris_premade_keeps_model_dir_and_tf1_rate(children):
    """tf.estimator.DNNClassifier(hidden_units=[10, 10], n_classes=3, model_dir="models/iris", config=...)."""
    summary = run_sample(children, "iris_premade")
    assert summary["estimators"] == 1 and summary["model_dir"] == os.path.join("models", "iris")
    assert summary["equal_predictions"] and summary["probabilities_close"] and summary["n_predictions"] == 30
    assert summary["kernels"] == [[4, 10], [10, 10]] and summary["logits"] == [10, 3]
    assert summary["optimizers"] == ["Adagrad"] and summary["slots"] == _adagrad_slots(summary["kernels"])
    assert summary["learning_rate"] == pytest.approx(0.05)  # TF 1.x rate; TF 2.15's default would be 0.001
    assert summary["global_step"] == 20


@pytest.mark.slow
def test_catalog_example_programs_run_on_tf215(children):
    """The rewritten catalog examples that are whole programs train, predict and restore for real."""
    result = run_sample(children, "examples")
    assert result == {key: "ok" for key in RUNNABLE}
