"""TFM540-TFM547: TF 0.x programs rewritten and run on TensorFlow 2.15.

The legacy snippets are rewritten with all rules, then run in one child process with TF 2.15;
the program checks the values TF 0.x would have computed (written with numpy from the legacy
meaning of each call), e.g. that a positional ``softmax_cross_entropy_with_logits(logits, labels)``
still reads its first argument as the logits.
"""

import json
import os
import subprocess

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.tf0 import transform as tf0
from tfmigrate.transforms.common.tf_names import GRAPH_KEYS, UNKNOWN, names
from tests.tfchildren import run_python

ALL_RULES = load_catalog().selected(None)

LEGACY = '''
import numpy as np
import tensorflow as tf
from tensorflow import mul

logits_np = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], dtype=np.float32)
labels_np = np.array([[0.7, 0.2, 0.1], [0.0, 0.0, 1.0]], dtype=np.float32)
logits = tf.placeholder(tf.float32, [None, 3])
labels = tf.placeholder(tf.float32, [None, 3])
xent = tf.nn.softmax_cross_entropy_with_logits(logits, labels)
sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(logits, tf.argmax(labels, dimension=1))
sig = tf.nn.sigmoid_cross_entropy_with_logits(logits, labels)
both = tf.concat(1, [logits, labels])
halves = tf.split(1, 3, logits)
flipped = tf.reverse(logits, [False, True])
total = tf.reduce_sum(mul(logits, 2.0), reduction_indices=[1], keep_dims=True)
diff = tf.neg(tf.sub(logits, labels))
stacked = tf.pack([logits, labels])
width = logits.get_shape()[1].value
w = tf.get_variable("w", [3], initializer=tf.zeros_initializer)
sp = tf.SparseTensor(indices=[[0, 1]], values=[5.0], shape=[2, 3])
dense = tf.sparse_tensor_to_dense(sp)
resized = tf.image.resize_images(tf.ones([1, 8, 8, 3]), 4, 6, 1)
tf.scalar_summary("xent", tf.reduce_mean(xent))
tf.histogram_summary("w", w)
merged = tf.merge_all_summaries()
nce_w = tf.Variable(tf.truncated_normal([10, 3], seed=1))
nce_b = tf.Variable(tf.zeros([10]))
embed = tf.constant(logits_np[[0, 1, 0, 1]])
word_ids = tf.constant([[1], [4], [7], [2]], dtype=tf.int64)
nce = tf.nn.nce_loss(nce_w, nce_b, embed, word_ids, 3, 10)
sampled = tf.nn.sampled_softmax_loss(nce_w, nce_b, embed, word_ids, 3, 10)
with tf.Session() as sess:
    writer = tf.train.SummaryWriter(LOGDIR, sess.graph)
    sess.run(tf.initialize_all_variables())
    feed = {logits: logits_np, labels: labels_np}
    out = sess.run([xent, sparse, sig, both, halves, flipped, total, diff, stacked, w, dense, merged], feed)
    writer.add_summary(out[-1], 0)
    writer.close()
    losses = sess.run([nce, sampled])
    resized_shape = sess.run(resized).shape
'''

CHECK = '''
def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

legacy_xent = -(labels_np * np.log(softmax(logits_np))).sum(axis=1)  # TF 0.x: first argument = logits
swapped = -(logits_np * np.log(softmax(labels_np))).sum(axis=1)
assert np.allclose(out[0], legacy_xent, atol=1e-5), (out[0], legacy_xent)
assert not np.allclose(out[0], swapped, atol=1e-3)
assert np.allclose(out[1], -np.log(softmax(logits_np))[[0, 1], labels_np.argmax(1)], atol=1e-5)
sig_np = np.maximum(logits_np, 0) - logits_np * labels_np + np.log1p(np.exp(-np.abs(logits_np)))
assert np.allclose(out[2], sig_np, atol=1e-5)
assert out[3].shape == (2, 6) and np.allclose(out[3][:, 3:], labels_np)
assert len(out[4]) == 3 and out[4][0].shape == (2, 1) and np.allclose(out[4][2][:, 0], logits_np[:, 2])
assert np.allclose(out[5], logits_np[:, ::-1])
assert out[6].shape == (2, 1) and np.allclose(out[6][:, 0], 2 * logits_np.sum(axis=1))
assert np.allclose(out[7], labels_np - logits_np)
assert out[8].shape == (2, 2, 3)
assert width == 3 and np.allclose(out[9], 0.0)
assert out[10][0, 1] == 5.0 and out[10].shape == (2, 3)
assert isinstance(out[11], bytes) and len(out[11]) > 0  # merged summaries were recorded
assert os.listdir(LOGDIR)
assert resized_shape == (1, 4, 6, 3), resized_shape  # new_height=4, new_width=6, nearest neighbour
assert losses[0].shape == (4,) and losses[1].shape == (4,) and np.all(losses[0] > 0)  # inputs, labels as in TF 0.x
print("TF0-OK")
'''


def _run(code: str, tmp_path) -> subprocess.CompletedProcess:
    script = tmp_path / "prog.py"
    script.write_text(code)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    return run_python([str(script)], env=env, timeout=300)


@pytest.mark.slow
def test_tf0_program_computes_what_tf0_computed_on_tf215(tmp_path):
    source = f"LOGDIR = {str(tmp_path / 'logs')!r}\nimport os\n" + LEGACY
    result = rewrite_source(source.encode(), ALL_RULES)
    migrated = result.new.decode()
    assert not [f for f in result.findings if not f.fixable], result.findings
    assert rewrite_source(result.new, ALL_RULES).new == result.new
    assert "softmax_cross_entropy_with_logits(logits=logits, labels=labels)" in migrated
    assert "tf.compat.v1.summary.scalar" in migrated and "tf.compat.v1.summary.FileWriter" in migrated
    proc = _run(migrated + CHECK, tmp_path)
    assert "TF0-OK" in proc.stdout, proc.stderr[-3000:]
    legacy = _run(source, tmp_path)  # the legacy program itself fails on TF 2.15
    assert legacy.returncode != 0


