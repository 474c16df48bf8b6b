"""TFM563-TFM570: the single-call changes of meaning of TF 0.6-1.15's release notes, in variants.

Import forms x scopes: each variant is rewritten by the real engine into the legacy meaning, or
flagged on its line; TF 2 code is left alone. The slow test runs rewritten programs on TF 2.15 and
checks the meaning kept: the TF 1.x Keras LSTM/GRU gates, the TF 1.x cross-entropy's gradient
(none into the labels), ``variable_scope('')`` re-entering the scope.
"""

from __future__ import annotations

import itertools

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_sources

ENABLED = load_catalog().selected(None)

# (id, header, the tensorflow prefix as written)
IMPORTS = [
    ("tf", "import tensorflow as tf", "tf"),
    ("plain", "import tensorflow", "tensorflow"),
    ("short", "import tensorflow as T", "T"),
]
SCOPES = ["module", "function", "method", "main"]
GRAPH = "{T}.placeholder({T}.float32, [None, 4])"  # what makes a module TF1 graph code

# (id, rule, the line with {T}, expected text in the rewritten line (None: a manual finding), needs TF1)
CASES = [
    ("softmax_keywords", "TFM563", "loss = {T}.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)",
     ".compat.v1.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)", True),
    ("embedding_list", "TFM563", "emb = {T}.nn.embedding_lookup([s0, s1], ids)", ".compat.v1.nn.embedding_lookup([s0, s1], ids)", True),
    ("nce_strategy", "TFM563", "l = {T}.nn.nce_loss(w, b, y, e, 5, 10, partition_strategy='mod')",
     ".compat.v1.nn.nce_loss(w, b, y, e, 5, 10, partition_strategy='mod')", True),
    ("lstm", "TFM564", "h = {T}.keras.layers.LSTM(8)(x)", 'LSTM(8, recurrent_activation="hard_sigmoid")(x)', True),
    ("gru_keyword", "TFM564", "h = {T}.keras.layers.GRU(units=8, return_sequences=True)(x)",
     'GRU(units=8, return_sequences=True, recurrent_activation="hard_sigmoid", reset_after=False)(x)', True),
    ("lstm_cell", "TFM564", "c = {T}.keras.layers.LSTMCell(8)", 'LSTMCell(8, recurrent_activation="hard_sigmoid")', True),
    ("adadelta", "TFM565", "opt = {T}.keras.optimizers.Adadelta()", None, True),
    ("initializer", "TFM565", "i = {T}.keras.initializers.TruncatedNormal()", None, True),
    ("list_files", "TFM565", "files = {T}.data.Dataset.list_files('*.csv')", None, True),
    ("brightness", "TFM566", "b = {T}.image.adjust_brightness(img, delta=40)", None, False),
    ("dropout_state", "TFM567", "c = {T}.nn.rnn_cell.DropoutWrapper(cell, state_keep_prob=0.5)", None, False),
    ("empty_scope", "TFM568", "s = {T}.variable_scope('', reuse=True)", "variable_scope({T}.compat.v1.get_variable_scope(), reuse=True)", False),
]


def _program(header: str, T: str, line: str, scope: str, graph: bool) -> tuple[str, int]:
    body = ([GRAPH.format(T=T)] if graph else []) + [line.format(T=T)]
    if scope == "module":
        lines, indent = [], ""
    elif scope == "function":
        lines, indent = ["def build(x, y, z, ids, s0, s1, w, b, e, img, cell):"], "    "
    elif scope == "method":
        lines, indent = ["class Model:", "    def build(self, x):"], "        "
    else:
        lines, indent = ['if __name__ == "__main__":'], "    "
    out = header.splitlines() + lines + [indent + b for b in body]
    return "\n".join(out) + "\n", len(out)


VARIANTS = list(itertools.product(IMPORTS, CASES, SCOPES))


@pytest.mark.parametrize(("imp", "case", "scope"), VARIANTS, ids=[f"{i[0]}-{c[0]}-{s}" for i, c, s in VARIANTS])
def test_variant_kept_or_flagged(imp, case, scope):
    _, header, T = imp
    _, rule, line_text, expected, needs_graph = case
    source, line = _program(header, T, line_text, scope, needs_graph)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    here = [f for f in result.findings if f.rule == rule and f.line == line]
    assert here, f"no {rule} on line {line}:\n{new}"
    if expected is None:
        assert not any(f.fixable for f in here)
    else:
        assert all(f.fixable for f in here)
        assert expected.format(T=T) in new.splitlines()[-1], new
        assert rewrite_source(result.new, ENABLED).new == result.new


