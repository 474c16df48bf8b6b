"""One cheap walk over a libcst tree: parents, import bindings and names bound otherwise.

libcst's own providers are exact and general, and slow for our budget: its ParentNodeProvider
alone costs twelve times this walk, and its scope analysis (behind qualified names) is the most
expensive step of a rewrite. Rule families ask three questions over and over — "what contains this
node", "which import does ``tf.train.Saver`` name", "is ``learn`` still used" — and this index
answers them from one iterative walk over the dataclass fields, done once per tree.

Qualified names come from the import table when that is unambiguous: every name an import binds
is bound by imports only, each to one target, at module level. Anything else (an alias re-bound by
an assignment or a parameter, an import inside a function, the same alias for two modules) is
marked unresolved here, and callers fall back to libcst's exact scope analysis.
"""

from __future__ import annotations

import dataclasses
import keyword
import re
import typing
from collections.abc import Iterator
from functools import cache

import libcst as cst

from tfmigrate.codemod.positions import TRIVIA, Positions

_CST = cst.CSTNode
_SEQUENCES = (list, tuple)


@cache
def is_node(kind: type) -> bool:
    """``issubclass(kind, CSTNode)``, memoised: CSTNode is an ABC, whose checks are slow."""
    return issubclass(kind, _CST)


@cache
def is_trivia(kind: type) -> bool:
    return issubclass(kind, TRIVIA)


class _FieldRecorder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        return None

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if attribute not in self.fields:
            self.fields.append(attribute)


_ORDER: dict[type, tuple[str, ...]] = {}


def visit_order(node: cst.CSTNode) -> tuple[str, ...]:
    """The node's fields in the order libcst visits them, learnt once per type from libcst itself
    (the ``on_visit_attribute`` calls its ``_visit_and_replace_children`` makes)."""
    kind = type(node)
    found = _ORDER.get(kind)
    if found is None:
        recorder = _FieldRecorder()
        node._visit_and_replace_children(recorder)
        found = _ORDER[kind] = tuple(recorder.fields)
    return found


def _annotated_types(annotation: object) -> Iterator[object]:
    """The classes a field annotation allows (``Sequence[Union[A, B]]`` -> A, B)."""
    args = typing.get_args(annotation)
    if not args:
        yield annotation
    for arg in args:
        if arg is not Ellipsis:
            yield from _annotated_types(arg)


@cache
def _holds_only_trivia(kind: type, field: str) -> bool:
    """Can this field of a node type hold only tokens/whitespace (or no node at all)? From the
    type annotations of libcst's dataclasses, which name exactly what each field holds."""
    return all(
        isinstance(allowed, type) and (issubclass(allowed, TRIVIA) or not issubclass(allowed, _CST))
        for allowed in _annotated_types(typing.get_type_hints(kind)[field])
    )


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(node: cst.CSTNode) -> tuple[str, ...]:
    """The node's fields that can hold a node other than a token or whitespace, in visiting order."""
    kind = type(node)
    found = _CHILD_FIELDS.get(kind)
    if found is None:
        found = _CHILD_FIELDS[kind] = tuple(f for f in visit_order(node) if not _holds_only_trivia(kind, f))
    return found


_INDEXED: dict[type, bool] = {}


def is_indexed(kind: type) -> bool:
    """Is a value of this type a node the index records (a node, not a token or whitespace)?"""
    found = _INDEXED.get(kind)
    if found is None:
        found = _INDEXED[kind] = is_node(kind) and not is_trivia(kind)
    return found


