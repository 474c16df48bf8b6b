"""The decisions issue 27's legacy API inventory added (``benchmarks/legacy_api.py`` found those names
decided only by the catch-all): renames with the same behaviour, and reasons where none exists.

- TFM601 (contrib family, ``contrib/inventory.py``): ``tf.contrib.metrics.set_*`` -> ``tf.sets.*``,
  ``confusion_matrix`` (keywords only: TF 0.12 took ``(predictions, labels)``), contrib.framework's
  ``assert_scalar`` / ``assert_same_float_dtype`` / ``convert_to_tensor_or_sparse_tensor`` / ``TensorSpec``;
- TFM540/TFM543 (tf0 family): TF 0.12's ``tf.split_v`` (``tf.concat_v2``: TFM141, guards family);
- TFM609 / TFM590: a finding on the line that says why and what to write.

Generated over import forms x scopes; the slow test runs the rewritten program on TensorFlow 2.15
and compares its values with the legacy functions' documented results.
"""

from __future__ import annotations

import json

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ENABLED = load_catalog().selected(None)

# (id, import lines, how the contrib module is spelled after them)
FORMS = [
    ("tf", "import tensorflow as tf", "tf.contrib.{m}"),
    ("from_contrib", "from tensorflow.contrib import {m}", "{m}"),
    ("import_as", "import tensorflow.contrib.{m} as {m}", "{m}"),
    ("module_alias", "import tensorflow as tf\nM = tf.contrib.{m}", "M"),
]
SCOPES = ["module", "function", "main"]

# (contrib module, the call as written after the module, the TF 2.15 call expected in the output)
RENAMED = [
    ("metrics", "set_difference(a, b, aminusb=False)", "tf.sets.difference(a, b, aminusb=False)"),
    ("metrics", "set_intersection(a, b)", "tf.sets.intersection(a, b)"),
    ("metrics", "set_size(a)", "tf.sets.size(a)"),
    ("metrics", "set_union(a, b)", "tf.sets.union(a, b)"),
    ("metrics", "confusion_matrix(labels=l, predictions=p, num_classes=3)",
     "tf.math.confusion_matrix(labels=l, predictions=p, num_classes=3)"),
    ("framework", "assert_scalar(t)", "tf.compat.v1.assert_scalar(t)"),
    ("framework", "assert_same_float_dtype([t])", "tf.debugging.assert_same_float_dtype([t])"),
    ("framework", "convert_to_tensor_or_sparse_tensor(v, name='c')",
     "tf.compat.v1.convert_to_tensor_or_sparse_tensor(v, name='c')"),
    ("framework", "TensorSpec([None, 3], tf.float32)", "tf.TensorSpec([None, 3], tf.float32)"),
    # contrib.training's loop: tf-slim keeps the same TF 1.15 code (TFM606)
    ("training", "create_train_op(l, p, summarize_gradients=False)", "tf_slim.training.create_train_op(l, p, summarize_gradients=False)"),
    ("training", "train(t, d, hooks=[])", "tf_slim.training.train(t, d, hooks=[])"),
    ("training", "evaluate_once(d, eval_ops=t)", "tf_slim.train_eval.evaluate_once(d, eval_ops=t)"),
    ("training", "StopAfterNEvalsHook(n)", "tf_slim.train_eval.StopAfterNEvalsHook(n)"),
]
# (contrib module, the use, the rule that must flag its line)
FLAGGED = [
    ("metrics", "confusion_matrix(p, l)", "TFM609"),  # positional: (predictions, labels) in TF 0.12
    ("framework", "convert_to_tensor_or_sparse_tensor(v, as_ref=True)", "TFM609"),
    ("framework", "smart_cond(pred, f1, f2)", "TFM609"),
    ("framework", "init_from_checkpoint(d, {'a/': 'a/'})", "TFM609"),
    ("training", "bucket_by_sequence_length(n, t, b, bounds, 8)", "TFM609"),
    ("training", "GreedyLoadBalancingStrategy(2, fn)", "TFM609"),
    ("training", "create_train_op(l, p, summarize_gradients=True)", "TFM609"),  # tf-slim's copy fails there
    ("training", "create_train_op(l, p, None, None, None, fn)", "TFM609"),
    ("training", "clip_gradient_norms(t, 1.0)", "TFM609"),
    ("learn", "monitors.PrintTensor(['loss'])", "TFM590"),
    ("learn", "io.read_batch_features(p, 32, spec, reader)", "TFM590"),
    ("learn", "datasets.load_iris()", "TFM590"),
    ("learn", "learn_runner.tune(fn, tuner)", "TFM590"),
    ("learn", "infer(restore, out)", "TFM590"),
    # a feature column passed on, not called (in a tuple: a plain `x = M.real_valued_column` that nothing
    # reads is a dead alias, removed by TFM551): its twin named
    ("layers", "real_valued_column, 'x'", "TFM590"),
    ("layers", "multi_class_target(n_classes=3)", "TFM590"),
]


