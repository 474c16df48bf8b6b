"""Issue 27 item 1: ``tf.contrib.learn.SKCompat(...)`` around canned estimators and around
``Estimator(model_fn=...)`` with a legacy ``(features, targets)`` model_fn, in generated variants (TFM119).

SKCompat (TF 1.x ``contrib/learn/python/learn/estimators/estimator.py``) fed ``fit`` shuffled batches of 128 for
ever, ``score`` one ordered epoch (returning the metrics dict with ``global_step``) and ``predict`` one ordered
epoch whose batches it concatenated: one array for tensor predictions, a dict of arrays for dict predictions (the
canned heads' ``classes`` [N] int64, ``probabilities``/``logits`` [N, n_classes], a regressor's ``scores`` [N]).

Each variant is one small program: import form x estimator kind x value flow of the wrapper x call form x
scope. The real engine rewrites it (all rules) and

- the wrapper's line reports TFM119 as a fix and no ``SKCompat`` is left in the code;
- each fit/score/predict line reports a finding (a fix, or a manual TFM119 for ``**kwargs``);
- the result parses and a second run changes nothing.

The slow test runs a representative batch of rewritten programs in one TensorFlow 2.15 child and compares
``predict``'s result (type, keys, shapes, dtypes) and ``score``'s keys with what SKCompat returned.
"""

from __future__ import annotations

import itertools
import json
import os
import textwrap

import pytest

from tests.every_case import grouped
from tests.tfchildren import run_python
from rewrite_once import rewrite_source  # the same (source, rules, path) rewritten by several checks: once
from tfmigrate.codemod.rule import load_catalog

ALL = load_catalog().selected(None)

IMPORTS = {  # name -> (import lines, the contrib.learn prefix, the SKCompat name)
    "tf": ("", "tf.contrib.learn", "tf.contrib.learn.SKCompat"),
    "from_contrib": ("from tensorflow.contrib import learn\n", "learn", "learn.SKCompat"),
    "import_as": ("import tensorflow.contrib.learn as learn\n", "learn", "learn.SKCompat"),
    "module_alias": ("L = tf.contrib.learn\n", "L", "L.SKCompat"),
    "class_import": ("from tensorflow.contrib.learn import SKCompat\n", "tf.contrib.learn", "SKCompat"),
    "estimator_module": ("from tensorflow.contrib.learn.python.learn.estimators.estimator import SKCompat as SK\n",
                         "tf.contrib.learn", "SK"),
}
KINDS = {  # name -> (the estimator, the labels)
    "classifier": ("P.DNNClassifier(hidden_units=[4], n_classes=3, feature_columns=P.infer_real_valued_columns_from_input(x))",
                   "y_class"),
    "regressor": ("P.LinearRegressor(feature_columns=P.infer_real_valued_columns_from_input(x))", "y_value"),
    "custom": ("P.Estimator(model_fn=my_model)", "y_column"),
}
CALLS = {  # name -> (fit, score, predict arguments; Y is the labels), rewritten
    "keyword": ("x=x, y=Y, steps=3", "x=x, y=Y", "x=x", True),
    "positional": ("x, Y, 16, 3", "x, Y, 16", "x, 16", True),
    "kwargs": ("**dict(x=x, y=Y, steps=3)", "x, Y", "x", False),
}
FLOWS = ("inline", "name", "return", "self", "param")
SCOPES = ("module", "function", "method", "main")

HEADER = '''\
import numpy as np
import tensorflow as tf
{imports}
x = np.random.RandomState(0).rand(40, 4).astype(np.float32)
y_class = np.arange(40) % 3
y_value = x.sum(axis=1)
y_column = x.sum(axis=1, keepdims=True)
RESULT = {{}}


def my_model(features, targets):
    w = tf.get_variable("w", [4, 1])
    predictions = tf.matmul(features, w)
    loss = tf.reduce_mean(tf.square(predictions - targets))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return predictions, loss, train_op

'''


def _indent(text: str, n: int) -> str:
    return textwrap.indent(text, " " * n)


