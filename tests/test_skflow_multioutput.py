"""skflow / TF Learn 0.x ``TensorFlow*Regressor`` with a multi-output target (``y`` of shape (n, k)), in generated
variants (skflow_multioutput_regression's data).

The legacy regressor (n_classes=0) took its number of outputs from fit's ``y``: k outputs for a 2-D y, and
``predict(x)`` returned an (n, k) array. TFM101 wrote ``tf.estimator.DNNRegressor`` without ``label_dimension``
(one output) and TFM106 read ``p["predictions"][0]``: the program exited 0 with a one-column model and (n,)
predictions. Now, where fit's y is readable where the estimator is built (as the feature width is), the
construction has ``label_dimension`` from it (a literal array's column count, else computed from the data) and
predict reads a row per example where there are several outputs. On both targets (tf.estimator on TF 2.15,
``canned_keras_model`` on TF 2.21).

Variants: regressor class x import form x call form x y's shape x scope. The slow test runs three rewritten
programs per target (y with 2 columns, 1-D, a literal with 3 columns), each TensorFlow in ONE child, and checks
predict's shape is the legacy one.
"""

from __future__ import annotations

import itertools
import re
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

CATALOG = load_catalog()
TARGETS = {"estimator": CATALOG.selected(None), "keras": CATALOG.selected(None, target="keras")}

CLASSES = ("TensorFlowDNNRegressor", "TensorFlowLinearRegressor", "TensorFlowRegressor")
IMPORTS = {
    "skflow": ("import skflow\n", "skflow."),
    "contrib_skflow": ("from tensorflow.contrib import skflow\n", "skflow."),
    "from_contrib": ("from tensorflow.contrib import learn\n", "learn."),
    "tf": ("", "tf.contrib.learn."),
    "module_alias": ("L = tf.contrib.learn\n", "L."),
}
CALLS = ("keyword", "kwargs", "positional")
TARGET_DATA = {  # y, its legacy number of outputs (None: computed from the data), predict's shape for 20 rows
    "two_columns": ("np.column_stack([np.sin(X[:, 0]), np.cos(X[:, 0])])", None, (20, 2)),
    "one_d": ("np.sin(X[:, 0])", None, (20,)),
    "literal_2d": ("np.random.rand(20, 3)", "3", (20, 3)),
}
SCOPES = ("module", "function")
MARK = "  # BUILD_LINE"


def _build(cls: str, prefix: str, call: str) -> str:
    dnn = cls == "TensorFlowDNNRegressor"
    if call == "positional":  # (hidden_units,) n_classes: the same first positions in skflow and TF Learn 0.8-0.10
        return f"{prefix}{cls}({'[4], ' if dnn else ''}0, steps=3, batch_size=10)"
    keywords = {**({"hidden_units": [4]} if dnn else {}), "steps": 3, "batch_size": 10}
    if call == "kwargs":
        return f"{prefix}{cls}(**{keywords!r})"
    return f"{prefix}{cls}({', '.join(f'{k}={v!r}' for k, v in keywords.items())})"


def program(cls: str, imp: str, call: str, data: str, scope: str) -> str:
    imports, prefix = IMPORTS[imp]
    body = (f"y = {TARGET_DATA[data][0]}\nregressor = {_build(cls, prefix, call)}{MARK}\nregressor.fit(X, y)\n"
            'print("SHAPE", regressor.predict(X).shape)\n')
    if scope == "function":
        body = "def main():\n" + textwrap.indent(body, "    ") + "\n\nmain()\n"
    return ("import numpy as np\nimport tensorflow as tf\n" + imports
            + "\nX = np.random.RandomState(0).rand(20, 1).astype(np.float32)\n" + body)


VARIANTS = [pytest.param(*v, SCOPES[i % len(SCOPES)], id="-".join((*v, SCOPES[i % len(SCOPES)])))  # the scopes take turns
            for i, v in enumerate(itertools.product(CLASSES, IMPORTS, CALLS, TARGET_DATA))]


def rewrite(source: str, target: str) -> tuple[str, list]:
    result = rewrite_source(source.encode(), TARGETS[target], path="program.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize(("cls", "imp", "call", "data", "scope"), VARIANTS)
def test_label_dimension_from_fit_y(cls, imp, call, data, scope):
    source = program(cls, imp, call, data, scope)
    line = next(i for i, text in enumerate(source.splitlines(), start=1) if "BUILD_LINE" in text)
    for target in TARGETS:
        new, findings = rewrite(source, target)
        if call == "kwargs":  # TFM112: a **dict of hyperparameters cannot be mapped: flagged on the line, left as it was
            assert any(f.rule == "TFM112" and not f.fixable and f.line == line for f in findings), (target, findings)
            continue
        assert any(f.rule == "TFM101" and f.fixable and f.line == line for f in findings), (target, findings)
        assert not [f for f in findings if not f.fixable], [(f.rule, f.message[:100]) for f in findings if not f.fixable]
        dimension = TARGET_DATA[data][1] or "np.shape(y)[1] if np.ndim(y) > 1 else 1"
        assert f"label_dimension={dimension}," in new, new
        assert 'p["predictions"] if len(p["predictions"]) > 1 else p["predictions"][0] for p in' in new, new
        compile(new, "program.py", "exec")


def test_a_regressor_without_a_visible_y_keeps_one_output():
    """fit's y is not readable where the regressor is built (a function's result, computed after it): as before."""
    source = ("import numpy as np\nfrom tensorflow.contrib import learn\n\nX = np.zeros((4, 1))\n"
              "regressor = learn.TensorFlowLinearRegressor()\nregressor.fit(X, make_y())\n"
              "print(regressor.predict(X))\n")
    for target in TARGETS:
        new, _ = rewrite(source, target)
        assert "label_dimension" not in new and 'p["predictions"][0] for p in' in new, new


def test_classifiers_are_not_regressors():
    source = ("import numpy as np\nfrom tensorflow.contrib import learn\n\nX = np.zeros((4, 1))\ny = np.zeros(4)\n"
              "clf = learn.TensorFlowDNNClassifier(hidden_units=[4], n_classes=2)\nclf.fit(X, y)\n")
    new, _ = rewrite(source, "estimator")
    assert "label_dimension" not in new


RUNNER = r'''
import runpy, sys, io, contextlib
for path in sys.argv[1:]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        runpy.run_path(path, run_name="__main__")
    print(path, [line for line in buffer.getvalue().splitlines() if line.startswith("SHAPE")])
'''
RUNS = [("TensorFlowDNNRegressor", "from_contrib", "keyword", "two_columns", "module"),
        ("TensorFlowLinearRegressor", "tf", "keyword", "one_d", "function"),
        ("TensorFlowRegressor", "skflow", "positional", "literal_2d", "module")]


@pytest.mark.slow
@pytest.mark.parametrize("target", list(TARGETS))
def test_predict_has_the_legacy_shape(tmp_path, target):
    from tests.keras_env import run_keras, write_helpers
    from tests.tfchildren import run_python

    write_helpers(tmp_path)
    names = []
    for values in RUNS:
        new, _ = rewrite(program(*values), target)
        name = "p_" + "_".join(values) + ".py"
        (tmp_path / name).write_text(new)
        names.append(name)
    (tmp_path / "runner.py").write_text(RUNNER)
    run = run_keras if target == "keras" else run_python
    proc = run(["runner.py", *names], cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for name, values in zip(names, RUNS):
        line = next(text for text in proc.stdout.splitlines() if text.startswith(name))
        assert re.search(re.escape(f"SHAPE {TARGET_DATA[values[3]][2]}"), line), line
