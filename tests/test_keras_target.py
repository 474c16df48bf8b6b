"""`tfmigrate rewrite --target keras` (issue 20): the TFM70 family and its plumbing.

- every estimator sample's ``expected_keras.py`` is exactly what ``--target keras`` makes of its
  ``legacy.py`` (a fixed point), and the default target never runs the family;
- the canned samples' Keras programs run on TensorFlow 2.21 (one child process for all of them), and
  the checkpoints they save prove the legacy hyperparameters: the Dense kernels' shapes are the
  legacy ``hidden_units`` and head, the optimizer is the legacy one at the legacy rate, and the step
  count (the optimizer's ``iterations`` and the file name's STEP) is the legacy number of steps.
"""

from __future__ import annotations

import json
import re
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from tests.clichildren import run_cli
from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CATALOG = load_catalog()
KERAS = CATALOG.selected(None, target="keras")
ESTIMATOR = CATALOG.selected(None)
ESTIMATOR_SAMPLES = ["skflow_dnn_save_restore", "learn_dnn_fit", "iris_premade", "contrib_learn_experiment", "iris_checkpoint_trap"]

# what each canned sample's legacy.py asks for: the model_dir, the Dense kernels (hidden layers, then
# the logits), the optimizer and its rate, and the steps trained
LEGACY = {
    "skflow_dnn_save_restore": ("model_dnn", [[4, 10], [10, 20], [20, 10], [10, 3]], "adagrad", 0.05, 30),
    "learn_dnn_fit": ("model_learn", [[5, 16], [16, 8], [8, 1]], "adagrad", 0.05, 40),
    "iris_premade": ("models/iris", [[4, 10], [10, 10], [10, 3]], "adagrad", 0.05, 20),
    "iris_checkpoint_trap": ("models/iris", [[4, 20], [20, 20], [20, 3]], "adagrad", 0.05, 200),
}


def estimator_names(code: bytes) -> list[str]:
    """The ``tf.estimator`` / ``tf.compat.v1.estimator`` attributes the code reads (not its docstrings)."""
    import ast

    return [ast.unparse(n) for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Attribute) and n.attr == "estimator"
            and ast.unparse(n.value) in ("tf", "tf.compat.v1", "tensorflow", "tensorflow.compat.v1")]


@pytest.mark.parametrize("name", ESTIMATOR_SAMPLES)
def test_sample_lowers_to_expected_keras(name: str):
    sample = SAMPLES / name
    expected = sample / "expected_keras.py"
    result = rewrite_source((sample / "legacy.py").read_bytes(), KERAS, path=f"{name}/legacy.py")
    assert result.new.decode() == expected.read_text()
    again = rewrite_source(result.new, KERAS, path=f"{name}/expected_keras.py")
    assert again.new == result.new, "a second run must change nothing"
    compile(result.new, str(expected), "exec")
    rules = {f.rule for f in result.findings}
    if name == "contrib_learn_experiment":
        # a custom model_fn whose input_layer reads an embedding column: its table would be get_variable'd inside the
        # Keras model's tf.function (TF 2.21: "tf.function only supports singleton tf.Variables"), so TFM705 names it;
        # its Experiment is still the train_and_evaluate helper (TFM720)
        assert {"TFM705", "TFM720"} <= rules and "TFM707" not in rules and b"canned_keras_model" not in result.new
        assert any("input_layer of embedding_column" in f.message for f in result.findings if f.rule == "TFM705")
    else:
        assert {"TFM701", "TFM702"} <= rules
        assert not estimator_names(result.new)
        assert b"disable_eager_execution" not in result.new


def test_the_default_target_never_runs_the_keras_family():
    assert not any(r.startswith("TFM70") for r in ESTIMATOR)
    assert {r for r in CATALOG.rules if r.startswith("TFM70")} <= KERAS
    legacy = (SAMPLES / "learn_dnn_fit" / "legacy.py").read_bytes()
    assert rewrite_source(legacy, ESTIMATOR).new == (SAMPLES / "learn_dnn_fit" / "expected.py").read_bytes()