def program(imp: str, kind: str, flow: str, call: str, scope: str) -> str:
    """One legacy program; the marked lines are the wrapper (SK_LINE) and its fit/score/predict calls."""
    imports, prefix, sk = IMPORTS[imp]
    est, labels = KINDS[kind]
    est = est.replace("P.", prefix + ".")
    fit, score, predict = (a.replace("Y", labels) for a in CALLS[call][:3])
    wrap = f"{sk}({est})"
    uses = (f"W.fit({fit})  # FIT_LINE\ns = W.score({score})  # SCORE_LINE\np = W.predict({predict})  # PREDICT_LINE\n"
            'RESULT["p"], RESULT["s"] = p, s\n')
    helpers = ""
    if flow == "inline":  # the estimator bound once, wrapped at each call
        build = f"e = {est}\n"
        code = build + uses.replace("W.", f"{sk}(e).").replace("  # FIT_LINE", "  # FIT_LINE SK_LINE").replace(
            "  # SCORE_LINE", "  # SCORE_LINE SK_LINE").replace("  # PREDICT_LINE", "  # PREDICT_LINE SK_LINE")
    elif flow == "name":
        code = f"W = {wrap}  # SK_LINE\n" + uses
    elif flow == "return":
        helpers = f"def build():\n    return {wrap}  # SK_LINE\n\n\n"
        code = "W = build()\n" + uses
    elif flow == "param":
        helpers = "def run(W):\n" + _indent(uses, 4) + "\n\n"
        code = f"run({wrap})  # SK_LINE\n"
    else:  # self: only in a method
        code = ""
    if scope == "method":
        if flow == "self":
            init, body = f"self.W = {wrap}  # SK_LINE\n", uses.replace("W.", "self.W.")
        else:
            init, body = "pass\n", code
        text = (helpers + "class Model(object):\n    def __init__(self):\n" + _indent(init, 8)
                + "\n    def run_all(self):\n" + _indent(body, 8) + "\n\nModel().run_all()\n")
    elif scope == "module":
        text = helpers + code
    elif scope == "function":
        text = helpers + "def main():\n" + _indent(code, 4) + "\n\nmain()\n"
    else:
        text = helpers + 'if __name__ == "__main__":\n' + _indent(code, 4)
    return HEADER.format(imports=imports) + "\n" + text


def variants():
    seen = set()

    def add(imp, kind, flow, call, scope):
        if (flow == "self") != (scope == "method" and flow == "self") or (imp, kind, flow, call, scope) in seen:
            return
        seen.add((imp, kind, flow, call, scope))
        yield pytest.param(imp, kind, flow, call, scope, id=f"{imp}-{kind}-{flow}-{call}-{scope}")

    for imp, kind, flow in itertools.product(IMPORTS, KINDS, FLOWS):  # every import form
        yield from add(imp, kind, flow, "keyword", "method" if flow == "self" else "module")
    for kind, flow, scope in itertools.product(KINDS, FLOWS, SCOPES):  # every scope
        yield from add("tf", kind, flow, "keyword", scope)
    for kind, flow, call in itertools.product(KINDS, FLOWS, CALLS):  # every call form
        yield from add("from_contrib", kind, flow, call, "method" if flow == "self" else "function")


VARIANTS = list(variants())


def _rewrite(source: str):
    result = rewrite_source(source.encode(), ALL, path="program.py")
    return result.new.decode(), result.findings


def _lines(source: str, mark: str) -> list[int]:
    return [i for i, text in enumerate(source.splitlines(), start=1) if mark in text]


@grouped(("imp", "kind", "flow", "call", "scope"), VARIANTS)  # one test per import form
def test_skcompat_variant(imp, kind, flow, call, scope):
    source = program(imp, kind, flow, call, scope)
    compile(source, "program.py", "exec")
    new, findings = _rewrite(source)
    compile(new, "program.py", "exec")
    wrappers = _lines(source, "SK_LINE")
    assert wrappers
    if kind == "custom" and not CALLS[call][3]:  # fit(**kwargs): the labels predict() needs are not known (TFM114)
        for line in wrappers:
            assert any(f.rule == "TFM155" and not f.fixable and f.line == line for f in findings), line
        assert any(f.rule == "TFM114" and not f.fixable and "labels" in f.message for f in findings)
        assert "SKCompat(" in new or "SK(" in new
        return
    for line in wrappers:  # each SKCompat(...) goes, as a fix
        assert any(f.rule == "TFM119" and f.fixable and f.line == line and "the estimator itself" in f.message
                   for f in findings), (line, [(f.line, f.rule, f.message) for f in findings], new)
    sk = IMPORTS[imp][2]
    assert f"{sk}(" not in new.replace("def ", ""), new
    for mark in ("FIT_LINE", "SCORE_LINE", "PREDICT_LINE"):
        line = _lines(source, mark)[0]
        here = [f for f in findings if f.line == line and f.rule.startswith("TFM1")]
        assert here, f"{mark}: silent\n{new}"
        if mark == "FIT_LINE" and not CALLS[call][3]:
            assert any(f.rule == "TFM119" and not f.fixable for f in here), [f.message for f in here]
        else:
            assert any(f.fixable and f.rule != "TFM119" or "SKCompat.predict" in f.message for f in here), \
                [f.message for f in here]
    assert ".score(" not in new and ".fit(x" not in new.replace(".fit(**", "")
    assert "skcompat_predict(" in new and new.count("def skcompat_predict(") == 1, new
    if kind == "classifier":
        assert '"classifier")' in new
    elif kind == "regressor":
        assert '"regressor")' in new
    if CALLS[call][0].startswith("x=") or CALLS[call][0].startswith("**"):
        assert "batch_size=128" in new, new  # SKCompat's default, not the estimator's
    else:
        assert "batch_size=16" in new and "batch_size=128" not in new, new
    assert _rewrite(new)[0] == new  # a second run changes nothing


