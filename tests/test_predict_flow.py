"""Issue 27 item 2: the value flow of a legacy ``predict()`` result, in generated variants.

A TF 1.x contrib.learn canned estimator's ``predict`` returned a generator (``as_iterable=True`` by default);
TFM106 reads tf.estimator's generator into an array where that is safe. Over an input that never ends (the
program's own ``input_fn`` of constant tensors, ``numpy_input_fn(num_epochs=None)``) an array never ends
either: a program that took six predictions (``y = est.predict(...)``; ``islice(y, 6)``) exited 0 and hung.

Every variant below is one small program: import form x input x value flow x scope x consumer. The real engine
rewrites it (all rules of the default target) and the predict line must be

- a generator where the result is consumed lazily and the input may not end (or where ``next()`` reads it:
  an array is no iterator),
- the array where it is consumed eagerly over a finite input,
- and never silent: TFM106 is reported on the predict's line.

skflow's ``predict(x)`` returned an array: it stays one whatever consumes it. The slow test runs one rewritten
program with an endless ``input_fn`` on TensorFlow 2.15 and checks it ends, printing the six predictions.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import textwrap

import pytest

from rewrite_once import rewrite_source  # the same (source, rules, path) rewritten by several checks: once
from tfmigrate.codemod.rule import load_catalog

from tests.every_case import check_every
from tests.tfchildren import run_python

CATALOG = load_catalog()
ALL = CATALOG.selected(None)
KERAS = CATALOG.selected(None, target="keras")

IMPORTS = {  # name -> (import lines, the module prefix of the classes)
    "tf": ("", "tf.contrib.learn"),
    "from_contrib": ("from tensorflow.contrib import learn\n", "learn"),
    "import_as": ("import tensorflow.contrib.learn as learn\n", "learn"),
    "module_alias": ("learn = tf.contrib.learn\n", "learn"),
}
INPUTS = {  # name -> (predict arguments, the input may not end)
    "own_input_fn": ("input_fn=my_input_fn", True),
    "numpy_epochs_none": ('input_fn=L.io.numpy_input_fn({"x": x_data}, shuffle=False, num_epochs=None)', True),
    "x": ("x=x_data", False),
    "numpy_epochs_one": ('input_fn=L.io.numpy_input_fn({"x": x_data}, shuffle=False, num_epochs=1)', False),
}
CONSUMERS = {  # name -> (statements reading V, lazy)
    "list": ("print(list(V)[:6])", False),
    "islice": ("print(list(itertools.islice(V, 6)))", True),
    "next": ("print(next(V))", True),
    "for_break": ("out = []\nfor p in V:\n    out.append(p)\n    if len(out) == 6:\n        break\nprint(out)", True),
    "zip": ("print([p for _, p in zip(range(6), V)])", True),
}
SCOPES = ("module", "function", "method", "main")
FLOWS = ("inline", "name", "return", "self", "param")

HEADER = '''\
import itertools
import numpy as np
import tensorflow as tf
{imports}
x_data = np.random.RandomState(0).rand(8, 2).astype(np.float32)
y_data = np.array([0, 1] * 4)


def my_input_fn():
    return {{"x": tf.constant(x_data)}}, tf.constant(y_data)

'''


def _indent(text: str, n: int) -> str:
    return textwrap.indent(text, " " * n)


def _consume(consumer: str, value: str) -> str:
    return CONSUMERS[consumer][0].replace("V", value)


def program(imp: str, inp: str, flow: str, scope: str, consumer: str, skflow: bool = False) -> str:
    """One legacy program of the variant; its predict call is the only line holding 'PREDICT_LINE'."""
    if skflow:
        imports, prefix = "from tensorflow.contrib import skflow\n", "skflow"
        build = "E = skflow.TensorFlowDNNClassifier(hidden_units=[4], n_classes=2)\nE.fit(x_data, y_data)\n"
        predict = "E.predict(x_data)"
    else:
        imports, prefix = IMPORTS[imp]
        build = (f"E = {prefix}.DNNClassifier(hidden_units=[4], feature_columns="
                 f"{prefix}.infer_real_valued_columns_from_input(x_data))\nE.fit(input_fn=my_input_fn, steps=2)\n")
        predict = f"E.predict({INPUTS[inp][0].replace('L.', prefix + '.')})"
    mark = "  # PREDICT_LINE"
    helpers = ""
    if scope == "method":
        est = "self.est"
        lines = {
            "inline": _consume(consumer, predict),
            "name": f"y = {predict}{mark}\n" + _consume(consumer, "y"),
            "return": "y = self.get_preds()\n" + _consume(consumer, "y"),
            "self": "self.predict_all()\nself.show()",
            "param": f"self.consume({predict}){mark}",
        }[flow]
        if flow == "inline":
            lines = _mark_first(lines, predict, mark)
        methods = ""
        if flow == "return":
            methods = f"\ndef get_preds(self):\n    return {predict}{mark}\n"
        elif flow == "self":
            methods = (f"\ndef predict_all(self):\n    self.y = {predict}{mark}\n"
                       f"\ndef show(self):\n{_indent(_consume(consumer, 'self.y'), 4)}\n")
        elif flow == "param":
            methods = f"\ndef consume(self, y):\n{_indent(_consume(consumer, 'y'), 4)}\n"
        body = ("class Model(object):\n    def __init__(self):\n"
                + _indent(build.splitlines()[0].replace("E = ", "self.est = "), 8) + "\n"
                + "\n    def train(self):\n" + _indent(build.splitlines()[1].replace("E.", "self.est."), 8) + "\n"
                + _indent(methods.replace("E.", "self.est."), 4)
                + "\n    def run(self):\n" + _indent(lines.replace("E.", f"{est}."), 8) + "\n\n\n"
                + "model = Model()\nmodel.train()\nmodel.run()\n")
    else:
        lines = {
            "inline": _mark_first(_consume(consumer, predict), predict, mark),
            "name": f"y = {predict}{mark}\n" + _consume(consumer, "y"),
            "return": "y = get_preds(E)\n" + _consume(consumer, "y"),
            "param": f"consume({predict}){mark}",
        }[flow]
        if flow == "return":
            helpers = f"def get_preds(e):\n    return {predict.replace('E.', 'e.')}{mark}\n\n\n"
        elif flow == "param":
            helpers = f"def consume(y):\n{_indent(_consume(consumer, 'y'), 4)}\n\n\n"
        code = build + lines
        if scope == "module":
            body = helpers + code + "\n"
        elif scope == "function":
            body = helpers + "def main():\n" + _indent(code, 4) + "\n\n\nmain()\n"
        else:
            body = helpers + 'if __name__ == "__main__":\n' + _indent(code, 4) + "\n"
        body = body.replace("E =", "est =").replace("E.", "est.").replace("(E)", "(est)")
    return HEADER.format(imports=imports) + "\n" + body


def _mark_first(text: str, predict: str, mark: str) -> str:
    out = []
    for line in text.splitlines():
        out.append(line + mark if predict in line and mark not in "".join(out) else line)
    return "\n".join(out)


def variants():
    for imp, inp, consumer in itertools.product(IMPORTS, INPUTS, CONSUMERS):
        for scope in SCOPES:
            for flow in FLOWS:
                if flow == "self" and scope != "method":
                    continue  # a self attribute lives in a method
                yield pytest.param(imp, inp, flow, scope, consumer, False, id=f"{imp}-{inp}-{flow}-{scope}-{consumer}")
    for consumer in ("list", "islice", "for_break", "zip"):  # next() over skflow's array failed in the legacy program
        for scope in SCOPES:
            for flow in FLOWS:
                if flow == "self" and scope != "method":
                    continue
                yield pytest.param("skflow", "x", flow, scope, consumer, True, id=f"skflow-x-{flow}-{scope}-{consumer}")


VARIANTS = list(variants())
GENERATOR = re.compile(r'\(p\["class_ids"\]\[0\] for p in (\w+\.)*(predict|estimator_predictions)\(')
ARRAY = re.compile(r'np\.array\(\[p\["class_ids"\]\[0\] for p in (\w+\.)*(predict|estimator_predictions)\(')


def _shape(new: str) -> str:
    """How the program's one predict call was rewritten (a rebuilt call may span several lines)."""
    if ARRAY.search(new):
        return "array"
    return "generator" if GENERATOR.search(new) else "other"