def _program(header: str, use: str, scope: str) -> tuple[str, int]:
    """A module using ``use`` in ``scope``; the line of the use."""
    lines = header.split("\n")
    if scope == "module":
        body = [f"x = {use}"]
    elif scope == "function":
        body = ["", "", "def build(a, b, l, p, t, v, d, n, pred, f1, f2, bounds, fn, spec, reader, restore, out, tuner):",
                f"    x = {use}", "    return x"]
    else:
        body = ["", 'if __name__ == "__main__":', f"    x = {use}"]
    source = "\n".join(lines + body) + "\n"
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "x = " in text)
    return source, line


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("form, header, spelled", FORMS, ids=[f[0] for f in FORMS])
@pytest.mark.parametrize("module, call, expected", RENAMED, ids=[f"{r[0]}.{r[1].split('(')[0]}" for r in RENAMED])
def test_renamed_in_every_form(module, call, expected, form, header, spelled, scope):
    header = header.format(m=module)
    if "tf." in call and "import tensorflow as tf" not in header:
        header = "import tensorflow as tf\n" + header
    source, line = _program(header, f"{spelled.format(m=module)}.{call}", scope)
    result = rewrite_source(source.encode(), ENABLED, path="a.py")
    new = result.new.decode()
    assert expected in new, new
    assert "contrib" not in new, new
    assert not [f for f in result.findings if not f.fixable], [(f.rule, f.message) for f in result.findings]
    assert rewrite_source(result.new, ENABLED, path="a.py").new == result.new  # a fixed point


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("form, header, spelled", FORMS, ids=[f[0] for f in FORMS])
@pytest.mark.parametrize("module, use, rule", FLAGGED, ids=[f"{r[0]}.{r[1].split('(')[0]}" for r in FLAGGED])
def test_flagged_on_its_line_in_every_form(module, use, rule, form, header, spelled, scope):
    source, line = _program(header.format(m=module), f"{spelled.format(m=module)}.{use}", scope)
    result = rewrite_source(source.encode(), ENABLED, path="a.py")
    on_line = [(f.rule, f.message) for f in result.findings if f.line == line]
    assert any(r == rule for r, _ in on_line), (source, on_line)
    message = next(m for r, m in on_line if r == rule)
    assert "TF 2" in message or "TF 0.12" in message or "tf." in message  # it says why / what instead
    assert "TFM503" not in {r for r, _ in on_line}  # the catch-all stays silent where a reason is given


@pytest.mark.parametrize(
    "legacy, expected",
    [
        ("tf.concat_v2([x, y], 1)", "tf.concat([x, y], axis=1)"),  # TFM141 (guards family, first): axis by keyword
        ("tf.concat_v2(values=[x, y], axis=1)", "tf.concat(values=[x, y], axis=1)"),
        ("tf.split_v(v, [1, 2], 1)", "tf.split(v, [1, 2], 1)"),
        ("tf.split_v(value=v, size_splits=[1, 2], split_dim=1)", "tf.split(value=v, num_or_size_splits=[1, 2], axis=1)"),
    ],
)
def test_tf012_concat_v2_and_split_v(legacy, expected):
    result = rewrite_source(f"import tensorflow as tf\nz = {legacy}\n".encode(), ENABLED, path="a.py")
    assert f"z = {expected}" in result.new.decode()
    assert {f.rule for f in result.findings} <= {"TFM540", "TFM543", "TFM141"}


