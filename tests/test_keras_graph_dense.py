"""TFM712 (keras_graph): graph-mode ``tf.compat.v1.layers.dense`` on TensorFlow 2.21 through ``legacy_dense``.

Each variant is a legacy graph-mode program built from a table: how tensorflow and the layer are imported, how the
layer is called, where the network is built. Every variant is rewritten with ``--target keras`` (the call becomes
``legacy_dense``, imported from the helpers module, no ``layers`` name left, TFM712 on the call's line) and with the
default target (TensorFlow 2.15). Then all TF 2.21 rewrites run in ONE TensorFlow 2.21 child and all TF 2.15
rewrites in ONE TensorFlow 2.15 child: each builds its network in a graph, gives every variable the same values
(by the order of their names) and evaluates the output on the same input. The variable names, shapes,
regularization losses and outputs must be the same on both sides. The forms that cannot be followed (``dense``
passed as a value) keep TFM753 on their line.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest

from tests.keras_env import keras_python, write_helpers
from tests.tfchildren import run_sources
from rewrite_once import rewrite_source  # a program lowered by its variant test and again for the TF child: once
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")
ESTIMATOR = load_catalog().selected(None, target="estimator")

# how tensorflow and the layer are imported: (imports, the placeholder function, the dense function)
IMPORTS = {
    "tf.layers": ("import tensorflow as tf\n", "tf.placeholder", "tf.layers.dense"),
    "compat.v1 as tf": ("import tensorflow.compat.v1 as tf\n", "tf.placeholder", "tf.layers.dense"),
    "tf.compat.v1.layers": ("import tensorflow as tf\n", "tf.compat.v1.placeholder", "tf.compat.v1.layers.dense"),
    "from compat.v1 import layers": ("import tensorflow as tf\nfrom tensorflow.compat.v1 import layers\n",
                                     "tf.compat.v1.placeholder", "layers.dense"),
    "from layers import dense": ("import tensorflow as tf\nfrom tensorflow.compat.v1.layers import dense\n",
                                 "tf.compat.v1.placeholder", "dense"),
    "from compat import v1": ("import tensorflow as tf\nfrom tensorflow.compat import v1\n", "v1.placeholder", "v1.layers.dense"),
}
# how the layers are called on x (rank 2, 4 features): the network's output is ``out``
CALLS = {
    "positional": "h = {dense}(x, 5, tf.nn.relu)\n    out = {dense}(h, 2)",
    "keywords": 'h = {dense}(inputs=x, units=5, activation=tf.nn.tanh, name="hidden")\n'
                '    out = {dense}(inputs=h, units=2, use_bias=False, name="logits")',
    "kwargs": 'settings = dict(units=3, activation=tf.nn.sigmoid, kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(w * w))\n'
              '    out = {dense}(x, **settings)',
    "bias None": "out = {dense}(x, 2, bias_initializer=None, bias_regularizer=lambda b: tf.reduce_sum(b))",
    "rank 3": "out = {dense}(tf.reshape(x, [-1, 2, 2]), 3)",
    "variable scopes": 'with tf.variable_scope("tower"):\n        h = {dense}(x, 3)\n'
                       '    with tf.variable_scope("tower", reuse=True):\n        h2 = {dense}(x, 3, name="dense", reuse=True)\n'
                       '    out = {dense}(h + h2, 2)',
}
# where the network is built: {body} is indented by four spaces
SCOPES = {
    "module": "if True:\n    {body}\n",
    "function": "def network(x):\n    {body}\n    return out\nout = network(x)\n",
    "method": "class Net:\n    def __init__(self, x):\n        self.out = self.build(x)\n\n    def build(self, x):\n"
              "        {body}\n        return out\nout = Net(x).out\n",
    "__main__": 'if __name__ == "__main__":\n    {body}\n',
}
TAIL = """
import numpy as _np
_variables = sorted(tf.global_variables() if hasattr(tf, "global_variables") else tf.compat.v1.global_variables(),
                    key=lambda v: v.name)
_losses = (tf.get_collection if hasattr(tf, "get_collection") else tf.compat.v1.get_collection)("regularization_losses")
with (tf.Session if hasattr(tf, "Session") else tf.compat.v1.Session)() as _session:
    for _i, _v in enumerate(_variables):
        _shape = _v.shape.as_list()
        _session.run(_v.assign(_np.linspace(-1, 1, int(_np.prod(_shape))).reshape(_shape) * (_i + 1)))
    _data = _np.linspace(-2, 2, 12).reshape(3, 4)
    RESULT = {"variables": [[_v.name, _v.shape.as_list()] for _v in _variables],
              "output": _np.round(_session.run(out, {x: _data}), 5).tolist(),
              "losses": _np.round(_session.run(_losses), 5).tolist()}
