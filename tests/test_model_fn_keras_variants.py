"""TFM707 in every shape a model_fn comes in (no TensorFlow: the rewrite only; the proof that the Keras model
trains as the Estimator did is tests/test_model_fn_keras_proof.py).

Each variant is a legacy program built from a table: how layers are imported and called, how ModeKeys is
named, where the model_fn is defined, how the Estimator is constructed, how params are read, how the
optimizer is built. A variant is lowered (TFM707: a ModelFnModel subclass, no tf.estimator / tf.layers /
tf_slim name left, a second run changes nothing) or, for the pieces that have no faithful Keras form,
left as it is with TFM705 naming the piece on the Estimator's line.
"""

from __future__ import annotations

import ast
import itertools
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")

# how the layers are written: (imports, a dense layer of n units on x, a dropout on x)
LAYERS = {
    "tf.layers": ("", "tf.layers.dense({x}, {n}, activation=tf.nn.relu)", "tf.layers.dropout({x}, 0.5, training={train})"),
    "compat.v1.layers": ("", "tf.compat.v1.layers.dense(inputs={x}, units={n}, activation=tf.nn.relu)",
                         "tf.compat.v1.layers.dropout(inputs={x}, rate=0.5, training={train})"),
    "from tensorflow import layers": ("from tensorflow import layers\n", "layers.dense({x}, {n}, tf.nn.relu)",
                                      "layers.dropout({x}, training={train})"),
    "layer classes": ("", "tf.layers.Dense({n}, activation=tf.nn.relu)({x})", "tf.layers.Dropout(0.5)({x}, training={train})"),
    "contrib.layers": ("", "tf.contrib.layers.fully_connected({x}, {n})",
                       "tf.contrib.layers.dropout({x}, keep_prob=0.5, is_training={train})"),
    "from contrib import layers": ("from tensorflow.contrib import layers\n", "layers.fully_connected({x}, num_outputs={n})",
                                   "layers.dropout({x}, 0.5, is_training={train})"),
    "tf_slim": ("import tf_slim as slim\n", "slim.fully_connected({x}, {n})", "slim.dropout({x}, is_training={train})"),
}
# how TRAIN / PREDICT are named: (imports, module statements, TRAIN, PREDICT)
MODE_KEYS = {
    "tf.estimator": ("", "", "tf.estimator.ModeKeys.TRAIN", "tf.estimator.ModeKeys.PREDICT"),
    "contrib.learn": ("", "", "tf.contrib.learn.ModeKeys.TRAIN", "tf.contrib.learn.ModeKeys.INFER"),
    "from estimator import": ("from tensorflow.estimator import ModeKeys\n", "", "ModeKeys.TRAIN", "ModeKeys.PREDICT"),
    "from contrib.learn import": ("from tensorflow.contrib import learn\n", "", "learn.ModeKeys.TRAIN", "learn.ModeKeys.INFER"),
    "compat.v1": ("", "", "tf.compat.v1.estimator.ModeKeys.TRAIN", "tf.compat.v1.estimator.ModeKeys.PREDICT"),
    "string": ("", "", '"train"', '"infer"'),
}
# where the model_fn and its Estimator live: a template with {model_fn} (the def, at column 0) and {build}
SCOPES = {
    "module": "{model_fn}\n\nestimator = {build}\n",
    "function": "def main():\n{model_fn_indented}\n    estimator = {build}\n    return estimator\n",
    "__main__": 'if __name__ == "__main__":\n{model_fn_indented}\n    estimator = {build}\n',
}
# how the Estimator is built
BUILDS = {
    "keywords": 'tf.estimator.Estimator(model_fn=model_fn, model_dir="model", params={{"n": 4, "rate": 0.1}})',
    "positional": 'tf.estimator.Estimator(model_fn, "model", None, {{"n": 4, "rate": 0.1}})',
    "config": 'tf.estimator.Estimator(model_fn=model_fn, params={{"n": 4, "rate": 0.1}}, '
              'config=tf.estimator.RunConfig(model_dir="model", save_checkpoints_steps=10))',
}
PARAMS = {"subscript": 'params["n"]', "get": 'params.get("n", 8)'}