@cache
def _node_fields(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


def dotted(node: cst.CSTNode | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


_INTEGER = re.compile(r"[1-9][0-9]*|0")
_FLOAT = re.compile(r"[0-9]+\.[0-9]*|\.[0-9]+")
_PLAIN_STRING = re.compile(r'"[^"\\\n]*"|\'[^\'\\\n]*\'')  # quoted, no escapes, no prefix
_CONSTANTS = frozenset({"None", "True", "False"})


def expression(code: str) -> cst.BaseExpression:
    """``libcst.parse_expression(code)``; what rules write most (a dotted name such as
    ``tf.compat.v1.Session``, a number, a plain string) is built directly, a tenth of a parse (the
    same nodes, see the tests)."""
    if _DOTTED.fullmatch(code):
        parts = code.split(".")
        if not any(keyword.iskeyword(part) for part in parts) or (len(parts) == 1 and code in _CONSTANTS):
            node: cst.BaseExpression = cst.Name(parts[0])
            for part in parts[1:]:
                node = cst.Attribute(value=node, attr=cst.Name(part))
            return node
    elif _INTEGER.fullmatch(code):
        return cst.Integer(code)
    elif _FLOAT.fullmatch(code):
        return cst.Float(code)
    elif _PLAIN_STRING.fullmatch(code):
        return cst.SimpleString(code)
    return cst.parse_expression(code)


def full_name(node: cst.CSTNode) -> str | None:
    """``libcst.helpers.get_full_name_for_node`` (``tf.Graph().x`` -> ``tf.Graph.x``, quirks and
    all: ``(a + b).c`` -> ``None.c``), by exact type instead of a chain of abstract-class checks."""
    parts: list[str] = []
    while True:
        kind = type(node)
        if kind is cst.Name:
            parts.append(node.value)
            break
        if kind is cst.Attribute:
            parts.append(node.attr.value)
            node = node.value
            continue
        field = _NAMED_BY.get(kind)
        if field is None:
            if not parts:
                return None
            parts.append("None")
            break
        node = getattr(node, field)
    return ".".join(reversed(parts))


_NAMED_BY = {cst.Call: "func", cst.Subscript: "value", cst.FunctionDef: "name", cst.ClassDef: "name", cst.Decorator: "decorator"}


def target_names(target: cst.CSTNode | None) -> Iterator[cst.Name]:
    """The names an assignment target binds: ``a``, ``(a, [b, *c])``; not ``x.y`` or ``x[0]``."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def _target_names(target: cst.CSTNode) -> Iterator[str]:
    return (name.value for name in target_names(target))


def attribute_or_keyword(name: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    """``x.name`` or ``f(name=...)``: a Name that reads no variable."""
    return (isinstance(parent, cst.Attribute) and parent.attr is name) or (isinstance(parent, cst.Arg) and parent.keyword is name)


@dataclasses.dataclass(frozen=True)
class ImportBinding:
    """``import a.b as c`` binds ``c`` to ``a.b``; ``import a.b`` binds ``a`` to ``a``."""

    name: str
    target: str
    statement: cst.Import | cst.ImportFrom
    alias: cst.ImportAlias


class TreeIndex:
    """Facts about one tree, from one walk. Build with :meth:`of`."""

    def __init__(self, module: cst.Module | None = None) -> None:
        self.module = module
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.shared = False  # some node object appears twice: identity-keyed metadata would be wrong
        self.imports: list[ImportBinding] = []
        self.import_statements: list[cst.Import | cst.ImportFrom] = []
        self.other_bindings: set[str] = set()  # names bound by anything but an import
        self.nested_import_names: set[str] = set()  # names an import binds below module level
        self.has_star_import = False
        self._table: dict[str, str] | None = None
        self.qualified_names: dict[int, str | None] = {}  # id(node) -> FamilyTransform.qualified_name's answer
        self._imported: set[str] | None = None
        self._positions: Positions | None = None
        self._by_type: dict[type, list[cst.CSTNode]] = {}
        # id(node) -> its children (tokens and whitespace left out), in libcst's visiting order
        self.children: dict[int, list[cst.CSTNode]] = {}

    @classmethod
    def of(cls, module: cst.Module) -> TreeIndex:
        """Index ``module`` in one walk, in libcst's visiting order. Tokens and whitespace are
        skipped: nothing is ever asked about them, and they are half of all nodes."""
        index = cls(module)
        parents = index.parents
        by_type = index._by_type
        children = index.children
        fields_of, indexed = _CHILD_FIELDS, _INDEXED
        stack: list[cst.CSTNode] = [module]
        pop, extend = stack.pop, stack.extend
        seen = 0
        while stack:
            node = pop()
            kind = type(node)
            same = by_type.get(kind)
            if same is None:
                by_type[kind] = [node]
            else:
                same.append(node)
            if kind is cst.Import or kind is cst.ImportFrom:
                index._add_import(node, parents)
            elif kind in _BINDERS:
                for field in _BINDERS[kind]:
                    value = getattr(node, field)
                    targets = value if type(value) in _SEQUENCES else (value,)
                    for target in targets:
                        if isinstance(target, cst.NameItem):
                            target = target.name
                        if isinstance(target, _CST):
                            index.other_bindings.update(_target_names(target))
            elif kind is cst.AsName and type(parents.get(node)) is not cst.ImportAlias:
                index.other_bindings.update(_target_names(node.name))
            found: list[cst.CSTNode] = []
            fields = fields_of.get(kind)
            if fields is None:
                fields = child_fields(node)
            for field in fields:
                value = getattr(node, field)
                value_kind = type(value)
                if value_kind is tuple or value_kind is list:
                    for item in value:
                        wanted = indexed.get(type(item))
                        if wanted or (wanted is None and is_indexed(type(item))):
                            parents[item] = node
                            found.append(item)
                else:
                    wanted = indexed.get(value_kind)
                    if wanted or (wanted is None and is_indexed(value_kind)):
                        parents[value] = node
                        found.append(value)
            seen += len(found)
            children[id(node)] = found
            extend(reversed(found))
        index.shared = seen != len(parents)  # a node met twice was entered once in the table
        return index

    def is_within(self, node: cst.CSTNode, ancestor: cst.CSTNode, stop: type | None = None) -> bool:
        """Is ``node`` ``ancestor`` or below it (without crossing a ``stop`` node on the way up)?"""
        parents = self.parents
        while node is not None:
            if node is ancestor:
                return True
            if stop is not None and isinstance(node, stop):
                return False
            node = parents.get(node)
        return False

    def nodes(self, kind: type) -> list[cst.CSTNode]:
        """Every node of exactly this type, in libcst's visiting order (what ``m.findall`` returns)."""
        return self._by_type.get(kind, [])

    def _add_import(self, node: cst.Import | cst.ImportFrom, parents: dict[cst.CSTNode, cst.CSTNode]) -> None:
        self.import_statements.append(node)
        line = parents.get(node)
        at_module_level = isinstance(parents.get(line), cst.Module) if line is not None else False
        if isinstance(node, cst.Import):
            pairs = []
            for alias in node.names:
                full = dotted(alias.name) or ""
                if alias.asname is not None:
                    pairs.append((alias, _asname(alias), full))
                else:
                    head = full.split(".")[0]
                    pairs.append((alias, head, head))
        else:
            if isinstance(node.names, cst.ImportStar):
                self.has_star_import = True
                return
            module = dotted(node.module) if node.module is not None else None
            if node.relative or module is None:
                module = None
            pairs = []
            for alias in node.names:
                name = dotted(alias.name) or ""
                local = _asname(alias) if alias.asname is not None else name
                pairs.append((alias, local, f"{module}.{name}" if module else ""))
        for alias, local, target in pairs:
            self.imports.append(ImportBinding(local, target, node, alias))
            if not at_module_level:
                self.nested_import_names.add(local)

    def use_positions(self, positions: Positions) -> None:
        """Positions already computed for this index's module (by the code generation of its text)."""
        self._positions = positions

    @property
    def positions(self) -> Positions:
        """Every node's position (as libcst's PositionProvider), computed on first use."""
        if self._positions is None:
            if self.module is None:
                raise KeyError("no module indexed")
            self._positions = Positions(self.module)
        return self._positions

    # --- qualified names -------------------------------------------------------------------------
    @property
    def import_table(self) -> dict[str, str]:
        """Local name -> dotted target, for the names whose meaning is the same everywhere."""
        if self._table is None:
            targets: dict[str, set[str]] = {}
            for binding in self.imports:
                targets.setdefault(binding.name, set()).add(binding.target)
            self._table = {
                name: next(iter(found))
                for name, found in targets.items()
                if len(found) == 1 and "" not in found and name not in self.other_bindings and name not in self.nested_import_names
            }
        return self._table

    def binds_by_import(self, head: str) -> bool:
        """Could ``head`` refer to an import anywhere (an import binds it, or a ``*`` import might)?"""
        if self._imported is None:
            self._imported = {b.name for b in self.imports}
        return self.has_star_import or head in self._imported

    def module_binding_count(self, name: str) -> int | None:
        """How many bindings of ``name`` the module's top level has, when only module-level imports
        bind it (or nothing does); None when answering needs scope analysis."""
        if name in self.other_bindings or name in self.nested_import_names or self.has_star_import:
            return None
        return sum(1 for b in self.imports if b.name == name)

    def resolvable(self, head: str) -> bool:
        """Can :meth:`qualified_name` answer for chains starting with ``head`` without scope analysis?

        Yes when ``head`` is bound by imports only, all at module level and to one target, or when
        nothing in the module binds it at all (then it names no import, e.g. a builtin)."""
        if head in self.import_table:
            return True
        bound = head in self.other_bindings or any(b.name == head for b in self.imports)
        return not bound and not self.has_star_import

    def qualified_name(self, name: str) -> str | None:
        """The imported dotted name the local dotted ``name`` refers to, or None (see :meth:`resolvable`)."""
        head, _, rest = name.partition(".")
        target = self.import_table.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    # --- references --------------------------------------------------------------------------------
    def read_names(self) -> set[str]:
        """``referenced_names(module)`` for the indexed module, from its Name nodes (no walk)."""
        parents = self.parents
        found: set[str] = set()
        for name in self._by_type.get(cst.Name, ()):
            parent = parents.get(name)
            skip = _NOT_REFERENCES.get(type(parent))
            if skip is not None and any(getattr(parent, field) is name for field in skip):
                continue
            while type(parent) is cst.Attribute or type(parent) is cst.AsName or type(parent) is cst.ImportAlias:
                parent = parents.get(parent)
            if type(parent) is cst.Import or type(parent) is cst.ImportFrom:
                continue
            found.add(name.value)
        return found

    def referenced_names(self, module: cst.Module) -> set[str]:
        """Every name read somewhere in ``module`` outside import statements."""
        found: set[str] = set()
        stack: list[cst.CSTNode] = [module]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.Name:
                found.add(node.value)
                continue
            if kind is cst.Import or kind is cst.ImportFrom:
                continue
            skip = _NOT_REFERENCES.get(kind, ())
            for field in _node_fields(kind):
                if field in skip:
                    continue
                value = getattr(node, field)
                if type(value) in _SEQUENCES:
                    stack.extend(item for item in value if is_node(type(item)))
                elif is_node(type(value)):
                    stack.append(value)
        return found


def _asname(alias: cst.ImportAlias) -> str:
    return dotted(alias.asname.name) or "" if alias.asname is not None else ""


# node type -> fields holding names it binds (assignment targets, definitions, parameters...)
_BINDERS: dict[type, tuple[str, ...]] = {
    cst.AssignTarget: ("target",),
    cst.AnnAssign: ("target",),
    cst.AugAssign: ("target",),
    cst.For: ("target",),
    cst.CompFor: ("target",),
    cst.NamedExpr: ("target",),
    cst.FunctionDef: ("name",),
    cst.ClassDef: ("name",),
    cst.Param: ("name",),
    cst.Global: ("names",),
    cst.Nonlocal: ("names",),
    cst.Del: ("target",),
    cst.MatchAs: ("name",),
    cst.MatchStar: ("name",),
    cst.MatchMapping: ("rest",),
}

# Name fields that are never a read of a variable
_NOT_REFERENCES: dict[type, tuple[str, ...]] = {
    cst.Attribute: ("attr",),
    cst.Arg: ("keyword",),
    cst.FunctionDef: ("name",),
    cst.ClassDef: ("name",),
    cst.Param: ("name",),
}
