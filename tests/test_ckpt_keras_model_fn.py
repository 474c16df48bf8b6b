"""``ckpt convert --to keras --model file.py:LINE`` of a custom ``tf.estimator.Estimator(model_fn=F)`` (issue 31):
the model_dir the Estimator trained becomes the weights of the class TFM707 lowers F to.

One TensorFlow 2.15 child (module fixture) trains each CASE's Estimator for a few steps and predicts with it on
the converter's inputs, and builds each NAMING variant's model_fn graph in mode TRAIN to list the variables
the legacy layers create. The static map (no TensorFlow) must name exactly those variables, in creation order,
for every variant: import forms, names, classes, variable scopes, slim scopes, a network function. Then ONE
``convert_many`` converts every case (its own TensorFlow 2.15 child for the Estimator's predictions from the
checkpoint, one TensorFlow 2.21 child for Keras): the written file restores into the lowered model from its
model_dir, at the global step, and predicts what ``Estimator.predict`` predicted, to 1e-5. What cannot be mapped
is refused in one line, nothing written.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.tfchildren import run_python
from tfmigrate.checkpoint import classify, keras, keras_model_fn
from tfmigrate.checkpoint.index import CheckpointError
from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.keras_target import model_fn_plan

ESTIMATOR = load_catalog().selected(None)
STEPS = 3

# name -> (model_fn, feature width, labels, the legacy module); each returns its predictions early in PREDICT
CASES = {
    "mlp": ("model_fn", 5, "classes", '''\
        import tensorflow as tf

        PARAMS = {"hidden": 8, "learning_rate": 0.1}


        def model_fn(features, labels, mode, params):
            net = tf.layers.dense(features["x"], params["hidden"], activation=tf.nn.relu)
            net = tf.layers.dense(net, params.get("hidden2", 6), activation=tf.nn.tanh)
            logits = tf.layers.dense(net, 3)
            predictions = {"class_ids": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)}
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions=predictions)
            loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
            optimizer = tf.train.MomentumOptimizer(params["learning_rate"], momentum=0.9)
            train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


        estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)
        '''),
    "cnn": ("cnn_fn", 36, "classes", '''\
        import tensorflow as tf
        from tensorflow.compat.v1 import layers


        def cnn_fn(features, labels, mode):
            images = tf.reshape(features["x"], [-1, 6, 6, 1])
            conv = layers.conv2d(images, 4, [3, 3], padding="same", activation=tf.nn.relu)
            pool = layers.max_pooling2d(conv, [2, 2], 2)
            flat = layers.flatten(pool)
            logits = layers.dense(flat, 3, name="logits")
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
            loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
            train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


        estimator = tf.estimator.Estimator(cnn_fn)
        '''),
    "batch_norm": ("bn_fn", 5, "classes", '''\
        import tensorflow as tf
        from tensorflow.estimator import ModeKeys


        def bn_fn(features, labels, mode, params):
            net = tf.layers.dense(features["x"], 6, use_bias=False)
            net = tf.layers.batch_normalization(net, momentum=0.5, training=mode == ModeKeys.TRAIN)
            logits = tf.layers.dense(tf.nn.relu(net), 3)
            if mode == ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions=tf.nn.softmax(logits))
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


        estimator = tf.estimator.Estimator(model_fn=bn_fn)
        '''),
    "slim": ("slim_fn", 5, "classes", '''\
        import tensorflow as tf

        PARAMS = {}


        def slim_fn(features, labels, mode, params):
            net = tf.contrib.layers.fully_connected(features["x"], 8)
            net = tf.contrib.layers.dropout(net, keep_prob=0.5, is_training=mode == tf.estimator.ModeKeys.TRAIN)
            net = tf.contrib.layers.fully_connected(net, 6, scope="hidden")
            logits = tf.contrib.layers.fully_connected(net, 3, activation_fn=None)
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
            loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
            optimizer = tf.train.AdagradOptimizer(learning_rate=0.1)
            train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


        estimator = tf.estimator.Estimator(model_fn=slim_fn, params=PARAMS)
        '''),
    "network_scoped": ("regression_fn", 5, "values", '''\
        import tensorflow as tf

        PARAMS = {"units": 6}


        def network(x, params):
            with tf.variable_scope("block"):
                net = tf.layers.Dense(params["units"], activation=tf.nn.relu, name="fc")(x)
                net = tf.layers.Dense(params["units"], activation=tf.nn.relu, name="fc")(net)
            with tf.name_scope("head"):
                return tf.layers.dense(net, 1)


        def regression_fn(features, labels, mode, params):
            with tf.variable_scope("tower"):
                predictions = network(features["x"], params)
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions})
            loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
            train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions}, loss=loss, train_op=train_op)


        estimator = tf.estimator.Estimator(model_fn=regression_fn, params=PARAMS)
        '''),
}

_TRAIN = textwrap.dedent('''
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions=logits)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


        estimator = tf.estimator.Estimator(model_fn=model_fn)
        ''')


def _variant(imports: str, body: str) -> str:
    return textwrap.dedent(imports) + "\n\n\ndef model_fn(features, labels, mode):\n" + textwrap.indent(textwrap.dedent(body), " " * 4) + _TRAIN


# name -> legacy module whose model_fn's graph (mode TRAIN) names the variables; the forms the map must follow
NAMING = {
    "auto_names_mixed_with_names": _variant("import tensorflow as tf", '''\
        net = tf.layers.dense(features["x"], 4)
        net = tf.layers.dense(net, 4, name="dense_2")
        net = tf.layers.dense(net, 4)
        net = tf.layers.dense(net, 4)
        logits = tf.layers.dense(net, 3, name="out")
        '''),
    "compat_v1_alias_classes_same_name": _variant("import tensorflow as tf\nL = tf.compat.v1.layers", '''\
        net = L.Dense(4, name="fc")(features["x"])
        net = L.Dense(4, name="fc")(net)
        net = L.Dense(4)(net)
        logits = L.dense(net, 3)
        '''),
    "nested_scopes_and_name_scope": _variant("import tensorflow as tf", '''\
        with tf.compat.v1.variable_scope("outer"):
            with tf.variable_scope("inner"):
                net = tf.layers.dense(features["x"], 4)
            with tf.name_scope("ignored"):
                net = tf.layers.dense(net, 4)
        with tf.variable_scope("second"):
            net = tf.layers.dense(net, 4)
            net = tf.layers.dense(net, 4)
        logits = tf.layers.dense(net, 3)
        '''),
    "batch_norm_options_and_pooling": _variant("import tensorflow as tf", '''\
        net = tf.reshape(features["x"], [-1, 4, 4, 1])
        net = tf.layers.conv2d(net, 2, 3, padding="same", use_bias=False)
        net = tf.layers.batch_normalization(net, center=False, training=mode == tf.estimator.ModeKeys.TRAIN)
        net = tf.layers.max_pooling2d(net, 2, 2)
        net = tf.layers.batch_normalization(net, scale=False, name="bn")
        net = tf.layers.flatten(net)
        net = tf.layers.dropout(net, 0.1, training=mode == tf.estimator.ModeKeys.TRAIN)
        logits = tf.layers.dense(net, 3)
        '''),
    "slim_conv_scopes": _variant("import tensorflow as tf\nimport tensorflow.contrib.slim as slim", '''\
        net = tf.reshape(features["x"], [-1, 4, 4, 1])
        net = slim.conv2d(net, 2, [3, 3])
        net = slim.conv2d(net, 2, [3, 3], scope="conv_b")
        net = slim.conv2d(net, 2, [3, 3])
        net = slim.max_pool2d(net, [2, 2])
        net = slim.flatten(net)
        with tf.variable_scope("head"):
            net = slim.fully_connected(net, 4)
            net = tf.layers.dense(net, 4)
        logits = slim.fully_connected(net, 3, activation_fn=None, scope="logits")
        '''),
    "contrib_layers_from_import": _variant("import tensorflow as tf\nfrom tensorflow.contrib import layers", '''\
        net = layers.fully_connected(features["x"], 4)
        net = layers.fully_connected(net, 4)
        net = tf.layers.dense(net, 4, name="fully_connected_2")
        logits = layers.fully_connected(net, 3, activation_fn=None)
        '''),
}
NAMING_WIDTH = 16

CHILD_215 = '''
import importlib.util, json, sys
import numpy as np
import tensorflow as tf

tf.get_logger().setLevel("ERROR")
jobs = json.load(open(sys.argv[1]))
out = {"predictions": {}, "variables": {}}


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


for name, job in jobs["train"].items():
    module = load("train_" + name, job["module"])
    rng = np.random.RandomState(3)
    x = rng.rand(8 * job["steps"], job["width"]).astype(np.float32)
    y = rng.rand(8 * job["steps"], 1).astype(np.float32) if job["labels"] == "values" else rng.randint(0, 3, size=8 * job["steps"]).astype(np.int32)
    estimator = tf.estimator.Estimator(model_fn=getattr(module, job["fn"]), model_dir=job["model_dir"],
                                       params=getattr(module, "PARAMS", None))
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(8), steps=job["steps"])
    inputs = dict(np.load(job["inputs"]))
    predicted = next(estimator.predict(lambda: tf.data.Dataset.from_tensors(inputs), yield_single_examples=False))
    out["predictions"][name] = ({k: np.asarray(v).tolist() for k, v in predicted.items()} if isinstance(predicted, dict)
                                else np.asarray(predicted).tolist())
for name, job in jobs["naming"].items():
    module = load("naming_" + name, job["module"])
    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()
        features = {"x": tf.compat.v1.placeholder(tf.float32, [None, job["width"]])}
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        getattr(module, job["fn"])(features=features, labels=labels, mode=tf.estimator.ModeKeys.TRAIN)
        out["variables"][name] = [v.op.name for v in tf.compat.v1.global_variables()]
json.dump(out, open(sys.argv[2], "w"))
'''


def _line(source: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if "Estimator(" in text)


@pytest.fixture(scope="module")
def legacy(tmp_path_factory):
    """The legacy modules written out, the Estimators trained, their predictions and the variants' variables."""
    root = tmp_path_factory.mktemp("ckpt_model_fn")
    jobs: dict = {"train": {}, "naming": {}}
    specs = {}
    for name, (fn, width, labels, source) in CASES.items():
        source = textwrap.dedent(source)
        (root / f"{name}.py").write_text(source)
        (root / f"{name}_estimator.py").write_text(rewrite_source(source.encode(), ESTIMATOR, path=f"{name}.py").new.decode())
        inputs = keras_model_fn.example_inputs({"x": [width]})
        import numpy as np

        np.savez(root / f"{name}_inputs.npz", **inputs)
        specs[name] = f"{root / name}.py:{_line(source)}"
        jobs["train"][name] = {"module": str(root / f"{name}_estimator.py"), "fn": fn, "width": width, "labels": labels,
                               "steps": STEPS, "model_dir": str(root / f"model_{name}"), "inputs": str(root / f"{name}_inputs.npz")}
    for name, source in NAMING.items():
        (root / f"naming_{name}.py").write_text(source)
        (root / f"naming_{name}_estimator.py").write_text(rewrite_source(source.encode(), ESTIMATOR, path=f"{name}.py").new.decode())
        jobs["naming"][name] = {"module": str(root / f"naming_{name}_estimator.py"), "fn": "model_fn", "width": NAMING_WIDTH}
    (root / "jobs.json").write_text(json.dumps(jobs))
    proc = run_python(["-c", CHILD_215, "jobs.json", "legacy.json"], cwd=root, timeout=600,  # a fork of the suite's TF 2.15 server
                      env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    return root, specs, json.loads((root / "legacy.json").read_text())


@pytest.fixture(scope="module")
def converted(legacy):
    from tests.keras_env import keras_python

    root, specs, _ = legacy
    names = sorted(CASES)
    results = keras.convert_many([(root / f"model_{n}", specs[n], root / f"keras_{n}") for n in names], python=keras_python())
    return dict(zip(names, results))


def _static_names(source: str, path: str) -> list[str]:
    plan = model_fn_plan(source, path, _line(source))
    return [m.legacy for m in keras_model_fn.legacy_variables(plan.layers)]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NAMING))
