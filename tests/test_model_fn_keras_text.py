"""TFM707 on the pieces of text-classification model_fns (the corpus's learn_text_classification and its kin):
embedding tables (``embedding_lookup`` over ``get_variable``, contrib.learn's ``categorical_variable``),
``optimize_loss`` as the train_op, a layer whose size the model_fn computes, and the labels placeholder TFM114
writes for predict.

Each variant is a legacy program built from a table (how the table is made and read, how the train_op is made,
how the layers are sized, where the Estimator is built). The rewrite lowers it (TFM707, no TFM705, no
tf.estimator / get_variable / optimize_loss left) or names the piece that stops it on the Estimator's line.
Then every lowered variant runs in ONE TensorFlow 2.21 child: fit 3 steps, evaluate, predict.
"""

from __future__ import annotations

import itertools

import pytest

from tests.keras_env import keras_python, write_helpers
from tests.tfchildren import run_sources
from rewrite_once import rewrite_source  # a program lowered by its variant test and again for the TF child: once
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")

# how the embedding table is made and read: (imports, the statements that leave ``vectors`` [batch, 5, 4])
EMBEDDINGS = {
    "lookup(get_variable)": ("", 'vectors = tf.nn.embedding_lookup(tf.get_variable("words", [VOCAB, 4]), ids)'),
    "compat.v1 lookup, initializer": (
        "", 'vectors = tf.compat.v1.nn.embedding_lookup(\n'
            '        tf.compat.v1.get_variable("words", [VOCAB, 4], initializer=tf.random_uniform_initializer(-1.0, 1.0)),\n'
            '        ids)'),
    "table name": ("", 'table = tf.get_variable("words", shape=(VOCAB, 4))\n    vectors = tf.nn.embedding_lookup(table, ids)'),
    "keyword params": ("", 'vectors = tf.nn.embedding_lookup(params=tf.get_variable("words", [VOCAB, 4]), ids=ids)'),
    "categorical_variable": ("from tensorflow.contrib import learn\n",
                             'vectors = learn.ops.categorical_variable(ids, n_classes=VOCAB, embedding_size=4, name="words")'),
}
# how the train_op is made
TRAINS = {
    "minimize": "train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.train.get_global_step())",
    "optimize_loss Adam": "train_op = tf.contrib.layers.optimize_loss(\n"
                          "        loss, tf.contrib.framework.get_global_step(), optimizer='Adam', learning_rate=0.01)",
    "optimize_loss keywords": "train_op = tf.contrib.layers.optimize_loss(loss=loss, global_step=tf.train.get_global_step(),\n"
                              "        learning_rate=0.1, optimizer='SGD', clip_gradients=5.0)",
    "optimize_loss class": "train_op = tf.contrib.layers.optimize_loss(\n"
                           "        loss, tf.train.get_global_step(), 0.05, tf.train.AdagradOptimizer)",
    "optimize_loss Momentum": "train_op = tf.contrib.layers.optimize_loss(loss, None, 0.01, 'Momentum', summaries=['loss'])",
    "from layers import": "from tensorflow.contrib import layers\n"
                          "    train_op = layers.optimize_loss(loss, tf.train.get_global_step(), 0.01, 'Adam')",
}
# how the classifier layer is sized: a value __init__ can read, or one the model_fn computes (made lazily)
SIZES = {
    "params": 'logits = tf.layers.dense(net, params["classes"])',
    "computed": "width = int(net.shape[-1]) * 2\n    hidden = tf.layers.dense(net, width, tf.nn.relu)\n"
                '    logits = tf.layers.dense(hidden, params["classes"])',
}
SCOPES = {
    "module": "{model_fn}\nestimator = {build}\n{use}",
    "function": "{model_fn}\ndef main():\n    estimator = {build}\n{use_indented}\n\nmain()\n",
    "__main__": '{model_fn}\nif __name__ == "__main__":\n    estimator = {build}\n{use_indented}\n',
}
MODEL_FN = '''
def model_fn(features, labels, mode, params):
    ids = features["ids"]
    {embedding}
    net = tf.reduce_max(vectors, axis=1)
    {size}
    predictions = {{"class": tf.argmax(logits, 1), "prob": tf.nn.softmax(logits)}}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    {train}
    return tf.estimator.EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op,
                                      eval_metric_ops={{"accuracy": tf.metrics.accuracy(labels, predictions["class"])}})
'''
USE = '''rng = np.random.RandomState(0)
data = {"ids": rng.randint(0, VOCAB, size=(12, 5))}
classes = rng.randint(0, 3, size=12)
estimator.train(tf.estimator.inputs.numpy_input_fn(data, classes, batch_size=4, shuffle=False, num_epochs=None), steps=3)
scores = estimator.evaluate(tf.estimator.inputs.numpy_input_fn(data, classes, batch_size=4, shuffle=False, num_epochs=1))
rows = list(estimator.predict(tf.estimator.inputs.numpy_input_fn(data, shuffle=False, num_epochs=1)))
RESULT = [sorted(scores), len(rows), sorted(rows[0]), float(sum(rows[0]["prob"]))]
'''
BUILD = 'tf.estimator.Estimator(model_fn=model_fn, params={"classes": 3})'