def test_helpers_are_imported_once_and_only_those_used():
    code = textwrap.dedent('''\
        import tensorflow as tf

        model = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("x")], model_dir="m")
        model.train(input_fn=train_input_fn, steps=5)
        other = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("x")])
        ''').encode()
    new = rewrite_source(code, KERAS).new.decode()
    # imported once from the helpers module, only those the module calls (what they call is the module's business)
    assert "import tensorflow as tf\nfrom legacy_estimators import canned_keras_model, checkpoints, input_dataset\n\n" in new
    assert "def " not in new and "import glob" not in new
    assert 'canned_keras_model(\n    "LinearRegressor"' not in new  # one-line call stays one line
    assert 'optimizer=tf.keras.optimizers.Ftrl(learning_rate=0.2), loss_reduction="sum_over_batch_size")' in new
    assert ("model.fit(input_dataset(train_input_fn), epochs=1, steps_per_epoch=5, shuffle=False, "
            "callbacks=checkpoints(model))") in new


def test_an_unrelated_train_is_left_alone():
    code = textwrap.dedent('''\
        import tensorflow as tf

        model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column("x")])
        model.train(input_fn=f, steps=3)


        def other(model):
            model.train(input_fn=f, steps=3)  # another binding of the name: not the estimator
        ''').encode()
    new = rewrite_source(code, KERAS).new.decode()
    assert "model.fit(input_dataset(f)" in new
    assert "    model.train(input_fn=f, steps=3)  # another binding" in new


def test_max_steps_trains_up_to_that_step_and_never_zero_steps():
    code = textwrap.dedent('''\
        import tensorflow as tf

        model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column("x")])
        model.train(input_fn=f, max_steps=30)
        ''').encode()
    new = rewrite_source(code, KERAS).new.decode()
    assert ("if int(model.optimizer.iterations) < 30:\n    model.fit(input_dataset(f), epochs=1, "
            "steps_per_epoch=30 - int(model.optimizer.iterations), shuffle=False, callbacks=checkpoints(model))\n") in new


def test_a_lowered_module_is_never_put_in_graph_mode():
    code = textwrap.dedent('''\
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 1])
        model = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column("x")])
        ''').encode()
    assert b"disable_eager_execution" in rewrite_source(code, ESTIMATOR).new
    lowered = rewrite_source(code, KERAS)
    assert b"disable_eager_execution" not in lowered.new and b"canned_keras_model(" in lowered.new
    assert "TFM502" not in {f.rule for f in lowered.findings}


def test_unhonoured_arguments_leave_the_construction_with_their_names():
    code = textwrap.dedent('''\
        import tensorflow as tf

        config = tf.estimator.RunConfig(session_config=None)
        model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[], label_vocabulary=["a", "b"], config=config)
        ''').encode()
    result = rewrite_source(code, KERAS)
    assert result.new == code
    [finding] = [f for f in result.findings if f.rule == "TFM701"]
    assert not finding.fixable and "label_vocabulary=" in finding.message and "session_config=" in finding.message


@pytest.mark.slow
def test_cli_target_option_and_config_key(tmp_path: Path):
    program = tmp_path / "train.py"
    legacy = (SAMPLES / "learn_dnn_fit" / "legacy.py").read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def rewrite(*args: str) -> bytes:
        program.write_bytes(legacy)
        proc = run_cli(["rewrite", "-q", *args, str(program)], cwd=tmp_path, env=env)  # a fork: tests/clichildren.py
        assert proc.returncode in (0, 1), proc.stderr
        return program.read_bytes()

    assert rewrite() == (SAMPLES / "learn_dnn_fit" / "expected.py").read_bytes()
    assert rewrite("--target", "keras") == (SAMPLES / "learn_dnn_fit" / "expected_keras.py").read_bytes()
    from tfmigrate import keras_runtime

    assert (tmp_path / "legacy_estimators.py").read_text() == keras_runtime.helpers_module_text()
    (tmp_path / "pyproject.toml").write_text('[tool.tfmigrate]\ntarget = "keras"\n')
    assert rewrite() == (SAMPLES / "learn_dnn_fit" / "expected_keras.py").read_bytes()  # the cache keeps the targets apart
    assert rewrite("--target", "estimator") == (SAMPLES / "learn_dnn_fit" / "expected.py").read_bytes()