MODEL_FN = '''\
def model_fn(features, labels, mode, params):
    """The model."""
    net = {dense1}  # the hidden layer
    net = {dropout}
    logits = {dense2}
    predictions = {{"class_ids": tf.argmax(logits, 1)}}
    if mode == {predict}:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == {train}:
        optimizer = tf.train.GradientDescentOptimizer(learning_rate=params["rate"])
        train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    metrics = {{"accuracy": tf.metrics.accuracy(labels, predictions["class_ids"])}}
    return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
'''


def program(layers: str, keys: str, scope: str, build: str, params: str) -> str:
    layer_imports, dense, dropout = LAYERS[layers]
    key_imports, key_statements, train, predict = MODE_KEYS[keys]
    fn = MODEL_FN.format(dense1=dense.format(x='features["x"]', n=PARAMS[params]),
                         dropout=dropout.format(x="net", train=f"mode == {train}"),
                         dense2=dense.format(x="net", n=3).replace("fully_connected(net, 3)", "fully_connected(net, 3, activation_fn=None)")
                         .replace("fully_connected(net, num_outputs=3)", "fully_connected(net, num_outputs=3, activation_fn=None)")
                         .replace(", activation=tf.nn.relu)", ")").replace(", tf.nn.relu)", ")"),
                         train=train, predict=predict)
    body = SCOPES[scope].format(model_fn=fn, model_fn_indented=textwrap.indent(fn, "    "), build=BUILDS[build].format())
    return f"import tensorflow as tf\n{layer_imports}{key_imports}\n{key_statements}\n{body}"


VARIANTS = (
    [("layers", name, "tf.estimator", "module", "keywords", "subscript") for name in LAYERS]
    + [("keys", "tf.layers", name, "module", "keywords", "get") for name in MODE_KEYS]
    + [("scope", layers, "tf.estimator", scope, build, "subscript")
       for layers, scope, build in itertools.product(("tf.layers", "contrib.layers"), SCOPES, BUILDS)]
)


def lowered(source: str) -> tuple[str, set[str], list]:
    result = rewrite_source(source.encode(), KERAS, path="model.py")
    return result.new.decode(), {f.rule for f in result.findings}, result.findings


def legacy_names(code: str) -> list[str]:
    """tf.estimator / tf.layers / tf_slim / contrib.layers / ModeKeys names the code still reads (not its strings)."""
    out = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Attribute):
            text = ast.unparse(node)
            if text.startswith(("tf.estimator.", "tf.compat.v1.estimator.", "tf.layers.", "tf.compat.v1.layers.",
                                "tf.contrib.", "slim.", "layers.", "learn.")) or node.attr == "ModeKeys":
                out.append(text)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out += [a.name for a in node.names if a.name in ("tf_slim", "layers", "ModeKeys", "learn")]
    return out


@pytest.mark.parametrize("variant", VARIANTS, ids=["-".join(v) for v in VARIANTS])
def test_model_fn_variant_is_lowered_to_a_keras_model(variant):
    _, layers, keys, scope, build, params = variant
    source = program(layers, keys, scope, build, params)
    new, rules, findings = lowered(source)
    assert "TFM707" in rules and "TFM705" not in rules, [f.message for f in findings if f.rule.startswith("TFM70")]
    assert "class ModelFn(ModelFnModel):" in new and "def model_fn(self, features, labels, mode, params):" in new
    assert not legacy_names(new), legacy_names(new)
    assert "disable_eager_execution" not in new  # Keras 3 needs eager execution (TFM502 asks lowers_to_keras)
    assert '"""The model."""' in new and "# the hidden layer" in new  # the docstring and comments are kept
    assert "training=mode == \"train\"" in new
    assert "if mode == \"infer\":" in new
    assert "estimator = ModelFn(" in new and "model_fn=" not in new.split("estimator = ModelFn(")[1].split(")")[0]
    assert "self.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=params[\"rate\"]), jit_compile=False)" in new
    assert 'self.metric_accuracy = tf.keras.metrics.Accuracy(name="accuracy")' in new
    if layers in ("contrib.layers", "from contrib import layers", "tf_slim"):
        assert "activation=tf.nn.relu" in new  # slim's default activation, written out
        assert "tf.keras.layers.Dropout(rate=1 - 0.5)" in new or "tf.keras.layers.Dropout(rate=0.5)" in new
    if build == "config":
        assert 'config=dict(model_dir="model", save_checkpoints_steps=10)' in new
    if params == "get":
        assert 'tf.keras.layers.Dense(units=params.get("n", 8)' in new
    compile(new, "model.py", "exec")
    again = rewrite_source(new.encode(), KERAS, path="model.py")
    assert again.new.decode() == new, "a second run must change nothing"


