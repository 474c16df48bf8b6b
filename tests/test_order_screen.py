"""The TF 0.x family's screen question for the legacy order of ``concat``/``split``/``sparse_split``
(transforms/tf0/screen.py ``order_shown``) is sound: every call that can show the legacy order by its
own arguments passes it, in every import form and scope, and a module it skips is one where the
family (run without screens) changes and reports nothing; and it does skip the modern calls."""

from __future__ import annotations

import libcst as cst
import pytest

from tfmigrate.codemod import engine
from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.transforms.tf0.screen import SCREEN, order_shown

CATALOG = load_catalog()
TF0 = frozenset(r.id for f in CATALOG.families if f.prefix == "TFM54" for r in f.rules)

# how the module names the function: (imports, the callee's spelling)
FORMS = {
    "chain": ("import tensorflow as tf", "tf.{f}"),
    "plain_import": ("import tensorflow", "tensorflow.{f}"),
    "compat_v1": ("import tensorflow.compat.v1 as tf", "tf.{f}"),
    "from_import": ("from tensorflow import {f}", "{f}"),
    "from_import_as": ("from tensorflow import {f} as g", "g"),
    "module_as": ("import tensorflow.python.ops.array_ops as ops", "ops.{f}"),
    "module_alias": ("import tensorflow as tf\nT = tf.compat.v1", "T.{f}"),
    "star_import": ("from tensorflow import *", "{f}"),
}
# the legacy calls that tell by their own arguments (TF 0.x order), by function
LEGACY = {
    "concat": ["{c}(0, [a, b])", "{c}(-1, [a, b])", "{c}(1, values=[a, b])", "{c}(axis, values=[a, b])",
               "{c}(1, [a, b], name='c')"],
    "split": ["{c}(0, 2, x)", "{c}(1, 2, value=x)", "{c}(d, num_split=2, value=x)", "{c}(x, split_dim=1, num_split=2)"],
    "sparse_split": ["{c}(1, 2, sp)", "{c}(-1, 2, sp)"],
}
# where the call sits
SCOPES = {
    "module": "{call}\n",
    "function": "def f(a, b, x, sp, d, axis):\n    return {call}\n",
    "method": "class M:\n    def f(self, a, b, x, sp, d, axis):\n        y = {call}\n        return y\n",
    "main": "if __name__ == '__main__':\n    y = {call}\n",
}


def _module(form: str, function: str, call: str, scope: str) -> str:
    imports, callee = FORMS[form]
    return imports.format(f=function) + "\n" + SCOPES[scope].format(call=call.format(c=callee.format(f=function)))


def _tf0(code: str, screens: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, list]:
    monkeypatch.setattr(engine, "SCREENS", screens)
    result = rewrite_source(code.encode(), TF0, catalog=CATALOG)
    return result.new, [(f.rule, f.line, f.col, f.message) for f in result.findings]


CASES = [(form, function, call, scope) for form in FORMS for function, calls in LEGACY.items() for call in calls for scope in SCOPES]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_legacy_order_call_passes_in_every_form_and_scope(form: str) -> None:
    failed = [
        (function, call, scope)
        for f, function, call, scope in CASES
        if f == form and not order_shown(TreeIndex.of(cst.parse_module(_module(form, function, call, scope))))
    ]
    assert not failed, failed


# modern calls, and calls of other packages: the question skips them (nothing else of the family there)
SKIPPED = [
    "import tensorflow as tf\ny = tf.concat([a, b], 1)\nz = tf.split(x, 2, axis=1)\n",
    "import tensorflow as tf\ny = tf.concat([a, b], axis=0)\nz = tf.sparse_split(sp_input=sp, num_split=2, axis=1)\n",
    "import tensorflow as tf\nimport numpy as np\ny = np.split(x, 0)\nz = np.concatenate(0, x)\nw = tf.concat(v, 0)\n",
    "import tensorflow as tf\nfrom numpy import split\ny = split(0, 2)\nx = range(10)\n",
    "import tensorflow as tf\ndef concat(a, b):\n    return a\ny = concat(0, [a, b])\n",  # a local function
]


@pytest.mark.parametrize("i", range(len(SKIPPED)))
def test_modern_and_foreign_calls_are_skipped(i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    code = SKIPPED[i]
    assert not SCREEN.admits(TreeIndex.of(cst.parse_module(code))), code
    assert _tf0(code, False, monkeypatch) == (code.encode(), []), "the family reacts where the screen skips"


def test_same_with_and_without_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every legacy call above, and each with a modern call beside it and a TF 0.x rename (the module
    decides the order of the modern-looking call), rewritten the same with and without the screens."""
    changed = 0
    cases = [case for case in CASES if case[3] in ("function", "main")]  # (the question reads no scope: two of them)
    for form, function, call, scope in cases:
        code = _module(form, function, call, scope)
        for source in (code, code + "w = tf.concat(u, v)\nq = tf.mul(u, v)\n"):
            unscreened = _tf0(source, False, monkeypatch)
            assert _tf0(source, True, monkeypatch) == unscreened, source
            changed += unscreened[0] != source.encode()
    assert changed > len(cases)  # the legacy calls are rewritten (the rest are flagged): the runs are not vacuous
