"""TFM136 (and TFM107): a save path the program deletes or recreates before save() (issue 27, item 10).

Generated over import forms x clean-ups (shutil.rmtree, os.makedirs, tf.gfile / tf.io.gfile) x where the
clean-up runs (before the first fit(): the path stays model_dir; after it: the checkpoint of a model_dir of
its own is copied to the path at save()) x how the path is written x scopes. The slow test runs rewritten
programs on TensorFlow 2.15 and restores the checkpoint from the path the program saved to.
"""

from __future__ import annotations

import itertools
import json
import os

import pytest

from tests.every_case import grouped
from tests.tfchildren import run_python
from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ENABLED = load_catalog().selected(None)

IMPORTS = [
    ("skflow", "import skflow", "skflow.TensorFlowDNNClassifier"),
    ("learn", "from tensorflow.contrib import learn", "learn.TensorFlowDNNClassifier"),
    ("tf", "", "tf.contrib.learn.TensorFlowDNNClassifier"),
    ("alias", "L = tf.contrib.learn", "L.TensorFlowDNNClassifier"),
]
CLEANUPS = [
    ("rmtree_if", ["if os.path.exists({p}):", "    shutil.rmtree({p})"]),
    ("rmtree_ignore", ["shutil.rmtree({p}, ignore_errors=True)"]),
    ("makedirs", ["os.makedirs({p}, exist_ok=True)"]),
    ("rmtree_makedirs", ["shutil.rmtree({p}, ignore_errors=True)", "os.makedirs({p})"]),
    ("gfile", ["if tf.gfile.Exists({p}):", "    tf.gfile.DeleteRecursively({p})"]),
    ("io_gfile", ["if tf.io.gfile.exists({p}):", "    tf.io.gfile.rmtree({p})"]),
]
WHEN = ["before_fit", "after_fit"]
PATHS = ["literal", "name", "join"]
SCOPES = ["module", "function", "main"]


def _program(imp, cleanup, when: str, path: str, scope: str, where: str = "out/model") -> tuple[str, int]:
    _, header, ctor = imp
    lines = ["import os", "import shutil", "", "import numpy as np", "import tensorflow as tf", *filter(None, [header]), ""]
    if path == "name":
        lines.append(f"MODEL_DIR = {where!r}")
        p = "MODEL_DIR"
    elif path == "join":
        head, _, tail = where.rpartition("/")
        lines.append(f"BASE = {head!r}")
        p = f"os.path.join(BASE, {tail!r})"
    else:
        p = repr(where)
    indent = ""
    if scope == "function":
        lines += ["", "", "def main():"]
        indent = "    "
    elif scope == "main":
        lines.append('if __name__ == "__main__":')
        indent = "    "
    body = ["x = np.random.rand(32, 4).astype(np.float32)", "y = np.random.randint(0, 3, size=32)",
            f"clf = {ctor}(hidden_units=[10], n_classes=3, steps=5)"]
    clean = [line.format(p=p) for line in cleanup[1]]
    body += [*clean, "clf.fit(x, y)"] if when == "before_fit" else ["clf.fit(x, y)", *clean]
    body.append(f"clf.save({p})")
    lines += [indent + line for line in body]
    save_line = len(lines)
    if scope == "function":
        lines.append("main()")
    return "\n".join(lines) + "\n", save_line


VARIANTS = list(itertools.product(IMPORTS, CLEANUPS, WHEN, PATHS, SCOPES))


@grouped(("imp", "cleanup", "when", "path", "scope"), VARIANTS,  # one test per import form
         ids=["-".join([i[0], c[0], w, p, s]) for i, c, w, p, s in VARIANTS])
def test_cleared_save_path_variant(imp, cleanup, when, path, scope):
    source, save_line = _program(imp, cleanup, when, path, scope)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    compile(new, "<variant>", "exec")
    assert not [f for f in result.findings if not f.fixable], (new, result.findings)
    rules = {f.rule for f in result.findings if f.line == save_line}
    constructor = new[new.index("tf.estimator.DNNClassifier("):new.index("clf.train(")]
    if when == "before_fit":
        assert rules == {"TFM107"} and "model_dir=" in constructor and ".save(" not in new, new
    else:
        assert rules == {"TFM136"} and "model_dir=" not in constructor, new
        assert "shutil.copytree(clf.model_dir, " in new and "dirs_exist_ok=True)" in new
        assert new.index("shutil.copytree(") > new.index("clf.train(")
    assert rewrite_source(result.new, ENABLED).new == result.new


