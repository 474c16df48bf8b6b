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
from collections.abc import Container, Iterator
from functools import cache

import libcst as cst

from tfmigrate.codemod.positions import TRIVIA, Positions
from tfmigrate.codemod.screen import EMPTY_STRING, IDENTIFIER, string_words

_CST = cst.CSTNode
# roots whose module aliases (``learn = tf.contrib.learn``) resolve like imports
ALIAS_ROOTS = frozenset({"tensorflow", "skflow"})
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


def child_nodes(node: cst.CSTNode, trivia: bool = True) -> list[cst.CSTNode]:
    """The node's children, in the order libcst visits them (without tokens/whitespace if not ``trivia``)."""
    out: list[cst.CSTNode] = []
    keep = is_node if trivia else is_indexed
    for name in visit_order(node) if trivia else child_fields(node):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            out.extend(item for item in value if keep(type(item)))
        elif keep(kind):
            out.append(value)
    return out


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


def is_docstring(statement: cst.CSTNode) -> bool:
    """A statement line holding only a string (a module's, class's or function's docstring)."""
    return (
        type(statement) is cst.SimpleStatementLine
        and len(statement.body) == 1
        and type(statement.body[0]) is cst.Expr
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def is_import_block(statement: cst.CSTNode) -> bool:
    """Imports only: an import line, an import in a one-line suite, or a try/if whose body imports
    (``try: import cPickle as pickle``): where code written after the imports must go past."""
    if isinstance(statement, (cst.Import, cst.ImportFrom)):
        return True
    if isinstance(statement, cst.SimpleStatementLine):
        return all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
    if isinstance(statement, (cst.Try, cst.If)):
        inner = statement.body.body
        return bool(inner) and all(is_import_block(s) for s in inner)
    return False


def keyword_arg(arg: cst.Arg, name: str) -> cst.Arg:
    """``arg`` passed as ``name=`` (unchanged when it already is), written ``name=value``."""
    if arg.keyword is not None and arg.keyword.value == name:
        return arg
    return arg.with_changes(
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def join_args(args: list[cst.Arg], trailing: bool = False, template: cst.Comma | None = None) -> list[cst.Arg]:
    """Commas between the args (keeping existing ones and their whitespace); an arg that has none gets
    ``template`` (the call's own separator, so one argument a line stays one argument a line), else
    ``, ``; the last keeps its comma only when ``trailing``."""
    between = without_comments(template) if template else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    out = []
    for i, arg in enumerate(args):
        last = i == len(args) - 1
        has = isinstance(arg.comma, cst.Comma)
        if last:
            if has and not trailing:
                arg = arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        elif not has:
            arg = arg.with_changes(comma=between)
        out.append(arg)
    return out


def without_comments(comma: cst.Comma) -> cst.Comma:
    """``comma`` with the same layout, without the comments in its whitespace (a separator copied
    for its layout must not copy the comment of the argument it came from)."""
    space = comma.whitespace_after
    if not isinstance(space, cst.ParenthesizedWhitespace):
        return comma
    if space.first_line.comment is None and all(line.comment is None for line in space.empty_lines):
        return comma
    return comma.with_changes(whitespace_after=space.with_changes(
        first_line=cst.TrailingWhitespace(newline=space.first_line.newline), empty_lines=[]
    ))



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
    kind = type(target)
    if kind is cst.Name:
        yield target  # type: ignore[misc]
    elif kind is cst.Tuple or kind is cst.List:
        for element in target.elements:  # type: ignore[union-attr]
            yield from target_names(element.value)
    elif kind is cst.StarredElement:
        yield from target_names(target.value)  # type: ignore[union-attr]


def _target_names(target: cst.CSTNode) -> Iterator[str]:
    return (name.value for name in target_names(target))


def _bound_names(node: cst.CSTNode) -> Iterator[str]:
    """The names a binding node (an assignment target, a def, a parameter, ``as x`` outside an
    import...) binds."""
    if type(node) is cst.AsName:
        yield from _target_names(node.name)
        return
    for field in _BINDERS[type(node)]:
        value = getattr(node, field)
        for target in value if type(value) in _SEQUENCES else (value,):
            if type(target) is cst.NameItem:
                target = target.name
            if is_node(type(target)):
                yield from _target_names(target)


def attribute_or_keyword(name: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    """``x.name`` or ``f(name=...)``: a Name that reads no variable."""
    kind = type(parent)  # exact types: isinstance with libcst's (ABC) classes is slow, and this is hot
    return (kind is cst.Attribute and parent.attr is name) or (kind is cst.Arg and parent.keyword is name)  # type: ignore[union-attr]


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
        self._aliases: dict[str, str] | None = None
        self.qualified_names: dict[int, str | None] = {}  # id(node) -> FamilyTransform.qualified_name's answer
        self._imported: set[str] | None = None
        self._read_names: frozenset[str] | None = None  # read_names(), once asked
        self._positions: Positions | None = None
        self._words: frozenset[str] | None = None
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
            elif kind in _BINDERS or (kind is cst.AsName and type(parents.get(node)) is not cst.ImportAlias):
                index.other_bindings.update(_bound_names(node))
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

    def derived(self, module: cst.Module) -> TreeIndex | None:
        """The index of ``module``, a tree made from this index's tree by rebuilding nodes in place
        (``with_changes``), dropping nodes and inserting statements at module level — what the
        import edits do — from copies of these tables and a walk over the new nodes only.

        None when the change is of another kind (a node moved or inserted deeper, a binding
        changed, a node in two places): index that tree from scratch. The result equals
        ``TreeIndex.of(module)`` (``tests/test_fast_paths.py`` compares every table)."""
        if self.shared or self.module is None:
            return None
        edit = _Edit(self)
        if not edit.align(self.module, module):
            return None
        index = TreeIndex(module)
        parents, children = index.parents, index.children
        parents.update(self.parents)
        children.update(self.children)
        for node in edit.gone:
            del parents[node], children[id(node)]
        for old, _ in edit.swapped:
            parents.pop(old, None)  # the old module has no parent
            del children[id(old)]
        children.update(edit.children)
        for key, found in edit.children.items():
            parent = edit.new_nodes[key]
            for child in found:
                parents[child] = parent
        replacement = {id(old): new for old, new in edit.swapped}
        removed = {id(node) for node in edit.gone}
        touched = {type(new) for _, new in edit.swapped} | {type(node) for node in edit.gone}
        by_type = index._by_type
        for kind, nodes in self._by_type.items():
            if kind in touched:
                nodes = [replacement.get(id(node), node) for node in nodes if id(node) not in removed]
                if nodes:
                    by_type[kind] = nodes
            else:
                by_type[kind] = nodes.copy()
        statements = [replacement.get(id(s), s) for s in self.import_statements if id(s) not in removed]
        if edit.inserted:
            statements = index._insert_at_module_level(edit.inserted, statements)
        for statement in statements:
            index._add_import(statement, parents)  # type: ignore[arg-type]
        index.other_bindings = set(self.other_bindings)
        return index

    def after(self, module: cst.Module) -> TreeIndex | None:
        """The index of ``module``, a tree a transform made from this index's tree: the nodes it
        left alone are the same objects (``walk.transform`` rebuilds only the paths to what changed),
        whatever it changed or inserted, at any depth, is new. The parent and child tables are
        copied, then only the new nodes are walked (their fields read) and the old nodes no longer
        in the tree dropped; the per-type lists, imports and bindings come from a walk over the
        child table, in the same visiting order and by the same code as :meth:`of`, without reading
        any node's fields (a quarter of that walk's cost).

        None when a node object is in two places (an old one moved or copied, a new one put twice):
        index that tree from scratch (``of`` marks it shared). The result equals
        ``TreeIndex.of(module)`` (``tests/test_fast_paths.py`` compares every table after every
        family's changes over the samples, the catalog examples and the corpus)."""
        old = self.module
        if self.shared or old is None or module is old:
            return None
        old_children = self.children
        parents, children = dict(self.parents), dict(self.children)
        new_seen: set[int] = set()
        reused: set[int] = set()  # old nodes, each now the child of a new node: their subtrees are kept
        stack: list[cst.CSTNode] = [module]
        while stack:  # the new nodes: everything not in the old tables, read from their fields
            node = stack.pop()
            key = id(node)
            if key in new_seen:
                return None  # a new node in two places
            new_seen.add(key)
            found = children[key] = child_nodes(node, trivia=False)
            for child in found:
                parents[child] = node
                child_key = id(child)
                if child_key in old_children:
                    if child_key in reused:
                        return None  # an old node in two places
                    reused.add(child_key)
                else:
                    stack.append(child)
        reached = 0
        stack = [old]
        while stack:  # the old nodes no longer in the tree: from the old root down to the kept ones
            node = stack.pop()
            parents.pop(node, None)
            del children[id(node)]
            for child in old_children[id(node)]:
                if id(child) in reused:
                    reached += 1
                else:
                    stack.append(child)
        if reached != len(reused):
            return None  # an old node kept in its place is also in a new one (moved or copied)
        index = TreeIndex(module)
        index.parents, index.children = parents, children
        by_type = index._by_type
        stack = [module]
        pop, extend = stack.pop, stack.extend
        while stack:  # of()'s walk, over the child table
            node = pop()
            kind = type(node)
            same = by_type.get(kind)
            if same is None:
                by_type[kind] = [node]
            else:
                same.append(node)
            if kind is cst.Import or kind is cst.ImportFrom:
                index._add_import(node, parents)
            elif kind in _BINDERS or (kind is cst.AsName and type(parents.get(node)) is not cst.ImportAlias):
                index.other_bindings.update(_bound_names(node))
            extend(reversed(children[id(node)]))
        return index

    def _insert_at_module_level(self, inserted: set[int], statements: list[cst.CSTNode]) -> list[cst.CSTNode]:
        """Enter the module's new top-level statements (ids in ``inserted``, their tables already
        made) in the per-type lists at their place in visiting order, counting the nodes of each
        type before them; returns the import statements with the new ones in place."""
        by_type, children = self._by_type, self.children
        before: dict[type, int] = {cst.Module: 1}
        last = max(i for i, node in enumerate(children[id(self.module)]) if id(node) in inserted)
        for statement in children[id(self.module)][: last + 1]:
            new = id(statement) in inserted
            stack = [statement]
            while stack:
                node = stack.pop()
                kind = type(node)
                at = before.get(kind, 0)
                if new:
                    by_type.setdefault(kind, []).insert(at, node)
                    if kind is cst.Import or kind is cst.ImportFrom:
                        statements.insert(before.get(cst.Import, 0) + before.get(cst.ImportFrom, 0), node)
                before[kind] = at + 1
                stack.extend(reversed(children[id(node)]))
        return statements

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

    def names_bound_under(self, roots: frozenset[str]) -> set[str] | None:
        """The local names through which a qualified name can name something under one of the
        packages ``roots`` (``{"tensorflow"}``): the names an import binds to one of them anywhere in
        the module (or that a relative import binds: libcst reads those), and the module aliases (all
        under :data:`ALIAS_ROOTS`). Any other chain's qualified name is None or another package's.
        None where a ``*`` import may bind any name."""
        if self.has_star_import:
            return None
        bound = {b.name for b in self.imports if not b.target or b.target.partition(".")[0] in roots}
        bound.update(self.module_aliases)
        return bound

    def nodes_with_ids(self, ids: Container[int]) -> list[cst.CSTNode]:
        """The nodes of the tree whose ids are in ``ids`` (the keys of a table keyed by identity)."""
        return [node for nodes in self._by_type.values() for node in nodes if id(node) in ids]

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
        positions.use_parents(self.parents)
        self._positions = positions

    @property
    def positions(self) -> Positions:
        """Every node's position (as libcst's PositionProvider), computed on first use."""
        if self._positions is None:
            if self.module is None:
                raise KeyError("no module indexed")
            self._positions = Positions(self.module, parents=self.parents)
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

    @property
    def module_aliases(self) -> dict[str, str]:
        """Local name -> dotted target for module aliases: ``learn = tf.contrib.learn`` or
        ``fc = layers.fully_connected``, a module-level assignment of a dotted name whose head is an
        import (or an earlier alias) into one of :data:`ALIAS_ROOTS`, where the name is bound by
        that assignment alone in the whole module (no other assignment, parameter, import, ``del``
        or ``global`` of it anywhere). Such a name means the same everywhere, like an import."""
        if self._aliases is None:
            self._aliases = self._find_aliases()
        return self._aliases

    def _find_aliases(self) -> dict[str, str]:
        parents = self.parents
        candidates: list[tuple[str, str]] = []
        for assign in self._by_type.get(cst.Assign, ()):
            if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
                continue
            line = parents.get(assign)
            if type(parents.get(line)) is not cst.Module:
                continue
            value = dotted(assign.value)
            if value is not None:
                candidates.append((assign.targets[0].target.value, value))
        if not candidates:
            return {}
        counts = self._binding_counts()
        imported = {b.name for b in self.imports}
        aliases: dict[str, str] = {}
        for name, value in candidates:  # in source order: an alias may build on an earlier one
            if counts.get(name) != 1 or name in imported or self.has_star_import:
                continue
            head, _, rest = value.partition(".")
            base = self.import_table.get(head) or aliases.get(head)
            if base is None:
                continue
            target = f"{base}.{rest}" if rest else base
            if target.partition(".")[0] in ALIAS_ROOTS:
                aliases[name] = target
        return aliases

    def _binding_counts(self) -> dict[str, int]:
        """How many times each name is bound anywhere in the module (any scope), imports aside."""
        counts: dict[str, int] = {}
        binders = [node for kind in _BINDERS for node in self._by_type.get(kind, ())]
        binders += [n for n in self._by_type.get(cst.AsName, ()) if type(self.parents.get(n)) is not cst.ImportAlias]
        for node in binders:
            for bound in _bound_names(node):
                counts[bound] = counts.get(bound, 0) + 1
        return counts

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

    # --- words (the families' screens, codemod/screen.py) ---------------------------------------------
    @property
    def words(self) -> frozenset[str]:
        """Every identifier the tree names (its Name nodes: variables, attributes, keywords, the parts of
        imports) and every identifier written inside its string literals, plus ``screen.EMPTY_STRING``
        where it writes ``""`` or ``''``: a superset of the words any family's reaction needs. From the
        per-type lists, once per tree (no walk)."""
        if self._words is None:
            found = {name.value for name in self._by_type.get(cst.Name, ())}
            for string in self._by_type.get(cst.SimpleString, ()):
                raw = string.value
                if raw in ('""', "''"):
                    found.add(EMPTY_STRING)
                elif "\\" in raw:
                    try:
                        evaluated = string.evaluated_value
                    except Exception:  # what literal_eval refuses: its raw words only
                        evaluated = None
                    found.update(string_words(raw, evaluated))
                else:
                    found.update(IDENTIFIER.findall(raw))
            for text in self._by_type.get(cst.FormattedStringText, ()):
                found.update(IDENTIFIER.findall(text.value))
            self._words = frozenset(found)
        return self._words

    # --- references --------------------------------------------------------------------------------
    def read_names(self) -> set[str]:
        """``referenced_names(module)`` for the indexed module, from its Name nodes (no walk); worked
        out once per index (the contrib, aliases and import-edit passes all ask), a new set each time."""
        if self._read_names is None:
            self._read_names = frozenset(self._names_read())
        return set(self._read_names)

    def _names_read(self) -> set[str]:
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


class _Edit:
    """How a tree differs from an indexed one it was made from (see :meth:`TreeIndex.derived`)."""

    def __init__(self, old: TreeIndex) -> None:
        self.old = old
        self.swapped: list[tuple[cst.CSTNode, cst.CSTNode]] = []  # (old node, the node rebuilt in its place)
        self.gone: list[cst.CSTNode] = []  # old nodes dropped, with everything in them
        self.inserted: set[int] = set()  # ids of new module-level statements
        self.children: dict[int, list[cst.CSTNode]] = {}  # id(new node) -> its children
        self.new_nodes: dict[int, cst.CSTNode] = {}

    def align(self, old: cst.CSTNode, new: cst.CSTNode, parent_kind: type | None = None) -> bool:
        """Pair ``new`` (rebuilt) with ``old`` and align their children: kept old nodes in the same
        order, rebuilt ones paired with the old node they were made from, the rest dropped (old)
        or inserted (new, at module level only). False when that does not describe the change."""
        kind = type(new)
        binds = _BINDERS.get(kind, ("name",) if kind is cst.AsName and parent_kind is not cst.ImportAlias else ())
        if any(getattr(old, field) is not getattr(new, field) for field in binds) or id(new) in self.children:
            return False  # the names it binds may have changed; or it is in two places
        self.swapped.append((old, new))
        found = self.children[id(new)] = child_nodes(new, trivia=False)
        self.new_nodes[id(new)] = new
        was = self.old.children[id(old)]
        place = {id(child): i for i, child in enumerate(was)}
        matched: list[int | None] = []  # per new child: its old counterpart's place, if any
        for child in found:
            at = place.get(id(child))
            if at is None and id(child) not in self.old.children:
                at = self._origin(child, old, place)
            matched.append(at)
        if kind is not cst.Module:  # at module level, a new statement is inserted (and an old one dropped)
            self._pair_slots(found, was, matched)
        kept = [at for at in matched if at is not None]
        if kept != sorted(set(kept)) or any(at is None and id(c) in self.old.children for c, at in zip(found, matched)):
            return False  # reordered, in two places, or moved here from elsewhere
        for child, at in zip(found, matched):
            if at is None:
                if kind is not cst.Module or not self._insert(child):
                    return False
            elif was[at] is not child and not self.align(was[at], child, kind):
                return False
        for i in set(range(len(was))) - set(kept):
            if not self._drop(was[i]):
                return False
        return True

    @staticmethod
    def _pair_slots(found: list[cst.CSTNode], was: list[cst.CSTNode], matched: list[int | None]) -> None:
        """New children with nothing old inside (a block emptied, an import line rewritten) and no
        counterpart yet are paired with the old children in the same slots: a run of them between
        two matched neighbours, as many and of the same types as the old children between those."""
        j = 0
        while j < len(matched):
            if matched[j] is not None:
                j += 1
                continue
            end = j
            while end < len(matched) and matched[end] is None:
                end += 1
            low = matched[j - 1] if j else -1
            high = matched[end] if end < len(matched) else len(was)
            if low is not None and high is not None and high - low - 1 == end - j:
                if all(type(was[low + 1 + k]) is type(found[j + k]) for k in range(end - j)):
                    matched[j:end] = range(low + 1, high)
            j = end

    def _origin(self, node: cst.CSTNode, parent: cst.CSTNode, place: dict[int, int]) -> int | None:
        """The place, among ``parent``'s old children, of the node a new ``node`` was rebuilt from:
        the old ancestor, below ``parent``, of the first old node inside ``node``."""
        old_children, old_parents = self.old.children, self.old.parents
        stack = [node]
        while stack:
            current = stack.pop()
            if id(current) in old_children:
                while current is not None:
                    above = old_parents.get(current)
                    if above is parent:
                        at = place.get(id(current))
                        return at if at is not None and type(current) is type(node) else None
                    current = above
                return None
            stack.extend(reversed(child_nodes(current, trivia=False)))
        return None

    def _insert(self, statement: cst.CSTNode) -> bool:
        self.inserted.add(id(statement))
        stack: list[tuple[cst.CSTNode, type | None]] = [(statement, None)]
        while stack:
            node, parent_kind = stack.pop()
            kind = type(node)
            if kind in _BINDERS or (kind is cst.AsName and parent_kind is not cst.ImportAlias) or id(node) in self.children:
                return False  # it binds a name otherwise than by an import; or it is in two places
            found = self.children[id(node)] = child_nodes(node, trivia=False)
            self.new_nodes[id(node)] = node
            stack.extend((child, kind) for child in found)
        return True

    def _drop(self, node: cst.CSTNode) -> bool:
        old_children, old_parents = self.old.children, self.old.parents
        stack = [node]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in _BINDERS or (kind is cst.AsName and type(old_parents.get(node)) is not cst.ImportAlias):
                return False  # a name bound otherwise than by an import goes away
            self.gone.append(node)
            stack.extend(old_children[id(node)])
        return True


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