PROGRAM = '''import json
import numpy as np
import tensorflow as tf
from tensorflow.contrib import metrics, framework

a = tf.constant([[1, 2, 3], [4, 5, 6]])
b = tf.constant([[2], [5]])
out = {}
out["difference"] = tf.sparse.to_dense(metrics.set_difference(a, b)).numpy().tolist()
out["difference_b"] = tf.sparse.to_dense(tf.contrib.metrics.set_difference(a, b, aminusb=False)).numpy().tolist()
out["intersection"] = tf.sparse.to_dense(metrics.set_intersection(a, b)).numpy().tolist()
out["union_size"] = metrics.set_size(metrics.set_union(a, b)).numpy().tolist()
out["confusion"] = metrics.confusion_matrix(labels=[0, 1, 1, 2], predictions=[0, 1, 0, 2], num_classes=3, weights=[1, 1, 2, 1]).numpy().tolist()
out["scalar"] = int(framework.assert_scalar(tf.constant(3)).numpy())
try:
    framework.assert_scalar(tf.constant([3, 4]))
    out["scalar_error"] = None
except ValueError:
    out["scalar_error"] = "ValueError"
out["float_dtype"] = framework.assert_same_float_dtype([tf.constant(1.0), tf.constant(2.0)]).name
out["converted"] = type(framework.convert_to_tensor_or_sparse_tensor([1, 2])).__name__
out["spec"] = str(framework.TensorSpec([None, 3], tf.float32).shape)
out["concat"] = tf.concat_v2([tf.ones([2, 1]), tf.zeros([2, 2])], 1).shape.as_list()
out["split"] = [t.shape.as_list() for t in tf.split_v(tf.ones([2, 3]), [1, 2], 1)]

# the training loop, run by tf-slim's copy of it (graph mode, as the legacy code was)
import sys, tempfile
from tensorflow.contrib import training
logdir = tempfile.mkdtemp()
with tf.Graph().as_default():
    x = tf.constant(np.ones((4, 2), np.float32))
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
    tf.compat.v1.train.get_or_create_global_step()
    train_op = training.create_train_op(loss, tf.compat.v1.train.GradientDescentOptimizer(0.1))
    out["final_loss"] = float(training.train(train_op, logdir, hooks=[tf.compat.v1.train.StopAtStepHook(num_steps=3)],
                                             save_checkpoint_secs=None, save_summaries_steps=None))
with tf.Graph().as_default():
    step = tf.contrib.training.get_or_create_eval_step()
    value = tf.constant(7.0)
    out["evaluated"] = float(tf.contrib.training.evaluate_once(
        None, eval_ops=tf.compat.v1.assign_add(step, 1), final_ops=value,
        hooks=[training.StopAfterNEvalsHook(2), training.SummaryAtEndHook(log_dir=logdir)]))
print(json.dumps(out))
'''


@pytest.mark.slow
def test_renamed_program_runs_on_tf215_with_the_legacy_results(tmp_path):
    result = rewrite_source(PROGRAM.encode(), ENABLED, path="prog.py")
    new = result.new.decode()
    assert "contrib" not in new and "concat_v2" not in new and "split_v" not in new, new
    assert "tf_slim.training.create_train_op(" in new and "tf_slim.train_eval.evaluate_once(" in new
    script = tmp_path / "prog.py"
    script.write_text(new)
    proc = run_python([str(script)], timeout=240, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # the legacy docstrings' semantics (TF 1.15 contrib/metrics set_ops = core sets; confusion_matrix)
    assert out["difference"] == [[1, 3], [4, 6]]
    assert out["difference_b"] == [[], []]  # b - a: 2 and 5 are in a, nothing is left
    assert out["intersection"] == [[2], [5]]
    assert out["union_size"] == [3, 3]
    assert out["confusion"] == [[1, 0, 0], [2, 1, 0], [0, 0, 1]]  # rows: labels, columns: predictions, weighted
    assert out["scalar"] == 3 and out["scalar_error"] == "ValueError"
    assert out["float_dtype"] == "float32"
    assert out["converted"] in ("EagerTensor", "Tensor")
    assert out["spec"] == "(None, 3)"
    assert out["concat"] == [2, 3]
    assert out["split"] == [[2, 1], [2, 2]]
    # loss = (w1 + w2)^2 = 4 w^2 with both weights w; each SGD step (0.1 x gradient 4w) makes w 0.6 w; train()
    # returns the loss its third step computed, at w = 0.6^2
    assert out["final_loss"] == pytest.approx(4 * 0.6**4, rel=1e-4)
    assert out["evaluated"] == 7.0


def test_tf_slim_training_targets_exist():
    """Each tf-slim target of contrib.training is in the __all__ of its tf-slim module (read, not imported)."""
    import ast
    import importlib.util
    from pathlib import Path

    from tfmigrate.transforms.contrib import tables as T

    spec = importlib.util.find_spec("tf_slim")
    if spec is None:
        pytest.skip("tf-slim is not installed")
    package = Path(spec.origin).parent
    files = {"training": package / "training" / "training.py", "train_eval": package / "training" / "evaluation.py"}
    exported = {}
    for key, path in files.items():
        tree = ast.parse(path.read_text())
        names = next(
            node.value for node in tree.body
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
        )
        exported[key] = {e.value for e in names.elts}
    for name, target in T.SLIM_TRAINING.items():
        _, module, function = target.split(".")
        assert function == name and name in exported[module], target


@pytest.mark.parametrize(
    "use, reported",
    [
        ("tf.contrib.learn.DNNClassifier.__name__", True),  # a dunder of a missing name is missing too
        ("tf.contrib.layers.real_valued_column.__doc__", True),
        ("tf.__version__", False),
        ("tf.keras.Model.__init__", False),
        ("tf.compat.v1.__version__", False),
    ],
)
def test_a_dunder_attribute_does_not_hide_a_missing_name(use, reported):
    result = rewrite_source(f"import tensorflow as tf\nprint({use})\n".encode(), ENABLED, path="a.py")
    assert any(f.line == 2 and not f.fixable for f in result.findings) is reported, [(f.rule, f.message) for f in result.findings]
