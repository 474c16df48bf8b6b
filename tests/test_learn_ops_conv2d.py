"""Issue 27 item 3: ``skflow.ops.conv2d`` / ``learn.ops.conv2d`` (TF 0.x) in generated variants (TFM120).

The legacy function (``contrib/learn/python/learn/ops/conv_ops.py``, TF 0.9-0.11, and the skflow package's) made
``convolution/filters`` [h, w, in_depth, n_filters] and ``convolution/bias`` [1, 1, 1, n_filters] with
``get_variable``'s default initializer (the scope's, else TF 0.x's uniform_unit_scaling) and returned
``activation(conv2d(x, filters, strides, padding) + bias)``. Each variant (import form x call form x scope) is
rewritten to ``legacy_conv2d`` (written once into the module) or flagged on its line; the slow test builds the
rewritten subgraphs on TF 2.15 and checks the variables' names, shapes and initial range, and the output shape.
"""

from __future__ import annotations

import itertools
import json
import os
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ALL = load_catalog().selected(None)

IMPORTS = {  # name -> (import line, the function as the program spells it)
    "contrib_skflow": ("from tensorflow.contrib import skflow", "skflow.ops.conv2d"),
    "skflow_package": ("import skflow", "skflow.ops.conv2d"),
    "learn_attribute": ("", "tf.contrib.learn.ops.conv2d"),
    "learn_ops_module": ("from tensorflow.contrib.learn.python.learn import ops", "ops.conv2d"),
    "function_import": ("from tensorflow.contrib.learn.python.learn.ops.conv_ops import conv2d as conv", "conv"),
    "skflow_alias": ("skflow = tf.contrib.skflow", "skflow.ops.conv2d"),
}
CALLS = {  # name -> (arguments, rewritten)
    "keyword": ("X, n_filters=4, filter_shape=[5, 5], bias=True, activation=tf.nn.relu", True),
    "positional": ("X, 4, [5, 5], [1, 1, 1, 1], 'SAME', True, tf.nn.relu", True),
    "batch_norm_off": ("X, 4, [5, 5], batch_norm=False", True),
    "batch_norm_on": ("X, 4, [5, 5], batch_norm=True", False),
    "kwargs": ("X, **CONV_ARGS", False),
}
SCOPES = ("function", "module", "method")
HEADER = "import tensorflow as tf\n{imp}\n\nCONV_ARGS = dict(n_filters=4, filter_shape=[5, 5])\n\n\n"


def program(imp: str, call: str, scope: str) -> str:
    imports, func = IMPORTS[imp]
    conv = f"{func}({CALLS[call][0]})  # CONV_LINE"
    if scope == "function":
        body = (f"def conv_model(X):\n    with tf.variable_scope('conv_layer1'):\n        h = {conv}\n"
                "    return h\n")
    elif scope == "module":
        body = f"X = tf.placeholder(tf.float32, [None, 28, 28, 1])\nwith tf.variable_scope('conv_layer1'):\n    h = {conv}\n"
    else:
        body = (f"class Model(object):\n    def build(self, X):\n        with tf.variable_scope('conv_layer1'):\n"
                f"            return {conv}\n")
    return HEADER.format(imp=imports) + body


VARIANTS = [pytest.param(i, c, s, id=f"{i}-{c}-{s}") for i, c, s in itertools.product(IMPORTS, CALLS, SCOPES)]


def _rewrite(source: str):
    result = rewrite_source(source.encode(), ALL, path="program.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize(("imp", "call", "scope"), VARIANTS)
def test_conv2d_variant(imp, call, scope):
    source = program(imp, call, scope)
    line = next(i for i, text in enumerate(source.splitlines(), start=1) if "CONV_LINE" in text)
    new, findings = _rewrite(source)
    on_line = [f for f in findings if f.rule == "TFM120" and f.line == line]
    assert on_line, f"silent\n{new}"
    if not CALLS[call][1]:
        assert not any(f.fixable for f in on_line)
        assert IMPORTS[imp][1] + "(" in new and "def legacy_conv2d" not in new
        return
    assert all(f.fixable for f in on_line)
    assert new.count("def legacy_conv2d(") == 1 and "legacy_conv2d(X" in new, new
    assert "batch_norm" not in new.split("legacy_conv2d(X", 1)[1].split("\n", 1)[0]
    code = new.split('initialized as TF 0.x', 1)[1]  # after the helper's docstring
    assert "ops.conv2d" not in code and IMPORTS[imp][1] + "(" not in code.replace("legacy_conv2d(", ""), new
    compile(new, "program.py", "exec")
    assert _rewrite(new)[0] == new


CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    out = {}
    for name, source in json.load(sys.stdin):
        graph = tf.Graph()
        with graph.as_default():
            scope = {"__name__": "__main__"}
            exec(compile(source, name, "exec"), scope)
            X = tf.compat.v1.placeholder(tf.float32, [None, 28, 28, 1])
            h = scope["conv_model"](X)
            with tf.compat.v1.variable_scope("set", initializer=tf.compat.v1.constant_initializer(0.5)):
                g = scope["conv_model"](X)
            variables = {v.name: v for v in tf.compat.v1.global_variables()}
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                values = {n: sess.run(v) for n, v in variables.items()}
                result = sess.run(h, {X: np.ones((2, 28, 28, 1), np.float32)})
        out[name] = {"variables": {n: [list(v.shape), float(np.abs(v).max()), float(np.abs(v).min())]
                                   for n, v in values.items()},
                     "output": list(result.shape), "relu": bool((result >= 0).all())}
    print(json.dumps(out))
''')


@pytest.mark.slow
def test_rewritten_conv2d_builds_the_legacy_variables_on_tf215():
    jobs = []
    for imp, call in itertools.product(("contrib_skflow", "learn_attribute", "function_import"), ("keyword", "positional")):
        new, _ = _rewrite(program(imp, call, "function"))
        jobs.append((f"{imp}-{call}", new))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = run_python(["-c", CHILD], input=json.dumps(jobs), env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, result in out.items():
        v = result["variables"]
        assert set(v) == {"conv_layer1/convolution/filters:0", "conv_layer1/convolution/bias:0",
                          "set/conv_layer1/convolution/filters:0", "set/conv_layer1/convolution/bias:0"}, name
        filters, bias = v["conv_layer1/convolution/filters:0"], v["conv_layer1/convolution/bias:0"]
        assert filters[0] == [5, 5, 1, 4] and bias[0] == [1, 1, 1, 4], name
        # uniform_unit_scaling: |w| <= sqrt(3 / 25) = 0.346 over the 100 filters (glorot_uniform would stay below 0.219)
        assert 0.22 < filters[1] <= 0.3465, (name, filters)
        assert bias[1] <= 3 ** 0.5, (name, bias)  # [1, 1, 1, 4]: input size 1
        assert v["set/conv_layer1/convolution/filters:0"][1:] == [0.5, 0.5], name  # the scope's initializer wins
        assert result["output"] == [2, 28, 28, 4] and result["relu"], name