# --- the Keras programs on TensorFlow 2.21 ---------------------------------------------------------------
CHILD = r'''
import glob, json, os, runpy, shutil, sys, io, contextlib
import h5py


def run_program(printed):
    sys.argv = ["expected_keras.py"]
    with contextlib.redirect_stdout(printed):
        try:
            runpy.run_path("expected_keras.py", run_name="__main__")
        except SystemExit as exc:  # tf.compat.v1.app.run ends the program with sys.exit
            assert not exc.code, exc.code


out = {}
for directory, model_dir in json.loads(sys.argv[1]):
    os.chdir(directory)
    refused = None
    if glob.glob(os.path.join(model_dir, "*.index")):  # the Estimator's checkpoint of the seed-001 trap
        try:
            run_program(io.StringIO())
        except ValueError as exc:
            refused = str(exc)
        shutil.rmtree(model_dir)
    printed = io.StringIO()
    run_program(printed)
    names = sorted(n for n in os.listdir(model_dir) if n.endswith(".weights.h5"))
    with h5py.File(os.path.join(model_dir, names[-1])) as f:
        kernels = {}
        for key, group in f["layers"].items():
            if "vars" in group and "0" in group["vars"] and len(group["vars"]["0"].shape) == 2:
                kernels[group["vars"].attrs["name"]] = list(group["vars"]["0"].shape)
        optimizer = f["optimizer"]["vars"]
        out[directory] = {
            "files": names, "kernels": kernels, "optimizer": optimizer.attrs["name"],
            "iterations": int(optimizer["0"][()]), "learning_rate": float(optimizer["1"][()]), "stdout": printed.getvalue(),
            "refused": refused,
        }
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def keras_runs(tmp_path_factory):
    from tests.keras_env import keras_python, run_keras, write_helpers

    keras_python()
    root = tmp_path_factory.mktemp("keras_samples")
    plan = []
    for name, (model_dir, *_rest) in LEGACY.items():
        shutil.copytree(SAMPLES / name, root / name)
        write_helpers(root / name)
        plan.append((str(root / name), model_dir))
    proc = run_keras(["-c", CHILD, json.dumps(plan)], cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {Path(k).name: v for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LEGACY))
def test_keras_program_keeps_the_legacy_hyperparameters(keras_runs, name: str):
    model_dir, kernels, optimizer, rate, steps = LEGACY[name]
    run = keras_runs[name]
    hidden = {f"hiddenlayer_{i}": shape for i, shape in enumerate(kernels[:-1])}
    assert run["kernels"] == {**hidden, "logits": kernels[-1]}
    assert re.sub(r"_\d+$", "", run["optimizer"]) == optimizer  # Keras numbers the second adagrad of a process adagrad_1
    assert run["learning_rate"] == pytest.approx(rate)
    assert run["iterations"] == steps
    assert run["files"][-1] == f"model.ckpt-{steps}.weights.h5"
    if name == "learn_dnn_fit":
        assert "same predictions after restore: True" in run["stdout"]
    if name == "skflow_dnn_save_restore":
        assert "probabilities: (150, 3)" in run["stdout"]
    if name == "iris_checkpoint_trap":
        # models/iris holds the Estimator's [10, 10] checkpoint: the Keras program stops and says how to carry it
        # over, instead of training a new model beside it as if it were not there
        assert run["refused"] and "tfmigrate ckpt convert models/iris NEW_DIR --to keras" in run["refused"]
    else:
        assert run["refused"] is None


def test_the_sklearn_adapter_trains_and_predicts_the_keras_model():
    code = textwrap.dedent('''\
        from sklearn.pipeline import Pipeline
        from tensorflow.contrib import learn


        def main(x_train, y_train, x_test, scaler):
            classifier = learn.DNNClassifier(
                feature_columns=learn.infer_real_valued_columns_from_input(x_train), hidden_units=[10], n_classes=3)
            pipeline = Pipeline([("scaler", scaler), ("dnn", classifier)])
            pipeline.fit(x_train, y_train, dnn__steps=200)
            return list(pipeline.predict(x_test))
        ''').encode()
    result = rewrite_source(code, KERAS)
    new = result.new.decode()
    assert "self.estimator.train(" not in new and "self.estimator.predict(" not in new
    assert "self.estimator.fit(input_dataset(numpy_input_fn(" in new
    assert "if steps is None or steps > 0:" in new and new.count("estimator_predictions(self.estimator, ") == 2
    assert "class LegacyEstimatorAdapter(sklearn.base.BaseEstimator):" in new and "def __sklearn_is_fitted__(self):" in new
    assert "TFM706" not in {f.rule for f in result.findings} and not estimator_names(result.new)
    assert rewrite_source(result.new, KERAS).new == result.new


# --- DNNLinearCombined: two optimizers -------------------------------------------------------------------
COMBINED = textwrap.dedent('''\
    import numpy as np
    import tensorflow as tf

    age = tf.feature_column.numeric_column("age")
    color = tf.feature_column.categorical_column_with_vocabulary_list("color", ["red", "blue"])
    model = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[age, tf.feature_column.indicator_column(color)],
        dnn_feature_columns=[age],
        dnn_hidden_units=[4],
        n_classes=3,
        model_dir="model_combined",
        config=tf.estimator.RunConfig(save_checkpoints_steps=2),
    )
    x = {"age": np.arange(8, dtype=np.float32).reshape(8, 1), "color": np.array([["red"], ["blue"]] * 4)}
    train_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(x=x, y=np.arange(8) % 3, batch_size=4, num_epochs=None, shuffle=True)
    model.train(input_fn=train_fn, steps=3)
    print(model.evaluate(input_fn=train_fn, steps=1))
    ''').encode()


def test_dnn_linear_combined_lowers_to_combined_keras_model():
    result = rewrite_source(COMBINED, KERAS)
    new = result.new.decode()
    assert textwrap.dedent('''\
        model = combined_keras_model(
            "DNNLinearCombinedClassifier",
            linear_feature_columns=[age, tf.feature_column.indicator_column(color)],
            dnn_feature_columns=[age],
            dnn_hidden_units=[4],
            n_classes=3,
            model_dir="model_combined",
            config=dict(save_checkpoints_steps=2),
            linear_optimizer="Ftrl",
            dnn_optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.001),
            loss_reduction="sum_over_batch_size",
        )
        ''') in new
    assert "model.fit(input_dataset(train_fn), epochs=1, steps_per_epoch=3, shuffle=False, callbacks=checkpoints(model))" in new
    assert "from legacy_estimators import checkpoints, combined_keras_model, input_dataset, numpy_input_fn\n" in new
    assert {f.rule for f in result.findings} == {"TFM701", "TFM702", "TFM703", "TFM704"} and not estimator_names(result.new)
    assert rewrite_source(result.new, KERAS).new == result.new
    # the tf.compat.v1 estimator (tf.compat.v1.train optimizers, SUM reduction) stays, reported
    v1 = COMBINED.replace(b"tf.estimator.DNNLinearCombined", b"tf.compat.v1.estimator.DNNLinearCombined")
    assert "TFM706" in {f.rule for f in rewrite_source(v1, KERAS).findings}


COMBINED_CHILD = r"""
import glob, json, os, runpy
import numpy as np

runpy.run_path("program.py", run_name="__main__")  # steps 1-3
trained = runpy.run_path("program.py", run_name="__main__")["model"]  # restores step 3, trains 4-6
source = open("program.py").read()
namespace = {}
exec(source[:source.index("\nx = {")], namespace)  # the construction alone: a third model restores step 6
model = namespace["model"]
out = {
    "files": sorted(os.path.basename(p) for p in glob.glob("model_combined/*.weights.h5")),
    "iterations": [int(model.optimizer.iterations), int(model.linear_optimizer.iterations)],
    "optimizers": [type(model.optimizer).__name__, type(model.linear_optimizer).__name__],
    "linear_rate": float(model.linear_optimizer.learning_rate.numpy()),
    "layers": sorted(layer.name for layer in model.layers if layer.name in ("hiddenlayer_0", "logits", "linear_logits")),
    "restored": [len(a.variables) == len(b.variables) > 2 and all(np.array_equal(u.numpy(), v.numpy()) for u, v in zip(a.variables, b.variables))
                 for a, b in ((model.optimizer, trained.optimizer), (model.linear_optimizer, trained.linear_optimizer))],
    "weights": all(np.array_equal(u, v) for u, v in zip(model.get_weights(), trained.get_weights())),
}
print(json.dumps(out))
"""


@pytest.mark.slow
def test_dnn_linear_combined_trains_checkpoints_restores_and_resumes_on_tf_2_21(tmp_path: Path):
    from tests.keras_env import keras_python, run_keras, write_helpers

    keras_python()
    (tmp_path / "program.py").write_bytes(rewrite_source(COMBINED, KERAS).new)
    write_helpers(tmp_path)
    proc = run_keras(["-c", COMBINED_CHILD], cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # run 1: steps 1-3 (saved at 2 and at the end); run 2 restores step 3 and goes on to 6 (saved 2 steps after
    # the step it started at, 5, as the Estimator's saver counted, and at the end)
    assert out["files"] == [f"model.ckpt-{step}.weights.h5" for step in (2, 3, 5, 6)]
    assert out["iterations"] == [6, 6], "both optimizers' step counts restored"
    assert out["optimizers"] == ["Adagrad", "Ftrl"] and out["linear_rate"] == pytest.approx(0.005)  # min(0.005, 1/sqrt(2))
    assert out["layers"] == ["hiddenlayer_0", "linear_logits", "logits"]
    assert out["restored"] == [True, True] and out["weights"], "both optimizers' state and the weights restored"