def test_the_static_map_names_the_variables_the_legacy_layers_create(legacy, name: str):
    root, _, seen = legacy
    graph = [n for n in seen["variables"][name] if classify.kind(n) == "model" and n != "global_step"]
    assert _static_names(NAMING[name], f"{name}.py") == graph
    # the estimator-target module the user may name instead (tf.compat.v1.layers, tf_slim): the same names
    rewritten = (root / f"naming_{name}_estimator.py").read_text()
    assert _static_names(rewritten, f"{name}.py") == graph


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_convert_writes_weights_that_predict_as_the_estimator(legacy, converted, name: str):
    root, _, seen = legacy
    conv = converted[name]
    assert not isinstance(conv, CheckpointError), conv
    assert conv.compatible, conv.verdict
    assert conv.step == STEPS and conv.out == str((root / f"keras_{name}" / f"model.ckpt-{STEPS}.weights.h5").resolve())
    assert conv.max_abs_diff is not None and conv.max_abs_diff <= 1e-5
    assert all(layer.status == "match" and layer.keras_shapes == layer.checkpoint_shapes for layer in conv.layers)
    # against Estimator.predict itself (the training child), not only the converter's own reference
    want = seen["predictions"][name]
    want = want if isinstance(want, dict) else {"": want}
    have = conv.predictions  # type: ignore[attr-defined]
    import numpy as np

    assert sorted(want) == sorted(have)
    for key in want:
        assert np.allclose(np.asarray(want[key], dtype="float64"), np.asarray(have[key]), atol=1e-5, rtol=0), key


