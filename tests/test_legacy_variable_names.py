"""TFM135: literal legacy variable names read from a migrated canned estimator (issue 27, item 12).

Generated over import forms x value flows x scopes x names: each literal legacy name becomes the name TF 2.15's
estimator gives the same variable, and an unknown, out-of-range or computed name is flagged on its line. The
slow test trains the migrated programs (3 steps each) on TensorFlow 2.15 in one process and reads every
rewritten name back: an array of the legacy variable's shape.
"""

from __future__ import annotations

import itertools
import json

import pytest

from tests.every_case import grouped
from tests.tfchildren import run_sources
from rewrite_once import rewrite_source  # the same (source, rules, path) rewritten by several checks: once
from tfmigrate.codemod.rule import load_catalog

ENABLED = load_catalog().selected(None)

# (id, import lines, the constructor with {cols} for its feature columns, the columns)
IMPORTS = [
    ("tf", "import tensorflow as tf", "tf.contrib.learn.DNNClassifier", 'tf.contrib.layers.real_valued_column("", dimension=4)'),
    ("from_learn", "import tensorflow as tf\nfrom tensorflow.contrib import learn", "learn.DNNClassifier",
     'tf.contrib.layers.real_valued_column("", dimension=4)'),
    ("import_as", "import tensorflow as tf\nimport tensorflow.contrib.learn as learn", "learn.DNNClassifier",
     'tf.contrib.layers.real_valued_column("", dimension=4)'),
    ("alias", "import tensorflow as tf\nL = tf.contrib.learn", "L.DNNClassifier",
     'tf.contrib.layers.real_valued_column("", dimension=4)'),
]
FLOWS = ["name", "self", "function"]
SCOPES = ["module", "function", "main"]
# (id, the argument as written, the TF 2.15 name or None (flagged), the variable's shape)
NAMES = [
    ("contrib_1x_hidden", '"dnn/hiddenlayer_1/weights"', "dnn/hiddenlayer_1/kernel", [10, 5]),
    ("contrib_1x_bias", "'dnn/hiddenlayer_0/biases'", "dnn/hiddenlayer_0/bias", [10]),
    ("contrib_1x_logits", '"dnn/logits/weights"', "dnn/logits/kernel", [5, 3]),
    ("logits_bias_keyword", 'name="dnn/logits/biases"', "dnn/logits/bias", [3]),
    ("learn_09", '"hiddenlayer_0/weights"', "dnn/hiddenlayer_0/kernel", [4, 10]),
    ("learn_09_logit", '"dnn_logit/bias"', "dnn/logits/bias", [3]),
    ("skflow", '"dnn/layer1/Linear/Matrix"', "dnn/hiddenlayer_1/kernel", [10, 5]),
    ("global_step", '"global_step"', "global_step", []),
    ("out_of_range", '"dnn/hiddenlayer_2/weights"', None, None),
    ("slot_adagrad", '"dnn/hiddenlayer_0/weights/Adagrad"', "training/Adagrad/dnn/hiddenlayer_0/kernel/accumulator", [4, 10]),
    ("slot_other_optimizer", '"dnn/logits/biases/Adam"', None, None),
    ("unknown", '"dnn/hiddenlayer_0/Matrix"', None, None),
    ("computed", '"dnn/hiddenlayer_%d/weights" % 0', None, None),
]


def _program(imp, flow: str, scope: str, argument: str, model_dir: str = "MODEL_DIR") -> tuple[str, int]:
    _, header, ctor, cols = imp
    construct = f"{ctor}(hidden_units=[10, 5], n_classes=3, feature_columns=[{cols}], model_dir={model_dir})"
    lines = [*header.splitlines(), "import numpy as np", "", "x = np.random.rand(16, 4).astype(np.float32)",
             "y = np.random.randint(0, 3, size=16)"]
    if flow == "function":
        lines += ["", "", "def build():", f"    return {construct}", ""]
        construct = "build()"
    if flow == "self":
        lines += ["", "", "class Trainer:", "    def __init__(self):", f"        self.est = {construct}", "",
                  "    def run(self):", "        self.est.fit(x, y, steps=3)",
                  f"        value = self.est.get_variable_value({argument})", "        print('SHAPE', list(np.shape(value)))"]
        line = len(lines) - 1
        call = "Trainer().run()"
        if scope == "main":
            lines += ['if __name__ == "__main__":', f"    {call}"]
        elif scope == "function":
            lines += ["def main():", f"    {call}", "main()"]
        else:
            lines.append(call)
        return "\n".join(lines) + "\n", line
    indent = {"module": "", "function": "    ", "main": "    "}[scope]
    if scope == "function":
        lines += ["", "", "def main():"]
    elif scope == "main":
        lines.append('if __name__ == "__main__":')
    lines += [f"{indent}est = {construct}", f"{indent}est.fit(x, y, steps=3)", f"{indent}value = est.get_variable_value({argument})"]
    line = len(lines)
    lines.append(f"{indent}print('SHAPE', list(np.shape(value)))")
    if scope == "function":
        lines.append("main()")
    return "\n".join(lines) + "\n", line


VARIANTS = list(itertools.product(IMPORTS, FLOWS, SCOPES, NAMES))


@grouped(("imp", "flow", "scope", "name"), VARIANTS,  # one test per import form
         ids=["-".join([i[0], f, s, n[0]]) for i, f, s, n in VARIANTS])
