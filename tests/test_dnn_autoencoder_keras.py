"""TFM709: skflow / tf.contrib.learn ``TensorFlowDNNAutoencoder`` on ``--target keras``, in generated variants.

Every variant is one small legacy program: import form x call form x how the object travels x scope. The real
engine rewrites it (every rule of the keras target) and then

- the class is ``DNNAutoencoder`` (imported from the helpers module) with the call's arguments as they were,
  TFM709 reported (fixed) on the construction's line, and no manual finding left;
- nothing of ``tensorflow.contrib`` / ``skflow`` is left for TensorFlow 2.16+ to stop at;
- a second rewrite changes nothing.

On the default (estimator) target the class stays TFM118's manual finding. The slow test runs three rewritten
programs (each with another import form, call form, flow and scope) and the helper's own checks in ONE
TensorFlow 2.21 child: the reconstruction has X's shape, the layers are the legacy ones (encoder over
hidden_units, decoder over them reversed, a linear regression back to X), the step count is ``steps``, the
seed makes two fits equal, ``continue_training`` goes on from the weights, and what the helper cannot reproduce
raises at once.
"""

from __future__ import annotations

import itertools
import json
import re
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

CATALOG = load_catalog()
KERAS = CATALOG.selected(None, target="keras")
ESTIMATOR = CATALOG.selected(None)

IMPORTS = {  # name -> (import lines, how the class is named)
    "tf": ("import tensorflow as tf\n", "tf.contrib.learn.TensorFlowDNNAutoencoder"),
    "from_contrib": ("from tensorflow.contrib import learn\n", "learn.TensorFlowDNNAutoencoder"),
    "python_learn": ("from tensorflow.contrib.learn.python import learn\n", "learn.TensorFlowDNNAutoencoder"),
    "import_as": ("import tensorflow.contrib.learn as learn\n", "learn.TensorFlowDNNAutoencoder"),
    "module_alias": ("import tensorflow as tf\nL = tf.contrib.learn\n", "L.TensorFlowDNNAutoencoder"),
    "class_import": ("from tensorflow.contrib.learn import TensorFlowDNNAutoencoder\n", "TensorFlowDNNAutoencoder"),
    "class_alias": ("from tensorflow.contrib.learn import TensorFlowDNNAutoencoder as AE\n", "AE"),
    "skflow": ("import skflow\n", "skflow.TensorFlowDNNAutoencoder"),
    "contrib_skflow": ("from tensorflow.contrib import skflow\n", "skflow.TensorFlowDNNAutoencoder"),
}
CALLS = {  # the constructor's arguments: hidden_units, n_classes, batch_size, steps
    "positional": "[3, 2], 0, 4, 5",
    "keyword": "hidden_units=[3, 2], batch_size=4, steps=5",
    "kwargs": '**{"hidden_units": [3, 2], "batch_size": 4, "steps": 5}',
}
FLOWS = ("name", "return", "self", "param")
SCOPES = ("module", "function", "method", "main")
MARK = "  # BUILD_LINE"


def program(imp: str, call: str, flow: str, scope: str) -> str:
    """One legacy program; its construction is the one line holding BUILD_LINE; it prints the transform's shape."""
    imports, cls = IMPORTS[imp]
    build = f"{cls}({CALLS[call]})"
    head = f"import numpy as np\n{imports}\nX = np.random.RandomState(0).rand(12, 5).astype(np.float32)\n\n\n"
    if scope == "method":
        lines = {
            "name": f"ae = {build}{MARK}\nout = ae.fit_transform(X)",
            "return": "ae = self.build()\nout = ae.fit_transform(X)",
            "self": f"self.ae = {build}{MARK}\nout = self.ae.fit(X).transform(X)",
            "param": f"out = self.use({build}){MARK}",
        }[flow]
        methods = {
            "return": f"def build(self):\n    return {build}{MARK}\n",
            "param": "def use(self, ae):\n    return ae.fit_transform(X)\n",
        }.get(flow, "")
        body = ("class Job(object):\n" + textwrap.indent(methods + "\ndef run(self):\n" + textwrap.indent(
            lines + '\nprint("SHAPE", out.shape)', "    "), "    ") + "\n\n\nJob().run()\n")
        return head + body
    helpers = {
        "return": f"def build():\n    return {build}{MARK}\n\n\n",
        "param": "def use(ae):\n    return ae.fit_transform(X)\n\n\n",
    }.get(flow, "")
    lines = {
        "name": f"ae = {build}{MARK}\nout = ae.fit_transform(X)",
        "return": "ae = build()\nout = ae.fit_transform(X)",
        "self": f"holder = type('Holder', (), {{}})()\nholder.ae = {build}{MARK}\nout = holder.ae.fit(X).transform(X)",
        "param": f"out = use({build}){MARK}",
    }[flow] + '\nprint("SHAPE", out.shape)\n'
    if scope == "module":
        return head + helpers + lines
    if scope == "function":
        return head + helpers + "def main():\n" + textwrap.indent(lines, "    ") + "\n\nmain()\n"
    return head + helpers + 'if __name__ == "__main__":\n' + textwrap.indent(lines, "    ")


