"""TFM560 (state_is_tuple) and TFM561/TFM562 (one cell object used twice), issue 27's two silent changes.

Generated over import forms x evidence (or list) forms x scopes: each variant is rewritten by the real
engine so that it keeps its TF 0.x meaning, or flagged on its line. The slow test runs the rewritten
module-scope variants on TensorFlow 2.15 in one child process and checks the meaning kept: the LSTM
state is the legacy ``[batch, 2n]`` tensor, and a stack of a repeated cell has one set of weights
per layer (without the rewrite TF 2.15 shares one set: ``cell_0/...`` only, or fails on shapes).
"""

from __future__ import annotations

import itertools

import pytest

from rewrite_once import rewrite_source  # a program rewritten by its variant test and again for the TF child: once
from tests.every_case import grouped
from tests.tfchildren import run_sources
from tfmigrate.codemod.rule import load_catalog

ENABLED = load_catalog().selected(None)

# (id, header, tensorflow prefix, cell-module prefix, runs on TF 2.15 after the rewrite)
IMPORTS = [
    ("tf.nn.rnn_cell", "import tensorflow as tf", "tf", "tf.nn.rnn_cell.", True),
    ("tf.contrib.rnn", "import tensorflow as tf", "tf", "tf.contrib.rnn.", True),
    ("from_contrib", "import tensorflow as tf\nfrom tensorflow.contrib import rnn", "tf", "rnn.", True),
    ("import_as", "import tensorflow as tf\nimport tensorflow.contrib.rnn as rnn", "tf", "rnn.", True),
    ("alias", "import tensorflow as tf\nrnn_cell = tf.nn.rnn_cell", "tf", "rnn_cell.", True),
    ("plain_import", "import tensorflow", "tensorflow", "tensorflow.nn.rnn_cell.", True),
]
SCOPES = ["module", "function", "method", "main"]

# TFM560: (id, lines with {T} and {C}, index of the constructor line, feed lines, the legacy state shape)
EVIDENCE = [
    ("placeholder_2n", ['istate = {T}.placeholder("float", [None, 2 * n_hidden])',
                        "cell = {C}BasicLSTMCell(n_hidden)",
                        "outputs, state = {T}.nn.dynamic_rnn(cell, x, initial_state=istate)"], [1],
     ["feed[istate] = np.zeros((3, 16), np.float32)"], (3, 16)),
    ("state_size_zeros", ["cell = {C}LSTMCell(num_units=n_hidden)",
                          "zero = {T}.zeros([batch, cell.state_size])",
                          "outputs, state = {T}.nn.dynamic_rnn(cell, x, initial_state=zero)"], [0], [], (3, 16)),
    ("split_state", ["cell = {C}BasicLSTMCell(n_hidden, forget_bias=1.0)",
                     "outputs, state = {T}.nn.dynamic_rnn(cell, x, dtype={T}.float32)",
                     "c, h = {T}.split(state, 2, 1)"], [0], [], (3, 16)),
    ("slice_state", ["cell = {C}BasicLSTMCell(n_hidden)",
                     "outputs, state = {T}.nn.dynamic_rnn(cell, x, dtype={T}.float32)",
                     "h = state[:, n_hidden:]"], [0], [], (3, 16)),
    ("rank2_feed", ["cell = {C}BasicLSTMCell(n_hidden)",
                    "start = {T}.placeholder({T}.float32, [None, 16])",
                    "outputs, state = {T}.nn.dynamic_rnn(cell, x, initial_state=start)"], [0],
     ["feed[start] = np.zeros((3, 16), np.float32)"], (3, 16)),
    ("multi_stack", ["cell = {C}MultiRNNCell([{C}BasicLSTMCell(n_hidden) for _ in range(2)])",
                     'istate = {T}.placeholder("float", [None, 2 * 2 * n_hidden])',
                     "outputs, state = {T}.nn.dynamic_rnn(cell, x, initial_state=istate)"], [0],
     ["feed[istate] = np.zeros((3, 32), np.float32)"], (3, 32)),
]
# (id, the cell lines, the stack line, per-layer weight count, fixed: True / finding: False)
REPEATS = [
    ("mul", ["cell = {C}GRUCell(8)"], "stack = {C}MultiRNNCell([cell] * 3)", 4, True),
    ("rmul", ["cell = {C}BasicLSTMCell(8)"], "stack = {C}MultiRNNCell(3 * [cell])", 2, True),
    ("comprehension", ["cell = {C}BasicLSTMCell(8, forget_bias=1.0)"],
     "stack = {C}MultiRNNCell([cell for _ in range(3)])", 2, True),
    ("literal", ["cell = {C}GRUCell(8)"], "stack = {C}MultiRNNCell([cell, cell, cell])", 4, True),
    ("keyword", ["cell = {C}BasicLSTMCell(num_units=8)"], "stack = {C}MultiRNNCell(cells=[cell] * 3)", 2, True),
    ("through_name", ["cell = {C}GRUCell(8)", "cells = [cell] * 3"], "stack = {C}MultiRNNCell(cells)", 4, True),
    ("inline", [], "stack = {C}MultiRNNCell([{C}BasicLSTMCell(8)] * 3)", 2, True),
    ("wrapped", ["lstm = {C}BasicLSTMCell(8)", "cell = {C}DropoutWrapper(lstm, output_keep_prob=1.0)"],
     "stack = {C}MultiRNNCell([cell] * 3)", 2, True),
    ("self_attribute", ["holder = Holder()", "holder.cell = {C}GRUCell(8)"],
     "stack = {C}MultiRNNCell([holder.cell] * 3)", 4, False),
    ("rebound", ["cell = {C}GRUCell(8)", "cell = {C}GRUCell(8)"], "stack = {C}MultiRNNCell([cell] * 3)", 4, False),
]


