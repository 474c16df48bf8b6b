"""Traversals of a libcst tree at a fraction of ``node.visit(...)``'s cost: ``walk`` (read-only
visitors) and ``transform`` (transformers that rebuild only what changed).

libcst runs a ``CSTVisitor`` through the same machinery as a transformer: every node's children
are re-visited *and the node rebuilt*, which makes a read-only scan as slow as a rewrite. The
families scan a module several times (to plan a rewrite before applying it), so :func:`walk`
makes the same calls to the same ``visit_X`` / ``leave_X`` methods, in the same order, by reading
the dataclass fields directly. The order of a node type's fields is learnt once from libcst itself
(the ``on_visit_attribute`` calls its ``_visit_and_replace_children`` makes), so it cannot drift
from libcst's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

import libcst as cst

from tfmigrate.codemod import comments
from tfmigrate.codemod.positions import TRIVIA_TYPES
from tfmigrate.codemod.tree import TreeIndex, child_fields, child_nodes, is_indexed, is_node, visit_order as _order

_TRIVIA_NAMES = frozenset(kind.__name__ for kind in TRIVIA_TYPES)


def _overrides(kind: type, base: type, name: str) -> bool:
    """Does the visitor class define ``name`` itself? libcst's base classes define every
    ``visit_X`` / ``leave_X`` as a no-op, which the drivers need not call."""
    own = getattr(kind, name, None)
    return own is not None and own is not getattr(base, name, None)


@cache
def _wants_trivia(kind: type, base: type, custom: bool) -> bool:
    """Does the visitor look at tokens or whitespace? (Rule transforms never do: skipping those
    subtrees, which cannot contain anything else, halves a traversal.)"""
    return custom or any(
        _overrides(kind, base, f"{verb}_{name}") for name in _TRIVIA_NAMES for verb in ("visit", "leave")
    )


def iter_nodes(
    root: cst.CSTNode, descend: Callable[[cst.CSTNode], bool] | None = None, *, trivia: bool = True
) -> Iterator[cst.CSTNode]:
    """``root`` and every node below it, in libcst's visiting order (what ``m.findall`` scans).

    With ``descend``, the children of a node for which it returns False are left out (the node
    itself is not), as a visitor's ``visit_X`` returning False would. ``trivia=False`` leaves out
    tokens and whitespace (half of all nodes), for searches that look for anything else."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if descend is None or descend(node):
            stack.extend(reversed(child_nodes(node, trivia)))


_Dispatch = tuple[Callable[[Any], Any] | None, Callable[[Any], Any] | None]


class _Hooks:
    """How a visitor (or transformer) is called: its own ``on_visit``/``on_leave`` if it overrides
    them, else the ``visit_X``/``leave_X`` methods it defines (looked up once per visitor class and
    node type), as libcst does. (The no-op methods of libcst's base classes are not called: same
    result.)"""

    _tables: dict[type, dict[type, tuple[Any, Any]]] = {}  # visitor class -> node type -> functions

    def __init__(self, visitor: cst.CSTVisitor | cst.CSTTransformer, base: type) -> None:
        kind = type(visitor)
        self.visitor, self._kind, self._base = visitor, kind, base
        self.custom_visit = kind.on_visit is not base.on_visit
        self.custom_leave = kind.on_leave is not base.on_leave
        # A visitor with its own on_visit/on_leave is shown every node, unless it declares that
        # those do nothing for tokens and whitespace (``VISITS_TRIVIA = False``).
        custom = (self.custom_visit or self.custom_leave) and getattr(kind, "VISITS_TRIVIA", True)
        self.trivia = _wants_trivia(kind, base, custom)
        self._functions = self._tables.setdefault(kind, {})
        self.table: dict[type, _Dispatch] = {}  # node type -> bound methods (see methods())

    def _functions_of(self, kind: type) -> tuple[Any, Any]:
        """The class's own ``visit_X`` and ``leave_X`` functions for a node type (None: not defined)."""
        functions = self._functions.get(kind)
        if functions is None:
            enter, leave = f"visit_{kind.__name__}", f"leave_{kind.__name__}"
            functions = self._functions[kind] = (
                getattr(self._kind, enter) if _overrides(self._kind, self._base, enter) else None,
                getattr(self._kind, leave) if _overrides(self._kind, self._base, leave) else None,
            )
        return functions

    def methods(self, kind: type) -> _Dispatch:
        found = self.table.get(kind)
        if found is None:
            visitor = self.visitor
            found = self.table[kind] = tuple(None if f is None else f.__get__(visitor) for f in self._functions_of(kind))  # type: ignore[assignment]
        return found


