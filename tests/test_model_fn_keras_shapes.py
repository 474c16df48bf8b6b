"""TFM707 on the shapes real custom model_fns have beside the proof's (issue 31, programs never shown to the
project): params as a dict or HParams, ``is_training = mode == TRAIN`` / ``mode != PREDICT``, ``tf.keras.layers``
inside the model_fn, ``tf.feature_column.input_layer(features, params["feature_columns"])``, the loss as
``reduce_mean(sparse_softmax_cross_entropy_with_logits)`` or ``tf.losses``, ``LoggingTensorHook``s in
``training_hooks`` (they only log: dropped with a note) and ``export_outputs``.

Each variant is a legacy program built from a table; the rewrite lowers it (TFM707, nothing of tf.estimator
left in the class) or names the piece on the Estimator's line (TFM705). All lowered variants then train 3 steps,
evaluate and predict in ONE TensorFlow 2.21 child.
"""

from __future__ import annotations

import itertools

import pytest

from tests.keras_env import keras_python, write_helpers
from tests.tfchildren import run_sources
from rewrite_once import rewrite_source  # a program lowered by its variant test and again for the TF child: once
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")

# how params are built and read: (the Estimator's params=, a read of key k)
PARAMS = {
    "dict": ('{"feature_columns": COLUMNS, "hidden": 8, "classes": 3, "rate": 0.05}', 'params["{k}"]'),
    "HParams": ("tf.contrib.training.HParams(feature_columns=COLUMNS, hidden=8, classes=3, rate=0.05)", "params.{k}"),
}
# how the network reads the features
INPUTS = {
    "features[x]": 'net = features["x"]',
    "input_layer": "net = tf.feature_column.input_layer(features, {feature_columns})",
    "compat.v1 input_layer": "net = tf.compat.v1.feature_column.input_layer(features=features, feature_columns={feature_columns})",
}
# how training is told: (the statement, the dropout's training=)
TRAINING = {
    "is_training": ("is_training = mode == tf.estimator.ModeKeys.TRAIN", "is_training"),
    "mode != PREDICT": ("", "mode != tf.estimator.ModeKeys.PREDICT"),
    "inline": ("", "mode == tf.estimator.ModeKeys.TRAIN"),
}
LAYERS = {
    "tf.layers": "net = tf.layers.dense(net, {hidden}, activation=tf.nn.relu)",
    "tf.keras.layers": "net = tf.keras.layers.Dense({hidden}, activation='relu')(net)",
}
LOSSES = {
    "reduce_mean": "loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))",
    "tf.losses": "loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)",
}
HOOKS = {
    "none": ("", "None"),
    "inline": ("", '[tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)]'),
    "named": ('logging_hook = tf.train.LoggingTensorHook(tensors={"loss": loss}, every_n_iter=10)', "[logging_hook]"),
    "estimator's": ("", '(tf.estimator.LoggingTensorHook({"loss": loss}, every_n_iter=5),)'),
}
MODEL_FN = '''
def model_fn(features, labels, mode, params):
    {training}
    {inputs}
    {layer}
    net = tf.layers.dropout(net, 0.1, training={train_flag})
    logits = tf.layers.dense(net, {classes})
    predicted = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={{"class": predicted, "prob": tf.nn.softmax(logits)}},
                                          export_outputs={{"out": tf.estimator.export.PredictOutput({{"class": predicted}})}})
    {loss}
    accuracy = tf.metrics.accuracy(labels=labels, predictions=predicted)
    tf.summary.scalar("accuracy", accuracy[1])
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={{"accuracy": accuracy}})
    optimizer = tf.train.AdamOptimizer({rate})
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    {hook}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks={hooks})
'''
DRIVER = '''
estimator = tf.estimator.Estimator(model_fn=model_fn, params={params})
data = {{"x": np.random.RandomState(0).rand(12, 4).astype("float32")}}
classes = np.arange(12) % 3
estimator.train(tf.estimator.inputs.numpy_input_fn(data, classes, batch_size=4, shuffle=False, num_epochs=None), steps=3)
scores = estimator.evaluate(tf.estimator.inputs.numpy_input_fn(data, classes, batch_size=4, shuffle=False, num_epochs=1))
rows = list(estimator.predict(tf.estimator.inputs.numpy_input_fn(data, shuffle=False, num_epochs=1)))
RESULT = [sorted(scores), len(rows), sorted(rows[0]), float(sum(rows[0]["prob"]))]
'''
COLUMNS = 'COLUMNS = [tf.feature_column.numeric_column("x", shape=[4])]\n'


