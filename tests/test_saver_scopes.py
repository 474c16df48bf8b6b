"""The saver family (TFM2) analyses only the functions that build a Saver (``SaverTraps._functions_holding``:
each function is a scope of its own, and every trap is about a Saver its scope builds). A shortcut that
must change nothing: the family reports the same (rule, line, column, message) when it analyses every
function, over the samples, its catalog examples, the real-world corpus and the cases below."""

from __future__ import annotations

import pytest

from every_case import check_every
from test_family_screens import SOURCES
from tfmigrate.codemod.engine import SourceError, rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.saver.transform import SaverTraps

CATALOG = load_catalog()
TFM2 = frozenset(r.id for f in CATALOG.families if f.prefix == "TFM2" for r in f.rules)

# where a Saver, its variables, its sessions and its checkpoints can sit
CASES = {
    "saver_in_a_nested_function": (
        "import tensorflow as tf\ndef outer():\n    x = tf.Variable(1.0, name='x')\n    def inner():\n"
        "        s = tf.train.Saver()\n        y = tf.Variable(2.0, name='y')\n        return s\n    return inner\n"
    ),
    "saver_in_a_method": (
        "import tensorflow as tf\nclass M:\n    def build(self):\n        self.v = tf.Variable(1.0, name='v')\n"
        "        saver = tf.train.Saver()\n        w = tf.get_variable('w', [1])\n        return saver\n"
        "    def other(self):\n        return tf.Variable(3.0, name='z')\n"
    ),
    "save_and_restore_in_two_functions": (
        "import tensorflow as tf\nPATH = '/tmp/m.ckpt'\ndef train():\n    a = tf.Variable(1.0, name='a')\n"
        "    saver = tf.train.Saver()\n    with tf.Session() as sess:\n        saver.save(sess, PATH)\n"
        "def helper():\n    return tf.Variable(0.0, name='h')\n"
        "def evaluate():\n    a = tf.Variable(1.0, name='a')\n    b = tf.Variable(2.0, name='b')\n"
        "    saver = tf.train.Saver()\n    with tf.Session() as sess:\n        saver.restore(sess, PATH)\n"
    ),
    "two_graphs_at_module_level_and_a_function": (
        "import tensorflow as tf\ng1 = tf.Graph()\nwith g1.as_default():\n    v = tf.Variable(1.0, name='v')\n"
        "    saver = tf.train.Saver()\ng2 = tf.Graph()\nwith tf.Session(graph=g2) as sess:\n    saver.save(sess, 'x')\n"
        "def f():\n    s = tf.train.Saver()\n    u = tf.Variable(1.0, name='u')\n"
    ),
    "class_body_saver": (
        "import tensorflow as tf\nclass K:\n    v = tf.Variable(1.0, name='v')\n    saver = tf.train.Saver()\n"
        "    w = tf.Variable(2.0, name='w')\n    def m(self):\n        return tf.Variable(1.0)\n"
    ),
}


def _result(data: bytes) -> object:
    try:
        result = rewrite_source(data, TFM2, catalog=CATALOG)
    except SourceError as exc:
        return str(exc)
    return result.new, [(f.rule, f.line, f.col, f.message) for f in result.findings]


def test_the_functions_without_a_saver_change_no_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [(name, data) for name, data in SOURCES if name.startswith(("sample", "TFM2", "corpus"))]
    sources += [(f"case {name}", code.encode()) for name, code in CASES.items()]
    sources = [(name, data) for name, data in sources if b"Saver" in data]
    skipping = {name: _result(data) for name, data in sources}
    monkeypatch.setattr(SaverTraps, "_statement", _every_function)
    every = {name: _result(data) for name, data in sources}

    def same(name: str) -> None:
        assert skipping[name] == every[name], f"{name}: {skipping[name]!r}\n!=\n{every[name]!r}"

    check_every((name, lambda name=name: same(name)) for name, _ in sources)
    assert sum(1 for r in skipping.values() if isinstance(r, tuple) and r[1]) >= len(CASES)  # not vacuous


_statement = SaverTraps._statement


def _every_function(self, stmt, graph, env, scope_id):  # type: ignore[no-untyped-def]
    """``_statement`` with every function analysed (none skipped)."""
    import libcst as cst

    if isinstance(stmt, cst.FunctionDef):
        self._with_savers.add(id(stmt))
    return _statement(self, stmt, graph, env, scope_id)