KERAS_VARIANTS = [v for v in VARIANTS if v.values[0] == "from_contrib"]  # --target keras: one import form


def _groups(variants: list) -> dict[str, list]:
    """The variants by import form and input (``from_contrib-own_input_fn``: its flows x scopes x
    consumers), one test each: a variant's rewrite (about 50 ms) costs about what pytest spends on a
    test item, so 1,768 items cost twice their work. The group's test checks every variant of it and
    fails naming every variant that failed (tests/every_case.py); ``-k from_contrib`` or
    ``-k skflow`` selects groups."""
    groups: dict[str, list] = {}
    for v in variants:
        groups.setdefault(f"{v.values[0]}-{v.values[1]}", []).append(v)
    return groups


GROUPS, KERAS_GROUPS = _groups(VARIANTS), _groups(KERAS_VARIANTS)


def _check_group(variants: list, enabled: frozenset[str]) -> None:
    check_every((v.id, functools.partial(_check, *v.values, enabled)) for v in variants)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_predict_result_shape(group):
    _check_group(GROUPS[group], ALL)


@pytest.mark.parametrize("group", sorted(KERAS_GROUPS))
def test_predict_result_shape_keras_target(group):
    _check_group(KERAS_GROUPS[group], KERAS)


def _check(imp, inp, flow, scope, consumer, skflow, enabled):
    source = program(imp, inp, flow, scope, consumer, skflow)
    compile(source, "program.py", "exec")  # the generated legacy program is valid Python
    line = next(i for i, text in enumerate(source.splitlines(), start=1) if "PREDICT_LINE" in text)
    result = rewrite_source(source.encode(), enabled, path="program.py")
    new = result.new.decode()
    on_line = [f for f in result.findings if f.rule == "TFM106" and f.line == line]
    assert on_line, f"no TFM106 on line {line}: silent\n{new}"
    shape = _shape(new)
    assert all(f.fixable for f in on_line), [f.message for f in on_line]  # every variant here can be rewritten
    lazy = CONSUMERS[consumer][1]
    endless = INPUTS[inp][1] and not skflow
    if skflow:
        assert shape == "array", f"skflow's predict returned an array\n{new}"
    elif lazy and (endless or consumer == "next"):
        assert shape == "generator", f"consumed lazily over an input that may not end (or by next())\n{new}"
    elif not lazy and not endless:
        assert shape == "array", f"consumed eagerly over a finite input: the array\n{new}"
    else:
        assert shape in ("generator", "array"), new
    again = rewrite_source(result.new, enabled, path="program.py")
    assert again.new == result.new, "a second rewrite changed the code"