def _wrap(lines: list[str], scope: str) -> tuple[list[str], int]:
    """The lines in ``scope``; the offset added to each line's index."""
    if scope == "module":
        return lines, 0
    head = {"function": ["def main():"], "method": ["class Model:", "    def build(self):"],
            "main": ['if __name__ == "__main__":']}[scope]
    indent = "        " if scope == "method" else "    "
    return head + [indent + line for line in lines], len(head)


def _state_program(imp, evidence, scope: str) -> tuple[str, list[int]]:
    _, header, T, C, _ = imp
    _, lines, ctors, feeds, _ = evidence
    body = ["n_hidden = 8", "batch = 3", f"x = {T}.placeholder({T}.float32, [None, 5, 4])"]
    first = len(body)
    body += [line.format(T=T, C=C) for line in lines]
    body += ["feed = {x: np.zeros((3, 5, 4), np.float32)}", *feeds, f"with {T}.Session() as sess:",
             f"    sess.run({T}.global_variables_initializer())", "    RESULT = np.shape(sess.run(state, feed))"]
    wrapped, offset = _wrap(body, scope)
    top = ["import numpy as np", *header.splitlines()]
    return "\n".join(top + wrapped) + "\n", [len(top) + offset + first + i + 1 for i in ctors]


def _repeat_program(imp, repeat, scope: str) -> tuple[str, int]:
    _, header, T, C, _ = imp
    _, cells, stack, _, _ = repeat
    body = [f"x = {T}.placeholder({T}.float32, [2, 5, 8])", *(c.format(C=C) for c in cells), stack.format(C=C),
            f"outputs, state = {T}.nn.dynamic_rnn(stack, x, dtype={T}.float32)",
            f"RESULT = sorted(v.name for v in {T}.trainable_variables())"]
    wrapped, offset = _wrap(body, scope)
    top = [*header.splitlines(), "class Holder:", "    pass"]
    return "\n".join(top + wrapped) + "\n", len(top) + offset + len(cells) + 2


STATE_VARIANTS = list(itertools.product(IMPORTS, EVIDENCE, SCOPES))


@grouped(("imp", "evidence", "scope"), STATE_VARIANTS,  # one test per import form
         ids=[f"{i[0]}-{e[0]}-{s}" for i, e, s in STATE_VARIANTS])
def test_state_is_tuple_kept(imp, evidence, scope):
    source, lines = _state_program(imp, evidence, scope)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode().splitlines()
    for line in lines:
        found = [f for f in result.findings if f.rule == "TFM560" and f.line == line]
        assert found and all(f.fixable for f in found), f"no TFM560 fix on line {line}:\n{result.new.decode()}"
    fixed = [n for n in new if "state_is_tuple=False" in n]
    assert len(fixed) == len(lines), result.new.decode()
    if evidence[0] == "multi_stack":
        assert fixed[0].count("state_is_tuple=False") == 2  # the stack and the cell in it
    assert rewrite_source(result.new, ENABLED).new == result.new


NO_EVIDENCE = [
    ("state_untouched", ["cell = {C}BasicLSTMCell(n_hidden)",
                         "outputs, state = {T}.nn.dynamic_rnn(cell, x, dtype={T}.float32)",
                         "logits = {T}.layers.dense(state.h, 10)"]),
    ("tuple_state_fed", ["cell = {C}BasicLSTMCell(n_hidden)",
                         "c = {T}.placeholder({T}.float32, [None, n_hidden])",
                         "h = {T}.placeholder({T}.float32, [None, n_hidden])",
                         "outputs, state = {T}.nn.dynamic_rnn(cell, x, initial_state={C}LSTMStateTuple(c, h))"]),
    ("explicit_tuple", ['istate = {T}.placeholder("float", [None, 2 * n_hidden])',
                        "cell = {C}BasicLSTMCell(n_hidden, state_is_tuple=True)"]),
    ("gru_state_size", ["cell = {C}GRUCell(n_hidden)", "zero = {T}.zeros([batch, cell.state_size])"]),
]