# every import form x flow x scope, the call forms taking turns (the rewrite renames the class only: the call's
# arguments are never read, so crossing them with everything else would test the same thing three times)
VARIANTS = [pytest.param(imp, list(CALLS)[i % len(CALLS)], flow, scope, id=f"{imp}-{list(CALLS)[i % len(CALLS)]}-{flow}-{scope}")
            for i, (imp, flow, scope) in enumerate(itertools.product(IMPORTS, FLOWS, SCOPES))]


def _build_line(source: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), start=1) if "BUILD_LINE" in text)


def rewrite(source: str, enabled=KERAS) -> tuple[str, list]:
    result = rewrite_source(source.encode(), enabled, path="program.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize(("imp", "call", "flow", "scope"), VARIANTS)
def test_autoencoder_lowered(imp, call, flow, scope):
    source = program(imp, call, flow, scope)
    compile(source, "program.py", "exec")  # the generated legacy program is valid Python
    new, findings = rewrite(source)
    line = _build_line(source)
    on_line = [f for f in findings if f.rule == "TFM709" and f.line == line]
    assert on_line and all(f.fixable for f in on_line), (findings, new)
    assert not [f for f in findings if not f.fixable], [(f.rule, f.line, f.message) for f in findings if not f.fixable]
    assert f"DNNAutoencoder({CALLS[call]})" in new, new  # the arguments as they were
    assert "from legacy_estimators import DNNAutoencoder" in new
    code = "\n".join(text.partition("#")[0] for text in new.splitlines())  # not the comments
    assert "TensorFlowDNNAutoencoder" not in code and "contrib" not in code and "skflow" not in code, new
    compile(new, "program.py", "exec")
    again, _ = rewrite(new)
    assert again == new  # one run reaches the fixed point


@pytest.mark.parametrize("imp", list(IMPORTS))
def test_estimator_target_keeps_tfm118(imp):
    """Without --target keras the class has no TF 2.15 form: TFM118 (manual) on its line, nothing rewritten."""
    source = program(imp, "keyword", "name", "module")
    new, findings = rewrite(source, ESTIMATOR)
    assert any(f.rule == "TFM118" and not f.fixable and f.line == _build_line(source) for f in findings), findings
    assert "DNNAutoencoder(" not in new.replace("TensorFlowDNNAutoencoder(", "")


def test_a_module_with_its_own_dnnautoencoder_is_flagged():
    source = ("from tensorflow.contrib import learn\n\n\nclass DNNAutoencoder(object):\n    pass\n\n\n"
              f"ae = learn.TensorFlowDNNAutoencoder([3]){MARK}\n")
    new, findings = rewrite(source)
    assert [f.rule for f in findings if not f.fixable and f.line == _build_line(source)] == ["TFM709"]
    assert "learn.TensorFlowDNNAutoencoder([3])" in new


def test_an_unrelated_class_of_that_name_is_left_alone():
    source = "from mylib import TensorFlowDNNAutoencoder\n\nae = TensorFlowDNNAutoencoder([3])\n"
    new, findings = rewrite(source)
    assert new == source and not findings


# --- TensorFlow 2.21: the rewritten programs run, and the helper is the legacy model -----------------------

CHECKS = r'''
import json, sys
import numpy as np
import tensorflow as tf
from legacy_estimators import DNNAutoencoder

out = {}
X = np.random.RandomState(1).rand(30, 4).astype(np.float32)
ae = DNNAutoencoder([6, 3], steps=7, batch_size=5, verbose=0)
r = ae.fit_transform(X)
out["shape"] = list(r.shape)
out["steps"] = int(ae.model.optimizer.iterations)
out["kernels"] = [list(w.shape) for w in ae.weights_]
out["biases"] = [list(b.shape) for b in ae.bias_]
out["generate"] = list(ae.generate().shape)
out["optimizer"] = [type(ae.model.optimizer).__name__, float(ae.model.optimizer.learning_rate),
                    float(ae.model.optimizer.initial_accumulator_value), float(ae.model.optimizer.global_clipnorm)]
again = DNNAutoencoder([6, 3], steps=7, batch_size=5, verbose=0).fit_transform(X)
out["seeded"] = bool(np.allclose(r, again))
other = DNNAutoencoder([6, 3], steps=7, batch_size=5, verbose=0, config={"tf_random_seed": 7}).fit_transform(X)
out["other_seed_differs"] = not bool(np.allclose(r, other))
cont = DNNAutoencoder([6, 3], steps=4, verbose=0, continue_training=True)
cont.fit(X)
first = cont.weights_[0].copy()
cont.fit(X)
out["continued"] = [int(cont.model.optimizer.iterations), bool(np.allclose(first, cont.weights_[0]))]
fresh = DNNAutoencoder([6, 3], steps=4, verbose=0)
fresh.fit(X)
fresh.fit(X)
out["fresh"] = int(fresh.model.optimizer.iterations)
drop = DNNAutoencoder([6, 3], steps=2, verbose=0, dropout=0.5)
drop.fit(X)
out["dropout_predict_stable"] = bool(np.allclose(drop.transform(X), drop.transform(X)))
errors = []
for kwargs in ({"n_classes": 3}, {"optimizer": "Momentum"}, {"learning_rate": lambda step: 0.1}):
    try:
        DNNAutoencoder([3], **kwargs)
        errors.append("none")
    except NotImplementedError as error:
        errors.append(type(error).__name__)
out["refused"] = errors
print("CHECKS " + json.dumps(out))
'''

RUNNER = r'''
import runpy, sys, io, contextlib
for path in sys.argv[1:]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        runpy.run_path(path, run_name="__main__")
    print(path, [line for line in buffer.getvalue().splitlines() if line.startswith("SHAPE")])
runpy.run_path("checks.py", run_name="__main__")
'''


def _runs() -> list[tuple[str, str, str, str]]:
    """Three programs (the rewrite of every import form is checked without TensorFlow above: what runs is the same
    DNNAutoencoder call), each with another call form, flow and scope: the child's cost is one Keras model each."""
    return [("python_learn", "keyword", "name", "module"), ("module_alias", "positional", "return", "function"),
            ("skflow", "kwargs", "self", "method")]


@pytest.mark.slow
def test_rewritten_programs_run_on_tf221(tmp_path):
    from tests.keras_env import run_keras, write_helpers

    write_helpers(tmp_path)
    names = []
    for imp, call, flow, scope in _runs():
        new, _ = rewrite(program(imp, call, flow, scope))
        name = f"p_{imp}_{call}_{flow}_{scope}.py"
        (tmp_path / name).write_text(new)
        names.append(name)
    (tmp_path / "checks.py").write_text(CHECKS)
    (tmp_path / "runner.py").write_text(RUNNER)
    proc = run_keras(["runner.py", *names], cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for name in names:
        assert f"{name} ['SHAPE (12, 5)']" in proc.stdout, proc.stdout
    checks = json.loads(re.search(r"^CHECKS (.*)$", proc.stdout, re.M).group(1))
    assert checks["shape"] == [30, 4]
    assert checks["steps"] == 7
    # encoder 4->6->3, decoder 3->3->6, linear regression 6->4
    assert checks["kernels"] == [[4, 6], [6, 3], [3, 3], [3, 6], [6, 4]]
    assert checks["biases"] == [[6], [3], [3], [6], [4]]
    assert checks["generate"] == [1, 6]
    assert checks["optimizer"] == ["Adagrad", pytest.approx(0.1), pytest.approx(0.1), 5.0]
    assert checks["seeded"] and checks["other_seed_differs"]
    assert checks["continued"] == [8, False]  # the second fit went on from the first's weights and step
    assert checks["fresh"] == 4  # without continue_training each fit starts again
    assert checks["dropout_predict_stable"]  # dropout only in training
    assert checks["refused"] == ["NotImplementedError"] * 3
