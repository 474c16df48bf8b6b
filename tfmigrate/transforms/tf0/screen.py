"""The TF 0.x family's screen (codemod/screen.py): the words a module must hold before one of
TFM540-TFM547 can change or report anything, built from the tables the rules read (``tables.py``):
every part of the legacy names (and the keywords) each rule looks for.

``concat``, ``split`` and ``sparse_split`` are words of nearly every TensorFlow module, and their
legacy order (TFM541) is what a call of one of them can show only by its own arguments or through
the module's other TF 0.x code (``transform.py``'s ``leave_Call``, ``_order_from_call``, ``_decide``):

- the call tells by itself (``_order_from_call`` is True): it has positional arguments, and the
  first is an int literal (an axis) or a keyword of ``LEGACY_KEYWORDS`` is given. That is the
  question :func:`order_shown` answers from the index, over the calls whose name can be one of them;
- the module decides (``_order_from_call`` is None, the call deferred to ``_decide``): it is changed
  only where the module is TF 0.x code (``tf0``), which only a renamed name (the ``RENAMED`` groups),
  another legacy order shown by its call (the other ``ORDER`` groups, ``RESIZE``, or :func:`order_shown`)
  or a ``reverse`` mask (its group) makes it: each passes the screen by itself.

So those three are not word groups: they pass a module through :func:`order_shown`.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.screen import Screen, of_parts
from tfmigrate.codemod.tree import TreeIndex, full_name
from tfmigrate.transforms.tf0.tables import (
    KEYWORDS, LEGACY_KEYWORDS, ORDER, RENAMED, RESIZE, SHAPE_ATTRS, SUMMARY_KEYWORDS, UNCALLED_INITIALIZERS,
)

# the legacy orders that calls of TF 1.x code show too (ORDER's names whose calls tell by their arguments)
SHOWN_BY_THE_CALL = frozenset({"concat", "split", "sparse_split"})
assert SHOWN_BY_THE_CALL <= set(ORDER)
_SHOWN_KEYWORDS = frozenset().union(*(LEGACY_KEYWORDS.get(rel, frozenset()) for rel in SHOWN_BY_THE_CALL))
_TENSORFLOW = frozenset({"tensorflow"})


def int_literal(node: cst.BaseExpression) -> bool:
    """An int literal, negative or not (an axis: a tensor or a list of them is never one)."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) is cst.Integer


def order_shown(index: TreeIndex) -> bool:
    """May a call of ``concat``/``split``/``sparse_split`` show the legacy order by its own arguments? A
    call with positional arguments, the first an int literal or a keyword of ``LEGACY_KEYWORDS`` beside
    them, whose name can be one of those (qualified_name: a chain whose first name an import binds under
    tensorflow, or a relative import, or a module alias; ending with one of the three, or that first name
    alone, an alias of the function). Any call where a ``*`` import may bind any name."""
    if not index.words & SHOWN_BY_THE_CALL:  # every spelling of their names writes one (codemod/screen.py)
        return False
    bound = index.names_bound_under(_TENSORFLOW)
    if bound is None:  # a * import
        return True
    if not bound:
        return False
    for call in index.nodes(cst.Call):
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if not positional:
            continue
        if not (int_literal(positional[0].value)
                or any(a.keyword is not None and a.keyword.value in _SHOWN_KEYWORDS for a in call.args)):
            continue
        name = full_name(call.func)
        if name is None:
            continue
        head, _, rest = name.partition(".")
        if head in bound and (not rest or rest.rpartition(".")[2] in SHOWN_BY_THE_CALL):
            return True
    return False


SCREEN = Screen(
    [
        *of_parts(RENAMED),  # TFM540: a renamed symbol (its rel, compat.v1. aside, is a key of RENAMED)
        *of_parts(SUMMARY_KEYWORDS),  # TFM540: the summary calls' arguments
        *[(*rel.split("."), keyword) for rel, table in KEYWORDS.items() for keyword in table],  # TFM543
        *of_parts(sorted(set(ORDER) - SHOWN_BY_THE_CALL)),  # TFM541, TFM542: the legacy positional order
        *of_parts([RESIZE]),  # TFM541: resize_images(images, new_height, new_width)
        ("reverse",),  # TFM544
        *[(name,) for name in sorted(UNCALLED_INITIALIZERS)],  # TFM545
        ("value", "get_shape"), *[("value", attr) for attr in sorted(SHAPE_ATTRS)],  # TFM546: Dimension.value
        ("python", "keras"),  # TFM547: a private tensorflow.python.keras import
    ],
    also=order_shown,  # TFM541: concat, split, sparse_split
)