@pytest.mark.parametrize(("imp", "case"), list(itertools.product(IMPORTS, NO_EVIDENCE)),
                         ids=[f"{i[0]}-{c[0]}" for i, c in itertools.product(IMPORTS, NO_EVIDENCE)])
def test_state_left_alone_without_evidence(imp, case):
    _, header, T, C, _ = imp
    source = "\n".join([*header.splitlines(), "n_hidden = 8", "batch = 3", f"x = {T}.placeholder({T}.float32, [None, 5, 4])",
                        *(line.format(T=T, C=C) for line in case[1])]) + "\n"
    result = rewrite_source(source.encode(), ENABLED)
    assert "state_is_tuple=False" not in result.new.decode()
    assert not [f for f in result.findings if f.rule == "TFM560"]


@pytest.mark.parametrize("scope", SCOPES)
def test_state_evidence_without_construction_flagged(scope):
    body = ["def run(cell, inputs, num_units):", "    c_h = tf.placeholder(tf.float32, [None, 2 * num_units])",
            "    outputs, state = tf.nn.dynamic_rnn(cell, inputs, initial_state=c_h)", "    c, h = tf.split(state, 2, 1)",
            "    return h"]
    wrapped, offset = _wrap(body, scope)
    source = "\n".join(["import tensorflow as tf", *wrapped]) + "\n"
    result = rewrite_source(source.encode(), ENABLED)
    found = [f for f in result.findings if f.rule == "TFM560"]
    assert found and not any(f.fixable for f in found)
    assert {f.line for f in found} <= {2 + offset + 1, 2 + offset + 2, 2 + offset + 3}
    assert "state_is_tuple" not in result.new.decode()


REPEAT_VARIANTS = list(itertools.product(IMPORTS, REPEATS, SCOPES))


@grouped(("imp", "repeat", "scope"), REPEAT_VARIANTS,  # one test per import form
         ids=[f"{i[0]}-{r[0]}-{s}" for i, r, s in REPEAT_VARIANTS])
def test_multi_rnn_cell_one_cell_per_layer(imp, repeat, scope):
    source, line = _repeat_program(imp, repeat, scope)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    found = [f for f in result.findings if f.rule == "TFM561" and f.line == line]
    assert found, f"no TFM561 on line {line}:\n{new}"
    if repeat[4]:
        assert all(f.fixable for f in found)
        assert "[cell] * 3" not in new and "3 * [cell]" not in new and "cell, cell" not in new
        assert "for _ in range(" in new or repeat[0] == "literal"
        assert rewrite_source(result.new, ENABLED).new == result.new
    else:
        assert not any(f.fixable for f in found)


def test_multi_rnn_cell_from_parameter_flagged():
    source = "from tensorflow.contrib import rnn\n\ndef stack(cell, n):\n    return rnn.MultiRNNCell([cell] * n)\n"
    result = rewrite_source(source.encode(), ENABLED)
    assert [f.line for f in result.findings if f.rule == "TFM561" and not f.fixable] == [4]
    assert "[cell] * n" in result.new.decode()


SHARED = [
    ("bidirectional", ["cell = {C}GRUCell(8)", "out, st = {T}.nn.bidirectional_dynamic_rnn(cell, cell, x, dtype={T}.float32)"], 1),
    ("two_scopes", ["cell = {C}GRUCell(8)", 'with {T}.variable_scope("enc"):',
                    "    a, s = {T}.nn.dynamic_rnn(cell, x, dtype={T}.float32)", 'with {T}.variable_scope("dec"):',
                    "    b, _ = {T}.nn.dynamic_rnn(cell, x, initial_state=s)"], 4),
    ("keyword_cell", ["cell = {C}GRUCell(8)", "a, s = {T}.nn.dynamic_rnn(cell=cell, inputs=x, dtype={T}.float32, scope='a')",
                      "b, _ = {T}.nn.dynamic_rnn(cell, x, dtype={T}.float32, scope='b')"], 2),
]


@grouped(("imp", "case", "scope"), list(itertools.product(IMPORTS, SHARED, SCOPES)),  # one test per import form
         ids=[f"{i[0]}-{c[0]}-{s}" for i, c, s in itertools.product(IMPORTS, SHARED, SCOPES)])