def walk(root: cst.CSTNode, visitor: cst.CSTVisitor, index: TreeIndex | None = None) -> None:
    """Exactly ``root.visit(visitor)`` for a visitor that only reads (its return value is not used).

    ``visit_X`` returning False skips the node's children; ``leave_X`` follows them. A visitor that
    overrides ``on_visit`` / ``on_leave`` gets those called instead, as libcst would. With the
    ``index`` of the tree ``root`` is in, children are read from it (see :func:`transform`)."""
    hooks = _Hooks(visitor, cst.CSTVisitor)
    custom_visit, custom_leave, trivia, methods = hooks.custom_visit, hooks.custom_leave, hooks.trivia, hooks.methods
    table = hooks.table
    indexed = index.children if index is not None and not trivia else {}

    def visit(node: cst.CSTNode) -> None:
        enter, leave = table.get(type(node)) or methods(type(node))
        if custom_visit:
            descend = visitor.on_visit(node)
        else:
            descend = enter is None or enter(node) is not False
        if descend:
            children = indexed.get(id(node))
            for child in child_nodes(node, trivia) if children is None else children:
                visit(child)
        if custom_leave:
            visitor.on_leave(node)
        elif leave is not None:
            leave(node)

    try:
        visit(root)
    finally:
        visit = None  # the closure refers to itself: break the cycle so the tree is freed at once


# --- rewriting ---------------------------------------------------------------------------------
_BODY_FIELDS = {(cst.Module, "body"), (cst.IndentedBlock, "body")}


def _field_default(kind: type, name: str) -> object:
    for field in dataclasses.fields(kind):
        if field.name == name:
            return field.default
    return dataclasses.MISSING