def program(embedding: str, train: str, size: str, scope: str) -> str:
    imports, statements = EMBEDDINGS[embedding]
    model_fn = MODEL_FN.format(embedding=statements, size=SIZES[size], train=TRAINS[train])
    use_indented = "\n".join("    " + line if line else line for line in USE.splitlines())
    use_indented = use_indented.replace("    RESULT = ", "    global RESULT\n    RESULT = ") if scope == "function" else use_indented
    body = SCOPES[scope].format(model_fn=model_fn, build=BUILD, use=USE, use_indented=use_indented)
    return f"import numpy as np\nimport tensorflow as tf\n{imports}\nVOCAB = 20\n{body}"


VARIANTS = (
    [(embedding, "minimize", "params", "module") for embedding in EMBEDDINGS]
    + [("lookup(get_variable)", train, "params", "module") for train in TRAINS]
    + [("categorical_variable", train, size, scope)
       for train, size, scope in itertools.product(("optimize_loss Adam", "minimize"), SIZES, SCOPES)]
)


def lowered(source: str):
    result = rewrite_source(source.encode(), KERAS, path="model.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize("variant", VARIANTS, ids=["-".join(v) for v in VARIANTS])
def test_text_model_fn_variant_is_lowered(variant):
    embedding, train, size, scope = variant
    new, findings = lowered(program(*variant))
    rules = {f.rule for f in findings}
    assert "TFM707" in rules and "TFM705" not in rules, [f.message for f in findings if f.rule.startswith("TFM70")]
    for gone in ("get_variable", "optimize_loss", "embedding_lookup", "tf.estimator.", "tf.layers.", "disable_eager_execution"):
        assert gone not in new.split("class ModelFn(ModelFnModel):")[1], (gone, new)
    assert "tf.keras.layers.Embedding(VOCAB, 4, embeddings_initializer=" in new
    assert ("random_uniform_initializer(-1.0, 1.0)" in new) == ("initializer" in embedding)
    if train.startswith("optimize_loss") or train == "from layers import":
        optimizer = {"optimize_loss Adam": "Adam(learning_rate=0.01, epsilon=1e-08)",
                     "optimize_loss keywords": "SGD(learning_rate=0.1, global_clipnorm=5.0)",
                     "optimize_loss class": "Adagrad(learning_rate=0.05, initial_accumulator_value=0.1, epsilon=0.0)",
                     "optimize_loss Momentum": "SGD(learning_rate=0.01, momentum=0.9)",
                     "from layers import": "Adam(learning_rate=0.01, epsilon=1e-08)"}[train]
        assert f"self.compile(optimizer=tf.keras.optimizers.{optimizer}, jit_compile=False)" in new
    if size == "computed":
        assert "self.hidden = None" in new and 'self.layer_once("hidden", lambda: tf.keras.layers.Dense(units=width' in new
    again = rewrite_source(new.encode(), KERAS, path="model.py")
    assert again.new.decode() == new, "a second run changes nothing"


BLOCKED = {
    "a table read twice": ('table = tf.get_variable("words", [VOCAB, 4])\n    vectors = tf.nn.embedding_lookup(table, ids)'
                           " + tf.reduce_sum(table)", "get_variable"),
    "max_norm": ('vectors = tf.nn.embedding_lookup(tf.get_variable("words", [VOCAB, 4]), ids, max_norm=1.0)', "max_norm"),
    "a regularized table": ('vectors = tf.nn.embedding_lookup(tf.get_variable("words", [VOCAB, 4], regularizer=tf.nn.l2_loss), ids)',
                            "get_variable"),
    "a layer sized in a branch": ('vectors = tf.nn.embedding_lookup(tf.get_variable("words", [VOCAB, 4]), ids)\n'
                                  '    if mode == "train":\n        vectors = tf.layers.dense(vectors, int(ids.shape[-1]))',
                                  "computed in the model_fn"),
}
BLOCKED_TRAINS = {
    "optimize_loss noise": ("train_op = tf.contrib.layers.optimize_loss(loss, None, 0.01, 'Adam', gradient_noise_scale=0.1)",
                            "gradient_noise_scale"),
    "optimize_loss RMSProp": ("train_op = tf.contrib.layers.optimize_loss(loss, None, 0.01, 'RMSProp')", "RMSProp"),
    "optimize_loss decay fn": ("train_op = tf.contrib.layers.optimize_loss(loss, None, 0.01, 'Adam', "
                               "learning_rate_decay_fn=lambda lr, step: lr)", "learning_rate_decay_fn"),
    "optimize_loss kwargs": ("train_op = tf.contrib.layers.optimize_loss(loss, **params['train'])", "optimize_loss"),
}


@pytest.mark.parametrize("name", [*BLOCKED, *BLOCKED_TRAINS])
def test_what_has_no_faithful_form_is_named_on_the_estimator_line(name):
    if name in BLOCKED:
        statements, piece = BLOCKED[name]
        model_fn = MODEL_FN.format(embedding=statements, size=SIZES["params"], train=TRAINS["minimize"])
    else:
        train, piece = BLOCKED_TRAINS[name]
        model_fn = MODEL_FN.format(embedding=EMBEDDINGS["lookup(get_variable)"][1], size=SIZES["params"], train=train)
    source = f"import numpy as np\nimport tensorflow as tf\nVOCAB = 20\n{model_fn}\nestimator = {BUILD}\n"
    new, findings = lowered(source)
    line = source.splitlines().index(f"estimator = {BUILD}") + 1
    blocked = [f for f in findings if f.rule == "TFM705"]
    assert blocked and all(f.line == line for f in blocked), findings
    assert piece in blocked[0].message, blocked[0].message
    assert "class ModelFn" not in new


@pytest.mark.slow
def test_lowered_text_model_fns_train_evaluate_and_predict_on_tf221(tmp_path):
    """Every lowered variant in ONE TensorFlow 2.21 child: 3 training steps, evaluate's dict, predict's rows."""
    write_helpers(tmp_path)
    prefix = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
    names = ["-".join(v) for v in VARIANTS]
    sources = {n: prefix + lowered(program(*v))[0] for n, v in zip(names, VARIANTS)}
    out = run_sources(sources, graph=False, module="__main__", python=keras_python())
    for name in names:
        assert isinstance(out[name], list), (name, out[name])
        keys, count, row_keys, total = out[name]
        assert keys == ["accuracy", "global_step", "loss"] or keys == ["accuracy", "loss"], (name, keys)
        assert count == 12 and row_keys == ["class", "prob"] and abs(total - 1) < 1e-5, (name, out[name])