def test_variable_name_variant(imp, flow, scope, name):
    _, argument, new_name, _ = name
    source, line = _program(imp, flow, scope, argument)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    compile(new, "<variant>", "exec")
    here = [f for f in result.findings if f.rule == "TFM135" and f.line == line]
    read = next(ln for ln in new.splitlines() if "get_variable_value(" in ln)
    if new_name is None:
        assert here and not any(f.fixable for f in here), (new, result.findings)
        assert argument in read
        return
    if new_name == argument.strip("'\""):
        assert not here and argument in read
        return
    assert here and all(f.fixable for f in here), (new, result.findings)
    assert new_name in read and argument.split("=")[-1].strip("'\"") not in read, read
    assert rewrite_source(result.new, ENABLED).new == result.new


@pytest.mark.slow
def test_rewritten_names_read_the_trained_variables(tmp_path):
    """One TF 2.15 process trains migrated variants 3 steps and reads the rewritten name back: every
    import form with every flow once, the names taken in turn so that each rewritable name is read at
    least once (which variable a name means does not depend on the flow or the scope; the fast
    variants above check the rewrite in each of them). One estimator trained per program."""
    rewritable = [name for name in NAMES if name[2] is not None]
    programs, shapes = [], []
    for k, (imp, flow) in enumerate(itertools.product(IMPORTS, FLOWS)):
        name = rewritable[k % len(rewritable)]
        source, _ = _program(imp, flow, ["module", "function"][k % 2], name[1], repr(str(tmp_path / f"m{k}")))
        programs.append(rewrite_source(source.encode(), ENABLED).new.decode())
        shapes.append(name[3])
    assert len(programs) >= len(rewritable)
    got = [json.loads(g) if not g.startswith("error: ") else g
           for g in run_sources(programs, graph=False, module="__main__", printed="SHAPE ", timeout=900)]
    wrong = [(p, g, s) for p, g, s in zip(programs, got, shapes) if g != s]
    assert not wrong, wrong[:2]


# tf.train.load_variable(<the migrated estimator's model_dir>, "<legacy name>"): (id, the directory as written)
DIRECTORIES = [("name", "MODEL_DIR"), ("attribute", "est.model_dir"), ("literal", '"MODEL"')]
LOADERS = ["tf.train.load_variable", "tf.contrib.framework.load_variable", "tf.compat.v1.train.load_variable"]
LOAD_VARIANTS = list(itertools.product(DIRECTORIES, LOADERS, [n for n in NAMES if n[0] != "out_of_range"]))


def _load_program(directory: str, loader: str, argument: str, model_dir: str = "MODEL") -> tuple[str, int]:
    lines = ["import numpy as np", "import tensorflow as tf", "", f"MODEL_DIR = {model_dir!r}",
             "x = np.random.rand(16, 4).astype(np.float32)", "y = np.random.randint(0, 3, size=16)",
             "est = tf.contrib.learn.DNNClassifier(hidden_units=[10, 5], n_classes=3, model_dir=" +
             ("MODEL_DIR" if directory != '"MODEL"' else repr(model_dir)) + ",",
             '    feature_columns=[tf.contrib.layers.real_valued_column("", dimension=4)])',
             "est.fit(x, y, steps=3)",
             f"value = {loader}({directory.replace('MODEL', model_dir) if directory == chr(34) + 'MODEL' + chr(34) else directory}, "
             f"{argument})",
             "print('SHAPE', list(np.shape(value)))"]
    return "\n".join(lines) + "\n", len(lines) - 1


@pytest.mark.parametrize(("directory", "loader", "name"), LOAD_VARIANTS,
                         ids=["-".join([d[0], lo.rsplit(".", 2)[-2], n[0]]) for d, lo, n in LOAD_VARIANTS])
def test_load_variable_of_a_migrated_model_dir(directory, loader, name):
    _, argument, new_name, _ = name
    source, line = _load_program(directory[1], loader, argument.replace("name=", ""))
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    here = [f for f in result.findings if f.rule == "TFM135" and f.line == line]
    read = next(ln for ln in new.splitlines() if "load_variable(" in ln)
    plain = argument.replace("name=", "")
    if new_name is None:
        assert here and not any(f.fixable for f in here), (new, result.findings)
    elif new_name == plain.strip("'\""):
        assert not here and plain in read
    else:
        assert here and all(f.fixable for f in here) and new_name in read, (new, result.findings)
    assert rewrite_source(result.new, ENABLED).new == result.new


def test_load_variable_of_another_directory_is_left_alone():
    source, _ = _load_program("MODEL_DIR", "tf.train.load_variable", '"dnn/logits/weights"')
    source = source.replace('tf.train.load_variable(MODEL_DIR, ', 'tf.train.load_variable("legacy_run", ')
    result = rewrite_source(source.encode(), ENABLED)
    assert 'tf.train.load_variable("legacy_run", "dnn/logits/weights")' in result.new.decode()
    assert not [f for f in result.findings if f.rule == "TFM135"]


@pytest.mark.slow
def test_load_variable_reads_the_trained_variable(tmp_path):
    model_dir = str(tmp_path / "m")
    programs = [rewrite_source(_load_program(d, lo, '"dnn/hiddenlayer_1/weights"', model_dir)[0].encode(), ENABLED).new.decode()
                for d, lo in [("MODEL_DIR", LOADERS[1]), ("est.model_dir", LOADERS[0])]]
    got = run_sources(programs, graph=False, module="__main__", printed="SHAPE ")
    assert [json.loads(g) for g in got] == [[10, 5], [10, 5]], got