"""

VARIANTS = (
    [(name, "positional", "module") for name in IMPORTS]
    + [("tf.layers", call, scope) for call, scope in itertools.product(CALLS, SCOPES)]
    + [("from layers import dense", call, "function") for call in CALLS]
)


def program(imports: str, call: str, scope: str) -> str:
    head, placeholder, dense = IMPORTS[imports]
    indent = "        " if scope == "method" else "    "
    body = CALLS[call].format(dense=dense).replace("\n    ", "\n" + indent)
    network = SCOPES[scope].format(body=body)
    return f"{head}\nx = {placeholder}(tf.float32, [None, 4])\n{network}" + TAIL


def rewritten(source: str, catalog) -> tuple[str, list]:
    result = rewrite_source(source.encode(), catalog, path="net.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize("variant", VARIANTS, ids=["-".join(v) for v in VARIANTS])
def test_dense_variant_becomes_legacy_dense(variant):
    source = program(*variant)
    new, findings = rewritten(source, KERAS)
    assert new.count("legacy_dense(") == source.count("dense("), new
    assert "from legacy_estimators import legacy_dense\n" in new
    assert "layers" not in new.replace("legacy_estimators", ""), new  # no Keras 2 name (nor its import) is left
    lines = {f.line for f in findings if f.rule == "TFM712"}
    assert lines == {i for i, text in enumerate(source.splitlines(), 1) if "dense(" in text}, findings
    assert not [f for f in findings if f.rule == "TFM753"]
    assert rewrite_source(new.encode(), KERAS, path="net.py").new.decode() == new, "a second run changes nothing"


def test_dense_passed_as_a_value_keeps_its_finding_on_its_line():
    source = ("import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n\n"
              "def build(x, layer=tf.compat.v1.layers.dense):\n    return layer(x, 3)\n\n"
              "fn = tf.compat.v1.layers.dense\n"
              "y = tf.compat.v1.layers.dense(tf.ones([2, 2]), 2, activity_regularizer=tf.nn.l2_loss)\n")
    new, findings = rewritten(source, KERAS)
    assert "legacy_dense" not in new
    assert sorted(f.line for f in findings if f.rule == "TFM753") == [4, 7, 8], findings


def test_eager_module_keeps_tfm753():
    source = "import tensorflow as tf\n\ny = tf.compat.v1.layers.dense(tf.ones([2, 2]), 2)\n"
    new, findings = rewritten(source, KERAS)
    assert new == source and [f.line for f in findings if f.rule == "TFM753"] == [3]


def test_a_module_binding_legacy_dense_itself_is_left_to_tfm753():
    source = ("import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n\ndef legacy_dense(*a):\n    return a\n\n"
              "y = tf.compat.v1.layers.dense(tf.ones([2, 2]), 2)\n")
    new, findings = rewritten(source, KERAS)
    assert new == source and [f.line for f in findings if f.rule == "TFM753"] == [7]


@pytest.mark.slow
def test_legacy_dense_on_tf221_makes_the_variables_and_outputs_of_tf215(tmp_path):
    """All variants in one TF 2.21 child and one TF 2.15 child: the same variables, losses and outputs."""
    keras = keras_python()
    write_helpers(tmp_path)
    names = ["-".join(v) for v in VARIANTS]
    prefix = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
    new = {n: prefix + rewritten(program(*v), KERAS)[0] for n, v in zip(names, VARIANTS)}
    old = {n: rewritten(program(*v), ESTIMATOR)[0] for n, v in zip(names, VARIANTS)}
    on_221 = run_sources(new, module="__main__", python=keras)
    on_215 = run_sources(old, module="__main__", python=sys.executable)
    for name in names:
        assert isinstance(on_215[name], dict), (name, on_215[name])
        new_result, old_result = on_221[name], on_215[name]
        assert isinstance(new_result, dict), (name, new_result)
        assert new_result["variables"] == old_result["variables"], name
        for key in ("output", "losses"):  # float32 kernels of two TensorFlow versions: equal to rounding
            assert np.allclose(new_result[key], old_result[key], rtol=1e-5, atol=1e-5), (name, key)
    # the legacy names (TF 2.15's tf.compat.v1.layers): dense, dense_1 ... in the enclosing scope, a given name as it is, reuse kept
    scoped = on_215["tf.layers-variable scopes-module"]["variables"]
    assert [v[0] for v in scoped] == ["dense/bias:0", "dense/kernel:0", "tower/dense/bias:0", "tower/dense/kernel:0"]
    named = on_215["tf.layers-keywords-function"]["variables"]
    assert [v[0] for v in named] == ["hidden/bias:0", "hidden/kernel:0", "logits/kernel:0"]


def test_a_module_with_estimator_code_is_left_to_the_model_fn_lowering():
    """A model_fn whose lowering is blocked (a layer sized in a branch) keeps tf.layers (TFM705 names it, TFM753
    on the layer): legacy_dense there would let a later pass lower get_variable layers into a Keras model."""
    source = ("import tensorflow as tf\n\n"
              "def model_fn(features, labels, mode, params):\n"
              "    net = features['x']\n"
              "    if mode == tf.estimator.ModeKeys.TRAIN:\n"
              "        net = tf.layers.dense(net, int(net.shape[-1]))\n"
              "    logits = tf.layers.dense(net, 2)\n"
              "    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)\n"
              "    train_op = tf.train.AdamOptimizer().minimize(loss, global_step=tf.train.get_global_step())\n"
              "    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)\n\n"
              "estimator = tf.estimator.Estimator(model_fn)\n")
    new, findings = rewritten(source, KERAS)
    assert "legacy_dense" not in new and "class ModelFn" not in new
    assert [f.line for f in findings if f.rule == "TFM705"] == [12]
