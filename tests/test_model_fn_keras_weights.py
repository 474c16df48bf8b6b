"""TFM707 of the getting-started guide's custom model_fn (TF 1.0-1.4, issue 31): weights made by
``tf.get_variable`` and a train_op ``tf.group(optimizer.minimize(loss), tf.assign_add(global_step, 1))``::

    W = tf.get_variable("W", [1], dtype=tf.float64); b = tf.get_variable("b", [1], dtype=tf.float64)
    y = W*features['x'] + b
    loss = tf.reduce_sum(tf.square(y - labels))
    ...
    return tf.estimator.EstimatorSpec(mode=mode, predictions=y, loss=loss, train_op=train)

Each variant is built from a table (how tensorflow is imported, the dtype, the shape, the initializer,
get_variable's call form, the global step and train_op form, EstimatorSpec or contrib.learn's ModelFnOps,
predictions as a tensor or a dict, the scope): it is lowered (each get_variable an ``add_weight`` of
``__init__`` with the same name, shape, dtype and TF 1.15's default initializer, the train_op gone, the
optimizer compiled at its rate) or left with TFM705 naming the piece on the Estimator's line.

The slow test runs every lowered variant in ONE TensorFlow 2.21 child: from the weights it starts with,
``fit`` takes the same steps as TF 1.x's GradientDescentOptimizer on that sum-of-squares loss (numpy, the
update w -= rate * dloss/dw), ``evaluate``'s loss is the model_fn's loss, ``predict`` yields one value per
example as the Estimator did; and the guide's program trained 1000 steps reaches the least-squares fit of
its data (W = -1, b = 1) as the Estimator did (the guide printed W: [-0.9999969] b: [0.99999082]).
"""

from __future__ import annotations

import itertools
import json
import textwrap

import numpy as np
import pytest

from tests.keras_env import run_keras, write_helpers
from tests.test_model_fn_keras_variants import legacy_names
from rewrite_once import rewrite_source  # a program lowered by its variant test and again for the TF child: once
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")

# how tensorflow is named: (imports, prefix of get_variable / the dtypes, prefix of tf.train, assign_add)
IMPORTS = {
    "tf": ("import tensorflow as tf\n", "tf.", "tf.train.", "tf.assign_add"),
    "compat.v1": ("import tensorflow as tf\n", "tf.compat.v1.", "tf.compat.v1.train.", "tf.compat.v1.assign_add"),
    "from tensorflow import": ("import tensorflow as tf\nfrom tensorflow import get_variable, assign_add, float32, float64\n",
                               "", "tf.train.", "assign_add"),
}
DTYPES = {"default": None, "float32": "float32", "float64": "float64"}
# the weight's shape, and the model on features["x"] (a column of 4 values; 4 x 2 for the matrix)
SHAPES = {
    "[1]": ("[1]", "W*features['x'] + b"),
    "[]": ("[]", "W*features['x'] + b"),
    "[2, 1]": ("[2, 1]", "tf.matmul(features['x'], W) + b"),
}
INITIALIZERS = {
    "none": None,
    "zeros": "tf.zeros_initializer()",
    "constant": "tf.constant_initializer(0.5)",
    "truncated_normal": "tf.truncated_normal_initializer(stddev=0.1, seed=3)",
}
CALLS = {"positional": '{gv}get_variable("{name}", {shape}{dtype}{init})',
         "keywords": '{gv}get_variable(name="{name}", shape={shape}{dtype}{init})'}
# the global step and the train_op (the optimizer is `optimizer`)
TRAINS = {
    "group": ("global_step = {tr}get_global_step()", "train = tf.group(optimizer.minimize(loss), {aa}(global_step, 1))", "train"),
    "group inline": ("global_step = {tr}get_global_step()", "", "tf.group(optimizer.minimize(loss), {aa}(global_step, 1))"),
    "group method": ("global_step = {tr}get_or_create_global_step()", "train = tf.group(optimizer.minimize(loss), global_step.assign_add(1))",
                     "train"),
    "contrib.framework": ("global_step = tf.contrib.framework.get_global_step()",
                          "train = tf.group(optimizer.minimize(loss), {aa}(global_step, 1))", "train"),
    "minimize": ("", "train = optimizer.minimize(loss, global_step={tr}get_global_step())", "train"),
    "minimize name": ("global_step = {tr}get_global_step()", "train = optimizer.minimize(loss, global_step=global_step)", "train"),
}
SPECS = {
    "EstimatorSpec": ("tf.estimator.EstimatorSpec", "tf.estimator.Estimator", ""),
    "ModelFnOps": ("tf.contrib.learn.ModelFnOps", "tf.contrib.learn.Estimator", ""),
    "from contrib import learn": ("learn.ModelFnOps", "learn.Estimator", "from tensorflow.contrib import learn\n"),
}
PREDICTIONS = {"tensor": "y", "dict": '{"y": y}'}
SCOPES = {
    "module": "{fn}\n\nestimator = {build}\n",
    "function": "def main():\n{fn_indented}\n    estimator = {build}\n    return estimator\n",
    "__main__": 'if __name__ == "__main__":\n{fn_indented}\n    estimator = {build}\n',
}