REFUSED = {
    # a get_variable weight: TFM707 lowers it to add_weight, but no legacy-name map is written for it yet
    "get_variable": ('''\
        import tensorflow as tf


        def model_fn(features, labels, mode):
            w = tf.compat.v1.get_variable("w", [5, 3])
            logits = tf.matmul(features["x"], w)
        ''', "get_variable"),
    "reuse": ('''\
        import tensorflow as tf


        def model_fn(features, labels, mode):
            with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
                logits = tf.layers.dense(features["x"], 3)
        ''', "reuse"),
    "scope_not_a_literal": ('''\
        import tensorflow as tf

        SCOPE = "a"


        def model_fn(features, labels, mode):
            with tf.variable_scope(SCOPE):
                logits = tf.layers.dense(features["x"], 3)
        ''', "variable_scope whose name is not a literal"),
    "bias_not_a_literal": ('''\
        import tensorflow as tf

        BIAS = True


        def model_fn(features, labels, mode):
            logits = tf.layers.dense(features["x"], 3, use_bias=BIAS)
        ''', "use_bias=BIAS"),
    # the mlp's model_dir against another model: a variable the Keras model does not create
    "another_model": ('''\
        import tensorflow as tf


        def model_fn(features, labels, mode):
            logits = tf.layers.dense(features["x"], 3, name="other")
        ''', "is a variable the Keras model does not create (6 such"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_cannot_be_mapped_is_refused_in_one_line(legacy, tmp_path, name: str):
    from tests.keras_env import keras_python

    root, _, _ = legacy
    body, expected = REFUSED[name]
    source = textwrap.dedent(body) + _TRAIN
    (tmp_path / "model.py").write_text(source)
    with pytest.raises(CheckpointError) as raised:
        keras.convert_to_keras(root / "model_mlp", f"{tmp_path / 'model.py'}:{_line(source)}", tmp_path / "out", python=keras_python())
    message = str(raised.value)
    assert expected in message and "\n" not in message, message
    assert not (tmp_path / "out").exists()


# how --model names the construction: import forms of Estimator, the line of any part of the call, the file alone
SPEC_FORMS = {
    "tf_estimator": ("import tensorflow as tf", "tf.estimator.Estimator"),
    "compat_v1": ("import tensorflow as tf", "tf.compat.v1.estimator.Estimator"),
    "from_import": ("import tensorflow as tf\nfrom tensorflow.estimator import Estimator", "Estimator"),
    "module_alias": ("import tensorflow as tf\nE = tf.estimator", "E.Estimator"),
}


def _spec_source(imports: str, ctor: str) -> str:
    return (f"{imports}\n\n\ndef model_fn(features, labels, mode):\n    logits = tf.layers.dense(features['x'], 3)\n"
            + textwrap.indent(_TRAIN.split("\n\nestimator =")[0], "") + "\n\n\n"
            f"estimator = {ctor}(\n    model_fn=model_fn,\n    model_dir='m',\n)\n"
            "canned = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column('x')])\n")


@pytest.mark.parametrize("form", sorted(SPEC_FORMS))
def test_the_model_spec_names_a_custom_estimator_by_any_line_of_it(tmp_path, form: str):
    source = _spec_source(*SPEC_FORMS[form])
    path = tmp_path / "model.py"
    path.write_text(source)
    lines = source.splitlines()
    start = next(i for i, text in enumerate(lines, 1) if text.startswith("estimator ="))
    for line in (start, start + 1, start + 3):  # the call's first, an argument's, its closing line
        spec = keras_model_fn.model_fn_spec(f"{path}:{line}")
        assert spec is not None and spec.line == start, (line, spec)
    canned = next(i for i, text in enumerate(lines, 1) if text.startswith("canned ="))
    assert keras_model_fn.model_fn_spec(f"{path}:{canned}") is None  # the canned path's
    with pytest.raises(CheckpointError, match=f"2 models .*:{start}, .*:{canned}.*; name one with --model FILE.py:LINE"):
        keras_model_fn.model_fn_spec(str(path))  # a custom Estimator and a canned one
    path.write_text(source.split("canned =")[0])
    assert keras_model_fn.model_fn_spec(str(path)) == keras_model_fn.ModelFnSpec(str(path), start)  # the only model
    plan = model_fn_plan(source, str(path), start + 1)
    assert [m.legacy for m in keras_model_fn.legacy_variables(plan.layers)] == ["dense/kernel", "dense/bias"]
