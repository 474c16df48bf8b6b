"""The Estimator's training loops on the Keras road (issue 31): TFM720, TFM721 and TFM702's ``hooks=``.

- every form of ``tf.estimator.train_and_evaluate`` / ``TrainSpec`` / ``EvalSpec`` (import forms, a module
  alias, tf.compat.v1, keyword / positional / ``**`` calls, specs through a name, a function's return, a
  parameter, a tuple, in module / function / method / ``__main__`` scope) and contrib.learn's
  ``Experiment`` + ``learn_runner.run`` becomes the helpers of the same names, and nothing of
  ``tf.estimator`` is left; a spec with ``saving_listeners=`` is left with TFM706 on its line (``exporters=``:
  tests/test_keras_exports_metrics.py);
- the evaluation and early-stopping hooks (also what TFM130 writes for a ``ValidationMonitor``) become the
  Keras callbacks of the same names, and ``train(hooks=[...])`` of them a ``fit`` with them as callbacks;
  a hook list tfmigrate cannot see keeps TFM702's manual finding on its line;
- on TensorFlow 2.21, in one child for the whole module: the steps trained (``max_steps`` counted from the
  restored step, nothing trained once it is reached), the evaluations after the checkpoints at the
  ``throttle_secs`` cadence and at the end, the returned metrics, the early stop at the step the
  Estimator stopped at (evaluations at 0, 100, 200, stop after step 201), and an Experiment run by
  learn_runner.
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")
LOOP_NAMES = {"TrainSpec", "EvalSpec", "train_and_evaluate"}


def lowered(code: str) -> tuple[str, set[str], list]:
    result = rewrite_source(textwrap.dedent(code).encode(), KERAS)
    assert rewrite_source(result.new, KERAS).new == result.new, "a second run must change nothing"
    return result.new.decode(), {f.rule for f in result.findings if f.fixable}, result.findings


def estimator_reads(code: str) -> list[str]:
    """What the code still reads of tf.estimator (attributes named estimator, TrainSpec...)."""
    out = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Attribute) and (node.attr in LOOP_NAMES or node.attr == "estimator" or node.attr == "experimental"):
            out.append(ast.unparse(node))
        if isinstance(node, ast.ImportFrom) and node.module and "estimator" in node.module and "legacy_estimators" not in node.module:
            out.append(node.module)
    return out


def helper_imports(code: str) -> set[str]:
    return {a.name for n in ast.walk(ast.parse(code)) if isinstance(n, ast.ImportFrom) and n.module == "legacy_estimators"
            for a in n.names}


# (imports, how the module names tf.estimator)
IMPORT_FORMS = [
    ("import tensorflow as tf", "tf.estimator"),
    ("import tensorflow as tf\nest = tf.estimator", "est"),
    ("from tensorflow import estimator", "estimator"),
    ("import tensorflow.estimator as E", "E"),
    ("import tensorflow as tf", "tf.compat.v1.estimator"),
    ("from tensorflow.compat.v1 import estimator as v1est", "v1est"),
]
CALL_FORMS = {
    "keywords": "{E}.train_and_evaluate(estimator=model, train_spec={E}.TrainSpec(input_fn=train_fn, max_steps=20), "
                "eval_spec={E}.EvalSpec(input_fn=eval_fn, steps=2, throttle_secs=0))",
    "positional": "result = {E}.train_and_evaluate(model, {E}.TrainSpec(train_fn, 20), {E}.EvalSpec(eval_fn, 2, None, None, None, 120, 0))",
    "kwargs": "kw = dict(input_fn=eval_fn, steps=2)\n{E}.train_and_evaluate(model, train_spec={E}.TrainSpec(**dict(input_fn=train_fn)), "
              "eval_spec={E}.EvalSpec(**kw))",
    "names": "train_spec = {E}.TrainSpec(train_fn, max_steps=20)\neval_spec = {E}.EvalSpec(eval_fn)\n"
             "metrics, exports = {E}.train_and_evaluate(model, train_spec, eval_spec)",
    "function": "def specs():\n    return {E}.TrainSpec(train_fn, max_steps=20), {E}.EvalSpec(eval_fn)\n\n\n"
                "def run(model):\n    {E}.train_and_evaluate(model, *specs())",
    "parameter": "def run(model, spec_type={E}.TrainSpec):\n    return {E}.train_and_evaluate(model, spec_type(train_fn), {E}.EvalSpec(eval_fn))",
    "method": "class Trainer:\n    def run(self):\n        self.spec = {E}.EvalSpec(eval_fn)\n"
              "        {E}.train_and_evaluate(self.model, {E}.TrainSpec(train_fn), self.spec)",
    "main": "if __name__ == \"__main__\":\n    {E}.train_and_evaluate(model, {E}.TrainSpec(train_fn), {E}.EvalSpec(eval_fn))",
}


@pytest.mark.parametrize("imports, spelled", IMPORT_FORMS, ids=[f"{i}:{s}" for i, s in IMPORT_FORMS])
@pytest.mark.parametrize("form", sorted(CALL_FORMS))
def test_every_form_of_the_training_loop_becomes_the_helpers(imports: str, spelled: str, form: str) -> None:
    code = f"{imports}\n\n{CALL_FORMS[form].format(E=spelled)}\n"
    new, fixed, findings = lowered(code)
    if form == "parameter":  # the default value names TrainSpec without calling it: TFM706 on that line
        assert "TFM706" in {f.rule for f in findings if not f.fixable} and {"TrainSpec", "EvalSpec"} & helper_imports(new)
        return
    if spelled == "est":  # a module alias: the alias line, which nothing reads any more, is reported (TF 2.16+ lacks it)
        assert [(f.line, f.rule) for f in findings if not f.fixable] == [(2, "TFM706")]
        assert estimator_reads(new) == ["tf.estimator"]
        return
    assert not estimator_reads(new), new
    assert "TFM720" in fixed and helper_imports(new) >= LOOP_NAMES, new
    assert not [f for f in findings if not f.fixable], [f.message for f in findings]


def test_a_spec_with_what_keras_has_no_form_for_is_left_with_its_finding() -> None:
    new, _, findings = lowered('''\
        import tensorflow as tf

        exporter = tf.estimator.LatestExporter("servo", serving_fn)
        eval_spec = tf.estimator.EvalSpec(eval_fn, 10, None, None, [exporter])
        train_spec = tf.estimator.TrainSpec(train_fn, saving_listeners=[listener])
        tf.estimator.train_and_evaluate(model, train_spec, eval_spec)
        ''')
    # exporters are TFM723's helpers, run by the EvalSpec helper; saving listeners have no Keras form
    assert "EvalSpec(eval_fn, 10" in new and "tf.estimator.TrainSpec(train_fn, saving" in new
    assert "\ntrain_and_evaluate(model, train_spec, eval_spec)" in new
    manual = {(f.line, f.rule) for f in findings if not f.fixable}
    assert {(5, "TFM706")} <= manual and not {(3, "TFM706"), (4, "TFM706")} & manual, manual


EXPERIMENT_FORMS = [
    "import tensorflow as tf\nfrom tensorflow.contrib.learn.python.learn import learn_runner\nlearn = tf.contrib.learn\n",
    "import tensorflow as tf\nimport tensorflow.contrib.learn as learn\nlearn_runner = learn.learn_runner\n",
    "import tensorflow as tf\nfrom tensorflow.contrib import learn\nfrom tensorflow.contrib.learn import learn_runner\n",
]
EXPERIMENT = '''
def experiment_fn(output_dir):
    estimator = learn.LinearClassifier(feature_columns=[tf.contrib.layers.real_valued_column("x", dimension=4)],
                                       model_dir=output_dir)
    return learn.Experiment(estimator, train_input_fn=train_fn, eval_input_fn=eval_fn, train_steps=20, eval_steps=2)


learn_runner.run(experiment_fn, output_dir="out")
'''


@pytest.mark.parametrize("imports", EXPERIMENT_FORMS)
def test_a_contrib_learn_experiment_run_by_learn_runner_becomes_the_helpers(imports: str) -> None:
    new, fixed, findings = lowered(imports + EXPERIMENT)
    assert "TFM720" in fixed and helper_imports(new) >= LOOP_NAMES | {"canned_keras_model"}, new
    assert "\ntrain_and_evaluate(*experiment_fn(output_dir=\"out\"))" in new and not estimator_reads(new)
    assert not [f for f in findings if not f.fixable], [f.message for f in findings if not f.fixable]


HOOK_FORMS = [
    ("import tensorflow as tf", "tf.estimator.experimental"),
    ("from tensorflow.estimator import experimental", "experimental"),
    ("import tensorflow as tf", "tf.compat.v1.estimator.experimental"),
]


@pytest.mark.parametrize("imports, spelled", HOOK_FORMS, ids=[s for _, s in HOOK_FORMS])
def test_the_hooks_become_callbacks_and_train_a_fit_with_them(imports: str, spelled: str) -> None:
    new, fixed, findings = lowered(f'''\
        {imports}
        import tensorflow as tf

        model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns, model_dir="m")
        model.train(train_fn, steps=300, hooks=[{spelled}.InMemoryEvaluatorHook(model, eval_fn, every_n_iter=50),
                                                 {spelled}.stop_if_no_increase_hook(model, "accuracy", 100)])
        ''')
    assert {"TFM721", "TFM702"} <= fixed and not estimator_reads(new), new
    [fit] = [n for n in ast.walk(ast.parse(new)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "model.fit"]
    assert ast.unparse(fit) == ("model.fit(input_dataset(train_fn), epochs=1, steps_per_epoch=300, shuffle=False, callbacks=["
                                "InMemoryEvaluatorHook(model, eval_fn, every_n_iter=50), "
                                "stop_if_no_increase_hook(model, 'accuracy', 100)] + checkpoints(model))")


def test_a_validation_monitor_becomes_the_callbacks() -> None:
    new, fixed, findings = lowered('''\
        import tensorflow as tf
        from tensorflow.contrib import learn


        def main(x, y, x_val, y_val):
            monitor = learn.monitors.ValidationMonitor(x_val, y_val, every_n_steps=10, early_stopping_rounds=20)
            classifier = learn.DNNClassifier(feature_columns=learn.infer_real_valued_columns_from_input(x),
                                             hidden_units=[4], n_classes=3, model_dir="m")
            classifier.fit(x=x, y=y, steps=100, monitors=[monitor])
        ''')
    assert {"TFM721", "TFM702", "TFM701"} <= fixed and not estimator_reads(new), new
    assert "InMemoryEvaluatorHook(" in new and "stop_if_no_decrease_hook(" in new and "+ checkpoints(classifier)" in new


def test_hooks_through_a_name_bound_once_are_callbacks_too() -> None:
    new, fixed, findings = lowered('''\
        import tensorflow as tf


        def main(model_dir):
            hooks = [tf.estimator.experimental.InMemoryEvaluatorHook(model, eval_fn)]
            model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns, model_dir=model_dir)
            model.train(train_fn, steps=10, hooks=hooks)
        ''')
    assert "model.fit(input_dataset(train_fn), epochs=1, steps_per_epoch=10, shuffle=False, callbacks=hooks + checkpoints(model))" in new
    assert not [f for f in findings if not f.fixable] and not estimator_reads(new)


def test_hooks_tfmigrate_cannot_see_keep_the_manual_finding_on_their_line() -> None:
    new, fixed, findings = lowered('''\
        import tensorflow as tf

        hooks = [tf.estimator.experimental.InMemoryEvaluatorHook(model, eval_fn)]
        hooks = hooks + [my_hook]
        model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns)
        model.train(train_fn, steps=10, hooks=hooks)
        model.train(train_fn, steps=10, hooks=[tf.compat.v1.train.StepCounterHook()])
        ''')
    manual = {(f.line, f.rule) for f in findings if not f.fixable}
    assert (6, "TFM702") in manual and (7, "TFM702") in manual, manual
    assert "model.train(train_fn, steps=10, hooks=hooks)" in new


# --- on TensorFlow 2.21: one child for all of it ---------------------------------------------------------------
DATA = '''\
import json
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
x = rng.rand(64, 4).astype(np.float32)
y = (x[:, 0] > 0.5).astype(np.int64)
train_fn = tf.compat.v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=None, shuffle=True)
eval_fn = tf.compat.v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=1, shuffle=False)
'''
PROGRAMS = {
    # checkpoints every 5 steps, throttle 0: an evaluation after each checkpoint and at the end; resumed from step 12
    "cadence": DATA + '''\
cols = [tf.feature_column.numeric_column("x", shape=[4])]
model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=cols, model_dir="m",
                                   config=tf.estimator.RunConfig(save_checkpoints_steps=5))
first = tf.estimator.train_and_evaluate(model, tf.estimator.TrainSpec(train_fn, max_steps=12),
                                        tf.estimator.EvalSpec(eval_fn, steps=2, throttle_secs=0))
again = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=cols, model_dir="m",
                                   config=tf.estimator.RunConfig(save_checkpoints_steps=5))
second = tf.estimator.train_and_evaluate(again, tf.estimator.TrainSpec(train_fn, max_steps=20),
                                         tf.estimator.EvalSpec(eval_fn, steps=2, throttle_secs=0))
third = tf.estimator.train_and_evaluate(again, tf.estimator.TrainSpec(train_fn, max_steps=20), tf.estimator.EvalSpec(eval_fn))
''',
    # throttle_secs of an hour: the first checkpoint's evaluation, then only the last step's
    "throttle": DATA + '''\
model = tf.estimator.LinearClassifier(feature_columns=[tf.feature_column.numeric_column("x", shape=[4])], model_dir="m",
                                      config=tf.estimator.RunConfig(save_checkpoints_steps=5))
first = tf.estimator.train_and_evaluate(model, tf.estimator.TrainSpec(train_fn, max_steps=17),
                                        tf.estimator.EvalSpec(eval_fn, steps=1, throttle_secs=3600))
''',
    # a model that cannot improve (rate 0): evaluations at 0, 100, 200; the hook, which read the global step
    # before each step's increment every 100 steps, stops after step 201 (200 - 0 >= 200); the last evaluation.
    # Measured with TF 2.15's Estimator: the same steps. (Its InMemoryEvaluatorHook builds the eval input once:
    # with a finite one, later evaluations go on where the last stopped, and an exhausted one reports a loss of 0;
    # the Keras callback evaluates the input afresh each time, as Estimator.evaluate and ValidationMonitor did,
    # so the eval input here gives the same batch every time.)
    "early_stop": DATA + '''\
from tensorflow.estimator import experimental
whole_fn = tf.compat.v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=64, num_epochs=None, shuffle=False)

model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
                                   model_dir="m", optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.0))
model.train(input_fn=train_fn, steps=1000, hooks=[
    experimental.InMemoryEvaluatorHook(model, whole_fn, steps=1, every_n_iter=100),
    experimental.stop_if_no_decrease_hook(model, "loss", 200, run_every_secs=None, run_every_steps=100)])
''',
    # contrib.learn: an Experiment run by learn_runner (checkpoints every 5 steps, EvalSpec's default throttle 600 s)
    "experiment": DATA + '''\
from tensorflow.contrib.learn.python.learn import learn_runner


def experiment_fn(output_dir):
    estimator = tf.contrib.learn.LinearClassifier(
        feature_columns=[tf.contrib.layers.real_valued_column("x", dimension=4)], model_dir=output_dir,
        config=tf.contrib.learn.RunConfig(save_checkpoints_steps=5))
    return tf.contrib.learn.Experiment(estimator, train_input_fn=train_fn, eval_input_fn=eval_fn, train_steps=20, eval_steps=3)


result = learn_runner.run(experiment_fn, output_dir="m")
''',
}
REPORT = '''
from legacy_estimators import evaluations
out = {}
for name, value in list(globals().items()):
    if name in ("model", "again", "estimator") and hasattr(value, "optimizer"):
        out[name] = {"iterations": int(value.optimizer.iterations), "evaluations": sorted(evaluations(value))}
for name in ("first", "second", "third", "result"):
    if name in globals():
        metrics, exports = globals()[name]
        out[name] = None if metrics is None else [sorted(metrics), int(metrics["global_step"]), exports]
import os
out["files"] = sorted(os.listdir("m"))
print("REPORT " + json.dumps(out))
'''
CHILD = r'''
import contextlib, io, json, os, runpy, sys
out = {}
for directory in json.loads(sys.argv[1]):
    os.chdir(directory)
    sys.path.insert(0, directory)
    sys.modules.pop("legacy_estimators", None)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path("program.py", run_name="__main__")
    sys.path.pop(0)
    out[os.path.basename(directory)] = json.loads(next(l for l in printed.getvalue().splitlines() if l.startswith("REPORT "))[7:])
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def tf221(tmp_path_factory) -> dict:
    from tests.keras_env import keras_python, run_keras
    from tfmigrate.codemod.runner import Options, run

    keras_python()
    root = tmp_path_factory.mktemp("loops")
    for name, code in PROGRAMS.items():
        (root / name).mkdir()
        (root / name / "program.py").write_text(code)
    report = run([root], Options(enabled=KERAS, mode="write", target="keras"))
    assert not [f for r in report.files for f in r.findings if not f.automatic], \
        [(r.path, f.rule, f.message) for r in report.files for f in r.findings if not f.automatic]
    for name in PROGRAMS:
        program = root / name / "program.py"
        program.write_text(program.read_text() + REPORT)
    proc = run_keras(["-c", CHILD, json.dumps([str(root / name) for name in PROGRAMS])], cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_train_and_evaluate_trains_to_max_steps_and_evaluates_after_the_checkpoints(tf221: dict) -> None:
    run = tf221["cadence"]
    assert run["first"] == [["accuracy", "global_step", "loss"], 12, []]
    assert run["model"] == {"iterations": 12, "evaluations": [5, 10, 12]}
    # a new model over the same model_dir restores step 12 and trains 8 more; max_steps reached: nothing at all
    assert run["second"] == [["accuracy", "global_step", "loss"], 20, []] and run["third"] is None
    # (measured with TF 2.15's Estimator: the same evaluations, 5, 10, 12 and then 17, 20: the saver counts from
    # the step it starts at)
    assert run["again"] == {"iterations": 20, "evaluations": [17, 20]}
    assert [f for f in run["files"] if f.endswith(".weights.h5")] == [f"model.ckpt-{s}.weights.h5" for s in (10, 12, 17, 20, 5)]


@pytest.mark.slow
def test_throttle_secs_spaces_the_evaluations(tf221: dict) -> None:
    assert tf221["throttle"]["model"] == {"iterations": 17, "evaluations": [5, 17]}
    assert tf221["throttle"]["first"][1] == 17


@pytest.mark.slow
def test_early_stopping_stops_at_the_estimators_step(tf221: dict) -> None:
    assert tf221["early_stop"]["model"] == {"iterations": 201, "evaluations": [0, 100, 200, 201]}


@pytest.mark.slow
def test_an_experiment_run_by_learn_runner_trains_and_evaluates(tf221: dict) -> None:
    run = tf221["experiment"]
    assert run["result"] == [["accuracy", "global_step", "loss"], 20, []]
    assert "model.ckpt-20.weights.h5" in run["files"]
