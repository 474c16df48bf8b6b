"""Scopes and assignments for the names most code uses, without libcst's full scope analysis.

libcst's ``ScopeProvider`` is exact and general; it is also the most expensive step of a rewrite
(a module-wide visit through libcst's rebuilding machinery, then access inference). The estimator
rules ask it two kinds of question: "which scope is this node in" (compared by identity) and "which
assignments of ``clf`` does this use see". This module answers both from the tree index for the
names whose binding is plain — bound only by ``x = ...`` statements, ``for``/``with`` targets,
``def``/``class`` statements, function and lambda parameters, comprehension variables and imports,
never declared ``global`` or ``nonlocal`` — and asks libcst, lazily and for that name only, about
anything else (walrus, ``except ... as``, augmented or annotated assignments, ``del``, ``match``,
star imports). Answers have the same shape as libcst's (``scope[name]`` gives
objects with ``.node`` and ``.scope``) and are equal to them: ``tests/test_fast_paths.py`` compares
them node by node on every sample and catalog example.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from tfmigrate.codemod.tree import TreeIndex, attribute_or_keyword, target_names

# what libcst's BuiltinScope holds: hasattr(builtins, name), so also `__init__`, `__class__`, `__dict__`...
_BUILTINS = frozenset(dir(builtins)) | frozenset(dir(type(builtins)))
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

    @property
    def assignments(self) -> _LocalAssignments:
        """``scope.assignments[name]``: the bindings of ``name`` made in this very scope (libcst's)."""
        return _LocalAssignments(self)

    def __repr__(self) -> str:
        return f"Scope({type(self.node).__name__})"


class _LocalAssignments:
    def __init__(self, scope: Scope) -> None:
        self._scope = scope

    def __getitem__(self, name: str) -> list[Assignment]:
        return self._scope._scopes.local_assignments(name, self._scope)


class Scopes:
    """Fast scope questions over one indexed tree, falling back to ``libcst_scope(node)`` per name."""

    def __init__(
        self,
        index: TreeIndex,
        libcst_scope: Callable[[cst.CSTNode], Any],
        lines_of: Callable[[cst.CSTNode], tuple[int, int]] | None = None,
    ) -> None:
        self.index = index
        self._libcst_scope = libcst_scope
        self._lines_of = lines_of  # node -> (first line, last line)
        self._string_text: str | None = None
        self._binding_names: set[cst.CSTNode] = set()
        self._scopes: dict[cst.CSTNode, Scope] = {}
        self._bindings: dict[str, list[tuple[cst.CSTNode, cst.CSTNode]]] | None = None  # name -> (node, owner)
        self._complex: set[str] = set()
        self._everything_complex = False
        # `global x` / `nonlocal x` in a function or class: name -> {scope owner: "global" | "nonlocal"}
        self._declared: dict[str, dict[cst.CSTNode, str]] = {}
        self._declaration_nodes: dict[tuple[str, cst.CSTNode], cst.CSTNode] = {}  # (name, scope) -> its first declaration

    def release(self) -> None:
        """Break the cycles between these scopes and this object (each Scope refers back to it)."""
        self._scopes.clear()

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
        if type(node) is cst.Module:
            return node
        child, parent = node, parents.get(node)
        while parent is not None:
            kind = type(parent)  # exact types: isinstance with libcst's (ABC) classes is slow here
            if kind is cst.FunctionDef or kind is cst.Lambda:
                if child is parent.body:
                    return parent
                if child is parent.params and not _in_default_or_annotation(node, parent.params, parents):
                    return parent  # defaults and annotations are evaluated outside
            elif kind is cst.ClassDef:
                if child is parent.body:
                    return parent
            elif kind in _COMPREHENSIONS:
                # the first ``for`` (the node itself and its iterable) belongs to the enclosing scope
                if child is not parent.for_in or (node is not child and not _in_first_iter(node, parent.for_in, parents)):
                    return parent
            elif kind is cst.Module:
                return parent
            child, parent = parent, parents.get(parent)
        return None

    # --- which assignments a name sees ---------------------------------------------------------------
    def plain(self, name: str) -> bool:
        """Is ``name`` bound only in the plain ways this module models (so answers need no libcst)?"""
        self._all_bindings()
        return not self._everything_complex and name not in self._complex

    def declared(self, name: str) -> bool:
        """Is ``name`` declared ``global`` or ``nonlocal`` in some function or class? (A binding
        there lands in another scope at the point libcst visits it: a read in that scope before the
        def does not see it, which ``scope[name]``, like libcst's, does not tell.)"""
        self._all_bindings()
        return name in self._declared

    def is_binding(self, node: cst.CSTNode) -> bool:
        """Is ``node`` a Name that a plain binding binds (an assignment target, a def's name...)?"""
        self._all_bindings()
        return node in self._binding_names

    def bindings(self, name: str) -> list[cst.CSTNode]:
        """Every node that binds ``name`` anywhere in the module (plain names)."""
        return [node for node, _ in self._all_bindings().get(name, [])]

    def assignments(self, name: str, scope: Scope) -> list[Assignment]:
        bindings = self._all_bindings()
        if name in self._complex or self._everything_complex:
            return self._from_libcst(name, scope)
        found = bindings.get(name, [])
        declared = self._declared.get(name)
        current: Scope | None = scope
        first = True
        while current is not None:
            # a class's names are not visible from the functions (or classes) nested in it
            if first or not isinstance(current.node, cst.ClassDef):
                if declared is not None and current.node in declared:  # `global name` / `nonlocal name` here
                    current = self._scope(self._declared_target(current.node, declared[current.node]))
                    first = True  # never a class: the lookup goes on in that scope itself
                    continue
                here = [Assignment(name, node, current) for node, owner in found if owner is current.node]
                if here:
                    return here
            first = False
            current = current.parent
        return [Assignment(name, None, None)] if name in _BUILTINS else []

    def _declared_target(self, owner: cst.CSTNode, kind: str) -> cst.CSTNode:
        """The scope a ``global`` (the module) or ``nonlocal`` (the nearest enclosing scope that is
        not a class) declaration in ``owner`` sends the name to (libcst's ``_scope_overwrites``)."""
        if kind == "global":
            return self.index.module
        parent = self._owner(owner)
        while type(parent) is cst.ClassDef:
            parent = self._owner(parent)
        return parent if parent is not None else self.index.module

    def _binding_owner(self, name: str, owner: cst.CSTNode) -> cst.CSTNode:
        """The scope a binding made in ``owner`` is recorded in: ``owner``, or where the name's
        ``global`` / ``nonlocal`` declarations send it (libcst's ``_find_assignment_target``)."""
        declared = self._declared.get(name)
        for _ in range(1000):  # a chain of nonlocal declarations ends at the module
            if declared is None or owner not in declared:
                return owner
            owner = self._declared_target(owner, declared[owner])
        return owner

    def local_assignments(self, name: str, scope: Scope) -> list[Assignment]:
        """The bindings of ``name`` made in ``scope`` itself (not in the scopes around it)."""
        bindings = self._all_bindings()
        if name in self._complex or self._everything_complex:
            exact = self._libcst_scope(_inside(scope.node))
            if exact is None:
                return []
            # the scope's own assignments (a lookup from it may be sent elsewhere by `global name`)
            return [Assignment(name, getattr(a, "node", None), scope, a) for a in exact.assignments[name]]
        return [Assignment(name, node, scope) for node, owner in bindings.get(name, []) if owner is scope.node]

    def references(self, assignment: Assignment) -> list[Access]:
        """libcst's references of ``assignment``: the reads whose lookup finds it, where a read in
        the assignment's own scope counts only if it comes after it (libcst orders accesses and
        assignments by visit: for reads on later lines than the assignment that is source order).
        Only for ``name = ...``-style bindings; a read on the assignment's own line, or a name that
        also appears inside a string (libcst reads string annotations), is left to libcst.

        A function's or a lambda's parameter is bound before every read in its scope (libcst
        visits the parameters first; their defaults and annotations are read in the scope
        around): every read whose lookup finds it counts."""
        name, scope = assignment.name, assignment.scope
        if scope is None:
            return []
        statement = self._assign_statement(assignment.node)
        param = statement is None and self._own_param(assignment.node, scope) and not self.declared(name)
        if (statement is not None or param) and self.plain(name) and self._lines_of is not None and not self._in_strings(name):
            bound = self._binding_names
            parents = self.index.parents
            first, last = self._lines_of(statement) if statement is not None else (0, 0)  # the statement may span lines
            found = []
            for read in self.index.nodes(cst.Name):
                if read.value != name or read in bound or not _is_read(read, parents):
                    continue
                read_scope = self.scope_of(read)
                if read_scope is None or not any(a.node is assignment.node for a in read_scope[name]):
                    continue
                if read_scope is scope and not param:
                    line = self._lines_of(read)[0]
                    if first <= line <= last:
                        break  # a read within the assignment statement: libcst's visit order decides
                    if line < first:
                        continue
                found.append(Access(read))
            else:
                return found
        exact = self._libcst_scope(_inside(scope.node))
        if exact is None:
            return []
        for candidate in exact[name]:
            if getattr(candidate, "node", None) is assignment.node:
                return [Access(ref.node) for ref in candidate.references]
        return []

    def _own_param(self, node: cst.CSTNode | None, scope: Scope) -> bool:
        """Is ``node`` a parameter of the def or lambda that opens ``scope``?"""
        if type(node) is not cst.Param:
            return False
        owner = scope.node
        return (type(owner) is cst.FunctionDef or type(owner) is cst.Lambda) and self._owner(node) is owner

    def _assign_statement(self, node: cst.CSTNode | None) -> cst.SimpleStatementLine | None:
        """The statement line of a ``name = ...`` target (None for any other kind of binding)."""
        parents = self.index.parents
        target = parents.get(node) if isinstance(node, cst.Name) else None
        if not isinstance(target, cst.AssignTarget):
            return None
        line = parents.get(parents.get(target))
        return line if isinstance(line, cst.SimpleStatementLine) else None

    def _in_strings(self, name: str) -> bool:
        """Does ``name`` occur in a string libcst reads as code (an annotation, a cast/TypeVar argument)?"""
        if self._string_text is None:
            parents = self.index.parents
            texts = []
            for kind in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
                for node in self.index.nodes(kind):
                    if _read_as_code(node, parents):
                        texts.append(cst.Module([]).code_for_node(node))
            self._string_text = " ".join(texts)
        return name in self._string_text

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

        binding_names = self._binding_names

        def bind(name: str, node: cst.CSTNode, at: cst.CSTNode) -> None:
            if isinstance(node, cst.Name):
                binding_names.add(node)
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param)):
                binding_names.add(node.name)
            owner = self._owner(at)
            if owner is not None:
                if declared and name in declared:
                    owner = self._binding_owner(name, owner)
                bindings.setdefault(name, []).append((node, owner))

        def plain_targets(target: cst.CSTNode, at: cst.CSTNode) -> None:
            for name in target_names(target):
                bind(name.value, name, at)

        def mark(target: cst.CSTNode | None) -> None:
            complex_names.update(name.value for name in target_names(target))

        declared = self._declared_names(mark)
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
            bind(node.name.value, node, node)  # a def's or a lambda's parameter
        for binding in index.imports:
            if binding.name:
                bind(binding.name.split(".")[0], binding.statement, binding.statement)
        for node in index.nodes(cst.CompFor):  # `[x for x in xs]`: x is bound in the comprehension's scope
            for name in target_names(node.target):
                bind(name.value, name, name)
        # `x += 1`, `x: int = 1` (with or without a value), `(x := f())` bind x where they are, as
        # libcst records them (the walrus in its comprehension's scope, not the enclosing one);
        # `except E as e` binds e; `del x` is a read (libcst: an access in the DEL context).
        for node in index.nodes(cst.AugAssign) + index.nodes(cst.AnnAssign) + index.nodes(cst.NamedExpr):
            plain_targets(node.target, node)
        for node in index.nodes(cst.ExceptHandler) + index.nodes(cst.ExceptStarHandler):
            if node.name is not None:
                plain_targets(node.name.name, node)
        if declared:
            self._check_declarations(bindings, mark)
        # everything else goes to libcst, name by name
        for kind in (cst.MatchAs, cst.MatchStar):
            for node in index.nodes(kind):
                mark(node.name)
        for node in index.nodes(cst.MatchMapping):
            mark(node.rest)
        self._everything_complex = index.has_star_import  # a star import may bind anything
        self._bindings = bindings
        return bindings

    def _declared_names(self, mark: Callable[[cst.CSTNode | None], None]) -> dict[str, dict[cst.CSTNode, str]]:
        """The ``global`` and ``nonlocal`` declarations, by name and declaring scope. What libcst
        does in an order this module does not model goes to libcst (``mark``): ``nonlocal`` at
        module level, both kinds for one name in one scope, and declarations of one name in
        nested scopes (whose bindings' place would depend on visiting order)."""
        declared = self._declared
        where: dict[tuple[str, cst.CSTNode], cst.CSTNode] = {}
        for kind, label in ((cst.Global, "global"), (cst.Nonlocal, "nonlocal")):
            for node in self.index.nodes(kind):
                owner = self._owner(node)
                for item in node.names:
                    name = item.name.value
                    if owner is None or type(owner) is cst.Module:
                        if label == "nonlocal":
                            mark(item.name)  # libcst raises there; keep its answer (an error) as it was
                        continue  # `global x` at module level changes nothing
                    seen = declared.setdefault(name, {})
                    if seen.get(owner, label) != label:
                        mark(item.name)
                    seen[owner] = label
                    where.setdefault((name, owner), node)
        self._declaration_nodes = where
        for name, owners in declared.items():
            for owner in owners:
                parent = self._owner(owner)
                while parent is not None and type(parent) is not cst.Module:
                    if parent in owners:
                        self._complex.add(name)
                        break
                    parent = self._owner(parent)
        return declared

    def _check_declarations(
        self, bindings: dict[str, list[tuple[cst.CSTNode, cst.CSTNode]]], mark: Callable[[cst.CSTNode | None], None]
    ) -> None:
        """libcst applies a declaration to the bindings it visits after it: a binding in the
        declaring scope on or before the declaration's line (which Python rejects, but only when
        it compiles the module) goes to libcst."""
        lines_of = self._lines_of
        for (name, owner), statement in self._declaration_nodes.items():
            if name in self._complex:
                continue
            if lines_of is None:
                self._complex.add(name)
                continue
            line = lines_of(statement)[0]
            for node, _ in bindings.get(name, []):
                if self._owner(node) is owner and lines_of(node)[0] <= line:
                    self._complex.add(name)
                    break


_STRING_CODE_CALLS = {"cast", "TypeVar", "NewType", "ForwardRef", "TypeAliasType"}


def _read_as_code(string: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """Is this string inside an annotation or an argument of cast()/TypeVar()/...? (libcst reads those)"""
    node, parent = string, parents.get(string)
    while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
        if isinstance(parent, cst.Annotation):
            return True
        if isinstance(parent, cst.Call) and node is not parent.func:
            func = parent.func
            last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            if last in _STRING_CODE_CALLS:
                return True
        node, parent = parent, parents.get(parent)
    return False


def _is_read(name: cst.Name, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """Not an attribute's or a keyword's name, not part of an import, global or nonlocal statement."""
    parent = parents.get(name)
    if attribute_or_keyword(name, parent) or type(parent) is cst.NameItem:  # `global x` reads nothing (libcst)
        return False
    while isinstance(parent, (cst.Attribute, cst.AsName, cst.ImportAlias)):
        parent = parents.get(parent)
    return not isinstance(parent, (cst.Import, cst.ImportFrom))


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