def transform(
    root: cst.CSTNode, transformer: cst.CSTTransformer, index: TreeIndex | None = None, *, keep_comments: bool = True
) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel:
    """``root.visit(transformer)``, rebuilding only the nodes whose children changed.

    libcst reconstructs (and re-validates) every node a transformer passes, changed or not; in a
    rewrite most nodes are unchanged, so this driver hands ``leave_X`` the original object as
    ``updated`` when nothing below it changed, and builds a new node only along changed paths.
    Removal and flattening follow libcst's rules (an emptied statement line disappears from a body;
    a removed optional child becomes None or MaybeSentinel.DEFAULT), with one difference unless
    ``keep_comments`` is false: libcst drops a removed statement with the comment lines above it,
    which are the user's notes on the code around it. Those lines go to the next statement of the
    block (or the block's footer, when it was the last); the removed line's own trailing comment
    goes with it, as in ruff's fixes. And the comments between the arguments of a call in a node a
    hook replaces stay (:mod:`tfmigrate.codemod.comments`): beside their argument in the new node,
    else on lines above the statement.

    With the ``index`` of the tree ``root`` belongs to, a node's children are read from the index
    (one list per node) instead of from its fields: the fields are read only for a node to be
    rebuilt, which is what most of a traversal's time went to otherwise."""
    hooks = _Hooks(transformer, cst.CSTTransformer)
    custom_visit, custom_leave, trivia, methods = hooks.custom_visit, hooks.custom_leave, hooks.trivia, hooks.methods
    table = hooks.table  # methods(kind), without the call once known
    indexed = index.children if index is not None and not trivia else {}
    fields = _order if trivia else child_fields
    # The nodes the walk must enter, when it can leave most of the tree alone (see _needed).
    plain = bool(indexed) and not (custom_visit or custom_leave)
    needed = _needed(hooks, index) if plain else None
    # Node types whose visit can do nothing: no hook and no child fields (numbers, strings...).
    leaves = _quiet_leaves(hooks, index) if plain else frozenset()
    # A transformer whose Name hooks leave the Names of an attribute chain alone says so.
    chain_names = plain and getattr(type(transformer), "ATTRIBUTE_NAMES_UNCHANGED", False)
    # ... and one whose Name hooks leave alone a Name that names no import (nor module alias):
    # the names that may name one (None: any may, with a * import).
    imported: frozenset[str] | None = None
    if plain and getattr(type(transformer), "UNIMPORTED_NAMES_UNCHANGED", False) and not index.has_star_import:
        imported = frozenset({binding.name for binding in index.imports} | index.module_aliases.keys())

    # A transformer that plans its whole rewrite when it enters the root can then name the only
    # nodes its hooks will change (``planned_nodes()``, None for "any"): the rest is not entered.
    planned = getattr(transformer, "planned_nodes", None) if plain else None
    # A transformer that acts only at or under some nodes of the index's tree (``around``, as
    # ReplaceById's), in a tree that is the index's or one made from it: the nodes of the index's
    # tree off the paths to them are left as they are (nodes built anew are entered).
    around = getattr(transformer, "around", None) if indexed else None
    outside: Callable[[Any], bool] | None = None
    if around is not None:
        on_path = _ancestors([around], index.parents)  # type: ignore[union-attr]
        needed = on_path

        def outside(child: Any) -> bool:
            key = id(child)
            return key in indexed and key not in on_path

    orphans: list[cst.Comment] = []  # argument comments a hook could not keep in its new node

    def visit(node: cst.CSTNode) -> Any:
        nonlocal needed
        kind = type(node)
        mark = len(orphans)
        enter, leave = table.get(kind) or methods(kind)
        if custom_visit:
            descend = transformer.on_visit(node)
        else:
            descend = enter is None or enter(node) is not False
        if planned is not None and node is root:
            nodes = planned()
            if nodes is not None:
                needed = _ancestors([nodes], index.parents)
        if not descend:
            updated = node
        else:
            children = indexed.get(id(node))
            if children is None:  # not in the index (or no index): read the fields
                updated = _rebuilt(node, kind, visit if outside is None else _pruned)
            else:
                changed: dict[int, Any] | None = None
                in_chain = chain_names and kind is cst.Attribute
                for child in children:
                    child_kind = type(child)
                    if (
                        child_kind in leaves
                        or (needed is not None and id(child) not in needed)
                        or (child_kind is cst.Name and (in_chain or (imported is not None and child.value not in imported)))
                    ):
                        continue  # visiting it would call nothing and change nothing
                    result = visit(child)
                    if result is not child:
                        if changed is None:
                            changed = {}
                        changed[id(child)] = result
                updated = node if changed is None else _rebuilt(node, kind, _results(changed))
        if custom_leave:
            result = transformer.on_leave(node, updated)
        else:
            result = updated if leave is None else leave(node, updated)
        if result is not updated and keep_comments:  # a hook replaced the node: its calls' comments stay
            result, lost = comments.kept(node, updated, result)
            orphans.extend(lost)
        if len(orphans) > mark and kind in _STATEMENTS and _kept_statement(result):  # above the statement
            result = with_lines_above_all(result, comments.lines_for(orphans[mark:]))
            del orphans[mark:]
        return result

    entered = is_node if trivia else is_indexed  # does the walk enter nodes of this type?

    def _pruned(child: cst.CSTNode) -> Any:
        return child if outside(child) else visit(child)  # type: ignore[misc]

    def _rebuilt(node: cst.CSTNode, kind: type, result_of: Callable[[Any], Any]) -> cst.CSTNode:
        """``node`` with each child replaced by ``result_of(child)`` (a new node only if one differs)."""
        changes: dict[str, object] = {}
        footer_above: list[cst.EmptyLine] = []
        for name in fields(node):
            value = getattr(node, name)
            value_kind = type(value)
            if value_kind is tuple or value_kind is list:
                new_items: list[Any] | None = None  # copied only once something changes
                carried: list[cst.EmptyLine] = []  # comment lines of removed statements, for the next one
                for position, item in enumerate(value):
                    if not entered(type(item)):
                        if new_items is not None:
                            new_items.append(item)
                        continue
                    result = result_of(item)
                    if result is item:
                        if new_items is not None:
                            new_items.append(with_lines_above(item, carried) if carried else item)
                            carried = []
                        continue
                    if new_items is None:
                        new_items = list(value[:position])
                    body = (kind, name) in _BODY_FIELDS
                    if isinstance(result, cst.RemovalSentinel):
                        if body and keep_comments:
                            carried += comment_lines_above(item)
                        continue
                    results = list(result) if type(result) is cst.FlattenSentinel else [result]
                    for new in results:
                        if body and not item._is_removable() and new._is_removable():
                            if keep_comments:
                                carried += comment_lines_above(new)
                            continue  # a statement line emptied by a removal goes
                        if carried:
                            new, carried = with_lines_above(new, carried), []
                        new_items.append(new)
                if carried:  # the block's last statements went: their comments end the block
                    footer_above = carried
                if new_items is not None:
                    changes[name] = tuple(new_items)
            elif entered(value_kind):
                result = result_of(value)
                if result is value:
                    continue
                if type(result) is cst.FlattenSentinel:
                    raise TypeError(f"We got a FlattenSentinel while visiting a {value_kind.__name__}: {kind.__name__}.{name} holds one node")
                if isinstance(result, cst.RemovalSentinel):
                    default = _field_default(kind, name)
                    if default is None or default is cst.MaybeSentinel.DEFAULT:
                        result = default
                    else:
                        raise TypeError(f"We got a RemovalSentinel while visiting a {value_kind.__name__}: {kind.__name__}.{name} is required")
                changes[name] = result
        if footer_above:
            changes["footer"] = (*footer_above, *changes.get("footer", node.footer))  # type: ignore[attr-defined]
        return node.with_changes(**changes) if changes else node

    try:
        out = visit(root)
        if orphans and type(out) is cst.Module:
            out = out.with_changes(footer=(*out.footer, *comments.lines_for(orphans)))
        return out
    finally:
        # visit and _rebuilt refer to each other: break the cycle so that the old tree and the
        # transformer are freed by reference counting, not left to the garbage collector.
        visit = _pruned = None  # type: ignore[assignment]