def test_cleanup_in_a_training_loop_is_not_before_training():
    source = ("import shutil\nimport numpy as np\nimport skflow\nx = np.random.rand(8, 4)\ny = np.zeros(8)\n"
              "clf = skflow.TensorFlowDNNClassifier(hidden_units=[4], n_classes=2)\nfor epoch in range(2):\n"
              "    shutil.rmtree('m', ignore_errors=True)\n    clf.fit(x, y)\n    clf.save('m')\n")
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    assert "model_dir=" not in new and "shutil.copytree(clf.model_dir, 'm', dirs_exist_ok=True)" in new


def test_two_saves_of_a_cleared_path_are_flagged():
    source = ("import shutil\nimport numpy as np\nimport skflow\nx = np.random.rand(8, 4)\ny = np.zeros(8)\n"
              "clf = skflow.TensorFlowDNNClassifier(hidden_units=[4], n_classes=2)\nclf.fit(x, y)\n"
              "shutil.rmtree('m', ignore_errors=True)\nclf.save('m')\nclf.save('m')\n")
    result = rewrite_source(source.encode(), ENABLED)
    assert {(f.rule, f.line) for f in result.findings if not f.fixable} >= {("TFM107", 9)}


@pytest.mark.slow
def test_checkpoint_lands_where_the_program_saved(tmp_path):
    """Each clean-up, before and after fit(), in one TF 2.15 process: the program runs, the path it saved to
    holds a checkpoint at step 5, and a new estimator with that model_dir restores it."""
    programs, paths = [], []
    for k, (cleanup, when) in enumerate(itertools.product(CLEANUPS, WHEN)):
        imp = IMPORTS[k % len(IMPORTS)]
        where = str(tmp_path / f"run{k}" / "model")
        (tmp_path / f"run{k}" / "model").mkdir(parents=True)
        (tmp_path / f"run{k}" / "model" / "stale.txt").write_text("an older run")
        source, _ = _program(imp, cleanup, when, PATHS[k % len(PATHS)], SCOPES[k % len(SCOPES)], where)
        programs.append(rewrite_source(source.encode(), ENABLED).new.decode())
        paths.append(where)
    runner = (
        "import json, os, sys, warnings\nwarnings.simplefilter('ignore')\nimport tensorflow as tf\n"
        "tf.get_logger().setLevel('ERROR')\nout = []\nfor src, path in json.load(sys.stdin):\n    try:\n"
        "        exec(compile(src, '<variant>', 'exec'), {'__name__': '__main__'})\n"
        "        est = tf.estimator.DNNClassifier(hidden_units=[10], n_classes=3, model_dir=path,\n"
        "            feature_columns=[tf.feature_column.numeric_column('x', shape=[4])])\n"
        "        out.append([os.path.basename(tf.train.latest_checkpoint(path) or ''), int(est.get_variable_value('global_step')),\n"
        "                    list(est.get_variable_value('dnn/hiddenlayer_0/kernel').shape), os.path.exists(os.path.join(path, 'stale.txt'))])\n"
        "    except Exception as exc:\n        out.append('error: %s: %s' % (type(exc).__name__, str(exc)[:300]))\n"
        "print('RESULT' + json.dumps(out))\n"
    )
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = run_python(["-c", runner], input=json.dumps(list(zip(programs, paths))), env=env, timeout=900, cwd=tmp_path)
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT")]
    assert line, done.stderr[-3000:]
    got = json.loads(line[0][len("RESULT"):])
    expected = [["model.ckpt-5", 5, [4, 10], cleanup[0] == "makedirs"] for cleanup, _ in itertools.product(CLEANUPS, WHEN)]
    assert got == expected, [(p, g) for p, g, e in zip(programs, got, expected) if g != e][:2]
