"""Adding and removing imports after a family's transform, without a second scope analysis.

The families ask for the same things libcst's ``AddImportsVisitor`` / ``RemoveImportsVisitor``
offer (and the output is the same: new ``import x as y`` lines go after the import block at the
top of the module; an import is removed only where nothing reads its name any more), but these
work from :class:`~tfmigrate.codemod.tree.TreeIndex` — one cheap walk — where libcst's copy the
tree and run a full scope analysis each time, which cost a third of a rewrite.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.codemod.notebook import MAGIC_COMMENT
from tfmigrate.codemod.tree import TreeIndex, dotted
from tfmigrate.codemod.walk import transform


# Names that code outside the module being rewritten reads (the other chunks of a huge module, see
# tfmigrate.codemod.chunks): the imports that bind them are never removed as unused.
READ_ELSEWHERE: ContextVar[frozenset[str]] = ContextVar("READ_ELSEWHERE", default=frozenset())
KEPT_FOR_ELSEWHERE: ContextVar[set[str] | None] = ContextVar("KEPT_FOR_ELSEWHERE", default=None)  # the names of those kept
# The module holds statements of other chunks, there to be seen (between ``__tfmigrate_chunk__ = 0``
# and ``__tfmigrate_context__ = 0``, and after ``__tfmigrate_after__ = 0``): what they read keeps no import.
CONTEXT: ContextVar[bool] = ContextVar("CONTEXT", default=False)
_CONTEXT_MARKERS = {"__tfmigrate_chunk__": True, "__tfmigrate_context__": False, "__tfmigrate_after__": True}  # -> inside the context


@dataclass
class ImportEdits:
    """Imports a transform wants added (``import module [as asname]``) or removed if unused."""

    added: list[tuple[str, str | None]] = field(default_factory=list)
    removed: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    # The index of the module apply() last returned, when it made one (to decide what to remove)
    # and nothing changed after: whoever indexes that module next can take it.
    indexed: TreeIndex | None = field(default=None, repr=False)

    def add(self, module: str, asname: str | None = None) -> None:
        if (module, asname) not in self.added:
            self.added.append((module, asname))

    def remove(self, module: str, obj: str | None = None, asname: str | None = None) -> None:
        """Drop ``import module [as asname]`` / ``from module import obj [as asname]`` if unused."""
        if (module, obj, asname) not in self.removed:
            self.removed.append((module, obj, asname))

    def remove_by_node(self, node: cst.CSTNode, index: TreeIndex) -> None:
        """Drop, if unused afterwards, the imports that bind the names ``node`` reads."""
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            self._remove_statement(node)
            return
        read = index.referenced_names(node)  # type: ignore[arg-type]
        for binding in index.imports:
            if binding.name in read:
                self._remove_binding(binding.statement, binding.alias)

    def _remove_statement(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:  # type: ignore[union-attr]
            self._remove_binding(node, alias)

    def _remove_binding(self, statement: cst.Import | cst.ImportFrom, alias: cst.ImportAlias) -> None:
        asname = dotted(alias.asname.name) if alias.asname is not None else None
        if isinstance(statement, cst.Import):
            self.remove(dotted(alias.name) or "", None, asname)
        elif statement.module is not None and not statement.relative:
            self.remove(dotted(statement.module) or "", dotted(alias.name), asname)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed)

    def apply(self, module: cst.Module, base: TreeIndex | None = None) -> cst.Module:
        """The module with the imports added and removed; ``base``: the index of the tree the
        transform made ``module`` from, if at hand (the index of ``module`` is derived from it)."""
        self.indexed = None
        index = None
        if self.removed:
            if base is not None and base.module is module:
                index = base
            else:
                index = (base.after(module) if base is not None else None) or TreeIndex.of(module)
        new = _remove_unused(module, index, self.removed) if index is not None else module
        if self.added:
            new = _add_missing(new, self.added)
        if index is not None:  # only import lines changed: the new tree's index from this one
            self.indexed = index if new is module else index.derived(new)
        return new


# --- removing ----------------------------------------------------------------------------------
def _remove_unused(module: cst.Module, index: TreeIndex, wanted: list[tuple[str, str | None, str | None]]) -> cst.Module:
    read = index.read_names()
    if CONTEXT.get():
        read &= _read_outside_context(module, index)
    elsewhere, kept_for_elsewhere = READ_ELSEWHERE.get(), KEPT_FOR_ELSEWHERE.get()
    exported = _exported_strings(module) if "__all__" in read or "__all__" in index.other_bindings else set()
    requested = set(wanted)
    doomed: set[cst.ImportAlias] = set()
    for binding in index.imports:
        alias, statement = binding.alias, binding.statement
        asname = dotted(alias.asname.name) if alias.asname is not None else None
        if isinstance(statement, cst.Import):
            key = (dotted(alias.name) or "", None, asname)
        elif statement.module is not None and not statement.relative:
            key = (dotted(statement.module) or "", dotted(alias.name), asname)
        else:
            continue
        if key in requested and binding.name not in read and binding.name not in exported:
            if binding.name not in elsewhere:
                doomed.add(alias)
            elif kept_for_elsewhere is not None:
                kept_for_elsewhere.add(binding.name)
    return transform(module, _DropAliases(doomed, index)) if doomed else module


def _marker(statement: cst.CSTNode) -> str | None:
    """The name a chunk's marker statement (``__tfmigrate_chunk__ = 0`` and the like) binds."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and statement.body else None
    if isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name):
        name = small.targets[0].target.value
        return name if name in _CONTEXT_MARKERS else None
    return None