TF2_CODE = [case for case in CASES if case[4]]


@pytest.mark.parametrize("case", TF2_CODE, ids=[c[0] for c in TF2_CODE])
def test_tf2_code_left_alone(case):
    """Without TF1 graph code in the module, the same call means TF 2.15's defaults."""
    source = "import tensorflow as tf\n" + case[2].format(T="tf") + "\n"
    result = rewrite_source(source.encode(), ENABLED)
    assert not [f for f in result.findings if f.rule == case[1]]


def test_sharding_function_with_one_tensor_left_alone():
    source = "import tensorflow as tf\nx = tf.placeholder(tf.int32, [None])\nemb = tf.nn.embedding_lookup(table, x)\n"
    result = rewrite_source(source.encode(), ENABLED)
    assert "tf.nn.embedding_lookup(table, x)" in result.new.decode()


SAVER_EXISTS = [
    ("os_exists", "import os", "os.path.exists({P})"),
    ("os_isfile", "import os", "os.path.isfile({P})"),
    ("from_path", "from os import path", "path.exists({P})"),
    ("gfile", "", "tf.gfile.Exists({P})"),
    ("io_gfile", "", "tf.io.gfile.exists({P})"),
]
SAVE_PATHS = [("literal", '"model.ckpt"', ""), ("constant", "CKPT", 'CKPT = "runs/model.ckpt"'),
              ("joined", 'os.path.join(d, "m.ckpt")', "import os")]


@pytest.mark.parametrize(("exists", "path", "scope"), list(itertools.product(SAVER_EXISTS, SAVE_PATHS, SCOPES)),
                         ids=[f"{e[0]}-{p[0]}-{s}" for e, p, s in itertools.product(SAVER_EXISTS, SAVE_PATHS, SCOPES)])
def test_saver_path_exists_flagged(exists, path, scope):
    _, imp, test = exists
    _, P, setup = path
    top = [line for line in (imp, "import tensorflow as tf", setup) if line]
    body = ["saver = tf.train.Saver()", f"if {test.format(P=P)}:", f"    saver.restore(sess, {P})", f"saver.save(sess, {P})"]
    if scope == "module":
        head, indent = [], ""
    elif scope == "function":
        head, indent = ["def train(sess, d):"], "    "
    elif scope == "method":
        head, indent = ["class T:", "    def train(self, sess, d):"], "        "
    else:
        head, indent = ['if __name__ == "__main__":'], "    "
    source = "\n".join(top + head + [indent + b for b in body]) + "\n"
    result = rewrite_source(source.encode(), ENABLED)
    line = len(top) + len(head) + 2
    assert [f.line for f in result.findings if f.rule == "TFM570"] == [line], result.new.decode()


PROGRAMS = {
    "keras_gates": '''import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 5, 4])
lstm = tf.keras.layers.LSTM(3)
gru = tf.keras.layers.GRU(3)
y = gru(tf.keras.layers.RepeatVector(2)(lstm(x)))
RESULT = [lstm.recurrent_activation.__name__, gru.recurrent_activation.__name__, gru.reset_after]
''',
    "labels_gradient": '''import tensorflow as tf
teacher = tf.Variable([[1.0, 2.0, 3.0]])
student = tf.Variable([[0.5, 0.1, 0.2]])
x = tf.placeholder(tf.float32, [None])
loss = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(teacher), logits=student)
RESULT = [g is None for g in tf.gradients(loss, [teacher, student])]
''',
    "empty_scope": '''import tensorflow as tf
x = tf.placeholder(tf.float32, [None])
with tf.variable_scope("outer"):
    with tf.variable_scope(""):
        w = tf.get_variable("w", [1])
RESULT = w.name
''',
}


@pytest.mark.slow
def test_rewritten_programs_keep_the_legacy_meaning_on_tf215():
    programs = {name: rewrite_source(src.encode(), ENABLED).new.decode() for name, src in PROGRAMS.items()}
    results = run_sources(programs)  # each in a tf.Graph of its own, one TF 2.15 child
    assert results["keras_gates"] == ["hard_sigmoid", "hard_sigmoid", False], (results, programs["keras_gates"])
    assert results["labels_gradient"] == [True, False], (results, programs["labels_gradient"])  # TF 1.x: no gradient into labels
    assert results["empty_scope"] == "outer/w:0", (results, programs["empty_scope"])
