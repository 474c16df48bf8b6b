"""TFM6xx (tf.contrib utilities): import forms, idempotence, and the rewritten code run on TF 2.15.

The numeric tests compare the rewritten TF 2.15 code with tf-slim, which is the TF 1.15 contrib code
kept as a package (the legacy behaviour, runnable today): same seeds, same inputs, same values.
"""

from __future__ import annotations

import ast
import json
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.contrib import tables as T
from tfmigrate.transforms.contrib.transform import contrib_rel
from tests.tfchildren import run_python

CATALOG = load_catalog()
ALL = CATALOG.selected(None)  # every rule of the default target (tf.estimator)
TFM6 = frozenset(r for r in CATALOG.rules if r.startswith("TFM6"))


def rewrite(code: str, enabled: frozenset[str] = ALL):
    result = rewrite_source(textwrap.dedent(code).encode(), enabled, path="t.py")
    return result.new.decode(), {f.rule for f in result.findings}, result


def run_tf(code: str, timeout: int = 240) -> dict:
    """Run ``code`` with TF 2.15 in a child process; it prints one JSON line last."""
    proc = run_python(["-c", code], timeout=timeout, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def uses_contrib(code: str) -> bool:
    """Does the code still reach tensorflow.contrib (an attribute or an import; docstrings may name it)?"""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Attribute) and node.attr == "contrib":
            return True
        if isinstance(node, ast.Import) and any("contrib" in a.name for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            "contrib" in (node.module or "") or any(a.name == "contrib" for a in node.names)
        ):
            return True
    return False


# --- names and import forms ------------------------------------------------------------------------
def test_contrib_rel_normalizes_private_paths():
    assert contrib_rel("tensorflow.contrib.rnn.python.ops.core_rnn_cell.BasicLSTMCell") == "rnn.BasicLSTMCell"
    assert contrib_rel("tensorflow.contrib.layers.python.layers.initializers.xavier_initializer") == "layers.xavier_initializer"
    assert contrib_rel("tensorflow.contrib.slim.nets") == "slim.nets"
    assert contrib_rel("tensorflow.train.Saver") is None


@pytest.mark.parametrize(
    "code",
    [
        "import tensorflow as tf\ncell = tf.contrib.rnn.BasicLSTMCell(4)\n",
        "from tensorflow.contrib import rnn\ncell = rnn.BasicLSTMCell(4)\n",
        "import tensorflow.contrib.rnn as rnn\ncell = rnn.BasicLSTMCell(4)\n",
        "from tensorflow.contrib.rnn import BasicLSTMCell\ncell = BasicLSTMCell(4)\n",
        "from tensorflow.contrib.rnn import BasicLSTMCell as Cell\ncell = Cell(4)\n",
        "from tensorflow import contrib\ncell = contrib.rnn.BasicLSTMCell(4)\n",
        "import tensorflow as tf\nrnn = tf.contrib.rnn\ncell = rnn.BasicLSTMCell(4)\n",
        "import tensorflow as tf\nfrom tensorflow.contrib.rnn.python.ops import core_rnn_cell\ncell = core_rnn_cell.BasicLSTMCell(4)\n",
    ],
)
def test_every_import_form_of_a_cell(code):
    new, rules, _ = rewrite(code)
    assert "contrib" not in new, new
    assert "compat.v1.nn.rnn_cell.BasicLSTMCell(4)" in new
    assert "TFM601" in rules
    ast.parse(new)
    again, _, _ = rewrite(new)
    assert again == new


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import tensorflow.contrib.slim as slim\ny = slim.fully_connected(x, 3)\n", "import tf_slim as slim\n"),
        ("from tensorflow.contrib import slim\ny = slim.fully_connected(x, 3)\n", "import tf_slim as slim\n"),
        ("from tensorflow.contrib import slim as sl\ny = sl.fully_connected(x, 3)\n", "import tf_slim as sl\n"),
        ("from tensorflow.contrib.slim import fully_connected\ny = fully_connected(x, 3)\n", "from tf_slim import fully_connected\n"),
        ("import tensorflow as tf\nslim = tf.contrib.slim\ny = slim.fully_connected(x, 3)\n", "slim = tf_slim\n"),
        ("import tensorflow as tf\ny = tf.contrib.slim.fully_connected(x, 3)\n", "y = tf_slim.fully_connected(x, 3)\n"),
    ],
)
def test_slim_import_forms(code, expected):
    new, rules, _ = rewrite(code)
    assert expected in new, new
    assert "contrib" not in new
    assert "TFM606" in rules
    assert rewrite(new)[0] == new


