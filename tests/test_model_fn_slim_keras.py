"""TFM707 on learn_multiple_gpu's model_fn, in generated variants: ``tf.contrib.layers.stack`` of
``fully_connected`` (with a ``dropout`` normalizer or none), ``optimize_loss`` by optimizer name, layers placed
with ``tf.device`` (a literal, a device list from command-line flags, a loop over devices), the contrib.learn
``(features, target)`` model_fn returning ``(predictions, loss, train_op)`` or a TF 1.x one returning an
``EstimatorSpec``, defined at module level and built in each scope.

Each variant is a legacy program; the real engine rewrites it (``--target keras``) and the Estimator's line has

- TFM707 (fixed): a ModelFnModel subclass, no ``tf_slim`` / ``tf.contrib`` / ``tf.estimator`` / placeholder left,
  the ``tf.device`` blocks kept around the layer calls (the same placement where the devices exist; TensorFlow's
  soft placement runs the same model on a machine without them), a second rewrite changing nothing;
- or, for what has no faithful Keras form (layers created in a loop over devices: one layer per iteration;
  optimize_loss with an optimizer name whose TF 1.x update Keras does not make), TFM705 (manual) naming it.

The slow test runs one program per layer import form (the other dimensions taking turns) on TensorFlow 2.21 in
ONE child: each trains, predicts and prints its accuracy; the proof that the stack/optimize_loss lowering
trains as the Estimator did is the ``slim_stack_optimize_loss`` case of tests/test_model_fn_keras_proof.py.
"""

from __future__ import annotations

import ast
import itertools
import textwrap

import pytest

from rewrite_once import rewrite_source  # the same (source, rules, path) rewritten by several checks: once
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")

LAYERS = {  # how the layer functions are reached: (imports, prefix)
    "contrib_from": ("from tensorflow.contrib import layers\n", "layers."),
    "contrib_tf": ("", "tf.contrib.layers."),
    "contrib_as": ("import tensorflow.contrib.layers as layers\n", "layers."),
    "tf_slim": ("import tf_slim as slim\n", "slim."),
    "contrib_slim": ("from tensorflow.contrib import slim\n", "slim."),
}
NORMALIZERS = {  # (statements before the stack, the stack's keywords)
    "none": ("", ""),
    "inline": ("", ", normalizer_fn={p}dropout, normalizer_params={{'keep_prob': 0.5}}"),
    "locals": ("normalizer_fn = {p}dropout\nnormalizer_params = {{'keep_prob': 0.9}}\n",
               ", normalizer_fn=normalizer_fn, normalizer_params=normalizer_params"),
    "default_keep_prob": ("", ", normalizer_fn={p}dropout"),
}
DEVICES = ("none", "literal", "flags", "loop")
OPTIMIZERS = {  # the train_op statement(s); lowered?
    "keyword": ("train_op = tf.contrib.layers.optimize_loss(\n    loss, tf.contrib.framework.get_global_step(), "
                "optimizer='Adagrad',\n    learning_rate=0.1)", True),
    "positional": ("train_op = tf.contrib.layers.optimize_loss(loss, tf.train.get_global_step(), 0.05, 'SGD', "
                   "clip_gradients=1.0)", True),
    "step_name": ("global_step = tf.train.get_global_step()\ntrain_op = tf.contrib.layers.optimize_loss(loss=loss, "
                  "global_step=global_step, learning_rate=0.01, optimizer='Adam')", True),
    "rmsprop": ("train_op = tf.contrib.layers.optimize_loss(loss, tf.train.get_global_step(), 0.01, 'RMSProp')", False),
}
FORMS = ("contrib_tuple", "estimator_spec")
SCOPES = ("module", "function", "main")

HEADER = '''\
import argparse
import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn
{imports}
parser = argparse.ArgumentParser()
parser.add_argument("--devices", default="/gpu:0,/gpu:1")
FLAGS, _ = parser.parse_known_args()
DEVICES = FLAGS.devices.split(",")
X = np.random.RandomState(0).rand(24, 4).astype(np.float32)
Y = (X[:, 0] > 0.5).astype(np.int64)


'''


