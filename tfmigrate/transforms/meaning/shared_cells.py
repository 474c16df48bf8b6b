"""TFM561 and TFM562: one cell object used where TF <= 1.0 made one set of weights per use.

Up to TF 1.0 an RNN cell held no variables: each use created its own under the variable scope of
that use, so ``MultiRNNCell([cell] * 3)`` (scopes ``Cell0``, ``Cell1``, ``Cell2``) had three layers
of weights and ``bidirectional_dynamic_rnn(cell, cell, ...)`` had forward and backward weights.
TF 1.1 raised errors on such reuse; TF 1.2 made cells layers that build their weights once
(release notes 1.2.0: "``MultiRNNCell([lstm] * 5)`` will now build a 5-layer LSTM stack where each
layer shares the same parameters"). TF 2.15's ``tf.compat.v1.nn.rnn_cell`` does the same: measured,
the stack has only ``cell_0/...`` variables when the layers' input and output widths agree, and
raises a shape error ("Dimensions must be equal") when they do not.

TFM561 rewrites the list to one new cell per layer when the cell's construction is visible and
re-evaluable at the list (its names bound once, to the same bindings there; a cell built from
another cell is rebuilt from that one's construction too); otherwise it reports the line.
TFM562 reports a cell object passed to two RNN calls (or as both directions of a bidirectional
one) outside a reusing variable scope.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.meaning.context import MeaningContext
from tfmigrate.transforms.meaning.names import MULTI_CELL, RNN_CALLS, cell_class, rnn_function, tf_function
from tfmigrate.transforms.meaning.syntax import argument, assigned_value, compact
from tfmigrate.transforms.meaning.syntax import shown as _shown
from tfmigrate.codemod.tree import expression


@dataclass
class Repeat:
    node: cst.BaseExpression  # the list expression to replace
    new: cst.BaseExpression | None  # its replacement; None: a finding
    why: str


class _Unreadable(Exception):
    pass


def plan_multi(t: MeaningContext, call: cst.Call) -> Repeat | None:
    """The repeated cell of ``MultiRNNCell(<cells>)``, if any, with the list that builds one per layer."""
    arg = argument(call, 0, "cells")
    if arg is None:
        return None
    cells = arg.value
    if isinstance(cells, cst.Name):
        value = _single_value(t, cells)
        if value is None:
            return None
        cells = value
    if isinstance(cells, cst.BinaryOperation) and isinstance(cells.operator, cst.Multiply):
        one, count = (cells.left, cells.right) if _single_list(cells.left) else (cells.right, cells.left)
        if not _single_list(one):
            return None
        element = one.elements[0].value  # type: ignore[attr-defined]
        shown = f"[{_shown(element)}] * {_shown(count)}"
        build = _rebuild(t, element, call)
        if build is None:
            return Repeat(cells, None, shown)
        layer = _fresh_name(t, build)
        new = expression(f"[{code_of(build)} for {layer} in range({code_of(count)})]")
        return Repeat(cells, new, shown)
    if isinstance(cells, cst.ListComp) and isinstance(cells.elt, (cst.Name, cst.Attribute)):
        loop_names = {compact(n) for n in _targets(cells.for_in)}
        if compact(cells.elt) in loop_names:
            return None
        shown = f"[{_shown(cells.elt)} for ...]"
        build = _rebuild(t, cells.elt, call)
        if build is None:
            return Repeat(cells, None, shown)
        return Repeat(cells, cells.with_changes(elt=build), shown)
    if isinstance(cells, (cst.List, cst.Tuple)) and len(cells.elements) >= 2:
        codes = [compact(e.value) for e in cells.elements]
        if not all(isinstance(e.value, (cst.Name, cst.Attribute)) for e in cells.elements) or len(set(codes)) == len(codes):
            return None
        shown = f"[{', '.join(codes)}]"
        seen: set[str] = set()
        elements = list(cells.elements)
        for i, element in enumerate(cells.elements):
            code = codes[i]
            if code in seen:
                build = _rebuild(t, element.value, call)
                if build is None:
                    return Repeat(cells, None, shown)
                elements[i] = element.with_changes(value=build)
            seen.add(code)
        return Repeat(cells, cells.with_changes(elements=elements), shown)
    return None


def shared_rnn_cells(t: MeaningContext, calls: list[cst.Call]) -> list[tuple[cst.CSTNode, str]]:
    """(node, message) for each cell object used by two RNN calls, or as both directions of one."""
    out: list[tuple[cst.CSTNode, str]] = []
    first_use: dict[tuple[int, str], cst.Call] = {}
    for call in calls:
        name = rnn_function(t.qualified_name(call.func))
        if name is None:
            continue
        used = [argument(call, position, keyword) for position, keyword in RNN_CALLS[name]]
        codes = [compact(a.value) if a is not None and isinstance(a.value, (cst.Name, cst.Attribute)) else None for a in used]
        if len(codes) == 2 and codes[0] is not None and codes[0] == codes[1]:
            out.append((call, f"{name}({codes[0]}, {codes[0]}, ...): TF <= 1.0 built separate forward and backward "
                              "weights; TF 1.2+ and TF 2.15 share one set between both directions. Pass a second cell "
                              "built like the first for the backward direction"))
            continue
        if _reusing(t, call):
            continue
        for arg, code in zip(used, codes):
            if code is None or arg is None:
                continue
            key = (_binding(t, arg.value), code)
            if key[0] == 0:
                continue
            if key in first_use and first_use[key] is not call:
                out.append((call, f"{code} is also used by an earlier RNN call: TF <= 1.0 "
                                  "built new weights in this call's variable scope, TF 1.2+ and TF 2.15 reuse that "
                                  "call's weights silently. Build a second cell for this call, or put it in a "
                                  "variable_scope(..., reuse=True) if sharing is meant"))
            else:
                first_use.setdefault(key, call)
    return out


def _single_list(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.List) and len(node.elements) == 1 and not isinstance(node.elements[0], cst.StarredElement)


def _targets(for_in: cst.CompFor | None) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    while for_in is not None:
        out.extend(_names_in(for_in.target))
        for_in = for_in.inner_for_in
    return out


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _names_in(e.value)]
    return []


def _single_value(t: MeaningContext, name: cst.Name) -> cst.BaseExpression | None:
    scope = t.scopes.scope_of(name)
    seen = list(scope[name.value]) if scope is not None else []
    if len(seen) != 1 or not isinstance(seen[0].node, cst.Name):
        return None
    return assigned_value(seen[0].node, t.index.parents)


def _binding(t: MeaningContext, node: cst.BaseExpression) -> int:
    """An id of the binding a cell name reads (0 when it is not a plain name)."""
    if isinstance(node, cst.Attribute):
        return id(t.scopes.scope_of(node)) if t.scopes.scope_of(node) is not None else 0
    if not isinstance(node, cst.Name):
        return 0
    scope = t.scopes.scope_of(node)
    seen = list(scope[node.value]) if scope is not None else []
    return id(seen[0].node) if len(seen) == 1 else 0


def _rebuild(t: MeaningContext, element: cst.BaseExpression, site: cst.CSTNode) -> cst.BaseExpression | None:
    """An expression that builds a new cell like ``element`` does, valid at ``site``; None if unknown."""
    try:
        return _inline(t, element, site, depth=0)
    except _Unreadable:
        return None


def _inline(t: MeaningContext, node: cst.BaseExpression, site: cst.CSTNode, depth: int) -> cst.BaseExpression:
    if depth > 5:
        raise _Unreadable
    if isinstance(node, cst.Name):
        value = _single_value(t, node)
        if isinstance(value, cst.Call) and cell_class(t.qualified_name(value.func)) is not None:
            return _inline(t, value, site, depth + 1)
        raise _Unreadable  # a parameter, an import, a name bound twice or to something else
    if not isinstance(node, cst.Call) or cell_class(t.qualified_name(node.func)) is None:
        raise _Unreadable
    table: dict[int, cst.BaseExpression] = {}
    for arg in node.args:
        if arg.star:
            raise _Unreadable
        for name in _reads(arg.value):
            value = _single_value(t, name)
            if isinstance(value, cst.Call) and cell_class(t.qualified_name(value.func)) is not None:
                table[id(name)] = _inline(t, value, site, depth + 1)  # a wrapped cell: a new one too
            elif not _same_binding(t, name, site):
                raise _Unreadable
        for inner in _calls(arg.value):
            if cell_class(t.qualified_name(inner.func)) is None and tf_function(t.qualified_name(inner.func)) is None:
                raise _Unreadable  # a call of the user's own code: it may return a shared object
    if not _same_binding_func(t, node.func, site):
        raise _Unreadable
    return node.visit(_Swap(table)) if table else node.deep_clone()


class _Swap(cst.CSTTransformer):
    def __init__(self, table: dict[int, cst.BaseExpression]) -> None:
        super().__init__()
        self.table = table

    def on_leave(self, original, updated):  # type: ignore[override]
        return self.table.get(id(original), updated)


def _reads(node: cst.CSTNode) -> list[cst.Name]:
    """The Names ``node`` reads (not attribute names, not keyword names, not lambda/comprehension locals)."""
    out: list[cst.Name] = []

    class Reads(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> bool:
            attr.value.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            raise _Unreadable

        def visit_Name(self, name: cst.Name) -> None:
            if name.value not in ("True", "False", "None"):
                out.append(name)

    node.visit(Reads())
    return out


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    out: list[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            out.append(call)

    node.visit(Calls())
    return out


def _same_binding(t: MeaningContext, name: cst.Name, site: cst.CSTNode) -> bool:
    """``name`` reads one binding, and a read of it at ``site`` would read the same."""
    if t.qualified_name(name) is not None:
        return True  # an import or a module alias
    here, there = t.scopes.scope_of(name), t.scopes.scope_of(site)
    if here is None or there is None:
        return False
    a, b = list(here[name.value]), list(there[name.value])
    if not a and not b:
        return True  # a global bound nowhere in the module (a star import, a builtin): the same read
    return len(a) == 1 and len(b) == 1 and a[0].node is b[0].node


def _same_binding_func(t: MeaningContext, func: cst.BaseExpression, site: cst.CSTNode) -> bool:
    head = func
    while isinstance(head, cst.Attribute):
        head = head.value
    return isinstance(head, cst.Name) and _same_binding(t, head, site)


def _fresh_name(t: MeaningContext, node: cst.CSTNode) -> str:
    used = {n.value for n in t.index.nodes(cst.Name)}
    for name in ("_", "_layer", "_layer_index"):
        if name not in used:
            return name
    return "_layer_index_"


def _reusing(t: MeaningContext, call: cst.Call) -> bool:
    """Inside ``with tf.variable_scope(..., reuse=True|AUTO_REUSE)``, or a function that calls
    ``reuse_variables()``: sharing the weights is what the code asks for."""
    parents = t.index.parents
    node: cst.CSTNode | None = call
    while node is not None:
        if isinstance(node, cst.With):
            for item in node.items:
                if isinstance(item.item, cst.Call) and any(
                    a.keyword is not None and a.keyword.value == "reuse" and compact(a.value) not in ("False", "None")
                    for a in item.item.args
                ):
                    return True
        if isinstance(node, (cst.FunctionDef, cst.Module)):
            return _calls_reuse_variables(t, node) if isinstance(node, cst.FunctionDef) else any(
                isinstance(c.func, cst.Attribute) and c.func.attr.value == "reuse_variables" for c in t.index.nodes(cst.Call)
            )
        node = parents.get(node)
    return False


def _calls_reuse_variables(t: MeaningContext, function: cst.FunctionDef) -> bool:
    """Does the function's code, whitespace left out, hold ``reuse_variables()``? Worked out once
    per function of the module (not once per RNN call in it), and not at all where the module's
    code, whitespace left out, does not hold it (a function's code is a piece of the module's,
    up to whitespace): generating the code of a long function for each call cost a tenth of an
    RNN module's rewrite."""
    known: tuple[bool, dict[int, tuple[cst.FunctionDef, bool]]] | None = getattr(t, "_reuse_variables", None)
    if known is None:
        source = getattr(t, "source", "")  # the engine's code of this very tree ("" elsewhere: ask each function)
        known = (not source or "reuse_variables()" in "".join(source.split()), {})
        t._reuse_variables = known  # type: ignore[attr-defined]
    possible, memo = known
    if not possible:
        return False
    found = memo.get(id(function))
    if found is None or found[0] is not function:
        found = memo[id(function)] = (function, "reuse_variables()" in _function_code(t, function))
    return found[1]


def _function_code(t: MeaningContext, function: cst.FunctionDef) -> str:
    """``code_of(function)`` without whitespace: from the tokens the positions' code generation made
    for it (indented as in the module: the same once whitespace is left out), not generated again."""
    code = t.index.positions.statement_code(function)
    return "".join((code_of(function) if code is None else code).split())


__all__ = ["MULTI_CELL", "Repeat", "plan_multi", "shared_rnn_cells"]