def test_module_alias_of_mode_keys_is_flagged_on_its_line():
    source = "import tensorflow as tf\n\nModes = tf.estimator.ModeKeys\n\n" + MODEL_FN.format(
        dense1='tf.layers.dense(features["x"], 4)', dropout="net", dense2="tf.layers.dense(net, 3)",
        train="Modes.TRAIN", predict="Modes.PREDICT") + "\n\nestimator = tf.estimator.Estimator(model_fn, params={'rate': 0.1})\n"
    new, rules, findings = lowered(source)
    assert "TFM707" in rules and "Modes.TRAIN" not in new and 'mode == "train"' in new
    assert any(f.rule == "TFM706" and f.line == 3 for f in findings)  # the alias itself: TF 2.21 has no tf.estimator


NETWORK = '''\
import tensorflow as tf


def network(x, mode, params):
    net = tf.layers.conv2d(x, 4, [3, 3], padding="SAME", activation=tf.nn.relu)
    net = tf.layers.max_pooling2d(net, [2, 2], 2)
    net = tf.layers.batch_normalization(net, training=mode == tf.estimator.ModeKeys.TRAIN)
    return tf.layers.dense(tf.layers.flatten(net), params["classes"])


def model_fn(features, labels, mode, params):
    logits = network(features["x"], mode, params)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.losses.softmax_cross_entropy(tf.one_hot(labels, params["classes"]), logits)
    rate = tf.train.piecewise_constant(tf.train.get_global_step(), [10, 20], [0.1, 0.05, 0.01])
    optimizer = tf.train.AdamOptimizer(rate)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops={"loss_mean": tf.metrics.mean(loss)})


estimator = tf.estimator.Estimator(model_fn=model_fn, params={"classes": 3})
predictions = estimator.predict(input_fn=lambda: {"x": tf.zeros([2, 8, 8, 1])})
'''


def test_a_network_function_takes_the_model_and_a_schedule_becomes_keras():
    new, rules, findings = lowered(NETWORK)
    assert "TFM707" in rules and "TFM705" not in rules, [f.message for f in findings]
    assert "def network(model, x, mode, params):" in new
    assert "logits = network(self, features[\"x\"], mode, params)" in new
    assert 'self.net = tf.keras.layers.Conv2D(4, [3, 3], padding="same", activation=tf.nn.relu)' not in new  # keywords
    assert 'tf.keras.layers.Conv2D(filters=4, kernel_size=[3, 3], padding="same", activation=tf.nn.relu)' in new
    assert "tf.keras.layers.MaxPooling2D(pool_size=[2, 2], strides=2)" in new
    assert "model.net_2(net, training=mode == \"train\")" in new  # batch norm's training
    assert "return model.dense(model.flatten(net))" in new
    assert ("tf.keras.optimizers.Adam(learning_rate=tf.keras.optimizers.schedules.PiecewiseConstantDecay("
            "boundaries=[10, 20], values=[0.1, 0.05, 0.01]), epsilon=1e-08)") in new
    assert "rate = " not in new and "train_op" not in new
    assert "tf.compat.v1.losses.softmax_cross_entropy(" in new  # TF 1.x's loss, its reduction
    assert "predictions = model_fn_predictions(estimator, lambda:" in new
    assert not legacy_names(new)
    compile(new, "model.py", "exec")


