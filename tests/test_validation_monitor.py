"""Issue 27 item 3: ``learn.monitors.ValidationMonitor`` in generated variants (TFM130).

The legacy monitor (TF 1.x ``contrib/learn/python/learn/monitors.py``) evaluated the estimator on ``(x, y)`` or
``input_fn`` every ``every_n_steps`` (100) steps and, given ``early_stopping_rounds``, stopped training when
``early_stopping_metric`` ("loss") had not improved (decreased, or increased with
``early_stopping_metric_minimize=False``) for that many steps. TF 2.15: ``InMemoryEvaluatorHook(every_n_iter=...)``
plus ``stop_if_no_decrease_hook`` / ``stop_if_no_increase_hook`` where early stopping was asked for.

Variants: estimator kind (canned classifier, canned regressor, custom model_fn, through SKCompat) x evaluation
input (arrays, ``input_fn=learn.io.numpy_input_fn(...)``, ``input_fn=`` a function returning a Dataset, one
returning tensors) x early stopping (none, minimize loss, maximize a metric) x binding (a name, inline in
``monitors=[...]``) x every_n_steps (given, default). Each fit is rewritten with the right hooks, or flagged on
its line. The slow test trains a representative batch on TF 2.15 in one child: early stopping stops training
before ``steps``, and without it training runs to ``steps`` and the hook evaluates.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import textwrap

import pytest

from tests.every_case import grouped
from tests.tfchildren import run_python
from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ALL = load_catalog().selected(None)

KINDS = {  # name -> (the estimator, fit's receiver form, labels)
    "classifier": ("learn.DNNClassifier(hidden_units=[4], n_classes=3, "
                   "feature_columns=learn.infer_real_valued_columns_from_input(x))", "est", "y_class"),
    "regressor": ("learn.LinearRegressor(feature_columns=learn.infer_real_valued_columns_from_input(x))", "est",
                  "y_value"),
    "custom": ("learn.Estimator(model_fn=my_model)", "est", "y_column"),
    "skcompat": ("learn.SKCompat(learn.LinearRegressor(feature_columns=learn.infer_real_valued_columns_from_input(x)))",
                 "est", "y_value"),
}
INPUTS = {  # name -> (the monitor's data arguments (Y: the labels), rewritten)
    "arrays": ("x, Y", True),
    "numpy_input_fn": ('input_fn=learn.io.numpy_input_fn(DATA, Y, batch_size=10, shuffle=False, num_epochs=1)', True),
    "dataset_fn": ("input_fn=eval_dataset_Y", True),
    "tensor_fn": ("input_fn=eval_tensors", False),
}
STOPS = {  # name -> (the monitor's early stopping arguments, the stop hook expected)
    "none": ("", None),
    "minimize_loss": (", early_stopping_rounds=1", "stop_if_no_decrease_hook"),
    "maximize": (", early_stopping_rounds=1, early_stopping_metric=\"loss\", early_stopping_metric_minimize=False",
                 "stop_if_no_increase_hook"),
}
BINDINGS = ("name", "inline")
EVERY = {"given": ", every_n_steps=2", "default": ""}

HEADER = '''\
import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn

x = np.random.RandomState(0).rand(30, 4).astype(np.float32)
y_class = np.arange(30) % 3
y_value = x.sum(axis=1)
y_column = x.sum(axis=1, keepdims=True)
RESULT = {}


def my_model(features, targets):
    w = tf.get_variable("w", [4, 1])
    predictions = tf.matmul(features, w)
    loss = tf.reduce_mean(tf.square(predictions - targets))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return predictions, loss, train_op


def eval_dataset_y_class():
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y_class)).batch(10)


def eval_dataset_y_value():
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y_value))
    return dataset.batch(10)


def eval_dataset_y_column():
    return tf.data.Dataset.from_tensor_slices((x, y_column)).batch(10)


def eval_tensors():
    return {"x": tf.constant(x)}, tf.constant(y_value)

'''


def program(kind: str, inp: str, stop: str, binding: str, every: str) -> str:
    est, _, labels = KINDS[kind]
    data = INPUTS[inp][0].replace("eval_dataset_Y", f"eval_dataset_{labels}").replace("Y", labels)
    data = data.replace("DATA", "{'x': x}")
    monitor = f"learn.monitors.ValidationMonitor({data}{EVERY[every]}{STOPS[stop][0]})"
    lines = [f"est = {est}"]
    if binding == "name":
        lines.append(f"monitor = {monitor}")
        monitors = "[monitor]"
    else:
        monitors = f"[{monitor}]"
    lines.append(f"est.fit(x, {labels}, steps=6, monitors={monitors})  # FIT_LINE")
    lines.append('RESULT["est"] = est')
    return HEADER + "\n" + "\n".join(lines) + "\n"


def variants():
    for kind, inp, stop, binding, every in itertools.product(KINDS, INPUTS, STOPS, BINDINGS, EVERY):
        if inp == "numpy_input_fn" and kind == "custom":
            continue  # the custom model_fn reads a bare tensor; learn.io.numpy_input_fn fed a dict
        yield pytest.param(kind, inp, stop, binding, every, id=f"{kind}-{inp}-{stop}-{binding}-{every}")


def _rewrite(source: str):
    result = rewrite_source(source.encode(), ALL, path="program.py")
    return result.new.decode(), result.findings


@grouped(("kind", "inp", "stop", "binding", "every"), list(variants()), by=lambda i: "-".join(i.split("-")[:2]))  # one test per kind x input
def test_validation_monitor_variant(kind, inp, stop, binding, every):
    source = program(kind, inp, stop, binding, every)
    compile(source, "program.py", "exec")
    line = next(i for i, text in enumerate(source.splitlines(), start=1) if "FIT_LINE" in text)
    new, findings = _rewrite(source)
    on_line = [f for f in findings if f.rule == "TFM130" and f.line == line]
    assert on_line, f"no TFM130 on the fit line: silent\n{new}"
    if not INPUTS[inp][1]:
        assert not any(f.fixable for f in on_line) and "Dataset" in on_line[0].message
        assert "ValidationMonitor(" in new
        return
    assert all(f.fixable for f in on_line), [f.message for f in on_line]
    assert "ValidationMonitor" not in new and "monitor = " not in new, new
    hooks = new[new.index("hooks=["):]
    n = "2" if every == "given" else "100"  # the legacy every_n_steps default
    assert f"every_n_iter={n}" in hooks, new
    assert "tf.estimator.experimental.InMemoryEvaluatorHook(" in hooks
    expected = STOPS[stop][1]
    for hook in ("stop_if_no_decrease_hook", "stop_if_no_increase_hook"):
        assert (hook in hooks) is (hook == expected), new
    if expected:
        assert re.search(rf"run_every_steps=\s*{n}", hooks), new
    if inp == "dataset_fn":
        assert "eval_dataset_y_" in hooks
    if inp == "numpy_input_fn":
        assert ".batch(10)" in hooks
    if kind == "custom" and inp == "arrays":
        assert "from_tensor_slices((x, y_column))" in hooks, new  # the model_fn reads the bare array
    assert _rewrite(new)[0] == new


CHILD = textwrap.dedent('''
    import json, os, sys, tempfile
    import tensorflow as tf
    out = {}
    for name, source in json.load(sys.stdin):
        scope = {"__name__": "__main__"}
        exec(compile(source, name, "exec"), scope)
        est = scope["RESULT"]["est"]
        step = int(est.get_variable_value("global_step"))
        evals = os.path.join(est.model_dir, "eval")
        out[name] = {"step": step, "evaluated": os.path.isdir(evals) and bool(os.listdir(evals))}
    print(json.dumps(out))
''')


# the training runs' steps: with an evaluation every 2 steps, early stopping stops at the second one (step 2-4),
# far below; without it training reaches STEPS after 6 evaluations (40 steps took 2 CPU s more and proved no more)
STEPS = 12


@pytest.mark.slow
def test_rewritten_monitors_evaluate_and_stop_on_tf215():
    jobs = []
    for kind, inp, stop in (("regressor", "arrays", "none"), ("regressor", "arrays", "maximize"),
                            ("classifier", "numpy_input_fn", "maximize"), ("custom", "arrays", "maximize"),
                            ("skcompat", "dataset_fn", "maximize"), ("custom", "dataset_fn", "none")):
        source = program(kind, inp, stop, "inline", "given").replace("steps=6", f"steps={STEPS}")
        new, _ = _rewrite(source)
        jobs.append((f"{kind}-{inp}-{stop}", new))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = run_python(["-c", CHILD], input=json.dumps(jobs), env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, result in out.items():
        assert result["evaluated"], (name, result)  # the hook evaluated into the eval directory
        if name.endswith("-none"):
            assert result["step"] == STEPS, (name, result)
        else:  # loss keeps decreasing, so "no increase for 1 step" stops at the second evaluation (every 2 steps)
            assert result["step"] < STEPS, (name, result)
