"""The per-module shortcuts of issue 28's slowest files give what the long way gives.

Each shortcut (libcst's own parse of a small module, the families' enabled rules worked out once per
selection, the quiet leaf types once per transformer class, meaning's ``reuse_variables()`` check once
per function, ``compact`` of a name chain without code generation, the TFM70x question once per
selection) is compared here with the computation it replaces, on real trees and real catalogs; the
rewrites' outputs are compared byte for byte with main's on the samples, the corpus and two whole
repositories by ``/work/lead/baseline13.sh``. No TensorFlow.
"""

from __future__ import annotations

import glob
from pathlib import Path

import libcst as cst
import pytest

from tfmigrate.codemod import engine
from tfmigrate.codemod.parsing import SWAP_FROM, parse_module
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.codemod.walk import _Hooks, _quiet_leaves
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.meaning.syntax import compact

CATALOG = load_catalog()
ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(glob.glob(str(ROOT / "samples" / "**" / "*.py"), recursive=True))  # absolute: a test before may have changed the directory


def test_samples_are_on_both_sides_of_the_parse_threshold():
    sizes = [len(open(p, "rb").read()) for p in SAMPLES]
    assert min(sizes) < SWAP_FROM < max(sizes)


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nsess = tf.Session()\n",
    "x = 1\n" * (SWAP_FROM // 6 - 1),  # just under the threshold
    "x = 1\n" * (SWAP_FROM // 6 + 1),  # just over it
    "def f(a, *b, c=1, **d):\n\treturn [a async for a in b] if c else {**d}\n" * 30,
    "# -*- coding: latin-1 -*-\ns = 'caf\xe9'\r\n" * 60,
])
def test_parse_on_both_sides_of_the_threshold_is_libcsts(source):
    data = source.encode("latin-1") if "latin-1" in source else source.encode()
    ours, theirs = parse_module(data), cst.parse_module(data)
    assert ours.deep_equals(theirs) and ours.code == theirs.code and ours.encoding == theirs.encoding


@pytest.mark.parametrize("select", [None, ("TFM1",), ("TFM56", "TFM9"), ("TFM999",)])
@pytest.mark.parametrize("target", ["estimator", "keras"])
def test_enabled_families_are_the_families_with_an_enabled_rule(select, target):
    enabled = CATALOG.selected(select, target=target)
    running, quieting = engine._enabled_families(CATALOG, enabled)
    expected = [(f, frozenset(r.id for r in f.rules) & enabled) for f in CATALOG.families]
    assert running == [(f, rules) for f, rules in expected if rules]
    assert quieting == [f for f in CATALOG.families if f.quiet and any(r.id in enabled for r in f.rules)]
    assert engine._enabled_families(CATALOG, enabled) == (running, quieting)  # the same answer from the cache


def test_quiet_leaves_are_decided_per_class_as_per_tree():
    """The cached answer equals the one worked out from each tree (bound hooks, child fields)."""
    from tfmigrate.codemod.tree import child_fields

    for path in SAMPLES[:12]:
        index = TreeIndex.of(cst.parse_module(open(path, "rb").read()))
        for family in CATALOG.families:
            kind = family.load_transform()
            hooks = _Hooks(kind.__new__(kind), cst.CSTTransformer)
            expected = frozenset(
                k for k, nodes in index._by_type.items() if nodes and hooks.methods(k) == (None, None) and not child_fields(nodes[0])
            )
            assert _quiet_leaves(hooks, index) == expected, (path, family.prefix)


@pytest.mark.parametrize("code", [
    "a", "a.b.c", "a . b", "a .b. c", "(a)", "(a).b", "(a.b)", "a.\\\n    b", "(a\n  # note\n  .b)", "a[1].b",
    "f().x", "self.cell", "tf.nn.rnn_cell.LSTMCell", "2 * n", "None", "'x'",
])
def test_compact_of_a_name_chain_is_its_code_without_spaces(code):
    node = cst.parse_expression(code)
    assert compact(node) == "".join(code_of(node).split())


REUSE = """\
import tensorflow as tf
cell = tf.nn.rnn_cell.LSTMCell(8)

def encoder(x, y, scope):
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    {reuse}
    out2, _ = tf.nn.dynamic_rnn(cell, y, dtype=tf.float32)
    return out, out2

def decoder(x, y):
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    out2, _ = tf.nn.dynamic_rnn(cell, y, dtype=tf.float32)  # {comment}
    return out, out2
"""


