"""A few replacements in a big module cost the paths to them, not a walk of the module (issue 28:
the slowest files of tensorflow/models, one class holding every function).

- ``ReplaceById(table, around)`` walked with the index: the same tree as the walk of every node,
  on the tree the index was made of and on a tree a transform made from it (the renames family's
  TFM504 pins, tf0's deferred call rewrites: the nodes replaced are new, their originals are given);
- ``comments.kept`` on a replaced module compares the two trees side by side first: the same
  answer as the full look, the call with an argument comment replaced or not, a statement
  inserted or not.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import libcst as cst
import pytest

from tfmigrate.codemod import comments
from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.codemod.walk import transform
from tfmigrate.transforms.common.builders import ReplaceById

# relative to the checkout (the ids), read from it wherever the test process stands (a test may change directory)
ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("samples/**/*.py"))


@cache
def _parsed(path: str) -> tuple[cst.Module, TreeIndex]:
    """Each sample parsed and indexed once for the module's tests (trees are immutable)."""
    module = cst.parse_module((ROOT / path).read_bytes())
    return module, TreeIndex.of(module)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node) if not isinstance(node, cst.Module) else node.code


def _renamed(call: cst.Call) -> cst.Call:
    return call.with_changes(func=cst.Name("replaced"))


@pytest.mark.parametrize("every", [1, 7])
@pytest.mark.parametrize("path", SAMPLES)
def test_replacing_around_planned_nodes_is_the_whole_walk(path: str, every: int) -> None:
    module, index = _parsed(path)
    calls = index.nodes(cst.Call)[::every]
    assert calls, path
    table = {id(call): _renamed for call in calls}
    whole = transform(module, ReplaceById(table), index)
    pruned = transform(module, ReplaceById(table, calls), index)
    assert pruned.code == whole.code
    assert pruned.code.count("replaced(") >= len(calls) - _nested(calls, index)  # a replaced call in a replaced call's arguments is rebuilt once
    # the table's ids, found back from the index
    assert {id(n) for n in index.nodes_with_ids(table)} == set(table)


def _nested(calls: list[cst.CSTNode], index: TreeIndex) -> int:
    chosen = {id(c) for c in calls}
    count = 0
    for call in calls:
        node = index.parents.get(call)
        while node is not None and id(node) not in chosen:
            node = index.parents.get(node)
        count += node is not None
    return count


@pytest.mark.parametrize("path", SAMPLES)
def test_replacing_new_nodes_of_a_rewritten_tree(path: str) -> None:
    """A first walk rebuilds every third attribute (new nodes, new paths); the second replaces the
    new nodes of some of them, given their originals: as the walk of every node does."""
    module, index = _parsed(path)
    attributes = index.nodes(cst.Attribute)[::3]
    made: dict[int, tuple[cst.CSTNode, cst.CSTNode]] = {}

    def rebuild(updated: cst.Attribute, original: cst.Attribute) -> cst.Attribute:
        new = updated.with_changes(attr=cst.Name(updated.attr.value + "_v2"))
        made[id(original)] = (original, new)
        return new

    first = transform(module, ReplaceById({id(a): (lambda u, a=a: rebuild(u, a)) for a in attributes}), index)
    pinned = list(made.values())[::2]
    assert pinned, path
    table = {id(new): (lambda u: u.with_changes(attr=cst.Name("pinned"))) for _, new in pinned}
    whole = transform(first, ReplaceById(table), index)
    pruned = transform(first, ReplaceById(table, [original for original, _ in pinned]), index)
    assert pruned.code == whole.code
    assert pruned.code != first.code


MODULE = '''import tensorflow as tf


class Model:
    def build(self, x):
        y = tf.layers.dense(x,  # the input
                            units=3)
        return tf.reduce_sum(y)

    def loss(self, y):
        return tf.reduce_mean(y, axis=0)
'''


class _DeepEdit(cst.CSTTransformer):
    """leave_Module replaces one node deep in the class (and inserts a statement, or not); with
    ``drop``, the replaced node is the call with the argument comment, rebuilt without it."""

    def __init__(self, drop: bool, insert: bool) -> None:
        super().__init__()
        self.drop, self.insert = drop, insert

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        index = TreeIndex.of(updated)
        calls = index.nodes(cst.Call)
        target = calls[0] if self.drop else calls[-1]  # tf.layers.dense(...), or tf.reduce_mean(...)
        new = target.with_changes(args=[cst.Arg(a.value, keyword=a.keyword, equal=a.equal) for a in target.args]) if self.drop \
            else target.with_changes(func=cst.Name("mean"))
        result = transform(updated, ReplaceById({id(target): new}, [target]), index, keep_comments=False)
        if self.insert:
            result = result.with_changes(body=[cst.parse_statement("X = 1\n"), *result.body])
        return result


@pytest.mark.parametrize("insert", [False, True])
@pytest.mark.parametrize("drop", [False, True])
def test_kept_on_a_module_is_the_full_look(drop: bool, insert: bool) -> None:
    module = cst.parse_module(MODULE)
    hook = _DeepEdit(drop, insert)
    result = hook.leave_Module(module, module)
    fast = comments.kept(module, module, result)
    slow = _full_look(module, module, result)
    assert _code(fast[0]) == _code(slow[0])
    assert [c.value for c in fast[1]] == [c.value for c in slow[1]]
    assert ("# the input" in _code(fast[0])) is not drop  # the hook's own call rebuilt without it (keep_comments=False)
    assert _in_place_ids_are_in(module, result)


def _full_look(original: cst.CSTNode, updated: cst.CSTNode, result: object) -> tuple[object, list[cst.Comment]]:
    """comments.kept without the side-by-side step (what it computed before)."""
    step = comments._in_place
    comments._in_place = lambda old, new: set()  # the step skips nothing: the look over every changed statement
    try:
        return comments.kept(original, updated, result)
    finally:
        comments._in_place = step


def _in_place_ids_are_in(old: cst.CSTNode, new: cst.CSTNode) -> bool:
    found = comments._in_place(old, new)
    ids = {id(n) for n in _all(new)}
    return bool(found) and found <= ids


def _all(node: cst.CSTNode) -> list[cst.CSTNode]:
    out, stack = [], [node]
    while stack:
        item = stack.pop()
        out.append(item)
        stack.extend(item.children)
    return out
