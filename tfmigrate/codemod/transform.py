"""The base class every rule family's libcst transform derives from.

A family transform is a libcst ``CSTTransformer``: it visits one module, rewrites
what its rules cover and reports findings through :meth:`FamilyTransform.fix` (a rewrite it is
about to apply) and :meth:`FamilyTransform.flag` (work left to the user). Both honour the rule
selection and ``# tfmigrate: ignore[...]`` comments, so a transform only decides *what* to do::

    def leave_Call(self, original, updated):
        if self.qualified_name(original.func) == "tensorflow.placeholder":
            if self.fix(original, "TFM501", "tf.placeholder is tf.compat.v1.placeholder in TF 2"):
                return updated.with_changes(func=...)
        return updated

Import bookkeeping goes through ``self.imports`` (:class:`~tfmigrate.codemod.imports.ImportEdits`),
applied after the transform. Parents and imported names come from one cheap walk of the tree
(:class:`~tfmigrate.codemod.tree.TreeIndex`), shared by the families while the tree is unchanged;
libcst's scope analysis runs only for the questions that need it.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass, field, replace
from collections.abc import Callable
from typing import Any, ClassVar

import libcst as cst
from libcst._metadata_dependent import _UNDEFINED_DEFAULT, LazyValue
from libcst.metadata import (
    ImportAssignment,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    QualifiedNameSource,
    ScopeProvider,
)

from tfmigrate.codemod.imports import ImportEdits
from tfmigrate.codemod.scopes import Scopes
from tfmigrate.codemod.screen import Screen
from tfmigrate.codemod.tree import TreeIndex, attribute_or_keyword, full_name
from tfmigrate.codemod.walk import transform
from tfmigrate.rule_ids import ALL as ALL_RULE_IDS

_BUILTINS = frozenset(dir(builtins))
_UNKNOWN = object()  # not in a cache
_SUPPRESS = re.compile(r"#\s*tfmigrate:\s*ignore(?:\[(?P<codes>[A-Za-z0-9,\s]*)\])?")
ALL = "*"


@dataclass
class RawFinding:
    """A finding in the coordinates of the text the transform saw (the engine maps lines)."""

    rule: str
    line: int
    col: int  # 1-based
    message: str
    fixable: bool


def suppressions(source: str) -> dict[int, frozenset[str]]:
    """Line number -> suppressed rule codes (``*`` for a bare ``# tfmigrate: ignore``)."""
    found: dict[int, frozenset[str]] = {}
    if "tfmigrate:" not in source:
        return found
    for number, line in enumerate(source.splitlines(), start=1):
        match = _SUPPRESS.search(line)
        if match:
            codes = match.group("codes")
            found[number] = frozenset([ALL]) if codes is None else frozenset(
                c.strip() for c in codes.split(",") if c.strip()
            )
    return found


def is_suppressed(rule_id: str, lines: range, table: dict[int, frozenset[str]]) -> bool:
    for line in (lines.start, lines.stop - 1):
        codes = table.get(line)
        if codes and (ALL in codes or any(rule_id.startswith(c) for c in codes)):
            return True
    return False


class UnknownRuleError(LookupError):
    """A transform reported a rule id the catalog lacks: a programming error (a mistyped id, or a
    rule whose catalog entry is missing), never dropped in silence."""


@dataclass(frozen=True)
class Context:
    """What a transform knows of its file: the name for messages, and the metadata wrapper.

    ``facts`` is what earlier families learned about the module that its rewritten code no longer
    shows (``"eager_program"``: the eager family removed the enable_eager_execution call that made
    it one); one set per file, shared by the families in their order."""

    filename: str = "<string>"
    wrapper: MetadataWrapper | None = None
    facts: set[str] = field(default_factory=set, hash=False, compare=False)
    run_rules: frozenset[str] = frozenset()  # every rule enabled in this run (a message may depend on what else ran)


EAGER_MODULE = "<eager module>"  # called in a module (a fact calls:<eager module>=1) that names tf.contrib.eager or enable_eager_execution
WANTED = "wanted:"  # a fact "wanted:TFM4": the whole module holds that family's needles (each chunk runs it)
CALLS = "calls:"  # a fact "calls:NAME=N": the whole module calls NAME N times (given to each chunk of a huge module)


def module_calls(facts: set[str], name: str) -> int | None:
    """How many times the whole module calls ``name`` (``name(...)`` or ``x.name(...)``) where this
    module is a chunk of it that does not hold them all (tfmigrate/codemod/chunks.py); None where it
    is the whole module or holds every such call. A decision that reads "the whole module" (how many
    constructors of a class are visible) compares it with what it sees, so a chunk decides as the
    whole module would."""
    prefix = f"{CALLS}{name}="
    found = next((f for f in facts if f.startswith(prefix)), None)
    return int(found[len(prefix):]) if found is not None else None


class FamilyTransform(cst.CSTTransformer):
    """One rule family's transform. Subclasses set ``FAMILY`` and override visitor methods.

    A plain libcst ``CSTTransformer`` (not a libcst codemod: the codemod package imports libcst's
    matchers, a quarter of a second at every start of a pre-commit hook)."""

    FAMILY: ClassVar[str] = ""
    # The words a module must hold before this family can change or report anything in it
    # (codemod/screen.py); None: no screen, the family runs wherever its catalog needles are.
    SCREEN: ClassVar[Screen | None] = None
    # Metadata is resolved lazily, on first use, from the wrapper the engine shares between the
    # families while the tree is unchanged: any provider can be asked for without declaring it.
    METADATA_DEPENDENCIES = ()

    def __init__(
        self,
        context: Context,
        enabled: frozenset[str],
        suppressed: dict[int, frozenset[str]],
        sink: list[RawFinding],
        known: frozenset[str] = ALL_RULE_IDS,
    ) -> None:
        super().__init__()
        self.context = context
        self.enabled_rules = enabled
        self.known_rules = known  # every id of the catalog in use (the engine passes its catalog's)
        self._suppressed = suppressed
        self._sink = sink
        self.imports = ImportEdits()
        self.index = TreeIndex()
        self.source = ""  # the module's code, when the engine has it (else ask the module)
        self._scopes: Scopes | None = None
        # the statements of a helper text this family wrote into the module body, in a row: final,
        # no family changes them (the engine keeps them out of the later families' way, codemod/deferred.py)
        self.written_helpers: list[cst.BaseStatement] = []

    @classmethod
    def warm_up(cls) -> None:
        """Load what every run of this family needs (data tables), once per process. The engine
        calls it before starting worker processes, which then inherit it instead of loading it."""

    # --- running -------------------------------------------------------------------------------
    def apply(self, wrapper: MetadataWrapper, index: TreeIndex | None = None) -> cst.Module:
        """Transform ``wrapper.module``; then add/remove the imports the transform asked for.

        ``index`` must describe ``wrapper.module`` (the engine shares one between families)."""
        self.context = replace(self.context, wrapper=wrapper)
        self.metadata = {}
        self.index = index or TreeIndex.of(wrapper.module)
        tree = transform(wrapper.module, self, self.index)
        return self.imports.apply(tree, self.index) if self.imports else tree

    @property
    def scopes(self) -> Scopes:
        """Scope questions (``scopes.scope_of(node)[name]``) answered from the index where the
        name's bindings are plain, by libcst's ScopeProvider otherwise (see codemod/scopes.py)."""
        if self._scopes is None or self._scopes.index is not self.index:
            # The callbacks hold the wrapper and the index, not this transform: the families keep
            # scopes in their plans, and a cycle back to the transform would keep every tree of a
            # run alive until the garbage collector came by.
            self._scopes = Scopes(self.index, _libcst_scopes(self.context.wrapper), _lines_in(self.index))
        return self._scopes

    def release(self) -> None:
        """Drop everything this transform holds once the engine is done with it: a transform often
        refers to itself (bound methods in its tables, callbacks it hands out) and its scopes to
        one another, and so to the trees it saw, which then wait for the garbage collector instead
        of going with reference counting."""
        if self._scopes is not None:
            self._scopes.release()
        vars(self).clear()

    def remove_imports_of(self, node: cst.CSTNode) -> None:
        """Drop the imports ``node`` (of the tree being transformed) reads, if unused afterwards."""
        self.imports.remove_by_node(node, self.index)

    def get_metadata(self, key: Any, node: cst.CSTNode, default: Any = _UNDEFINED_DEFAULT) -> Any:
        if key is ParentNodeProvider:  # from the index: a twelfth of libcst's cost
            parent = self.index.parents.get(node)
            if parent is None and default is _UNDEFINED_DEFAULT:
                raise KeyError(node)
            return default if parent is None else parent
        if key is PositionProvider:  # the same ranges, a quarter of the cost
            positions = self.index.positions
            return positions[node] if default is _UNDEFINED_DEFAULT else positions.get(node, default)
        table = self.metadata.get(key)
        if table is None:
            wrapper = self.context.wrapper
            if wrapper is None:
                raise KeyError(f"{key.__name__}: no metadata wrapper; run the transform through apply()")
            table = wrapper.resolve(key)  # cached on the wrapper for the next family
            self.metadata = {**self.metadata, key: table}
        value = table[node] if default is _UNDEFINED_DEFAULT else table.get(node, default)
        return value() if isinstance(value, LazyValue) else value

    # --- selection and reporting -------------------------------------------------------------
    def enabled(self, rule_id: str) -> bool:
        if rule_id in self.enabled_rules:
            return True
        self._check_known(rule_id)
        return False

    def _check_known(self, rule_id: str) -> None:
        if rule_id not in self.known_rules:
            raise UnknownRuleError(
                f"{type(self).__name__} reports {rule_id!r}, which the rule catalog lacks: "
                "add it to rules/*.toml and run tools/gen_rule_ids.py, or fix the id"
            )

    def _lines(self, node: cst.CSTNode) -> tuple[int, int, range]:
        code_range = self.get_metadata(PositionProvider, node)
        return code_range.start.line, code_range.start.column + 1, range(code_range.start.line, code_range.end.line + 1)

    def _report(self, node: cst.CSTNode, rule_id: str, message: str, fixable: bool) -> bool:
        if rule_id not in self.enabled_rules:
            self._check_known(rule_id)  # a disabled rule is silent; an unknown one is a bug
            return False
        line, col, lines = self._lines(node)
        if is_suppressed(rule_id, lines, self._suppressed):
            return False
        self._sink.append(RawFinding(rule_id, line, col, message, fixable))
        return True

    def fix(self, node: cst.CSTNode, rule_id: str, message: str) -> bool:
        """Record a fix at ``node``; True when the caller should apply it (enabled, not suppressed)."""
        return self._report(node, rule_id, message, fixable=True)

    def flag(self, node: cst.CSTNode, rule_id: str, message: str) -> bool:
        """Record work the user must do by hand at ``node``."""
        return self._report(node, rule_id, message, fixable=False)

    # --- names ---------------------------------------------------------------------------------
    def qualified_names(self, node: cst.CSTNode) -> set[QualifiedName]:
        try:
            return set(self.get_metadata(QualifiedNameProvider, node, set()))
        except KeyError:  # nodes created by this transform carry no metadata
            return set()

    def is_builtin(self, node: cst.CSTNode) -> bool:
        """Does the expression name a builtin (``len``, ``print``, ``str.join``)?"""
        index = self.index
        parent = index.parents.get(node)
        if parent is not None and not _in_import(parent, index):
            if attribute_or_keyword(node, parent) or type(parent) is cst.NameItem:  # `global x` reads nothing
                return False
            name = full_name(node)
            if name is None:
                return False
            head = name.partition(".")[0]
            if head not in _BUILTINS:
                return False
            if not index.binds_by_import(head) and head not in index.other_bindings:
                return True
            scopes = self.scopes  # `input = ...` somewhere: which binding does this read see?
            if not index.has_star_import and scopes.plain(head) and not scopes.declared(head) and not scopes.is_binding(node):
                scope = scopes.scope_of(node)
                if scope is not None:
                    seen = scope[head]
                    return bool(seen) and all(a.node is None for a in seen)  # only the builtin itself
        return any(q.source == QualifiedNameSource.BUILTIN for q in self.qualified_names(node))

    def qualified_name(self, node: cst.CSTNode) -> str | None:
        """The dotted name an expression refers to through an import (``tensorflow.train.Saver``).

        Answered from the import table when the chain's first name means the same everywhere in
        the module (the common case), else by libcst's scope analysis. Nodes the transform made
        (not in the tree it was given) have no name, either way."""
        index = self.index
        known = index.qualified_names  # the same question comes from each family, and per link of a chain
        key = id(node)  # stable: the index keeps its tree alive
        found = known.get(key, _UNKNOWN)  # (asked first: only nodes of the tree are in it, and a node's
        if found is not _UNKNOWN:  # hash, for the parent table, is a Python call)
            return found  # type: ignore[return-value]
        parent = index.parents.get(node)
        if parent is None:  # a node this transform made, or the module: only libcst can say (nothing)
            return self._imported_name(node)
        found = None
        if not attribute_or_keyword(node, parent):
            name = full_name(node)  # as libcst names it: `tf.Graph().x` -> tf.Graph.x
            if name is not None:
                head = name.partition(".")[0]
                if index.binds_by_import(head):
                    if _in_import(parent, index) or type(parent) is cst.NameItem:
                        found = None  # a name in an import (or global) statement is bound there, not read (libcst: no name)
                    elif index.resolvable(head):
                        found = index.qualified_name(name)
                    else:
                        found = self._scoped_import_name(node, name, head)
                elif head in index.module_aliases and type(parent) is not cst.AssignTarget:
                    _, _, rest = name.partition(".")  # `learn.DNNClassifier`, learn = tf.contrib.learn
                    target = index.module_aliases[head]
                    found = f"{target}.{rest}" if rest else target
        known[key] = found
        return found

    def names_bound_under(self, roots: frozenset[str]) -> set[str] | None:
        """The local names through which :meth:`qualified_name` can name something under one of
        the packages ``roots`` (:meth:`TreeIndex.names_bound_under`; None where a ``*`` import may
        bind any name).

        A family whose hooks act only on such names plans its walk with it (``planned_nodes``):
        the Names in this set are the first names of every chain it can act on."""
        return self.index.names_bound_under(roots)

    def chains_under(self, roots: frozenset[str]) -> list[cst.CSTNode] | None:
        """Where a planned walk (``planned_nodes``) of a family that acts on names under ``roots``
        starts: the first Name of every chain that can name something there (``names_bound_under``)
        and the import statements. None (walk every node) where a ``*`` import may bind any name."""
        bound = self.names_bound_under(roots)
        if bound is None:
            return None
        index = self.index
        return [name for name in index.nodes(cst.Name) if name.value in bound] + index.import_statements

    def _scoped_import_name(self, node: cst.CSTNode, name: str, head: str) -> str | None:
        """The imported name ``node`` refers to when ``head`` is bound by imports in several scopes
        (``def plot(): import matplotlib.pyplot as plt``) or also otherwise: the import bindings among
        the assignments the read sees (Python's lookup, from the index's scopes), when they name one
        target. What libcst's QualifiedNameProvider answers, without its module-wide scope analysis
        (which a file with one import inside a function paid for in every family)."""
        index, scopes = self.index, self.scopes
        if index.has_star_import or not scopes.plain(head) or scopes.declared(head):
            return self._imported_name(node)
        scope = scopes.scope_of(node)
        if scope is None:
            return self._imported_name(node)
        if scopes.is_binding(node):
            return _binding_import_name(scope[head], node, head)
        names: set[str] = set()
        _, _, rest = name.partition(".")
        for assignment in scope[head]:
            statement = assignment.node
            if type(statement) is cst.Import or type(statement) is cst.ImportFrom:
                targets = [b.target for b in index.imports if b.statement is statement and b.name == head]
                if "" in targets:  # a relative import (`from . import constants`): libcst's reading of it
                    names.update(_qualified_names_of(assignment, name))
                else:
                    names.update(f"{target}.{rest}" if rest else target for target in targets)
        return names.pop() if len(names) == 1 else None

    def names_seen_at(self, node: cst.CSTNode, name: str) -> set[str] | None:
        """The qualified names a read of ``name`` at ``node`` can mean: ``{q.name for q in
        scope.get_qualified_names_for(name)}`` of libcst's scope of ``node`` (None where libcst
        has no scope for it), answered from this module's scopes (codemod/scopes.py) where
        ``name`` is plain, so that one question does not cost a module-wide resolution."""
        index = self.index
        if "." not in name and not index.has_star_import and _scoped_by_libcst(node, index):
            scopes = self.scopes
            if scopes.plain(name):
                scope = scopes.scope_of(node)
                if scope is None:
                    return None
                found: set[str] = set()
                for assignment in scope[name]:
                    found.update(_qualified_names_of(assignment, name))
                return found
        exact = self.get_metadata(ScopeProvider, node, None)
        return None if exact is None else {q.name for q in exact.get_qualified_names_for(name)}

    def _imported_name(self, node: cst.CSTNode) -> str | None:
        names = {q.name for q in self.qualified_names(node) if q.source == QualifiedNameSource.IMPORT}
        return names.pop() if len(names) == 1 else None


def _binding_import_name(assignments: list[Any], node: cst.CSTNode, head: str) -> str | None:
    """What libcst's QualifiedNameProvider gives a name that a binding binds (``x`` of ``x = 1``, a
    def's or a parameter's name), reduced as ``_imported_name`` does: the names of the assignment
    that is the node itself (a local name: none imported), else the imported names of every
    assignment its scope sees (``import foo`` and ``def foo():`` in one scope: ``foo``)."""
    if any(a.node is node for a in assignments):
        return None
    names: set[str] = set()
    for assignment in assignments:
        statement = assignment.node
        if type(statement) is cst.Import or type(statement) is cst.ImportFrom:
            names.update(_qualified_names_of(assignment, head))
    return names.pop() if len(names) == 1 else None


_UNSCOPED_STATEMENTS = (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)


def _scoped_by_libcst(node: cst.CSTNode, index: TreeIndex) -> bool:
    """Is ``node`` an expression libcst's ScopeProvider gives a scope (an Attribute or a Call: not
    one inside an import, ``global`` or ``nonlocal`` statement, whose parts libcst does not visit)?"""
    if type(node) is not cst.Attribute and type(node) is not cst.Call:
        return False
    parent = index.parents.get(node)
    if parent is None:
        return False
    while parent is not None:
        if isinstance(parent, _UNSCOPED_STATEMENTS):
            return False
        if isinstance(parent, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            return True
        parent = index.parents.get(parent)
    return True


def _qualified_names_of(assignment: Any, name: str) -> set[str]:
    """libcst's ``assignment.get_qualified_names_for(name)`` names, for one of our assignments."""
    node = assignment.node
    if node is None:
        return {f"builtins.{name}"}
    if type(node) is cst.Import or type(node) is cst.ImportFrom:  # libcst's own reading of the statement
        return {q.name for q in ImportAssignment(name, None, node, 0, None).get_qualified_names_for(name)}  # type: ignore[arg-type]
    prefix = _name_prefix(assignment.scope)
    return {f"{prefix}.{name}" if prefix else name}


def _name_prefix(scope: Any) -> str:
    """libcst's ``Scope._name_prefix``: ``f.<locals>``, ``C``, ``f.<locals>.<comprehension>``."""
    parts: list[str] = []
    while scope is not None and not scope.is_global:
        owner = scope.node
        kind = type(owner)
        if kind is cst.FunctionDef:
            parts += ["<locals>", owner.name.value]
        elif kind is cst.Lambda:
            parts.append("<locals>")
        elif kind is cst.ClassDef:
            parts.append(owner.name.value)
        else:
            parts.append("<comprehension>")
        scope = scope.parent
    return ".".join(reversed(parts))


def _in_import(parent: cst.CSTNode | None, index: TreeIndex) -> bool:
    while type(parent) is cst.Attribute:
        parent = index.parents.get(parent)
    kind = type(parent)
    return kind is cst.ImportAlias or kind is cst.ImportFrom or kind is cst.AsName


def _libcst_scopes(wrapper: MetadataWrapper | None) -> Callable[[cst.CSTNode], Any]:
    """libcst's scope of a node (None for nodes it has none for); resolved once, on first use."""

    def scope(node: cst.CSTNode) -> Any:
        if wrapper is None:
            raise KeyError("ScopeProvider: no metadata wrapper; run the transform through apply()")
        return wrapper.resolve(ScopeProvider).get(node)  # the wrapper caches it for the next family

    return scope


def _lines_in(index: TreeIndex) -> Callable[[cst.CSTNode], tuple[int, int]]:
    def lines_of(node: cst.CSTNode) -> tuple[int, int]:
        code_range = index.positions[node]
        return code_range.start.line, code_range.end.line

    return lines_of