def test_unmapped_names_are_reported_and_the_program_fails_the_rewrite():
    code = """\
    import tensorflow as tf
    from tensorflow.contrib import rnn
    cell = rnn.LayerNormBasicLSTMCell(8)
    helper = tf.contrib.seq2seq.TrainingHelper(inputs, lengths)
    ids = tf.contrib.layers.embed_sequence(x, vocab_size=10, embed_dim=4, unique=True)
    """
    new, rules, result = rewrite(code)
    manual = [f for f in result.findings if not f.fixable]
    assert {(f.rule, f.line) for f in manual} == {("TFM503", 2), ("TFM609", 3), ("TFM609", 4), ("TFM609", 5)}
    assert "from tensorflow.contrib import rnn" in new  # still needed by the unmapped cell: left as is
    assert any("tfa.seq2seq" in f.message for f in manual)


def test_feature_columns_and_learn_are_not_this_familys():
    code = """\
    import tensorflow as tf
    col = tf.contrib.layers.real_valued_column("x")
    est = tf.contrib.learn.LinearRegressor(feature_columns=[col])
    """
    new, rules, _ = rewrite(code, TFM6)
    assert new == textwrap.dedent(code)
    assert not rules


def test_layers_module_shared_with_feature_columns_is_fully_migrated():
    # contrib_learn (TFM15x) takes the feature columns, this family the rest; then the import goes
    code = """\
    import tensorflow as tf
    from tensorflow.contrib import layers

    columns = [layers.real_valued_column("x", dimension=4)]


    def model_fn(features, labels, mode):
        net = layers.input_from_feature_columns(features, columns)
        logits = layers.fully_connected(net, 3, activation_fn=None)
        return tf.contrib.losses.sparse_softmax_cross_entropy(logits, labels)
    """
    new, rules, result = rewrite(code)
    assert not uses_contrib(new), new
    assert "tf_slim.fully_connected(net, 3, activation_fn=None)" in new
    assert {"TFM157", "TFM604", "TFM606"} <= rules
    assert not [f for f in result.findings if not f.fixable]


def test_rnn_cell_positional_ambiguity_left_with_finding():
    new, rules, _ = rewrite("import tensorflow as tf\ncell = tf.contrib.rnn.GRUCell(8, None, tf.tanh)\n", TFM6)
    assert "tf.contrib.rnn.GRUCell" in new and rules == {"TFM609"}


def test_suppression_comment():
    code = "import tensorflow as tf\nstep = tf.contrib.framework.get_global_step()  # tfmigrate: ignore[TFM601]\n"
    new, rules, _ = rewrite(code, TFM6)
    assert new == code and not rules


def test_losses_positional_become_legacy_keywords():
    code = "import tensorflow as tf\nl = tf.contrib.losses.cosine_distance(p, y, 1)\nm = tf.contrib.losses.log_loss(p, y, weight=w)\n"
    new, _, _ = rewrite(code, TFM6)
    assert "tf.compat.v1.losses.cosine_distance(predictions=p, labels=y, axis=1)" in new
    assert "tf.compat.v1.losses.log_loss(predictions=p, labels=y, weights=w)" in new


def test_hinge_loss_keeps_legacy_code_through_slim():
    # contrib's hinge_loss returned the unreduced losses; tf.compat.v1.losses.hinge_loss reduces them
    new, rules, _ = rewrite("import tensorflow as tf\nh = tf.contrib.losses.hinge_loss(logits, labels)\n", TFM6)
    assert "tf_slim.losses.hinge_loss(logits, labels)" in new and rules == {"TFM606"}


# --- the tables against the installed TF 2.15 and tf-slim ------------------------------------------
@pytest.mark.slow
def test_tables_resolve_in_tf215_and_tf_slim():
    code = textwrap.dedent(
        f"""
        import inspect, json
        import tensorflow as tf, tf_slim
        T = {{"renames": {dict(T.RENAMES)!r}, "losses": {dict(T.LOSSES)!r}, "metrics": {dict(T.METRICS)!r},
             "slim_top": {sorted(T.SLIM_TOP)!r}, "slim_losses": {sorted(T.SLIM_LOSSES)!r},
             "slim_metrics": {sorted(T.SLIM_METRICS)!r}, "slim_modules": {sorted(T.SLIM_MODULES)!r}}}
        missing = []
        def get(root, path):
            for part in path.split("."):
                root = getattr(root, part)
            return root
        for target in T["renames"].values():
            try: get(tf, target)
            except AttributeError: missing.append(target)
        for name in T["slim_top"] + T["slim_modules"]:
            if not hasattr(tf_slim, name): missing.append("tf_slim." + name)
        for name in T["slim_losses"]:
            if not hasattr(tf_slim.losses, name): missing.append("tf_slim.losses." + name)
        for name in T["slim_metrics"]:
            if not hasattr(tf_slim.metrics, name): missing.append("tf_slim.metrics." + name)
        orders = []
        for name, order in T["losses"].items():
            legacy = list(inspect.signature(getattr(tf_slim.losses, name)).parameters)
            new = set(inspect.signature(getattr(tf.compat.v1.losses, name)).parameters)
            orders.append([name, legacy[: len(order)] == list(order), all(p in new for p in order)])
        for name, (target, order) in T["metrics"].items():
            legacy = list(inspect.signature(getattr(tf_slim.metrics, name)).parameters)
            new = set(inspect.signature(getattr(tf.compat.v1.metrics, target)).parameters)
            orders.append([name, legacy[: len(order)] == list(order), all(p in new for p in order)])
        print(json.dumps({{"missing": missing, "orders": orders}}))
        """
    )
    found = run_tf(code)
    assert found["missing"] == []
    assert [o for o in found["orders"] if not (o[1] and o[2])] == []