MODEL_FN = '''\
def model_fn(features, labels, mode):
    # build linear model and predict values
    W = {W}
    b = {b}
    y = {model}

    # loss sub-graph
    loss = tf.reduce_sum(tf.square(y - labels))

    # training sub-graph
    {step}
    optimizer = {tr}GradientDescentOptimizer(0.01)
    {train}
    return {spec}(mode=mode, predictions={predictions}, loss=loss, train_op={train_op})
'''


def program(imports="tf", dtype="float64", shape="[1]", init="none", call="positional", train="group",
            spec="EstimatorSpec", predictions="tensor", scope="module") -> str:
    header, gv, tr, aa = IMPORTS[imports]
    spec_name, estimator, spec_import = SPECS[spec]
    dtype_name = DTYPES[dtype]
    dtype_text = "" if dtype_name is None else f", dtype={'' if imports == 'from tensorflow import' else 'tf.'}{dtype_name}"
    init_text = "" if INITIALIZERS[init] is None else f", initializer={INITIALIZERS[init]}"
    shape_text, model = SHAPES[shape]
    step, train_line, train_op = (part.format(tr=tr, aa=aa) for part in TRAINS[train])
    variables = {name: CALLS[call].format(gv=gv, name=name, shape=shape_text if name == "W" else "[1]",
                                          dtype=dtype_text, init=init_text) for name in ("W", "b")}
    fn = MODEL_FN.format(W=variables["W"], b=variables["b"], model=model, step=step or "pass", tr=tr, train=train_line or "pass",
                         spec=spec_name, predictions=PREDICTIONS[predictions], train_op=train_op)
    body = SCOPES[scope].format(fn=fn, fn_indented=textwrap.indent(fn, "    "), build=f"{estimator}(model_fn=model_fn)")
    return f"{header}{spec_import}\n\n{body}"


# one dimension at a time from the guide's program (tf, float64, [1], no initializer, group, EstimatorSpec, y)
DIMENSIONS = {"imports": IMPORTS, "dtype": DTYPES, "shape": SHAPES, "init": INITIALIZERS, "call": CALLS,
              "train": TRAINS, "spec": SPECS, "predictions": PREDICTIONS, "scope": SCOPES}
VARIANTS = sorted({tuple(sorted({key: value}.items())) for key, table in DIMENSIONS.items() for value in table}
                  | {tuple(sorted({"spec": s, "train": t, "imports": i}.items()))
                     for s, t, i in itertools.product(SPECS, ("group", "minimize"), IMPORTS)})


def lowered(source: str):
    result = rewrite_source(source.encode(), KERAS, path="model.py")
    return result.new.decode(), {f.rule for f in result.findings}, result.findings


def _id(variant) -> str:
    return "-".join(f"{k}={v}" for k, v in variant)


@pytest.mark.parametrize("variant", VARIANTS, ids=[_id(v) for v in VARIANTS])
def test_get_variable_model_fn_variant_is_lowered(variant):
    options = dict(variant)
    new, rules, findings = lowered(program(**options))
    assert "TFM707" in rules and "TFM705" not in rules, [f.message for f in findings if f.rule.startswith("TFM70")]
    dtype = DTYPES[options.get("dtype", "float64")] or "float32"
    init = INITIALIZERS[options.get("init", "none")]
    init_text = '"glorot_uniform"' if init is None else "tf.compat.v1." + init[len("tf."):]
    shape = SHAPES[options.get("shape", "[1]")][0]
    assert (f'self.w = self.add_weight(name="W", shape={shape}, dtype=tf.{dtype}, initializer={init_text})') in new, new
    assert (f'self.b = self.add_weight(name="b", shape=[1], dtype=tf.{dtype}, initializer={init_text})') in new
    assert "W = self.w" in new and "b = self.b" in new and "get_variable" not in new
    assert "self.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.01), jit_compile=False)" in new
    assert "minimize(" not in new and "assign_add(" not in new and "GradientDescentOptimizer" not in new
    assert "tf.group" not in new and "train_op" not in new
    predictions = PREDICTIONS[options.get("predictions", "tensor")]
    assert f"return dict(mode=mode, predictions={predictions}, loss=loss)" in new
    assert "loss = tf.reduce_sum(tf.square(y - labels))" in new  # the same loss Keras minimises
    assert "# build linear model and predict values" in new and "# training sub-graph" in new
    assert "estimator = ModelFn()" in new and not legacy_names(new), legacy_names(new)
    compile(new, "model.py", "exec")
    assert rewrite_source(new.encode(), KERAS, path="model.py").new.decode() == new, "a second run must change nothing"