def _network(p: str, normalizer: str, device: str) -> str:
    before, keywords = NORMALIZERS[normalizer]
    stack = f"features = {p}stack(features, {p}fully_connected, [8, 6]{keywords.format(p=p)})\n"
    logits = f"logits = {p}fully_connected(features, 2, activation_fn=None)\n"
    if device == "literal":
        body = f"with tf.device('/gpu:1'):\n{textwrap.indent(stack, '    ')}with tf.device('/gpu:2'):\n{textwrap.indent(logits, '    ')}"
    elif device == "flags":
        body = f"with tf.device(DEVICES[0]):\n{textwrap.indent(stack, '    ')}with tf.device(DEVICES[-1]):\n{textwrap.indent(logits, '    ')}"
    elif device == "loop":
        body = (stack + "for device in DEVICES:\n    with tf.device(device):\n"
                f"        features = {p}fully_connected(features, 6)\n" + logits)
    else:
        body = stack + logits
    return before.format(p=p) + body


def program(layers: str, normalizer: str, device: str, optimizer: str, form: str, scope: str) -> str:
    imports, p = LAYERS[layers]
    train = OPTIMIZERS[optimizer][0]
    loss = "loss = tf.contrib.losses.softmax_cross_entropy(logits, tf.one_hot(target, 2, 1, 0))\n"
    mark = "  # ESTIMATOR_LINE"
    if form == "contrib_tuple":
        model_fn = ("def my_model(features, target):\n" + textwrap.indent(
            _network(p, normalizer, device) + loss + train + "\n"
            "return {'class': tf.argmax(logits, 1), 'prob': tf.nn.softmax(logits)}, loss, train_op\n", "    "))
        run = (f"classifier = learn.Estimator(model_fn=my_model){mark}\nclassifier.fit(X, Y, steps=3)\n"
               "predicted = [p['class'] for p in classifier.predict(X, as_iterable=True)]\n")
    else:
        model_fn = ("def my_model(features, labels, mode):\n" + textwrap.indent(
            "target = labels\n" + _network(p, normalizer, device)
            + "if mode == tf.estimator.ModeKeys.PREDICT:  # labels is None\n"
              "    return tf.estimator.EstimatorSpec(mode, predictions={'class': tf.argmax(logits, 1)})\n"
            + loss.replace("target", "labels") + train + "\n"
            "return tf.estimator.EstimatorSpec(mode, predictions={'class': tf.argmax(logits, 1)}, loss=loss, "
            "train_op=train_op)\n", "    "))
        run = (f"classifier = tf.estimator.Estimator(model_fn=my_model){mark}\n"
               "classifier.train(input_fn=tf.estimator.inputs.numpy_input_fn(X, Y, batch_size=8, shuffle=True, "
               "num_epochs=None), steps=3)\n"
               "predicted = [p['class'] for p in classifier.predict(input_fn=tf.estimator.inputs.numpy_input_fn("
               "X, batch_size=8, shuffle=False, num_epochs=1))]\n")
    run += 'print("ACCURACY", np.mean(np.array(predicted) == Y), len(predicted))\n'
    if scope == "module":
        body = run
    elif scope == "function":
        body = "def main():\n" + textwrap.indent(run, "    ") + "\n\nmain()\n"
    else:
        body = 'if __name__ == "__main__":\n' + textwrap.indent(run, "    ")
    return HEADER.format(imports=imports) + model_fn + "\n\n" + body


