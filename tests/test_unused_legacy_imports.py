"""TFM552: an unused import of a TensorFlow module TF 2.15 lacks is removed, or reported where the module
may read it by its name (issue 27, item 7).

Generated over the import forms of real legacy programs x the places an import sits x how the name is
(not) used: removed when nothing can read it (the import would stop the program on TF 2.15), kept when
used, reported on its line when a string, ``globals()``/``getattr``, an ``__init__.py`` or a ``try``
may read or guard it.
"""

from __future__ import annotations

import itertools

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ENABLED = load_catalog().selected(None)

# (id, the import, the name it binds)
IMPORTS = [
    ("learn_runner", "from tensorflow.contrib.learn.python.learn import learn_runner", "learn_runner"),
    ("input_data", "from tensorflow.examples.tutorials.mnist import input_data", "input_data"),
    ("input_data_as", "import tensorflow.examples.tutorials.mnist.input_data as input_data", "input_data"),
    ("slim_as", "import tensorflow.contrib.slim as slim", "slim"),
    ("slim_from", "from tensorflow.contrib import slim", "slim"),
    ("learn_from", "from tensorflow.contrib import learn", "learn"),
    ("models_rnn", "from tensorflow.models.rnn import rnn_cell", "rnn_cell"),
    ("private_seq2seq", "from tensorflow.python.ops import seq2seq", "seq2seq"),
    ("contrib_data_as", "import tensorflow.contrib.data as cd", "cd"),
    ("several", "from tensorflow.examples.tutorials.mnist import input_data, mnist", "input_data"),
]
PLACES = ["module", "function"]
# (id, code after the import with {N} for the bound name, what happens: removed / kept / reported)
USES = [
    ("unused", "x = tf.constant(1.0)", "removed"),
    ("used", "print({N}.something)", "kept"),
    ("all", '__all__ = ["{N}"]', "reported"),
    ("string", 'print("{N} is not used")', "reported"),
    ("globals", 'mod = globals()["other"]', "reported"),
    ("getattr", 'f = getattr(sys.modules[__name__], "other")', "reported"),
]


def _program(imp: str, place: str, use: str) -> tuple[str, int]:
    head = ["import sys", "import tensorflow as tf", "# the legacy import, kept as a comment's neighbour"]
    if place == "module":
        lines = [*head, imp, use]
        at = len(head) + 1
    else:
        lines = [*head, "def main():", f"    {imp}", f"    {use}"]
        at = len(head) + 2
    return "\n".join(lines) + "\n", at


VARIANTS = list(itertools.product(IMPORTS, PLACES, USES))


@pytest.mark.parametrize(("imp", "place", "use"), VARIANTS, ids=[f"{i[0]}-{p}-{u[0]}" for i, p, u in VARIANTS])
def test_unused_legacy_import(imp, place, use):
    _, statement, name = imp
    _, code, outcome = use
    source, line = _program(statement, place, code.replace("{N}", name))
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    compile(new, "<variant>", "exec")
    assert "# the legacy import, kept as a comment's neighbour" in new
    mine = [f for f in result.findings if f.rule == "TFM552"]
    if outcome == "kept":  # another rule (or the catch-all) speaks for a used import
        imports = [x for x in new.splitlines() if x.strip().startswith(("import ", "from "))]
        assert any(name in x for x in imports), new
        return
    if outcome == "reported":
        assert [f for f in mine if f.line == line and not f.fixable], (new, [(f.line, f.rule, f.message) for f in result.findings])
        assert statement.split(" import ")[-1].split(" as ")[0] in new or name in new
        return
    # removed: by TFM552, or by the contrib family where its own package is concerned (TFM601)
    assert any(f.line == line and f.fixable and f.rule in ("TFM552", "TFM601") for f in result.findings), (
        new, [(f.line, f.rule, f.message) for f in result.findings])
    for part in ("examples", "contrib", "models.rnn", "ops import seq2seq"):
        assert part not in new, new
    assert rewrite_source(result.new, ENABLED).new == result.new


def test_init_module_reports_instead_of_removing():
    source = "from tensorflow.contrib.learn.python.learn import learn_runner\n"
    result = rewrite_source(source.encode(), ENABLED, path="pkg/__init__.py")
    assert result.new.decode() == source
    assert [(f.rule, f.fixable) for f in result.findings if f.rule == "TFM552"] == [("TFM552", False)]


def test_guarded_import_reported_not_removed():
    # The aliases family alone keeps an import inside try; with every family, the guards family
    # (TFM140, first) decides the try on TF 2.15: the import raises, the handler is what runs.
    source = ("try:\n    from tensorflow.examples.tutorials.mnist import input_data\nexcept ImportError:\n"
              "    input_data = None\n")
    without_guards = frozenset(rule for rule in ENABLED if not rule.startswith("TFM14"))
    result = rewrite_source(source.encode(), without_guards)
    assert "from tensorflow.examples.tutorials.mnist import input_data" in result.new.decode()
    decided = rewrite_source(source.encode(), ENABLED)
    assert decided.new.decode() == "input_data = None\n"
    assert [f.rule for f in decided.findings] == ["TFM140"]


def test_an_import_tf215_has_is_left_alone():
    source = "import tensorflow as tf\nfrom tensorflow.keras import layers\nfrom tensorflow.python.ops import rnn_cell\n"
    result = rewrite_source(source.encode(), ENABLED)
    assert not [f for f in result.findings if f.rule == "TFM552"]