def _read_outside_context(module: cst.Module, index: TreeIndex) -> set[str]:
    """The names the statements of a chunk's module read, those of other chunks left out."""
    found: set[str] = set()
    inside = False
    for statement in module.body:
        marker = _marker(statement)
        if marker is not None:
            inside = _CONTEXT_MARKERS[marker]
        elif not inside:
            found |= index.referenced_names(statement)  # type: ignore[arg-type]
    return found


def _exported_strings(module: cst.Module) -> set[str]:
    """Strings listed in a module-level ``__all__``: names exported, so in use."""
    found: set[str] = set()
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and isinstance(small.value, (cst.List, cst.Tuple)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets):
                        found.update(
                            e.value.evaluated_value for e in small.value.elements
                            if isinstance(e.value, cst.SimpleString) and isinstance(e.value.evaluated_value, str)
                        )
    return found


class _DropAliases(cst.CSTTransformer):
    """Removes the given aliases from import statements (the statement, when none is left)."""

    VISITS_TRIVIA = False  # on_visit descends along statements only

    def __init__(self, doomed: set[cst.ImportAlias], index: TreeIndex) -> None:
        super().__init__()
        self.doomed = doomed
        self.path: set[int] = set()  # ids of the import statements and everything above them
        for alias in doomed:
            node: cst.CSTNode | None = index.parents.get(alias)  # its Import / ImportFrom
            while node is not None and id(node) not in self.path:
                self.path.add(id(node))
                node = index.parents.get(node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.path  # the rest of the tree holds none of the doomed imports

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import | cst.RemovalSentinel:
        return self._keep(original, updated)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom | cst.RemovalSentinel:
        if isinstance(original.names, cst.ImportStar):
            return updated
        return self._keep(original, updated)

    def _keep(self, original, updated):  # type: ignore[no-untyped-def]
        names = original.names
        kept = [alias for alias in names if alias not in self.doomed]
        if len(kept) == len(names):
            return updated
        if not kept:
            return cst.RemoveFromParent()
        if kept[-1] is not names[-1]:  # no trailing comma left behind
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept)


# --- adding ------------------------------------------------------------------------------------
def _header_imports(statement: cst.CSTNode) -> list[cst.BaseSmallStatement] | None:
    """The imports of one statement of the module's import header, or None where the header ends. The header
    holds import lines (``import a; import b`` too), ``try:`` blocks of imports only, and a notebook's masked
    IPython lines (``%matplotlib inline`` above the imports of its cell: :data:`notebook.MAGIC_COMMENT`)."""
    if isinstance(statement, cst.SimpleStatementLine):
        if all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body):
            return list(statement.body)
        comment = statement.trailing_whitespace.comment
        if (len(statement.body) == 1 and isinstance(statement.body[0], cst.Pass) and comment is not None
                and comment.value.startswith(MAGIC_COMMENT)):
            return []
        return None
    if isinstance(statement, cst.Try) and isinstance(statement.body, cst.IndentedBlock) and statement.body.body:
        found: list[cst.BaseSmallStatement] = []
        for line in statement.body.body:
            imports = _header_imports(line) if isinstance(line, cst.SimpleStatementLine) else None
            if not imports:
                return None
            found += imports
        return found
    return None


def _add_missing(module: cst.Module, wanted: list[tuple[str, str | None]]) -> cst.Module:
    body = list(module.body)
    start = 1 if _starts_with_docstring(module) else 0
    end = start
    have: set[tuple[str, str | None]] = set()
    for statement in body[start:]:
        imports = _header_imports(statement)
        if imports is None:
            break
        end += 1
        for small in imports:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    have.add((dotted(alias.name) or "", dotted(alias.asname.name) if alias.asname else None))
    plain = sorted(m for m, asname in wanted if asname is None and (m, None) not in have)
    aliased = [(m, asname) for m, asname in wanted if asname is not None and (m, asname) not in have]
    if not plain and not aliased:
        return module
    config = module.config_for_parsing
    new = [cst.parse_statement(f"import {m}", config=config) for m in plain]
    new += [cst.parse_statement(f"import {m} as {asname}", config=config) for m, asname in aliased]
    rest = body[end:]
    if rest:
        first = rest[0]
        if not first.leading_lines:
            rest[0] = first.with_changes(leading_lines=(cst.EmptyLine(),))
        elif first.leading_lines[0].comment is not None:
            rest[0] = first.with_changes(leading_lines=(cst.EmptyLine(), *first.leading_lines))
    return module.with_changes(body=(*body[:end], *new, *rest))


def _starts_with_docstring(module: cst.Module) -> bool:
    if not module.body:
        return False
    first = module.body[0]
    return isinstance(first, cst.SimpleStatementLine) and len(first.body) >= 1 and (
        (isinstance(first.body[0], cst.Expr) and isinstance(first.body[0].value, cst.SimpleString))
        or (isinstance(first.body[0], cst.Assign) and dotted(first.body[0].targets[0].target) == "__strict__")
    )