# Above this share of a tree's nodes being of hooked types, marking the paths to them costs more
# than the visits it saves (a transformer hooking Name or Attribute is shown nearly every node).
_PRUNE_SHARE = 0.2


@cache
def _hooked_names(kind: type, base: type) -> frozenset[str]:
    """The node type names the transformer class defines a ``visit_X`` or ``leave_X`` for."""
    return frozenset(
        name.split("_", 1)[1]
        for name in dir(kind)
        if name.startswith(("visit_", "leave_")) and _overrides(kind, base, name)
    )


def _needed(hooks: _Hooks, index: TreeIndex) -> set[int] | None:
    """The ids of the indexed nodes that are, or contain, a node whose type the transformer hooks:
    the only ones whose visit can call one of its methods (and so change anything). A node outside
    this set is left as it is, exactly what visiting it would have done. None when pruning would
    not pay (hooked nodes are a large share of the tree)."""
    names = _hooked_names(hooks._kind, hooks._base)
    by_type = index._by_type
    hooked = [nodes for kind, nodes in by_type.items() if kind.__name__ in names]
    count = sum(len(nodes) for nodes in hooked)
    if count > _PRUNE_SHARE * len(index.children):
        return None
    return _ancestors(hooked, index.parents)


def _ancestors(groups: Iterable[Iterable[cst.CSTNode]], parents: dict[cst.CSTNode, cst.CSTNode]) -> set[int]:
    """The ids of these nodes and of every node above them."""
    needed: set[int] = set()
    add = needed.add
    for nodes in groups:
        for node in nodes:
            while node is not None and id(node) not in needed:
                add(id(node))
                node = parents.get(node)
    return needed


_QUIET: dict[tuple[type, type], dict[type, bool]] = {}  # (transformer class, base) -> node type -> quiet leaf?


def _quiet_leaves(hooks: _Hooks, index: TreeIndex) -> frozenset[type]:
    """The node types of the tree for which the transformer has no hook and which have no child
    fields: visiting one returns it as it is. (Both depend on the classes only: decided once per
    transformer class and node type, not for every tree and every family.)"""
    known = _QUIET.get((hooks._kind, hooks._base))
    if known is None:
        known = _QUIET[(hooks._kind, hooks._base)] = {}
    out = []
    for kind, nodes in index._by_type.items():
        if nodes:
            quiet = known.get(kind)
            if quiet is None:
                quiet = known[kind] = hooks._functions_of(kind) == (None, None) and not child_fields(nodes[0])
            if quiet:
                out.append(kind)
    return frozenset(out)


_STATEMENTS = frozenset(
    kind for kind in vars(cst).values()
    if isinstance(kind, type) and issubclass(kind, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
)


def _kept_statement(result: Any) -> bool:
    """Is ``result`` a statement (or several), not a removal? (A removed statement leaves its
    lost comments to the statement around it.)"""
    if isinstance(result, cst.RemovalSentinel):
        return False
    return type(result) is not cst.FlattenSentinel or bool(result.nodes)


def with_lines_above_all(result: Any, lines: list[cst.EmptyLine]) -> Any:
    """The statement ``result`` (or the first of several) with ``lines`` above it."""
    if type(result) is cst.FlattenSentinel:
        return cst.FlattenSentinel([with_lines_above(result.nodes[0], lines), *result.nodes[1:]])
    return with_lines_above(result, lines)


def comment_lines_above(statement: Any) -> list[cst.EmptyLine]:
    """The lines above a statement being removed, to keep (on the next one), if a comment is among them."""
    lines = getattr(statement, "leading_lines", ())
    return list(lines) if any(line.comment is not None for line in lines) else []


def with_lines_above(statement: Any, lines: list[cst.EmptyLine]) -> Any:
    return statement.with_changes(leading_lines=(*lines, *statement.leading_lines))


def _results(changed: dict[int, Any]) -> Callable[[Any], Any]:
    """The new node for each child that changed (by identity), the child itself for the others."""
    return lambda child: changed.get(id(child), child)
