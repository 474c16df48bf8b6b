"""TFM707's proof (issue 31): a custom model_fn lowered to a Keras model trains as the Estimator's did.

Each case is a legacy model_fn (TF 1.x: tf.layers, tf_slim, tf.train optimizers, decay, clipping, a network
function, batch norm). ``tfmigrate rewrite`` makes the TF 2.15 Estimator code of it, ``rewrite --target keras``
the Keras model. One TensorFlow 2.15 child builds every case's model_fn graph in mode TRAIN (what
Estimator.train runs), exports its initial trainable variables and runs its train_op on N fixed batches;
one TensorFlow 2.21 child builds each Keras model, sets the same initial weights, and trains it with
``fit`` on the same batches. Same number of trainable weights with the same shapes, the same loss at
every step to 1e-5; then evaluate's keys and predict's dicts are the model_fn's.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.tfchildren import run_python
from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

CATALOG = load_catalog()
KERAS = CATALOG.selected(None, target="keras")
ESTIMATOR = CATALOG.selected(None)
STEPS = 4

CASES = {
    # dense layers, params (both reads), an early PREDICT return, accuracy, Momentum
    "mlp_sgd": ("model_fn", "classify", '''\
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
            accuracy = tf.metrics.accuracy(labels, predictions["class_ids"])
            if mode == tf.estimator.ModeKeys.EVAL:
                return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
            optimizer = tf.train.MomentumOptimizer(params["learning_rate"], momentum=0.9)
            train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


        estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)
        '''),
    # conv2d / max_pooling2d / flatten, contrib.learn ModeKeys, plain SGD on an exponential decay of the step
    "cnn_momentum_decay": ("cnn_fn", "classify_images", '''\
        import tensorflow as tf

        PARAMS = {}


        def cnn_fn(features, labels, mode):
            images = tf.reshape(features["x"], [-1, 6, 6, 1])
            conv = tf.layers.conv2d(images, 4, [3, 3], padding="same", activation=tf.nn.relu)
            pool = tf.layers.max_pooling2d(conv, [2, 2], 2)
            flat = tf.layers.flatten(pool)
            logits = tf.layers.dense(flat, 3)
            loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
            if mode == tf.contrib.learn.ModeKeys.TRAIN:
                rate = tf.train.exponential_decay(0.1, tf.train.get_global_step(), 2, 0.5, staircase=True)
                optimizer = tf.train.GradientDescentOptimizer(rate)
                train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
                return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
            return tf.estimator.EstimatorSpec(mode, loss=loss, predictions={"logits": logits},
                                              eval_metric_ops={"mean_logit": tf.metrics.mean(logits)})


        estimator = tf.estimator.Estimator(cnn_fn)
        '''),
    # a network function called once, Adam, clip_by_global_norm, a regression
    "network_adam_clip": ("regression_fn", "regress", '''\
        import tensorflow as tf

        PARAMS = {"units": 6}


        def network(x, mode, params):
            net = tf.layers.dense(x, params["units"], activation=tf.nn.relu)
            return tf.layers.dense(net, 1)


        def regression_fn(features, labels, mode, params):
            predictions = network(features["x"], mode, params)
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions})
            loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
            optimizer = tf.train.AdamOptimizer(0.05)
            gradients, variables = zip(*optimizer.compute_gradients(loss))
            gradients, _ = tf.clip_by_global_norm(gradients, 0.5)
            train_op = optimizer.apply_gradients(zip(gradients, variables), global_step=tf.train.get_global_step())
            metrics = {"rmse": tf.metrics.root_mean_squared_error(labels, predictions)}
            return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions}, loss=loss, train_op=train_op,
                                              eval_metric_ops=metrics)


        estimator = tf.estimator.Estimator(model_fn=regression_fn, params=PARAMS)
        '''),
    # batch normalization in training mode (batch statistics), from ModeKeys imported by name; plain SGD (Adam
    # would turn the round-off of a dead unit's zero gradient into full steps)
    "batch_norm": ("bn_fn", "classify", '''\
        import tensorflow as tf
        from tensorflow.estimator import ModeKeys

        PARAMS = {}


        def bn_fn(features, labels, mode, params):
            net = tf.layers.dense(features["x"], 6, use_bias=False)
            net = tf.layers.batch_normalization(net, momentum=0.9, training=mode == ModeKeys.TRAIN)
            logits = tf.layers.dense(tf.nn.relu(net), 3)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=tf.argmax(logits, 1))


        estimator = tf.estimator.Estimator(model_fn=bn_fn)
        '''),
    # tf.contrib.layers (tf_slim) layers and slim's defaults (relu), dropout by keep_prob, Adagrad
    "slim_adagrad": ("slim_fn", "classify", '''\
        import tensorflow as tf

        PARAMS = {}


        def slim_fn(features, labels, mode, params):
            net = tf.contrib.layers.fully_connected(features["x"], 8)
            net = tf.contrib.layers.dropout(net, keep_prob=1.0, is_training=mode == tf.estimator.ModeKeys.TRAIN)
            logits = tf.contrib.layers.fully_connected(net, 3, activation_fn=None)
            loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
            optimizer = tf.train.AdagradOptimizer(learning_rate=0.1)
            train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                              predictions={"logits": logits})


        estimator = tf.estimator.Estimator(model_fn=slim_fn, params=PARAMS)
        '''),
    # tf.contrib.layers.stack of fully_connected with a dropout normalizer (TF 1.x: no bias; keep_prob 1.0 keeps the
    # losses comparable), optimize_loss by name with clip_gradients (learn_multiple_gpu's model)
    "slim_stack_optimize_loss": ("stack_fn", "classify", '''\
        import tensorflow as tf
        from tensorflow.contrib import layers

        PARAMS = {}


        def stack_fn(features, labels, mode, params):
            normalizer_fn = layers.dropout
            normalizer_params = {"keep_prob": 1.0}
            net = layers.stack(features["x"], layers.fully_connected, [8, 6], normalizer_fn=normalizer_fn,
                               normalizer_params=normalizer_params)
            net = layers.stack(net, layers.fully_connected, [4], activation_fn=tf.nn.tanh)
            logits = layers.fully_connected(net, 3, activation_fn=None)
            loss = tf.contrib.losses.softmax_cross_entropy(logits, tf.one_hot(labels, 3, 1, 0))
            train_op = tf.contrib.layers.optimize_loss(loss, tf.contrib.framework.get_global_step(), optimizer="Adagrad",
                                                       learning_rate=0.1, clip_gradients=0.5)
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions={"class": tf.argmax(logits, 1)})


        estimator = tf.estimator.Estimator(model_fn=stack_fn, params=PARAMS)
        '''),
}

# TFM708: input_fns that return one batch of a one-shot iterator (the TF 1.4 tutorials); 5 examples in batches of 2
ONE_SHOT = '''\
    import numpy as np
    import tensorflow as tf


    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 2)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    def input_fn(with_labels=True):
        x = np.arange(10, dtype=np.float32).reshape(5, 2)
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, np.array([0, 1, 0, 1, 0])) if with_labels else {"x": x})
        iterator = dataset.batch(2).make_one_shot_iterator()
        return iterator.get_next()


    estimator = tf.estimator.Estimator(model_fn)
    estimator.train(input_fn=input_fn)
    predicted = len(list(estimator.predict(input_fn=lambda: input_fn(False))))
    '''

BATCHES = '''
import numpy as np


def batches(kind, steps, batch=8):
    rng = np.random.RandomState(7)
    width = 36 if kind == "classify_images" else 5
    x = rng.rand(steps, batch, width).astype(np.float32)
    if kind == "regress":
        y = rng.rand(steps, batch, 1).astype(np.float32)
    else:
        y = rng.randint(0, 3, size=(steps, batch)).astype(np.int32)
    return x, y
'''

CHILD_215 = BATCHES + '''
import inspect, json, sys
import tensorflow as tf

cases = json.load(open(sys.argv[1]))
out = {}
for name, case in cases.items():
    namespace = {"__name__": "case_" + name}
    exec(compile(case["source"], name, "exec"), namespace)
    model_fn = namespace[case["fn"]]
    x, y = batches(case["kind"], case["steps"])
    with tf.Graph().as_default():
        features = {"x": tf.compat.v1.placeholder(tf.float32, [None, x.shape[-1]])}
        labels = tf.compat.v1.placeholder(y.dtype, [None, *y.shape[2:]])
        tf.compat.v1.train.get_or_create_global_step()
        given = {"features": features, "labels": labels, "mode": "train", "params": namespace["PARAMS"]}
        spec = model_fn(**{k: v for k, v in given.items() if k in inspect.signature(model_fn).parameters})
        variables = tf.compat.v1.trainable_variables()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            initial = session.run(variables)
            losses = []
            for step in range(case["steps"]):
                loss, _ = session.run([spec.loss, spec.train_op], {features["x"]: x[step], labels: y[step]})
                losses.append(float(loss))
    out[name] = {"names": [v.name for v in variables], "shapes": [list(v.shape) for v in initial],
                 "initial": [v.tolist() for v in initial], "losses": losses}
json.dump(out, open(sys.argv[2], "w"))
'''

CHILD_221 = BATCHES + '''
import json, sys
import tensorflow as tf

cases = json.load(open(sys.argv[1]))
legacy = json.load(open(sys.argv[2]))
out = {}
for name, case in cases.items():
    if name == "one_shot":
        continue
    namespace = {"__name__": "case_" + name}
    exec(compile(case["source"], name, "exec"), namespace)
    model = namespace["estimator"]
    x, y = batches(case["kind"], case["steps"])
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
    model.restore(dataset)
    shapes = [list(v.shape) for v in model.trainable_variables]
    if shapes == legacy[name]["shapes"]:
        for variable, value in zip(model.trainable_variables, legacy[name]["initial"]):
            variable.assign(value)
    losses = []

    class Losses(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            losses.append(float(logs["loss"]))

    model.fit(dataset, epochs=1, steps_per_epoch=case["steps"], callbacks=[Losses()], verbose=0)
    evaluated = model.evaluate(dataset, return_dict=True, verbose=0)
    from legacy_estimators import model_fn_predictions  # the helper a module that calls predict imports

    predictions = list(model_fn_predictions(model, lambda: dataset.take(1)))
    out[name] = {"shapes": shapes, "losses": losses, "evaluate": sorted(evaluated),
                 "predict": sorted(predictions[0]) if isinstance(predictions[0], dict) else None,
                 "predictions": len(predictions), "iterations": int(model.optimizer.iterations)}
namespace = {"__name__": "one_shot"}
exec(compile(cases["one_shot"], "one_shot", "exec"), namespace)  # TFM708: fit and predict end with the data
out["one_shot"] = {"iterations": int(namespace["estimator"].optimizer.iterations), "predictions": namespace["predicted"]}
json.dump(out, open(sys.argv[3], "w"))
'''


def _sources(name: str) -> tuple[str, str, list[str]]:
    fn, kind, legacy = CASES[name]
    legacy = textwrap.dedent(legacy)
    estimator = rewrite_source(legacy.encode(), ESTIMATOR, path=f"{name}.py")
    keras = rewrite_source(legacy.encode(), KERAS, path=f"{name}.py")
    return estimator.new.decode(), keras.new.decode(), sorted({f.rule for f in keras.findings})


@pytest.fixture(scope="module")
def both_sides(tmp_path_factory):
    from tests.keras_env import run_keras, write_helpers

    root = tmp_path_factory.mktemp("model_fn_proof")
    write_helpers(root)  # the legacy_estimators.py the lowered modules import
    estimator_cases, keras_cases, rules = {}, {}, {}
    for name, (fn, kind, _) in CASES.items():
        estimator_src, keras_src, rules[name] = _sources(name)
        estimator_cases[name] = {"source": estimator_src, "fn": fn, "kind": kind, "steps": STEPS}
        keras_cases[name] = {"source": keras_src, "fn": fn, "kind": kind, "steps": STEPS}
    one_shot = rewrite_source(textwrap.dedent(ONE_SHOT).encode(), KERAS, path="one_shot.py")
    assert {"TFM707", "TFM708"} <= {f.rule for f in one_shot.findings}
    keras_cases["one_shot"] = one_shot.new.decode()
    (root / "estimator.json").write_text(json.dumps(estimator_cases))
    (root / "keras.json").write_text(json.dumps(keras_cases))
    proc = run_python(["-c", CHILD_215, "estimator.json", "legacy.json"], cwd=root, timeout=600,  # a fork of the suite's TF 2.15 server
                      env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    proc = run_keras(["-c", CHILD_221, "keras.json", "legacy.json", "keras_out.json"], cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    legacy = json.loads((root / "legacy.json").read_text())
    keras = json.loads((root / "keras_out.json").read_text())
    return legacy, keras, rules, keras_cases


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_lowered_model_fn_has_the_estimators_weights_and_losses(both_sides, name: str):
    legacy, keras, rules, cases = both_sides
    assert "TFM707" in rules[name] and "TFM705" not in rules[name]
    assert "tf.estimator." not in cases[name]["source"] and "compat.v1.layers" not in cases[name]["source"]
    assert keras[name]["shapes"] == legacy[name]["shapes"], legacy[name]["names"]
    assert len(keras[name]["losses"]) == len(legacy[name]["losses"]) == STEPS
    for step, (ours, theirs) in enumerate(zip(keras[name]["losses"], legacy[name]["losses"])):
        assert abs(ours - theirs) <= 1e-5, (step, keras[name]["losses"], legacy[name]["losses"])
    assert keras[name]["iterations"] == STEPS  # one optimizer step per batch: the global step


@pytest.mark.slow
def test_lowered_model_fn_evaluates_and_predicts_with_the_model_fns_names(both_sides):
    _, keras, _, _ = both_sides
    assert keras["mlp_sgd"]["evaluate"] == ["accuracy", "loss"]
    assert keras["mlp_sgd"]["predict"] == ["class_ids", "probabilities"]
    assert keras["mlp_sgd"]["predictions"] == 8  # one dict per example of the batch
    assert keras["cnn_momentum_decay"]["evaluate"] == ["loss", "mean_logit"]
    assert keras["network_adam_clip"]["evaluate"] == ["loss", "rmse"]
    assert keras["network_adam_clip"]["predict"] == ["y"]
    assert keras["batch_norm"]["predict"] is None  # a tensor of predictions: one value per example
    assert keras["slim_adagrad"]["evaluate"] == ["loss"]
    assert keras["slim_stack_optimize_loss"]["predict"] == ["class"]
    assert keras["one_shot"] == {"iterations": 3, "predictions": 5}  # one pass: 3 batches trained, 5 examples predicted