# (the encoder's line, the decoder's comment, the lines of the calls reported as reusing another's cell)
@pytest.mark.parametrize("reuse, comment, lines", [
    ("scope.reuse_variables()", "no reuse here", [12]),  # the encoder's calls share on purpose
    ("scope.reuse_variables ( )", "none", [12]),
    ("pass", "no reuse here", [7, 11, 12]),
    ("pass", "scope.reuse_variables() would share them", [7]),  # in a comment of the decoder: that one only
    ("x = 'reuse_variables ()'", "none", [12]),  # in a string, spaces left out: as the code-text check reads it
])
def test_reuse_variables_check_once_per_function_equals_the_text_of_each_function(reuse, comment, lines, monkeypatch):
    """The rewrite with the per-function (and per-module) answer equals the one that asks each
    function's generated code again for every RNN call in it, as before."""
    from tfmigrate.transforms.meaning import shared_cells

    data = REUSE.format(reuse=reuse, comment=comment).encode()
    enabled = CATALOG.selected(None)
    ours = engine.rewrite_source(data, enabled, path="m.py")
    monkeypatch.setattr(shared_cells, "_calls_reuse_variables",
                        lambda t, function: "reuse_variables()" in "".join(code_of(function).split()))
    theirs = engine.rewrite_source(data, enabled, path="m.py")
    assert (ours.new, ours.findings) == (theirs.new, theirs.findings)
    shared = sorted({f.line for f in ours.findings if "also used by an earlier RNN call" in f.message})
    assert shared == lines


def test_keras_rules_question_is_answered_per_selection():
    from tfmigrate.transforms.keras_target.transform import _runs_keras_rules

    for target in ("estimator", "keras"):
        enabled = CATALOG.selected(None, target=target)
        expected = any(r.startswith("TFM70") for r in enabled)
        assert _runs_keras_rules(enabled) is expected and _runs_keras_rules(enabled) is expected
        assert _runs_keras_rules(set(enabled)) is expected  # not a frozenset: asked as it is
    assert _runs_keras_rules(CATALOG.selected(None, target="keras")) is True


@pytest.mark.parametrize("fresh", [True, False])
def test_a_functions_code_from_the_positions_tokens_is_its_generated_code(fresh):
    """``statement_code`` (the tokens a Positions generation made for a statement) is the function's
    ``code_of`` up to whitespace: for a parsed tree's positions and for those of a rewritten tree that
    reused the previous generation's statements."""
    import types

    from tfmigrate.codemod.positions import Positions
    from tfmigrate.transforms.meaning.shared_cells import _function_code

    checked = 0
    for path in SAMPLES:
        module = cst.parse_module(open(path, "rb").read())
        positions = Positions(module)
        if not fresh:  # every function renamed: the module's other statements are reused tokens
            module = module.visit(_Renamed())
            positions = Positions(module, previous=positions)
        index = TreeIndex.of(module)
        index.use_positions(positions)
        t = types.SimpleNamespace(index=index, source=positions.code)
        for function in index.nodes(cst.FunctionDef):
            assert _function_code(t, function) == "".join(code_of(function).split()), (path, function.name.value)
            checked += 1
    assert checked > 100


class _Renamed(cst.CSTTransformer):
    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        return updated.with_changes(name=cst.Name(updated.name.value + "_"))


LEGACY = [
    "import os\nfrom tensorflow.contrib.training import HParams as HP\nfrom helpers import *\nhp = HP(lr=0.1)\nos.getenv('X')\n",
    "import tensorflow as tf\nfrom helpers import *\nhp = tf.contrib.training.HParams(lr=0.1)\nprint(json.dumps(hp.values()))\n",
    "from tensorflow.contrib.learn import preprocessing as P\nfrom . import *\nvp = P.VocabularyProcessor(10)\n",
    "from . import HParams as H\nimport tensorflow as tf\nh = H(a=1)\nc = tf.contrib.layers.crossed_column([a, b], 10)\n",
    "def f():\n    from tensorflow.contrib.training import HParams as HP\n    return HP(a=1)\nfrom m import *\nHP = 3\n",
    "from tensorflow.contrib.layers import crossed_column as cc\nfrom m import *\nimport sys\nx = cc([a, b], hash_bucket_size=10)\nsys.exit(0)\n",
]


@pytest.mark.parametrize("source", LEGACY + [open(p).read() for p in SAMPLES if "HParams" in open(p).read()][:3])
def test_legacy_utils_skips_only_names_no_import_binds_to_a_utility(source, monkeypatch):
    """The TFM18 family asks no qualified name of a read whose imports cannot name a utility (with a
    ``*`` import that cost libcst's whole-module analysis): the rewrite equals the one that asks."""
    from tfmigrate.transforms.legacy_utils.transform import LegacyUtilsTransform

    enabled = CATALOG.selected(None)
    ours = engine.rewrite_source(source.encode(), enabled, path="m.py")
    monkeypatch.setattr(LegacyUtilsTransform, "_may_import_a_utility", lambda self, name: True)
    theirs = engine.rewrite_source(source.encode(), enabled, path="m.py")
    assert (ours.new, ours.findings) == (theirs.new, theirs.findings)