def test_variant_count():
    assert len(VARIANTS) >= 1000  # 4 imports x 4 inputs x 5 consumers x 17 flow/scope pairs, and skflow
    assert len({v.id for v in VARIANTS}) == len(VARIANTS) == sum(len(g) for g in GROUPS.values())
    assert sum(len(g) for g in KERAS_GROUPS.values()) == len(KERAS_VARIANTS) >= 300


ENDLESS_PROGRAM = '''
import itertools
import json
import numpy as np
import tensorflow as tf

x_data = np.random.RandomState(0).rand(8, 2).astype(np.float32)
y_data = np.array([0, 1] * 4)


def my_input_fn():  # constant tensors: the input never ends
    return {"x": tf.constant(x_data)}, tf.constant(y_data)


def first_six(preds):
    return [int(next(preds)) for _ in range(6)]


class Shower(object):
    def predict_all(self):
        self.preds = est.predict(input_fn=my_input_fn)

    def show(self):
        out = []
        for p in self.preds:
            out.append(int(p))
            if len(out) == 6:
                break
        return out


if __name__ == "__main__":
    est = tf.contrib.learn.DNNClassifier(
        hidden_units=[4], feature_columns=[tf.contrib.layers.real_valued_column("x", dimension=2)], model_dir="model")
    est.fit(input_fn=my_input_fn, steps=3)
    y = est.predict(input_fn=my_input_fn)
    six = list(itertools.islice(y, 6))
    print(six)
    by_next = first_six(est.predict(input_fn=my_input_fn))
    shower = Shower()
    shower.predict_all()
    print("RESULT " + json.dumps({"islice": [int(v) for v in six], "next": by_next, "for_break": shower.show()}))
'''


@pytest.mark.slow
def test_rewritten_program_with_endless_input_fn_ends(tmp_path):
    result = rewrite_source(ENDLESS_PROGRAM.encode(), ALL, path="program.py")
    new = result.new.decode()
    assert not [f for f in result.findings if not f.fixable], result.findings
    assert len(GENERATOR.findall(new)) == 3 and not ARRAY.search(new), new
    (tmp_path / "program.py").write_text(new)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONHASHSEED="0")
    done = run_python(["program.py"], cwd=tmp_path, timeout=120, env=env)  # a fork of the suite's TF 2.15 server
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, done.stdout[-2000:]
    got = json.loads(lines[-1][len("RESULT "):])
    for key in ("islice", "next", "for_break"):
        assert len(got[key]) == 6 and set(got[key]) <= {0, 1}, got
    assert str(got["islice"]) in done.stdout.splitlines()  # the program's own print of its six predictions
    assert got["islice"] == got["next"] == got["for_break"]  # the same trained model, the same constant input
