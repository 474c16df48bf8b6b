"""TFM307: ``tf.device(<device function>)`` is ``tf.compat.v1.device`` in TensorFlow 2.15.

TF 1.x's ``tf.device(device_name_or_function)`` took a device string or a *device function*
(``op -> device string``), which is what ``tf.train.replica_device_setter(...)`` returns and what
every parameter-server program of 2016-2019 passes. TF 2.15's ``tf.device(device_name)`` is the
v2 function: it raises ``RuntimeError: tf.device does not support functions.`` for any callable,
eager mode or not. ``tf.compat.v1.device`` (same parameter name as TF 1.x) still accepts functions
in graph mode, which these programs are in (TFM502 inserts ``disable_eager_execution`` for them,
or they build a ``tf.Graph``).

Only arguments that are provably functions are rewritten: a ``replica_device_setter(...)`` call, a
lambda, a conditional expression whose branches are such functions or None, or a plain name every
binding of which is a ``def`` or an assignment of one of those. A
device string (or a name we cannot tell) is left to ``tf.device``, which takes strings unchanged.
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from tfmigrate.codemod.scopes import Scopes
from tfmigrate.codemod.tree import TreeIndex, expression
from tfmigrate.rule_ids import TFM307
from tfmigrate.transforms.common.builders import is_none


class DeviceContext(Protocol):
    """What these functions read of the family's transform (``DeviceContext`` satisfies it)."""

    index: TreeIndex
    scopes: Scopes

    @property
    def compat_v1(self) -> str: ...  # the module's spelling of ``tf.compat.v1``
    def qn(self, node: cst.CSTNode) -> str | None: ...
    def fix(self, node: cst.CSTNode, rule_id: str, message: str) -> bool: ...
    def remove_imports_of(self, node: cst.CSTNode) -> None: ...

DEVICE = frozenset({"tensorflow.device"})
REPLICA_DEVICE_SETTER = frozenset(
    {
        "tensorflow.train.replica_device_setter",
        "tensorflow.compat.v1.train.replica_device_setter",
        "tensorflow.python.training.device_setter.replica_device_setter",
    }
)


def device_argument(call: cst.Call) -> cst.Arg | None:
    """The ``device_name_or_function`` argument of a ``tf.device`` call (positional or keyword)."""
    if len(call.args) != 1 or call.args[0].star:
        return None
    arg = call.args[0]
    if arg.keyword is not None and arg.keyword.value not in ("device_name_or_function", "device_name"):
        return None
    return arg


def function_kind(transform: DeviceContext, value: cst.BaseExpression, depth: int = 0) -> str | None:
    """What makes ``value`` a device function ("a replica_device_setter", "a lambda", "the function f"), or None."""
    if isinstance(value, cst.Lambda):
        return "a lambda"
    if isinstance(value, cst.Call) and transform.qn(value.func) in REPLICA_DEVICE_SETTER:
        return "tf.train.replica_device_setter(...)"
    if isinstance(value, cst.IfExp):  # `setter if distributed else None`: a function or no device at all
        branches = [value.body, value.orelse]
        kinds = [function_kind(transform, b, depth + 1) for b in branches if not is_none(b)]
        return kinds[0] if kinds and all(kinds) else None
    if not isinstance(value, cst.Name) or depth > 3:
        return None
    scope = transform.scopes.scope_of(value)
    if scope is None:
        return None
    assignments = scope[value.value]
    if not assignments:
        return None
    kinds = []
    for assignment in assignments:
        node = assignment.node
        if isinstance(node, cst.FunctionDef):
            kinds.append(f"the function {value.value}")
            continue
        assigned = _assigned_value(transform, node)
        kind = function_kind(transform, assigned, depth + 1) if assigned is not None else None
        if kind is None:
            return None  # one binding that is not a function: it may be a device string
        kinds.append(kind)
    return kinds[0]


def _assigned_value(transform: DeviceContext, node: cst.CSTNode | None) -> cst.BaseExpression | None:
    """The value of ``name = value`` for the bound Name ``node`` (a single plain target), else None."""
    parents = transform.index.parents
    target = parents.get(node) if node is not None else None
    assign = parents.get(target) if isinstance(target, cst.AssignTarget) else None
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.targets[0].target is node:
        return assign.value
    return None


def device_call(transform: DeviceContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    """TFM307 on one ``tf.device(...)`` call."""
    arg = device_argument(original)
    if arg is None:
        return updated
    kind = function_kind(transform, arg.value)
    if kind is None:
        return updated
    if not transform.fix(
        original,
        TFM307,
        f"tf.device({kind}): TF 2.15's tf.device takes only device names (a function raises RuntimeError); "
        "tf.compat.v1.device takes device functions in graph mode, as TF 1.x's tf.device did",
    ):
        return updated
    transform.remove_imports_of(original.func)
    args = list(updated.args)
    if args[0].keyword is not None and args[0].keyword.value == "device_name":
        args[0] = args[0].with_changes(keyword=cst.Name("device_name_or_function"))
    return updated.with_changes(func=expression(f"{transform.compat_v1}.device"), args=args)