def test_not_rewritten_estimator_keeps_the_wrapper_and_tfm155():
    code = "import tensorflow as tf\n\nclf = tf.contrib.learn.SKCompat(make_estimator())\nclf.fit(x, y)\n"
    new, findings = _rewrite(code)
    assert "SKCompat(make_estimator())" in new
    assert any(f.rule == "TFM155" and not f.fixable and f.line == 3 for f in findings)
    assert not any(f.rule == "TFM119" for f in findings)


def test_suppressed_wrapper_is_left_with_its_calls():
    code = ("import numpy as np\nfrom tensorflow.contrib import learn\n\nx = np.zeros((4, 2), np.float32)\n"
            "clf = learn.SKCompat(learn.LinearRegressor(feature_columns=learn.infer_real_valued_columns_from_input(x)))"
            "  # tfmigrate: ignore[TFM119]\nclf.fit(x, x[:, 0], steps=1)\np = clf.predict(x)\n")
    new, findings = _rewrite(code)
    assert "clf.fit(x, x[:, 0], steps=1)" in new and "clf.predict(x)" in new and "skcompat_predict" not in new
    assert not any(f.rule == "TFM119" for f in findings)


def test_module_defining_the_helper_name_is_flagged():
    code = ("import numpy as np\nfrom tensorflow.contrib import learn\n\n\ndef skcompat_predict(p):\n    return p\n\n\n"
            "x = np.zeros((4, 2), np.float32)\n"
            "clf = learn.SKCompat(learn.LinearRegressor(feature_columns=learn.infer_real_valued_columns_from_input(x)))\n"
            "clf.fit(x, x[:, 0], steps=1)\np = clf.predict(x)\n")
    new, findings = _rewrite(code)
    assert any(f.rule == "TFM119" and not f.fixable and f.line == 10 for f in findings)
    assert "clf.predict(x)" in new


# what SKCompat returned (its source: predict concatenated the batches of _infer_model(iterate_batches=True); the
# canned heads' predictions: contrib/learn/python/learn/estimators/head.py), for 40 examples
EXPECTED = {
    "classifier": {"type": "dict", "keys": {"classes": [[40], "int64"], "logits": [[40, 3], "float32"],
                                             "probabilities": [[40, 3], "float32"]}},
    "regressor": {"type": "dict", "keys": {"scores": [[40], "float32"]}},
    "custom": {"type": "ndarray", "shape": [40, 1], "dtype": "float32"},
}
CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    out = {}
    for name, source in json.load(sys.stdin):
        scope = {"__name__": "__main__"}
        exec(compile(source, name, "exec"), scope)
        p, s = scope["RESULT"]["p"], scope["RESULT"]["s"]
        if isinstance(p, dict):
            got = {"type": "dict", "keys": {k: [list(v.shape), str(v.dtype)] for k, v in p.items()}}
        else:
            got = {"type": type(p).__name__, "shape": list(p.shape), "dtype": str(p.dtype)}
        out[name] = {"predict": got, "score": sorted(s)}
    print(json.dumps(out))
''')


@pytest.mark.slow
def test_rewritten_programs_return_what_skcompat_returned_on_tf215():
    jobs = []
    for kind, flow in itertools.product(KINDS, FLOWS):
        scope = "method" if flow == "self" else "module"
        call = "positional" if flow == "param" else "keyword"
        new, _ = _rewrite(program("from_contrib", kind, flow, call, scope))
        jobs.append((f"{kind}-{flow}-{call}-{scope}", new))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = run_python(["-c", CHILD], input=json.dumps(jobs), env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(out) == {name for name, _ in jobs}
    for name, result in out.items():
        kind = name.split("-")[0]
        assert result["predict"] == EXPECTED[kind], (name, result)
        assert {"loss", "global_step"} <= set(result["score"]), (name, result)  # score: the metrics + global_step
        if kind == "classifier":
            assert "accuracy" in result["score"]


@pytest.mark.parametrize("use", [
    "search = GridSearchCV(learn.SKCompat(est), {})",
    "models = [learn.SKCompat(est)]",
    "def make():\n    return learn.SKCompat(est)",
])
def test_wrapper_going_where_it_is_not_followed_is_flagged_not_unwrapped(use):
    code = ("import numpy as np\nfrom sklearn.model_selection import GridSearchCV\nfrom tensorflow.contrib import learn\n\n"
            "x = np.zeros((4, 2), np.float32)\n"
            "est = learn.LinearRegressor(feature_columns=learn.infer_real_valued_columns_from_input(x))\n"
            f"{use}\n")
    new, findings = _rewrite(code)
    line = 7 if not use.startswith("def") else 8
    assert "learn.SKCompat(est)" in new, new
    assert any(f.rule == "TFM119" and not f.fixable and f.line == line for f in findings), \
        [(f.line, f.rule, f.message) for f in findings]
