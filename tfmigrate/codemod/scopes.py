"""Scopes and assignments for the names most code uses, without libcst's full scope analysis.

libcst's ``ScopeProvider`` is exact and general; it is also the most expensive step of a rewrite
(a module-wide visit through libcst's rebuilding machinery, then access inference). The estimator
rules ask it two kinds of question: "which scope is this node in" (compared by identity) and "which
assignments of ``clf`` does this use see". This module answers both from the tree index for the
names whose binding is plain — bound only by ``x = ...`` statements, ``for``/``with`` targets,
``def``/``class`` statements, function parameters and imports, never declared ``global`` or
``nonlocal`` — and asks libcst, lazily and for that name only, about anything else (walrus,
comprehension variables, ``except ... as``, augmented or annotated assignments, ``del``, ``match``,
lambda parameters, star imports). Answers have the same shape as libcst's (``scope[name]`` gives
objects with ``.node`` and ``.scope``) and are equal to them: ``tests/test_fast_paths.py`` compares
them node by node on every sample and catalog example.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from tfmigrate.codemod.tree import TreeIndex

_BUILTINS = frozenset(dir(builtins))
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


@dataclass(frozen=True)
class Assignment:
    """One binding of a name: ``node`` is the bound Name (or the Param, def, class, import statement)."""

    name: str
    node: cst.CSTNode | None  # None for a builtin
    scope: Scope | None
    exact: Any = None  # libcst's own assignment, when libcst answered

    @property
    def references(self) -> list[Access]:
        """The reads of the name that see this assignment (libcst's ``Assignment.references``)."""
        if self.exact is not None:
            return [Access(ref.node) for ref in self.exact.references]
        if self.scope is None:
            return []
        return self.scope._scopes.references(self)


@dataclass(frozen=True)
class Access:
    node: cst.CSTNode


class Scope:
    """The scope a FunctionDef, ClassDef, Lambda, comprehension or the Module opens."""

    def __init__(self, scopes: Scopes, node: cst.CSTNode, parent: Scope | None) -> None:
        self._scopes, self.node, self.parent = scopes, node, parent

    @property
    def is_global(self) -> bool:
        return isinstance(self.node, cst.Module)

    def __getitem__(self, name: str) -> list[Assignment]:
        """The assignments a read of ``name`` in this scope can see (Python's lookup rules)."""
        return self._scopes.assignments(name, self)

    def __repr__(self) -> str:
        return f"Scope({type(self.node).__name__})"


class Scopes:
    """Fast scope questions over one indexed tree, falling back to ``libcst_scope(node)`` per name."""

    def __init__(self, index: TreeIndex, libcst_scope: Callable[[cst.CSTNode], Any]) -> None:
        self.index = index
        self._libcst_scope = libcst_scope
        self._scopes: dict[cst.CSTNode, Scope] = {}
        self._bindings: dict[str, list[tuple[cst.CSTNode, cst.CSTNode]]] | None = None  # name -> (node, owner)
        self._complex: set[str] = set()
        self._everything_complex = False

    # --- which scope a node is in --------------------------------------------------------------
    def scope_of(self, node: cst.CSTNode) -> Scope | None:
        owner = self._owner(node)
        return None if owner is None else self._scope(owner)

    def _scope(self, owner: cst.CSTNode) -> Scope:
        found = self._scopes.get(owner)
        if found is None:
            parent = None if isinstance(owner, cst.Module) else self.scope_of(owner)
            found = self._scopes[owner] = Scope(self, owner, parent)
        return found

    def _owner(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The node whose scope ``node`` is in (libcst's assignment of nodes to scopes)."""
        parents = self.index.parents
        if isinstance(node, cst.Module):
            return node
        child, parent = node, parents.get(node)
        while parent is not None:
            if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
                if child is parent.body:
                    return parent
                if child is parent.params and not _in_default_or_annotation(node, parent.params, parents):
                    return parent  # defaults and annotations are evaluated outside
            elif isinstance(parent, cst.ClassDef):
                if child is parent.body:
                    return parent
            elif isinstance(parent, _COMPREHENSIONS):
                # the first ``for`` (the node itself and its iterable) belongs to the enclosing scope
                if child is not parent.for_in or (node is not child and not _in_first_iter(node, parent.for_in, parents)):
                    return parent
            elif isinstance(parent, cst.Module):
                return parent
            child, parent = parent, parents.get(parent)
        return None

    # --- which assignments a name sees ---------------------------------------------------------------
    def plain(self, name: str) -> bool:
        """Is ``name`` bound only in the plain ways this module models (so answers need no libcst)?"""
        self._all_bindings()
        return not self._everything_complex and name not in self._complex

    def bindings(self, name: str) -> list[cst.CSTNode]:
        """Every node that binds ``name`` anywhere in the module (plain names)."""
        return [node for node, _ in self._all_bindings().get(name, [])]

    def assignments(self, name: str, scope: Scope) -> list[Assignment]:
        bindings = self._all_bindings()
        if name in self._complex or self._everything_complex:
            return self._from_libcst(name, scope)
        found = bindings.get(name, [])
        current: Scope | None = scope
        first = True
        while current is not None:
            # a class's names are not visible from the functions (or classes) nested in it
            if first or not isinstance(current.node, cst.ClassDef):
                here = [Assignment(name, node, current) for node, owner in found if owner is current.node]
                if here:
                    return here
            first = False
            current = current.parent
        return [Assignment(name, None, None)] if name in _BUILTINS else []

    def references(self, assignment: Assignment) -> list[Access]:
        """libcst's references of ``assignment``: reads that can see it *and come after it* in its
        own scope (libcst orders accesses and assignments by visit), a rule not worth copying for
        the one question that needs it (is an optimizer variable read anywhere else?)."""
        exact = self._libcst_scope(_inside(assignment.scope.node)) if assignment.scope is not None else None
        if exact is None:
            return []
        for candidate in exact[assignment.name]:
            if getattr(candidate, "node", None) is assignment.node:
                return [Access(ref.node) for ref in candidate.references]
        return []

    def _from_libcst(self, name: str, scope: Scope) -> list[Assignment]:
        exact = self._libcst_scope(_inside(scope.node))
        if exact is None:
            return []
        out = []
        for assignment in exact[name]:
            owner = getattr(assignment.scope, "node", None)
            if owner is None:  # GlobalScope has no node; BuiltinScope neither
                owner = self.index.module if not type(assignment.scope).__name__.startswith("Builtin") else None
            out.append(Assignment(name, getattr(assignment, "node", None), self._scope(owner) if owner is not None else None, assignment))
        return out

    def _all_bindings(self) -> dict[str, list[tuple[cst.CSTNode, cst.CSTNode]]]:
        if self._bindings is not None:
            return self._bindings
        index = self.index
        bindings: dict[str, list[tuple[cst.CSTNode, cst.CSTNode]]] = {}
        complex_names = self._complex

        def bind(name: str, node: cst.CSTNode, at: cst.CSTNode) -> None:
            owner = self._owner(at)
            if owner is not None:
                bindings.setdefault(name, []).append((node, owner))

        def plain_targets(target: cst.CSTNode, at: cst.CSTNode) -> None:
            if isinstance(target, cst.Name):
                bind(target.value, target, at)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    plain_targets(element.value, at)
            elif isinstance(target, cst.StarredElement):
                plain_targets(target.value, at)

        def mark(target: cst.CSTNode | None) -> None:
            if isinstance(target, cst.Name):
                complex_names.add(target.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    mark(element.value)
            elif isinstance(target, cst.StarredElement):
                mark(target.value)

        for node in index.nodes(cst.AssignTarget):
            plain_targets(node.target, node)
        for node in index.nodes(cst.For):
            plain_targets(node.target, node)
        for node in index.nodes(cst.WithItem):
            if node.asname is not None:
                plain_targets(node.asname.name, node)
        for node in index.nodes(cst.FunctionDef) + index.nodes(cst.ClassDef):
            bind(node.name.value, node, node)
        for node in index.nodes(cst.Param):
            function = index.parents.get(index.parents.get(node))
            if isinstance(function, cst.FunctionDef):
                bind(node.name.value, node, node)
            else:
                mark(node.name)  # lambda parameters
        for binding in index.imports:
            if binding.name:
                bind(binding.name.split(".")[0], binding.statement, binding.statement)
        # everything else goes to libcst, name by name
        for node in index.nodes(cst.AugAssign) + index.nodes(cst.AnnAssign) + index.nodes(cst.CompFor) + index.nodes(cst.NamedExpr) + index.nodes(cst.Del):
            mark(node.target)
        for node in index.nodes(cst.ExceptHandler) + index.nodes(cst.ExceptStarHandler):
            if node.name is not None:
                mark(node.name.name)
        for node in index.nodes(cst.Global) + index.nodes(cst.Nonlocal):
            for item in node.names:
                mark(item.name)
        for kind in (cst.MatchAs, cst.MatchStar):
            for node in index.nodes(kind):
                mark(node.name)
        for node in index.nodes(cst.MatchMapping):
            mark(node.rest)
        self._everything_complex = index.has_star_import  # a star import may bind anything
        self._bindings = bindings
        return bindings


def _inside(owner: cst.CSTNode) -> cst.CSTNode:
    """A node in the scope ``owner`` opens (libcst maps a def or class node to the scope around it)."""
    if isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
        return owner.body.body[0]  # a statement of the body (the block node itself has no scope)
    if isinstance(owner, cst.Lambda):
        return owner.body
    if isinstance(owner, cst.DictComp):
        return owner.key
    if isinstance(owner, _COMPREHENSIONS):
        return owner.elt
    return owner


def _in_first_iter(node: cst.CSTNode, for_in: cst.CompFor, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """Is ``node`` in the first ``for``'s iterable (evaluated in the enclosing scope)?"""
    current = node
    while current is not None and current is not for_in:
        if current is for_in.iter:
            return True
        current = parents.get(current)
    return False


def _in_default_or_annotation(node: cst.CSTNode, params: cst.Parameters, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    current, parent = node, parents.get(node)
    while parent is not None and current is not params:
        if isinstance(parent, cst.Param) and (current is parent.default or current is parent.annotation):
            return True
        current, parent = parent, parents.get(parent)
    return False