CLIPPED = '''\
import tensorflow as tf


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features, 2)
    loss = tf.losses.sigmoid_cross_entropy(labels, logits)
    optimizer = tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)
    grads_and_vars = optimizer.compute_gradients(loss)
    gradients, variables = zip(*grads_and_vars)
    gradients, _ = tf.clip_by_global_norm(gradients, 5.0)
    tf.summary.scalar("loss", loss)
    train_op = optimizer.apply_gradients(zip(gradients, variables), global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


estimator = tf.estimator.Estimator(model_fn)
'''


def test_gradient_clipping_becomes_global_clipnorm_and_summaries_go():
    new, rules, findings = lowered(CLIPPED)
    assert "TFM707" in rules, [f.message for f in findings]
    assert "tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True, global_clipnorm=5.0)" in new
    body = new.split("def model_fn(self, features, labels, mode):")[1]
    assert "compute_gradients" not in body and "clip_by_global_norm" not in body and "summary" not in body
    assert body.split("\n\n\n")[0].strip().endswith("return dict(mode=mode, loss=loss)")


BLOCKERS = {
    "training_hooks": ("return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)",
                       # a hook that does more than log (LoggingTensorHooks are dropped with a note: test_model_fn_keras_shapes)
                       "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, "
                       "training_hooks=[tf.train.StopAtStepHook(last_step=100)])",
                       "EstimatorSpec(training_hooks=...)"),
    "scaffold": ("return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)",
                 "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=tf.train.Scaffold())",
                 "EstimatorSpec(scaffold=...)"),
    "two optimizers": ("train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())",
                       "train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())\n"
                       "    other_op = tf.train.AdamOptimizer(0.01).minimize(loss)",
                       "several optimizers"),
    "custom train_op": ("train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())",
                        "train_op = tf.group(optimizer.minimize(loss, global_step=tf.train.get_global_step()))",
                        "custom train_op logic"),
    "no global step": ("train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())",
                       "train_op = optimizer.minimize(loss)", "without global_step"),
    "var_list": ("train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())",
                 "train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step(), var_list=[])",
                 "minimize(var_list=)"),
    "get_variable": ('logits = tf.layers.dense(net, 3)',
                     'logits = tf.matmul(net, tf.get_variable("w", [4, 3], regularizer=tf.nn.l2_loss))', "get_variable"),
    "layer in a loop": ('net = tf.layers.dense(features["x"], 4)',
                        'net = features["x"]\n    for units in params["units"]:\n        net = tf.layers.dense(net, units)',
                        "dense called in a loop"),
    "reuse": ('logits = tf.layers.dense(net, 3)', 'logits = tf.layers.dense(net, 3, name="d", reuse=True)', "reuse"),
    "scope reuse": ('logits = tf.layers.dense(net, 3)',
                    'with tf.variable_scope("top", reuse=tf.AUTO_REUSE):\n        logits = tf.layers.dense(net, 3)',
                    "variable_scope with reuse"),
    # a layer argument the model_fn computes is made on its first run (layer_once), except where not every run gets there
    "local argument": ('logits = tf.layers.dense(net, 3)', 'width = 3\n    logits = tf.layers.dense(net, width) if width else net',
                       "reads width"),
    "RMSProp": ("optimizer = tf.train.GradientDescentOptimizer(0.1)", "optimizer = tf.train.RMSPropOptimizer(0.1)",
                "RMSPropOptimizer"),
    "Momentum with a decaying rate": ("optimizer = tf.train.GradientDescentOptimizer(0.1)",
                                      "optimizer = tf.train.MomentumOptimizer(tf.train.exponential_decay("
                                      "0.1, tf.train.get_global_step(), 100, 0.9), 0.9)",
                                      "MomentumOptimizer with a decaying learning rate"),
    "Momentum with a decaying rate by name": ("optimizer = tf.train.GradientDescentOptimizer(0.1)",
                                              "rate = tf.train.piecewise_constant(tf.train.get_global_step(), [10], [0.1, 0.01])\n"
                                              "    optimizer = tf.train.MomentumOptimizer(learning_rate=rate, momentum=0.9)",
                                              "MomentumOptimizer with a decaying learning rate"),
    "auc": ('metrics = {"accuracy": tf.metrics.accuracy(labels, tf.argmax(logits, 1))}',
            'metrics = {"auc": tf.metrics.auc(labels, logits)}', "tf.compat.v1.metrics.auc"),
    "config parameter": ("def model_fn(features, labels, mode, params):", "def model_fn(features, labels, mode, params, config):",
                         "only features, labels, mode, params"),
    "used elsewhere": ("estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)",
                       "estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)\nspec = model_fn",
                       "also used elsewhere"),
    "kwargs": ("estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)",
               "estimator = tf.estimator.Estimator(**dict(model_fn=model_fn, params=PARAMS))", "**kwargs"),
    "warm start": ("estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)",
                   'estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS, warm_start_from="old")',
                   "warm_start_from="),
    "method": ("estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)",
               "class Trainer:\n    def model_fn(self, features, labels, mode, params):\n        return None\n\n"
               "    def build(self):\n        return tf.estimator.Estimator(model_fn=self.model_fn, params=PARAMS)",
               "is a method"),
}
BASE = '''\
import tensorflow as tf

PARAMS = {"units": [4]}


def model_fn(features, labels, mode, params):
    net = tf.layers.dense(features["x"], 4)
    logits = tf.layers.dense(net, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    optimizer = tf.train.GradientDescentOptimizer(0.1)
    hook = tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=10)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    metrics = {"accuracy": tf.metrics.accuracy(labels, tf.argmax(logits, 1))}
    if mode == tf.estimator.ModeKeys.TRAIN:
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)


estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)
'''