def program(params: str, inputs: str, training: str, layer: str, loss: str, hook: str, columns: str = COLUMNS) -> str:
    built, read = PARAMS[params]
    statement, flag = TRAINING[training]
    hook_statement, hooks = HOOKS[hook]
    model_fn = MODEL_FN.format(
        training=statement or "pass", inputs=INPUTS[inputs].format(feature_columns=read.format(k="feature_columns")),
        layer=LAYERS[layer].format(hidden=read.format(k="hidden")), train_flag=flag, classes=read.format(k="classes"),
        loss=LOSSES[loss], rate=read.format(k="rate"), hook=hook_statement or "pass", hooks=hooks)
    return f"import numpy as np\nimport tensorflow as tf\n\n{columns}{model_fn}{DRIVER.format(params=built)}"


VARIANTS = (
    [(params, inputs, "is_training", "tf.layers", "reduce_mean", "none") for params, inputs in itertools.product(PARAMS, INPUTS)]
    + [("dict", "features[x]", training, layer, "tf.losses", "inline") for training, layer in itertools.product(TRAINING, LAYERS)]
    + [("HParams", "input_layer", "inline", "tf.keras.layers", loss, hook) for loss, hook in itertools.product(LOSSES, HOOKS)]
)


def lowered(source: str):
    result = rewrite_source(source.encode(), KERAS, path="model.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize("variant", VARIANTS, ids=["-".join(v) for v in VARIANTS])
def test_real_model_fn_shape_is_lowered(variant):
    new, findings = lowered(program(*variant))
    lowered_ = [f for f in findings if f.rule == "TFM707"]
    assert lowered_ and not [f for f in findings if f.rule == "TFM705"], [f.message for f in findings if f.rule == "TFM705"]
    body = new.split("class ModelFn(ModelFnModel):")[1].split("\nestimator = ")[0]
    for gone in ("tf.estimator.", "tf.layers.", "tf.train.", "tf.summary.", "LoggingTensorHook", "logging_hook",
                 "minimize", "export_outputs"):
        assert gone not in body, (gone, body)
    assert ("logging hooks" in lowered_[0].message) == (variant[5] != "none")
    assert "tf.keras.metrics.Accuracy(name=\"accuracy\")" in body and "tf.keras.layers.Dropout(rate=0.1)" in body
    assert rewrite_source(new.encode(), KERAS, path="model.py").new.decode() == new, "a second run changes nothing"


BLOCKED = {
    "an embedding column": (dict(columns='COLUMNS = [tf.feature_column.embedding_column(\n'
                                 '    tf.feature_column.categorical_column_with_identity("x", 10), 4)]\n'), "embedding_column"),
    "columns built elsewhere": (dict(columns="from columns import COLUMNS\n"), "feature columns built elsewhere"),
    "a hook that stops": ("tf.train.StopAtStepHook(last_step=10)", "training_hooks"),
}


@pytest.mark.parametrize("name", BLOCKED)
def test_what_cannot_be_lowered_is_named_on_the_estimator_line(name):
    change, piece = BLOCKED[name]
    if isinstance(change, dict):
        source = program("dict", "input_layer", "is_training", "tf.layers", "tf.losses", "none", **change)
    else:
        source = program("dict", "features[x]", "is_training", "tf.layers", "tf.losses", "inline").replace(
            'tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)', change)
    new, findings = lowered(source)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if text.startswith("estimator = "))
    blocked = [f for f in findings if f.rule == "TFM705"]
    assert blocked and {f.line for f in blocked} == {line} and piece in blocked[0].message, findings
    assert "class ModelFn" not in new


@pytest.mark.slow
def test_lowered_shapes_train_evaluate_and_predict_on_tf221(tmp_path):
    """Every lowered variant in ONE TensorFlow 2.21 child: 3 steps of fit, evaluate's dict, predict's rows."""
    write_helpers(tmp_path)
    prefix = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
    names = ["-".join(v) for v in VARIANTS]
    sources = {n: prefix + lowered(program(*v))[0] for n, v in zip(names, VARIANTS)}
    out = run_sources(sources, graph=False, module="__main__", python=keras_python())
    for name in names:
        assert isinstance(out[name], list), (name, out[name])
        keys, count, row_keys, total = out[name]
        assert keys == ["accuracy", "loss"] and count == 12 and row_keys == ["class", "prob"], (name, out[name])
        assert abs(total - 1) < 1e-5, (name, total)