# --- the rewritten code, run ---------------------------------------------------------------------
LEGACY_NUMERIC = """\
import json
import numpy as np
import tensorflow as tf
import tf_slim
from tensorflow.contrib import layers, losses, metrics

tf.compat.v1.disable_eager_execution()
shape = [30, 20]
xavier = tf.contrib.layers.xavier_initializer(seed=3)(shape)
xavier_n = layers.xavier_initializer(False, 5)(shape)
he = tf.contrib.layers.variance_scaling_initializer(seed=7)([3, 3, 8, 16])
he_u = layers.variance_scaling_initializer(factor=2.0, mode="FAN_OUT", uniform=True, seed=9)(shape)
w = tf.constant(np.linspace(-1.0, 1.0, 12).reshape(3, 4), tf.float32)
l2 = tf.contrib.layers.l2_regularizer(0.01)(w)
l1l2 = layers.l1_l2_regularizer(scale_l2=0.1)(w)
logits = tf.constant([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
onehot = tf.constant([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
xent = losses.softmax_cross_entropy(logits, onehot)
sparse = tf.contrib.losses.sparse_softmax_cross_entropy(logits, tf.constant([0, 2]))
mse = losses.mean_squared_error(tf.constant([1.0, 2.0]), tf.constant([1.5, 1.0]), weight=2.0)
acc, acc_up = metrics.streaming_accuracy(tf.constant([1, 2, 0]), tf.constant([1, 2, 2]))
rmse, rmse_up = tf.contrib.metrics.streaming_root_mean_squared_error(tf.constant([1.0, 3.0]), tf.constant([2.0, 1.0]))
fc = layers.fully_connected(tf.constant(np.linspace(-3.0, 3.0, 20).reshape(5, 4), tf.float32), 6)  # ReLU by default
ref = {
    "xavier": tf_slim.xavier_initializer(seed=3)(shape),
    "xavier_n": tf_slim.xavier_initializer(False, 5)(shape),
    "he": tf_slim.variance_scaling_initializer(seed=7)([3, 3, 8, 16]),
    "he_u": tf_slim.variance_scaling_initializer(factor=2.0, mode="FAN_OUT", uniform=True, seed=9)(shape),
    "l2": tf_slim.l2_regularizer(0.01)(w),
    "l1l2": tf_slim.l1_l2_regularizer(scale_l2=0.1)(w),
    "xent": tf_slim.losses.softmax_cross_entropy(logits, onehot),
    "sparse": tf_slim.losses.sparse_softmax_cross_entropy(logits, tf.constant([0, 2])),
    "mse": tf_slim.losses.mean_squared_error(tf.constant([1.0, 2.0]), tf.constant([1.5, 1.0]), weights=2.0),
}
ref_acc, ref_acc_up = tf_slim.metrics.streaming_accuracy(tf.constant([1, 2, 0]), tf.constant([1, 2, 2]))
ref_rmse, ref_rmse_up = tf_slim.metrics.streaming_root_mean_squared_error(tf.constant([1.0, 3.0]), tf.constant([2.0, 1.0]))
new = {"xavier": xavier, "xavier_n": xavier_n, "he": he, "he_u": he_u, "l2": l2, "l1l2": l1l2,
       "xent": xent, "sparse": sparse, "mse": mse}
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.local_variables_initializer())
    sess.run([acc_up, rmse_up, ref_acc_up, ref_rmse_up])
    sess.run(tf.compat.v1.global_variables_initializer())
    a, b = sess.run([new, ref])
    fc_out = sess.run(fc)
    m = sess.run([acc, ref_acc, rmse, ref_rmse])
out = {k: [float(np.abs(a[k] - b[k]).max()), float(np.abs(b[k]).max())] for k in a}
out["metrics"] = [float(v) for v in m]
out["fc"] = [float(fc_out.min()), float(fc_out.max())]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_initializers_regularizers_losses_metrics_keep_legacy_values():
    new, rules, result = rewrite(LEGACY_NUMERIC)
    assert "contrib" not in new
    assert {"TFM602", "TFM603", "TFM604", "TFM605"} <= rules
    assert not [f for f in result.findings if not f.fixable]
    out = run_tf(new)
    for key in ("xavier", "xavier_n", "he", "he_u", "xent", "sparse", "mse"):
        diff, scale = out[key]
        assert scale > 0 and diff == 0.0, (key, out[key])  # the same draws / values, bit for bit
    for key in ("l2", "l1l2"):
        diff, scale = out[key]
        assert scale > 0 and diff <= 1e-6 * scale, (key, out[key])
    assert out["fc"][0] == 0.0 and out["fc"][1] > 0.0  # fully_connected kept its ReLU default
    acc, ref_acc, rmse, ref_rmse = out["metrics"]
    assert acc == ref_acc == pytest.approx(2 / 3) and rmse == ref_rmse == pytest.approx((2.5) ** 0.5)


LEGACY_PROGRAM = """\
import json, os, sys
import numpy as np
import tensorflow as tf
from tensorflow.contrib import rnn
import tensorflow.contrib.slim as slim
from tensorflow.contrib.tensorboard.plugins import projector