def test_integer_variable_gets_get_variables_zeros_initializer():
    source = program().replace('get_variable("b", [1], dtype=tf.float64)', 'get_variable("b", [1], dtype=tf.int32)')
    new, rules, _ = lowered(source)
    assert "TFM707" in rules
    assert 'self.b = self.add_weight(name="b", shape=[1], dtype=tf.int32, initializer="zeros")' in new


# pieces with no faithful Keras form: (the replacement in the guide's program, what TFM705 names)
BLOCKED = {
    "another op in the group": ('train = tf.group(optimizer.minimize(loss), tf.assign_add(global_step, 1))',
                                'train = tf.group(optimizer.minimize(loss), tf.assign_add(global_step, 1), tf.no_op())',
                                "custom train_op logic (tf.group)"),
    "a step of 2": ("tf.assign_add(global_step, 1))", "tf.assign_add(global_step, 2))", "custom train_op logic (tf.group)"),
    "the step counted twice": ("optimizer.minimize(loss)", "optimizer.minimize(loss, global_step=global_step)",
                               "the global step counted twice"),
    "group of the minimize only": ("tf.group(optimizer.minimize(loss), tf.assign_add(global_step, 1))",
                                   "tf.group(optimizer.minimize(loss))", "custom train_op logic (tf.group)"),
    "trainable=False": ('get_variable("W", [1], dtype=tf.float64)', 'get_variable("W", [1], dtype=tf.float64, trainable=False)',
                        "variables created with tf.compat.v1.get_variable"),
    "a regularizer": ('get_variable("W", [1], dtype=tf.float64)',
                      'get_variable("W", [1], dtype=tf.float64, regularizer=tf.nn.l2_loss)',
                      "variables created with tf.compat.v1.get_variable"),
    "a string variable": ('get_variable("W", [1], dtype=tf.float64)', 'get_variable("W", [1], dtype=tf.string)',
                          "variables created with tf.compat.v1.get_variable"),
    "the same name twice": ('get_variable("b", [1]', 'get_variable("W", [1]', "created twice"),
    "a shape computed in the model_fn": ('get_variable("W", [1]', 'get_variable("W", [tf.shape(labels)[0]]',
                                         "computed in the model_fn"),
    "a tensor initializer": ('get_variable("W", [1], dtype=tf.float64)',
                             'get_variable("W", [1], dtype=tf.float64, initializer=labels[:1])', "get_variable(initializer=labels[:1])"),
    "tf.Variable": ('tf.get_variable("W", [1], dtype=tf.float64)', 'tf.Variable([.3], dtype=tf.float64)',
                    "tf.Variable created inside the model_fn"),
    "a variable in a loop": ('    W = tf.get_variable("W", [1], dtype=tf.float64)\n',
                             '    for name in ["W"]:\n        W = tf.get_variable(name, [1], dtype=tf.float64)\n',
                             "created in a loop"),
}


@pytest.mark.parametrize("case", BLOCKED, ids=list(BLOCKED))
def test_pieces_without_a_keras_form_stay_tfm705_on_the_estimator_line(case):
    old, replacement, piece = BLOCKED[case]
    source = program()
    assert old in source
    source = source.replace(old, replacement, 1)
    new, rules, findings = lowered(source)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if text.startswith("estimator = "))
    flagged = [f for f in findings if f.rule == "TFM705"]
    assert "TFM707" not in rules and flagged and flagged[0].line == line, [f.message for f in findings]
    assert piece in flagged[0].message, flagged[0].message
    assert "def model_fn(features, labels, mode):" in new  # left as it was


# the variants the TF 2.21 child trains: every dimension's value that changes the computation
RUN = [dict(v) for v in VARIANTS if dict(v).get("scope", "module") == "module"]