@pytest.mark.parametrize("name", sorted(BLOCKERS))
def test_what_has_no_faithful_keras_form_is_named_by_tfm705(name: str):
    old, new_text, piece = BLOCKERS[name]
    assert old in BASE
    source = BASE.replace(old, new_text, 1)
    new, rules, findings = lowered(source)
    assert "TFM707" not in rules and "ModelFnModel" not in new
    messages = [f.message for f in findings if f.rule == "TFM705"]
    assert len(messages) == 1 and piece in messages[0], messages
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "tf.estimator.Estimator(" in text)
    assert [f.line for f in findings if f.rule == "TFM705"] == [line]  # on the construction's line


def test_the_base_unchanged_is_lowered():
    new, rules, findings = lowered(BASE.replace("    hook = tf.train.LoggingTensorHook({\"loss\": loss}, every_n_iter=10)\n", ""))
    assert "TFM707" in rules and "TFM705" not in rules, [f.message for f in findings]


def test_a_bound_run_config_and_a_bound_global_step_in_a_factory():
    source = BASE.replace("    hook = tf.train.LoggingTensorHook({\"loss\": loss}, every_n_iter=10)\n", "").replace(
        "    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())",
        "    global_step = tf.train.get_or_create_global_step()\n    train_op = optimizer.minimize(loss, global_step=global_step)",
    ).replace(
        "estimator = tf.estimator.Estimator(model_fn=model_fn, params=PARAMS)",
        "def build(model_dir):\n    config = tf.estimator.RunConfig(model_dir=model_dir, keep_checkpoint_max=2)\n"
        "    return tf.estimator.Estimator(model_fn, config=config, params=PARAMS)",
    )
    new, rules, findings = lowered(source)
    assert "TFM707" in rules and "TFM705" not in rules, [f.message for f in findings]
    assert "config = dict(model_dir=model_dir, keep_checkpoint_max=2)" in new
    assert "return ModelFn(config=config, params=PARAMS)" in new
    assert "global_step = self.optimizer.iterations" in new and "minimize" not in new


def test_a_network_function_given_other_params_is_named():
    source = NETWORK.replace('logits = network(features["x"], mode, params)', 'logits = network(features["x"], mode, {"classes": 2})')
    new, rules, findings = lowered(source)
    assert "TFM707" not in rules
    assert any("called with other params than the model_fn's" in f.message for f in findings if f.rule == "TFM705")