tf.compat.v1.disable_eager_execution()
logdir = sys.argv[1]
batch, steps, vocab = 4, 3, 7
x = tf.compat.v1.placeholder(tf.float32, [batch, steps, 5])
y = tf.compat.v1.placeholder(tf.int32, [batch, steps])
cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(8), rnn.DropoutWrapper(tf.contrib.rnn.GRUCell(8), output_keep_prob=1.0)])
state = cell.zero_state(batch, tf.float32)
inputs = tf.unstack(x, axis=1)
decoder = tf.contrib.legacy_seq2seq.rnn_decoder
outputs, last = decoder(inputs, state, cell)
logits = [slim.fully_connected(o, vocab, activation_fn=None, scope="out", reuse=i > 0) for i, o in enumerate(outputs)]
targets = tf.unstack(y, axis=1)
embedded = tf.contrib.layers.embed_sequence(y, vocab_size=vocab, embed_dim=3)
weights = [tf.ones([batch]) for _ in targets]
per_example = tf.contrib.legacy_seq2seq.sequence_loss_by_example(logits, targets, weights)
loss = tf.contrib.legacy_seq2seq.sequence_loss(logits, targets, weights)
step = tf.contrib.framework.get_or_create_global_step()
train = tf.contrib.layers.optimize_loss(loss, step, learning_rate=0.1, optimizer="SGD", clip_gradients=5.0)
names = sorted(v.name for v in tf.compat.v1.global_variables())
model_vars = [v.name for v in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.MODEL_VARIABLES)]
writer = tf.compat.v1.summary.FileWriter(logdir)
config = projector.ProjectorConfig()
config.embeddings.add().tensor_name = "out/weights"
projector.visualize_embeddings(writer, config)
rng = np.random.RandomState(0)
feed = {x: rng.rand(batch, steps, 5), y: rng.randint(0, vocab, (batch, steps))}
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    before, ex = sess.run([loss, per_example], feed)
    for _ in range(30):
        sess.run(train, feed)
    after, gs = sess.run([loss, step], feed)
    shape = list(sess.run(embedded, feed).shape)
print(json.dumps({"before": float(before), "after": float(after), "mean_ex": float(np.mean(ex)),
                  "step": int(gs), "names": names, "model_vars": model_vars,
                  "embedded": shape,
                  "pbtxt": os.path.exists(os.path.join(logdir, "projector_config.pbtxt"))}))
"""


@pytest.mark.slow
def test_rnn_slim_seq2seq_projector_program_runs(tmp_path):
    new, rules, result = rewrite(LEGACY_PROGRAM)
    assert not uses_contrib(new), new
    assert not [f for f in result.findings if not f.fixable], [(f.rule, f.message) for f in result.findings]
    assert {"TFM601", "TFM606", "TFM607", "TFM608"} <= rules
    assert rewrite(new)[0] == new
    script = tmp_path / "prog.py"
    script.write_text(new)
    proc = run_python([str(script), str(tmp_path)], timeout=240, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["after"] < out["before"]  # it trains
    assert out["before"] == pytest.approx(out["mean_ex"], rel=1e-5)  # sequence_loss = the batch mean of the per-example losses
    assert out["step"] == 30
    assert out["pbtxt"]
    # the legacy variable names: rnn_decoder/multi_rnn_cell/cell_0/basic_lstm_cell/..., slim's out/weights
    assert any(n.startswith("rnn_decoder/multi_rnn_cell/cell_0/basic_lstm_cell/kernel") for n in out["names"])
    assert "out/weights:0" in out["names"] and "out/biases:0" in out["names"]
    assert "EmbedSequence/embeddings:0" in out["model_vars"] and out["embedded"] == [4, 3, 3]


OPTIMIZE_HEAD = """\
import json
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()