def test_shared_cell_flagged(imp, case, scope):
    _, header, T, C, _ = imp
    body = [f"x = {T}.placeholder({T}.float32, [2, 5, 8])", *(line.format(T=T, C=C) for line in case[1])]
    wrapped, offset = _wrap(body, scope)
    source = "\n".join([*header.splitlines(), *wrapped]) + "\n"
    result = rewrite_source(source.encode(), ENABLED)
    line = len(header.splitlines()) + offset + 1 + case[2] + 1
    assert [f.line for f in result.findings if f.rule == "TFM562"] == [line], result.new.decode()


def test_shared_cell_in_reusing_scope_left_alone():
    source = ("import tensorflow as tf\ncell = tf.nn.rnn_cell.GRUCell(8)\nwith tf.variable_scope('m'):\n"
              "    a, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)\nwith tf.variable_scope('m', reuse=True):\n"
              "    b, _ = tf.nn.dynamic_rnn(cell, y, dtype=tf.float32)\n")
    assert not [f for f in rewrite_source(source.encode(), ENABLED).findings if f.rule == "TFM562"]


# The TF 0.9-0.10 tutorial shape (the concatenated state fed through a [None, 2*n_hidden] placeholder,
# tf.nn.rnn over a TF 0.x tf.split, positional cross-entropy): the whole program trains on TF 2.15.
TF0_PROGRAM = '''import numpy as np
import tensorflow as tf
n_input, n_steps, n_hidden, n_classes = 4, 5, 8, 3
x = tf.placeholder("float", [None, n_steps, n_input])
istate = tf.placeholder("float", [None, 2*n_hidden])
y = tf.placeholder("float", [None, n_classes])
weights = {"hidden": tf.Variable(tf.random_normal([n_input, n_hidden])), "out": tf.Variable(tf.random_normal([n_hidden, n_classes]))}
biases = {"hidden": tf.Variable(tf.random_normal([n_hidden])), "out": tf.Variable(tf.random_normal([n_classes]))}

def RNN(_X, _istate, _weights, _biases):
    _X = tf.transpose(_X, [1, 0, 2])
    _X = tf.reshape(_X, [-1, n_input])
    _X = tf.matmul(_X, _weights["hidden"]) + _biases["hidden"]
    lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(n_hidden, forget_bias=1.0)
    _X = tf.split(0, n_steps, _X)
    outputs, states = tf.nn.rnn(lstm_cell, _X, initial_state=_istate)
    return tf.matmul(outputs[-1], _weights["out"]) + _biases["out"], states

pred, final = RNN(x, istate, weights, biases)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(pred, y))
optimizer = tf.train.AdamOptimizer(learning_rate=0.01).minimize(cost)
init = tf.initialize_all_variables()
with tf.Session() as sess:
    sess.run(init)
    feed = {x: np.random.rand(2, n_steps, n_input), y: np.eye(3)[[0, 1]], istate: np.zeros((2, 2 * n_hidden))}
    for step in range(3):
        sess.run(optimizer, feed_dict=feed)
    RESULT = list(sess.run(final, feed_dict=feed).shape)
'''


@pytest.mark.slow
def test_rewritten_variants_keep_the_legacy_meaning_on_tf215():
    programs, expected = {}, {}
    for imp in IMPORTS:
        for evidence in EVIDENCE:
            source, _ = _state_program(imp, evidence, "module")
            name = f"state-{imp[0]}-{evidence[0]}"
            programs[name] = rewrite_source(source.encode(), ENABLED).new.decode()
            expected[name] = list(evidence[4])
        for repeat in REPEATS:
            if not repeat[4]:
                continue
            source, _ = _repeat_program(imp, repeat, "module")
            name = f"repeat-{imp[0]}-{repeat[0]}"
            programs[name] = rewrite_source(source.encode(), ENABLED).new.decode()
            expected[name] = 3 * repeat[3]
    # the unrewritten meaning, for contrast: TF 2.15 shares one set of weights between the layers
    shared, _ = _repeat_program(IMPORTS[0], REPEATS[0], "module")
    programs["shared-before"] = rewrite_source(shared.encode(), ENABLED - {"TFM561"}).new.decode()
    programs["tf0-program"] = rewrite_source(TF0_PROGRAM.encode(), ENABLED).new.decode()
    expected["tf0-program"] = [2, 16]
    # each in a tf.Graph of its own, one TF 2.15 child; a rewritten text that several variants share (the import
    # forms converge: about half the texts are repeats) runs once there (run_sources), each variant reads its result
    results = run_sources(programs, disable_eager=True)
    for name, want in expected.items():
        got = results[name]
        if name.startswith(("state-", "tf0-")):
            assert got == want, f"{name}: {got}\n{programs[name]}"
        else:
            assert isinstance(got, list) and len(got) == want, f"{name}: {got}\n{programs[name]}"
            assert {n.split("/")[2] for n in got} == {"cell_0", "cell_1", "cell_2"}, got
    assert len(results["shared-before"]) == 4 and all("/cell_0/" in n for n in results["shared-before"])