@pytest.mark.slow
def test_tables_agree_with_tensorflow_215(tmp_path):
    """Every new keyword exists in the TF 2.15 function it is written for; every legacy keyword
    list names parameters of the function the call ends up with; GraphKeys as in TF 2.15."""
    table = {
        "keywords": {rel: (tf0.target_of(tf0.RENAMED.get(rel, rel)), sorted(set(m.values())))
                     for rel, m in tf0.KEYWORDS.items()},
        "order": {rel: (tf0.LEGACY_TARGET.get(rel) or tf0.target_of(tf0.RENAMED.get(rel, rel)), params)
                  for rel, params in tf0.ORDER.items()},
    }
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import inspect, json, sys\nimport tensorflow as tf\n"
        "def get(rel):\n    obj = tf\n    for p in rel.split('.'):\n        obj = getattr(obj, p)\n    return obj\n"
        "def params(rel):\n    obj = get(rel)\n"
        "    return set(inspect.signature(obj).parameters)\n"
        "t = json.load(open(sys.argv[1]))\nbad = []\n"
        "for rel, (target, new) in t['keywords'].items():\n"
        "    missing = set(new) - params(target)\n"
        "    if missing: bad.append((rel, sorted(missing)))\n"
        "for rel, (target, ps) in t['order'].items():\n"
        "    missing = set(ps) - params(target)\n"
        "    if missing: bad.append((rel, target, sorted(missing)))\n"
        "keys = sorted(k for k in dir(tf.compat.v1.GraphKeys) if not k.startswith('_'))\n"
        "print(json.dumps({'bad': bad, 'keys': keys}))\n"
    )
    data = tmp_path / "table.json"
    data.write_text(json.dumps(table))
    proc = _run(probe.read_text().replace("sys.argv[1]", repr(str(data))), tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["bad"] == []
    assert found["keys"] == sorted(GRAPH_KEYS)


def test_every_rename_target_exists_in_tf215():
    table = names()
    for old, new in tf0.RENAMED.items():
        target = tf0.target_of(new)
        assert target is not None, (old, new)
        assert table.status(target) != UNKNOWN
        assert table.status(old) == UNKNOWN or old in ("initialize_all_variables", "initialize_variables",
                                                        "initialize_local_variables", "all_variables",
                                                        "op_scope", "nn.rnn", "nn.bidirectional_rnn",
                                                        "nn.state_saving_rnn", "select", "svd",
                                                        "train.SummaryWriter", "listdiff", "inv",
                                                        "batch_matmul", "batch_svd") or table.status(old) != "v2", old


@pytest.mark.parametrize(
    ("legacy", "expected"),
    [
        ("tf.concat(values, axis)", "tf.concat(values, axis)"),  # no TF 0.x evidence: left alone
        ("tf.concat(0, [a, b])", "tf.concat(axis=0, values=[a, b])"),
        ("tf.concat([a, b], 0)", "tf.concat([a, b], 0)"),
        ("tf.split(x, 2, axis=1)", "tf.split(x, 2, axis=1)"),
        ("tf.split(1, 2, x)", "tf.split(axis=1, num_or_size_splits=2, value=x)"),
        ("tf.nn.softmax_cross_entropy_with_logits(labels, logits)", "tf.nn.softmax_cross_entropy_with_logits(labels, logits)"),
        ("tf.nn.softmax_cross_entropy_with_logits(y, logits=z)", "tf.nn.softmax_cross_entropy_with_logits(y, logits=z)"),
        ("tf.reverse(x, [1])", "tf.reverse(x, [1])"),
        ("tf.compat.v1.reduce_sum(x, reduction_indices=1)", "tf.compat.v1.reduce_sum(x, reduction_indices=1)"),
    ],
)
def test_modern_and_ambiguous_calls_are_left_alone(legacy, expected):
    source = f"import tensorflow as tf\ny = {legacy}\n".encode()
    assert rewrite_source(source, ALL_RULES).new.decode() == f"import tensorflow as tf\ny = {expected}\n"


def test_tf0_evidence_decides_ambiguous_calls_and_tf1_code_decides_cross_entropy():
    tf0_module = b"import tensorflow as tf\nx = tf.mul(a, 2)\ny = tf.concat(dim, parts)\n"
    assert b"tf.concat(axis=dim, values=parts)" in rewrite_source(tf0_module, ALL_RULES).new
    tf1_module = b"import tensorflow as tf\nx = tf.placeholder(tf.float32)\nl = tf.nn.softmax_cross_entropy_with_logits(z, y)\n"
    new = rewrite_source(tf1_module, ALL_RULES).new.decode()
    assert "tf.compat.v1.nn.softmax_cross_entropy_with_logits(logits=z, labels=y)" in new
    tf1_concat = b"import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = tf.concat(values, axis)\n"
    assert b"tf.concat(values, axis)" in rewrite_source(tf1_concat, ALL_RULES).new  # TF 1.x order


def test_new_code_follows_the_module_spelling():
    source = b"import tensorflow\nfrom tensorflow import neg\nn = x.get_shape()[0].value\ny = neg(x)\n"
    new = rewrite_source(source, ALL_RULES).new.decode()
    assert "tensorflow.compat.dimension_value(x.get_shape()[0])" in new
    assert "y = tensorflow.negative(x)" in new and "from tensorflow import neg" not in new
