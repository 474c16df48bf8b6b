"""walk.transform leaves out the nodes whose visit can call nothing (issue 16): the result is
libcst's own, and the hooks that matter are still called, in libcst's order."""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.codemod.walk import _Hooks, _needed, transform
from tfmigrate.transforms.contrib.transform import ContribTransform
from tfmigrate.transforms.eager.transform import EagerTransform
from tfmigrate.transforms.legacy_utils.transform import LegacyUtilsTransform
from tfmigrate.transforms.monitored.transform import MonitoredSessionTransform
from tfmigrate.transforms.renames.transform import CompatV1Renames
from tfmigrate.transforms.tf0.transform import Tf0Api

SOURCE = '''
import tensorflow as tf
import numpy as np

def f(x, y=3):
    z = [x, "s", 1.5, {"k": np.zeros(2)}]
    return tf.reduce_sum(z) if y else g(x)[0].attr

class A:
    def m(self):
        with tf.Session() as s:
            s.run(f(1))
'''


class _Calls(cst.CSTTransformer):
    """Hooks only Call: renames each called plain name, records the order of its calls."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        self.seen.append(cst.Module([]).code_for_node(original.func))
        if isinstance(updated.func, cst.Name):
            return updated.with_changes(func=cst.Name(updated.func.value + "_"))
        return updated


class _Names(_Calls):
    """Hooks Name too: every Name is entered (the pruning does not pay) but the result is the same."""

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated


def test_the_pruning_is_taken_for_few_hooked_nodes_and_not_for_names():
    module = cst.parse_module(SOURCE)
    index = TreeIndex.of(module)
    needed = _needed(_Hooks(_Calls(), cst.CSTTransformer), index)
    assert needed is not None and id(module) in needed and len(needed) < len(index.children) / 2
    assert _needed(_Hooks(_Names(), cst.CSTTransformer), index) is None


def test_a_transformer_hooking_few_types_gets_libcsts_result_and_calls():
    for kind in (_Calls, _Names):
        module = cst.parse_module(SOURCE)
        ours, theirs = kind(), kind()
        fast = transform(module, ours, TreeIndex.of(module))
        slow = module.visit(theirs)
        assert fast.code == slow.code
        assert ours.seen == theirs.seen == ["np.zeros", "tf.reduce_sum", "g", "tf.Session", "f", "s.run"]
        assert "def f_(" not in fast.code and "g_(x)" in fast.code and "f_(1)" in fast.code


def test_families_that_skip_unimported_names_hook_only_leave_name():
    """UNIMPORTED_NAMES_UNCHANGED promises that leave_Name does nothing for a Name with no
    qualified name; a visit_Name would not be covered by that promise."""
    for family in (CompatV1Renames, Tf0Api, ContribTransform, MonitoredSessionTransform, EagerTransform,
                   LegacyUtilsTransform):
        assert family.UNIMPORTED_NAMES_UNCHANGED
        assert "leave_Name" in vars(family)
        assert family.visit_Name is cst.CSTTransformer.visit_Name