def train(make_train_op, steps=15):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(1)
        x = tf.constant(np.linspace(-1, 1, 32).reshape(8, 4), tf.float32)
        y = tf.constant(np.arange(8) % 2, tf.int64)
        logits = tf.compat.v1.layers.dense(x, 2, kernel_initializer=tf.compat.v1.ones_initializer())
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = make_train_op(loss, step)
        names = sorted(v.op.name for v in tf.compat.v1.global_variables())
        summaries = sorted(s.op.name for s in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            losses = [float(sess.run(train_op)) for _ in range(steps)]
            return {"losses": losses, "step": int(sess.run(step)), "names": names, "summaries": summaries}


decay = lambda lr, step: tf.compat.v1.train.exponential_decay(lr, step, 5, 0.5)
"""
OPTIMIZE_CASES = """
cases = {
    "sgd": lambda loss, step: OPT(loss, step, 0.5, "SGD"),
    "adam_clip": lambda loss, step: OPT(
        loss, step, learning_rate=0.1, optimizer="Adam", clip_gradients=0.05, summaries=["loss", "gradients"]),
    "callable_decay": lambda loss, step: OPT(
        loss, step, 0.3, lambda lr: tf.compat.v1.train.MomentumOptimizer(lr, 0.5), learning_rate_decay_fn=decay),
    "class": lambda loss, step: OPT(loss, step, 0.1, tf.compat.v1.train.RMSPropOptimizer, summaries=[]),
    "instance": lambda loss, step: OPT(
        loss, step, None, tf.compat.v1.train.AdagradOptimizer(0.2), increment_global_step=False),
}
RESULT = {name: train(fn) for name, fn in cases.items()}
"""
# the oracle: tf-slim's copy of the TF 1.15 code, run with the two internal names it reads put back
OPTIMIZE_ORACLE = """
from tensorflow.python.framework import ops
ops.Tensor, ops.IndexedSlices = tf.Tensor, tf.IndexedSlices
import tf_slim
"""


@pytest.mark.slow
def test_copied_optimize_loss_trains_like_the_legacy_code():
    legacy = OPTIMIZE_HEAD + OPTIMIZE_CASES.replace("OPT(", "tf.contrib.layers.optimize_loss(").replace("RESULT", "new")
    new, rules, result = rewrite(legacy, TFM6)
    assert "TFM608" in rules and "def legacy_optimize_loss(" in new and not uses_contrib(new)
    assert not [f for f in result.findings if not f.fixable]
    oracle = OPTIMIZE_ORACLE + OPTIMIZE_CASES.replace("OPT(", "tf_slim.optimize_loss(").replace("RESULT", "legacy")
    out = run_tf(new + oracle + "print(json.dumps({'new': new, 'legacy': legacy}))\n")
    for name, expected in out["legacy"].items():
        got = out["new"][name]
        assert got["names"] == expected["names"], name
        assert got["summaries"] == expected["summaries"], name
        assert got["step"] == expected["step"], name
        assert got["losses"] == pytest.approx(expected["losses"], rel=1e-6), name
    assert "OptimizeLoss/learning_rate" in out["new"]["sgd"]["names"]
    assert out["new"]["instance"]["step"] == 0 and out["new"]["sgd"]["step"] == 15
    assert out["new"]["sgd"]["losses"][0] > out["new"]["sgd"]["losses"][-1]


LEGACY_SLIM_CNN = """\
import json, os, sys
import numpy as np
import tensorflow as tf
from tensorflow.contrib import slim
from tensorflow.contrib.layers import fully_connected, xavier_initializer, l2_regularizer

x = tf.placeholder(tf.float32, [None, 8, 8, 1])
y = tf.placeholder(tf.int64, [None])
with slim.arg_scope([slim.conv2d, slim.fully_connected], weights_regularizer=slim.l2_regularizer(0.01)):
    net = slim.conv2d(x, 4, [3, 3], scope="conv1")
    net = slim.max_pool2d(net, [2, 2], scope="pool1")
    net = slim.flatten(net)
    net = tf.contrib.layers.stack(net, fully_connected, [16, 8], weights_initializer=xavier_initializer(),
                                  weights_regularizer=l2_regularizer(0.1), scope="fc")
    net = tf.contrib.layers.dropout(net, 0.5, is_training=True)
    logits = tf.contrib.layers.legacy_fully_connected(net, 3)
loss = tf.contrib.losses.sparse_softmax_cross_entropy(logits, y)
total = tf.contrib.losses.get_total_loss()
acc, acc_op = tf.contrib.metrics.streaming_accuracy(tf.argmax(logits, 1), y)
auc, auc_op = tf.contrib.metrics.streaming_auc(tf.nn.softmax(logits)[:, 0], tf.equal(y, 0))
step = tf.contrib.framework.get_or_create_global_step()
train = tf.contrib.layers.optimize_loss(total, step, 0.05, "Adam", clip_gradients=1.0)
to_restore = tf.contrib.framework.get_variables_to_restore(exclude=["global_step", "OptimizeLoss"])
conv_kernel = tf.contrib.framework.get_variables("conv1/weights")[0]
saver = tf.train.Saver()
rng = np.random.RandomState(0)
feed = {x: rng.rand(16, 8, 8, 1), y: rng.randint(0, 3, 16)}
with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    first = sess.run(total, feed)
    for i in range(20):
        sess.run(train, feed)
    last = sess.run(total, feed)
    sess.run([acc_op, auc_op], feed)
    accuracy, kernel = sess.run([acc, conv_kernel])
    path = saver.save(sess, os.path.join(sys.argv[1], "model.ckpt"))
init_fn = tf.contrib.framework.assign_from_checkpoint_fn(path, to_restore)
with tf.Session() as sess:
    init_fn(sess)
    restored = sess.run(conv_kernel)
print(json.dumps({"first": float(first), "last": float(last), "acc": float(accuracy),
                  "restored": bool(np.array_equal(kernel, restored)), "n": len(to_restore)}))
"""


@pytest.mark.slow
def test_slim_cnn_program_trains_saves_and_restores(tmp_path):
    new, rules, result = rewrite(LEGACY_SLIM_CNN)
    assert not uses_contrib(new), new
    assert not [f for f in result.findings if not f.fixable], [(f.rule, f.message) for f in result.findings]
    assert {"TFM601", "TFM602", "TFM603", "TFM604", "TFM605", "TFM606", "TFM608"} <= rules
    assert "import tf_slim as slim" in new
    script = tmp_path / "cnn.py"
    script.write_text(new)
    proc = run_python([str(script), str(tmp_path)], timeout=240, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["last"] < out["first"] and 0.0 <= out["acc"] <= 1.0
    assert out["restored"] and out["n"] >= 8


def test_slim_names_broken_on_tf215_are_reported_or_copied_in_every_form():
    code = """\
    import tensorflow as tf
    from tensorflow.contrib.slim import batch_norm, conv2d
    from tensorflow.contrib.slim import optimize_loss
    import tensorflow.contrib.slim as slim
    net = batch_norm(conv2d(x, 3, [3, 3]))
    net2 = tf.contrib.layers.batch_norm(net, is_training=True)
    op = optimize_loss(loss, None, 0.1, "SGD")
    op2 = slim.optimize_loss(loss, None, 0.1, "SGD")
    """
    new, rules, result = rewrite(code, TFM6)
    manual = {(f.rule, f.line) for f in result.findings if not f.fixable}
    assert manual == {("TFM609", 5), ("TFM609", 6)}
    assert "from tf_slim import" not in new  # batch_norm/optimize_loss must not silently become tf-slim's
    assert new.count("legacy_optimize_loss(loss, None, 0.1") == 2


@pytest.mark.slow
def test_tf_slim_on_tf215_works_where_mapped_and_fails_where_reported():
    """The premise of TFM606/TFM609: which tf-slim 1.1.0 functions run on TF 2.15 (measured)."""
    code = textwrap.dedent(
        f"""
        import json
        import tensorflow as tf, tf_slim as slim
        tf.compat.v1.disable_eager_execution()
        x = tf.compat.v1.placeholder(tf.float32, [4, 8, 8, 4])
        v = tf.compat.v1.placeholder(tf.float32, [4, 6])
        used = {{
            "fully_connected": lambda: slim.fully_connected(v, 3),
            "conv2d": lambda: slim.conv2d(x, 4, [3, 3]),
            "max_pool2d": lambda: slim.max_pool2d(x, [2, 2]),
            "avg_pool2d": lambda: slim.avg_pool2d(x, [2, 2]),
            "flatten": lambda: slim.flatten(x),
            "dropout": lambda: slim.dropout(v, 0.5, is_training=tf.constant(True)),
            "stack": lambda: slim.stack(v, slim.fully_connected, [3, 4], scope="st"),
            "repeat": lambda: slim.repeat(x, 2, slim.conv2d, 4, [3, 3], scope="rp"),
            "legacy_fully_connected": lambda: slim.legacy_fully_connected(v, 3),
            "layer_norm": lambda: slim.layer_norm(v),
            "separable_conv2d": lambda: slim.separable_conv2d(x, 4, [3, 3], 1),
            "conv2d_transpose": lambda: slim.conv2d_transpose(x, 4, [3, 3]),
            "one_hot_encoding": lambda: slim.one_hot_encoding(tf.constant([1, 2]), 4),
            "arg_scope": lambda: slim.arg_scope([slim.fully_connected], activation_fn=None).__enter__(),
            "get_variables_to_restore": lambda: slim.get_variables_to_restore(),
            "apply_regularization": lambda: slim.apply_regularization(slim.l2_regularizer(0.1), [slim.model_variable("q", [2])]),
            "summarize_activations": lambda: slim.summarize_activations(),
            "streaming_auc": lambda: slim.metrics.streaming_auc(tf.constant([0.5]), tf.constant([True])),
            "hinge_loss": lambda: slim.losses.hinge_loss(tf.constant([[1., 2.]]), tf.constant([[0., 1.]])),
        }}
        broken = {{
            "batch_norm": lambda: slim.batch_norm(v),
            "batch_norm_4d": lambda: slim.batch_norm(x),
            "optimize_loss": lambda: slim.optimize_loss(tf.reduce_sum(slim.fully_connected(v, 2, scope="o")),
                                                        tf.compat.v1.train.get_or_create_global_step(), 0.1, "SGD"),
            "recompute_grad": lambda: slim.recompute_grad(lambda a: a * 2)(tf.constant([1.0])),
        }}
        def ok(fn):
            try:
                fn()
                return True
            except Exception:
                return False
        print(json.dumps({{"used": {{k: ok(f) for k, f in used.items()}}, "broken": {{k: ok(f) for k, f in broken.items()}}}}))
        """
    )
    out = run_tf(code)
    assert [k for k, works in out["used"].items() if not works] == []
    assert [k for k, works in out["broken"].items() if works] == []
    assert {"batch_norm", "recompute_grad"} <= set(T.SLIM_BROKEN) and "slim.optimize_loss" in T.VENDORED


def test_a_helper_copied_before_is_not_copied_again():
    once, _, _ = rewrite("import tensorflow as tf\nl = tf.contrib.legacy_seq2seq.sequence_loss(a, b, c)\n", TFM6)
    again, rules, _ = rewrite(once + "m = tf.contrib.legacy_seq2seq.sequence_loss(a, b, c)\n", TFM6)
    assert again.count("def legacy_seq2seq_sequence_loss(") == 1
    assert again.count("def legacy_seq2seq_sequence_loss_by_example(") == 1
    assert "m = legacy_seq2seq_sequence_loss(a, b, c)" in again and rules == {"TFM608"}
    ast.parse(again)


def test_multiline_calls_keep_their_layout_and_comments():
    code = """\
    import tensorflow as tf

    init = tf.contrib.layers.xavier_initializer(
        uniform=False,  # normal
        seed=42,
    )
    loss = tf.contrib.losses.softmax_cross_entropy(
        logits,  # the network's output
        onehot,
    )
    """
    new, _, _ = rewrite(code, TFM6)
    assert new == textwrap.dedent(
        """\
        import tensorflow as tf

        init = tf.compat.v1.variance_scaling_initializer(
            scale=1.3 * 0.87962566103423978**2,  # normal
            mode="fan_avg",
            distribution="truncated_normal",
            seed=42,
        )
        loss = tf.compat.v1.losses.softmax_cross_entropy(
            logits=logits,  # the network's output
            onehot_labels=onehot,
        )
        """
    )


LEGACY_CHAR_RNN = """\
import json
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
batch, steps, classes, hidden = 2, 5, 4, 6
X = tf.compat.v1.placeholder(tf.int32, [None, steps])
Y = tf.compat.v1.placeholder(tf.int32, [None, steps])
x_one_hot = tf.one_hot(X, classes)
cell = tf.contrib.rnn.BasicLSTMCell(num_units=hidden, state_is_tuple=True)
outputs, _ = tf.compat.v1.nn.dynamic_rnn(cell, x_one_hot, dtype=tf.float32)
X_for_fc = tf.reshape(outputs, [-1, hidden])
outputs = tf.contrib.layers.fully_connected(inputs=X_for_fc, num_outputs=classes, activation_fn=None)
outputs = tf.reshape(outputs, [batch, steps, classes])
weights = tf.ones([batch, steps])
sequence_loss = tf.contrib.seq2seq.sequence_loss(logits=outputs, targets=Y, weights=weights)
per_step = tf.contrib.seq2seq.sequence_loss(outputs, Y, weights, False, True)
loss = tf.reduce_mean(sequence_loss)
train = tf.compat.v1.train.AdamOptimizer(learning_rate=0.1).minimize(loss)
reference = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=Y, logits=outputs))
feed = {X: [[0, 1, 2, 3, 0], [1, 2, 3, 0, 1]], Y: [[1, 2, 3, 0, 1], [2, 3, 0, 1, 2]]}
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    first, ref, steps_loss = sess.run([loss, reference, per_step], feed)
    for _ in range(50):
        sess.run(train, feed)
    last = sess.run(loss, feed)