DRIVER = r'''
import importlib, json, sys
import numpy as np
import tensorflow as tf

results = {}
for name, kind, steps in json.loads(sys.argv[1]):
    estimator = importlib.import_module(name).estimator
    x = np.array([[1., 2.], [2., 1.], [3., 0.], [4., 5.]]) if kind == "matrix" else np.array([1., 2., 3., 4.])
    y = np.array([[0.], [-1.], [-2.], [-3.]]) if kind == "matrix" else np.array([0., -1., -2., -3.])
    dtype = estimator.w.dtype
    x, y = x.astype(dtype), y.astype(dtype)
    data = tf.data.Dataset.from_tensors(({"x": x}, y)).repeat()
    estimator.restore(data)
    w, b = np.array(estimator.w.numpy()), np.array(estimator.b.numpy())
    losses = []
    for _ in range(steps):  # TF 1.x's GradientDescentOptimizer on sum((W x + b - y)^2), from the same weights
        pred = x @ w + b if kind == "matrix" else w * x + b
        r = pred - y
        losses.append(float(np.sum(r ** 2)))
        gw = 2 * x.T @ r if kind == "matrix" else np.reshape(2 * np.sum(r * x), w.shape)
        w, b = w - 0.01 * gw, b - 0.01 * np.reshape(2 * np.sum(r), b.shape)
    each = steps <= 3  # a loss per step (an epoch of one step each), else one epoch of all the steps
    history = estimator.fit(data, epochs=steps if each else 1, steps_per_epoch=1 if each else steps, verbose=0)
    evaluated = estimator.evaluate(data, steps=1, return_dict=True, verbose=0)
    final = float(np.sum((((x @ w + b) if kind == "matrix" else w * x + b) - y) ** 2))  # the loss after the steps
    from legacy_estimators import model_fn_predictions
    # the guide's model_fn reads labels in every mode (its legacy predict needed an input_fn with labels too)
    rows = list(model_fn_predictions(estimator, lambda: tf.data.Dataset.from_tensors(({"x": x}, y))))
    results[name] = {"keras": [float(v) for v in history.history["loss"]], "numpy": losses,
                     "w": np.asarray(estimator.w.numpy()).ravel().tolist(), "w_numpy": np.asarray(w).ravel().tolist(),
                     "b": float(np.ravel(estimator.b.numpy())[0]), "b_numpy": float(np.ravel(b)[0]),
                     "eval": float(evaluated["loss"]), "eval_numpy": final, "rows": len(rows),
                     "row": ({k: np.asarray(v).tolist() for k, v in rows[0].items()} if isinstance(rows[0], dict)
                             else np.asarray(rows[0]).tolist()) if rows else None,
                     "dtype": str(dtype), "weights": len(estimator.trainable_variables)}
print(json.dumps(results))
'''


@pytest.mark.slow
def test_lowered_variants_train_as_gradient_descent_did_on_tf221(tmp_path):
    write_helpers(tmp_path)
    jobs = []
    module_of = {}  # a lowered program and its data -> the module that runs it: variants lowered to the same text run once
    runs_as = []  # each variant's module
    for index, options in enumerate(RUN):
        new, rules, _ = lowered(program(**options))
        assert "TFM707" in rules
        kind = "matrix" if options.get("shape") == "[2, 1]" else "scale"
        if (new, kind) not in module_of:
            module_of[new, kind] = f"variant_{index}"
            (tmp_path / f"variant_{index}.py").write_text(new)
            jobs.append((f"variant_{index}", kind, 3))
        runs_as.append(module_of[new, kind])
    guide, _, _ = lowered(program())
    (tmp_path / "guide.py").write_text(guide)
    jobs.append(("guide", "scale", 1000))
    (tmp_path / "driver.py").write_text(DRIVER)
    done = run_keras(["driver.py", json.dumps(jobs)], cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for index, options in enumerate(RUN):
        got = results[runs_as[index]]
        # the 1e-5; float64 weights differ from TF 1.x by 1e-7 only because Keras holds the rate 0.01 as float32
        tolerance = 1e-6 if got["dtype"] == "float64" else 1e-5
        assert got["weights"] == 2, (options, got)
        assert got["keras"] == pytest.approx(got["numpy"], rel=tolerance, abs=tolerance), (options, got)
        assert got["w"] == pytest.approx(got["w_numpy"], rel=tolerance, abs=tolerance), (options, got)
        assert got["eval"] == pytest.approx(got["eval_numpy"], rel=tolerance, abs=tolerance), (options, got)
        assert got["rows"] == 4, (options, got)  # predict: one value per example, as the Estimator yielded them
        if options.get("predictions") == "dict":
            assert set(got["row"]) == {"y"}, got
        else:
            assert len(np.ravel(got["row"])) == 1, got
        expected_dtype = DTYPES[options.get("dtype", "float64")] or "float32"
        assert got["dtype"] == expected_dtype, (options, got)
    guide_run = results["guide"]
    assert guide_run["w"][0] == pytest.approx(-1, abs=1e-3) and guide_run["b"] == pytest.approx(1, abs=1e-3), guide_run
    assert guide_run["w"] == pytest.approx(guide_run["w_numpy"], abs=1e-6), guide_run
    assert guide_run["eval"] < 1e-6 and guide_run["eval"] == pytest.approx(guide_run["eval_numpy"], abs=1e-9), guide_run