def variants():
    for i, (layers, normalizer, device) in enumerate(itertools.product(LAYERS, NORMALIZERS, DEVICES)):
        optimizer = list(OPTIMIZERS)[i % len(OPTIMIZERS)]
        form, scope = FORMS[(i // 2) % len(FORMS)], SCOPES[i % len(SCOPES)]
        yield pytest.param(layers, normalizer, device, optimizer, form, scope,
                           id=f"{layers}-{normalizer}-{device}-{optimizer}-{form}-{scope}")


VARIANTS = list(variants())


def _names(source: str) -> set[str]:
    """Every dotted name the code reads or imports (not its strings and docstrings)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            out.add(ast.unparse(node))
        elif isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def _line(source: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), start=1) if "ESTIMATOR_LINE" in text)


def rewrite(source: str) -> tuple[str, list]:
    result = rewrite_source(source.encode(), KERAS, path="program.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize(("layers", "normalizer", "device", "optimizer", "form", "scope"), VARIANTS)
def test_stack_device_optimize_loss(layers, normalizer, device, optimizer, form, scope):
    source = program(layers, normalizer, device, optimizer, form, scope)
    compile(source, "program.py", "exec")
    new, findings = rewrite(source)
    line = _line(source)
    lowered = OPTIMIZERS[optimizer][1] and device != "loop"
    on_line = {f.rule: f for f in findings if f.line == line and f.rule in ("TFM705", "TFM707")}
    if not lowered:
        assert "TFM705" in on_line and "TFM707" not in on_line, (findings, new)
        piece = "loop" if device == "loop" else "RMSProp"
        assert piece in on_line["TFM705"].message, on_line["TFM705"].message
        return
    assert "TFM707" in on_line and on_line["TFM707"].fixable and "TFM705" not in on_line, (findings, new)
    assert not [f for f in findings if not f.fixable], [(f.rule, f.line, f.message[:120]) for f in findings if not f.fixable]
    code = "\n".join(text.partition("#")[0] for text in new.splitlines())
    used = _names(new)
    for gone in ("tf_slim", "slim", "contrib", "estimator", "placeholder", "optimize_loss", "legacy_optimize_loss"):
        assert not any(gone in name.split(".") for name in used), (gone, sorted(used), new)
    assert "class MyModel(ModelFnModel)" in new and "slim_stack(features, self.features)" in new
    if device != "none":
        assert code.count("with tf.device(") == 2, new  # the placement is kept around the layer calls
    if normalizer == "none":
        assert "[[tf.keras.layers.Dense(units, activation=tf.nn.relu)] for units in [8, 6]]" in new
    else:
        keep = "0.9" if normalizer == "locals" else "0.5"
        assert (f"[[tf.keras.layers.Dense(units, use_bias=False), tf.keras.layers.Dropout(rate=1 - {keep}), "
                "tf.keras.layers.Activation(tf.nn.relu)] for units in [8, 6]]") in new, new
        assert "normalizer_fn =" not in code
    compile(new, "program.py", "exec")
    again, _ = rewrite(new)
    assert again == new


def _runs():
    """One lowered program per layer import form, the other dimensions taking turns."""
    out = []
    for i, layers in enumerate(LAYERS):
        out.append((layers, list(NORMALIZERS)[i % len(NORMALIZERS)], ("literal", "flags", "none")[i % 3],
                    ("keyword", "positional", "step_name")[i % 3], FORMS[i % 2], SCOPES[i % len(SCOPES)]))
    return out


RUNNER = r'''
import runpy, sys, io, contextlib
for path in sys.argv[1:]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        runpy.run_path(path, run_name="__main__")
    print(path, [line for line in buffer.getvalue().splitlines() if line.startswith("ACCURACY")])
'''


@pytest.mark.slow
def test_lowered_programs_run_on_tf221_without_gpus(tmp_path):
    from tests.keras_env import run_keras, write_helpers

    write_helpers(tmp_path)
    names = []
    for values in _runs():
        new, findings = rewrite(program(*values))
        assert any(f.rule == "TFM707" for f in findings), values
        name = "p_" + "_".join(values) + ".py"
        (tmp_path / name).write_text(new)
        names.append(name)
    (tmp_path / "runner.py").write_text(RUNNER)
    proc = run_keras(["runner.py", *names], cwd=tmp_path, timeout=600, env={"CUDA_VISIBLE_DEVICES": "", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for name in names:
        line = next(text for text in proc.stdout.splitlines() if text.startswith(name))
        assert "ACCURACY" in line and line.rstrip("']").endswith(" 24"), line  # one prediction per example