print(json.dumps({"first": float(first), "ref": float(ref), "last": float(last), "per_step": [float(v) for v in steps_loss]}))
"""


@pytest.mark.slow
def test_char_rnn_with_seq2seq_sequence_loss_runs():
    new, rules, result = rewrite(LEGACY_CHAR_RNN)
    assert not uses_contrib(new), new
    assert not [f for f in result.findings if not f.fixable]
    assert {"TFM601", "TFM606", "TFM608"} <= rules
    out = run_tf(new)
    assert out["first"] == pytest.approx(out["ref"], rel=1e-6)  # uniform weights: the mean cross-entropy
    assert len(out["per_step"]) == 5 and sum(out["per_step"]) / 5 == pytest.approx(out["first"], rel=1e-5)
    assert out["last"] < out["first"]


def test_seq2seq_sequence_loss_with_many_positionals_is_reported():
    code = "import tensorflow as tf\nl = tf.contrib.seq2seq.sequence_loss(a, b, c, True, True, f)\n"
    new, rules, _ = rewrite(code, TFM6)
    assert new == code and rules == {"TFM609"}


def test_plain_import_of_a_contrib_module_becomes_import_tensorflow_once():
    code = """\
    import tensorflow.contrib.slim
    import tensorflow.contrib.rnn
    v = tensorflow.Variable(1.0)
    net = tensorflow.contrib.slim.conv2d(x, 3, [3, 3])
    cell = tensorflow.contrib.rnn.GRUCell(3)
    """
    new, rules, _ = rewrite(code, TFM6)
    assert new == textwrap.dedent(
        """\
        import tensorflow
        import tf_slim

        v = tensorflow.Variable(1.0)
        net = tf_slim.conv2d(x, 3, [3, 3])
        cell = tensorflow.compat.v1.nn.rnn_cell.GRUCell(3)
        """
    )
    assert rewrite(new, TFM6)[0] == new
    new, _, _ = rewrite("import tensorflow as tf\nimport tensorflow.contrib.rnn, os\ncell = tf.contrib.rnn.GRUCell(3)\n", TFM6)
    assert new == "import tensorflow as tf\nimport os\ncell = tf.compat.v1.nn.rnn_cell.GRUCell(3)\n"


LEGACY_BOW = """\
import json
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
ids = tf.constant([[1, 2, 0, 0], [3, 3, 1, 0], [0, 0, 0, 0]], tf.int64)
init = tf.compat.v1.constant_initializer(np.arange(12, dtype=np.float32).reshape(4, 3))
bow = tf.contrib.layers.bow_encoder(ids, vocab_size=4, embed_dim=3, initializer=init)
dense = tf.contrib.layers.bow_encoder(ids, 4, 3, False, init, scope="dense_bow")
model_vars = [v.op.name for v in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.MODEL_VARIABLES)]
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    a, b = sess.run([bow, dense])
print(json.dumps({"sparse": a.tolist(), "dense": b.tolist(), "vars": model_vars}))
"""


@pytest.mark.slow
def test_bow_encoder_copy_averages_the_ids_like_the_legacy_code():
    new, rules, result = rewrite(LEGACY_BOW, TFM6)
    assert rules == {"TFM608"} and not uses_contrib(new)
    out = run_tf(new)
    emb = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]
    mean = lambda rows: [sum(emb[r][k] for r in rows) / len(rows) for k in range(3)]  # noqa: E731
    # sparse lookup: the mean over the ids that are not 0; a row with none gets embedding 0 (default_id=0)
    flat = lambda rows: [x for row in rows for x in row]  # noqa: E731
    assert flat(out["sparse"]) == pytest.approx(flat([mean([1, 2]), mean([3, 3, 1]), emb[0]]))
    # sparse_lookup=False: the mean over every position, padding included
    assert flat(out["dense"]) == pytest.approx(flat([mean([1, 2, 0, 0]), mean([3, 3, 1, 0]), mean([0, 0, 0, 0])]))
    assert out["vars"] == ["bow_encoder/embeddings", "dense_bow/embeddings"]


def test_unused_contrib_imports_of_ours_go_and_others_stay():
    code = """\
    import tensorflow as tf
    from tensorflow.contrib import layers
    from tensorflow.contrib import learn
    import tensorflow.contrib.rnn as rnn
    w = tf.contrib.layers.xavier_initializer()
    """
    new, rules, result = rewrite(code, TFM6)
    assert new == textwrap.dedent(
        """\
        import tensorflow as tf
        from tensorflow.contrib import learn
        w = tf.compat.v1.glorot_uniform_initializer()
        """
    )
    assert {(f.rule, f.line) for f in result.findings} == {("TFM601", 2), ("TFM601", 4), ("TFM602", 5)}


def test_contrib_packages_with_no_successor_name_what_to_use():
    code = """\
    import tensorflow as tf
    from tensorflow.contrib.tensor_forest.python import tensor_forest
    from tensorflow.contrib.factorization import KMeans
    graph = tensor_forest.RandomForestGraphs(params)
    kmeans = KMeans(inputs=X, num_clusters=25)
    est = tf.contrib.boosted_trees.estimator_batch.estimator.GradientBoostedDecisionTreeClassifier(config)
    """
    new, rules, result = rewrite(code)
    assert new == textwrap.dedent(code)
    by_line = {f.line: (f.rule, f.message) for f in result.findings if f.line >= 4}
    assert by_line[4][0] == by_line[5][0] == by_line[6][0] == "TFM609"
    assert "tfdf.keras.RandomForestModel" in by_line[4][1] and "estimator.experimental.KMeans" in by_line[5][1]
    assert "GradientBoostedTreesModel" in by_line[6][1]
