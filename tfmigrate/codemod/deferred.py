"""Helper texts written into a module, kept out of the families' way until the rewrite ends.

A family that writes a helper into a user's module (TFM180/TFM181's ``LegacyHParams``, TFM175/TFM608's
vendored contrib functions) writes the helper's final text: no later family and no later pass changes
it. Yet every family after it and the whole confirming pass walked, indexed and generated those
lines again: a 43-line test that got the 237-line HParams helper cost what a 280-line module costs.

So the engine swaps the helper's statements for **stubs** as soon as the family has written them
(:func:`defer`): each ``def``/``class`` keeps its header (decorators, name, parameters, bases), its
docstring, and one expression statement that reads the module-level names its body reads (so the
index sees the same bindings and the same reads of each import: no family removes an import the
helper needs, nor writes a helper twice); any other statement is kept as it is. The families run on
the stubs; the texts they see for their own decisions (``wanted_by``, the findings' lines) are the
full texts, made by putting each helper's text back in place of its stubs' (:meth:`Deferred.expand`),
and the module's final text is made the same way. Where a stub block is not found once, exactly, in
a text (a family changed it) or a finding lies in one, :class:`Undeferred` is raised and the engine
rewrites the module again without deferring (``tests/test_deferred_helpers.py`` runs sources both
ways and compares).
"""

from __future__ import annotations

import builtins
import symtable
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.codemod.tree import is_docstring

_KEY = tuple[object, ...]
_CACHE: dict[_KEY, tuple[cst.CSTNode, cst.BaseStatement, str, str]] = {}  # key -> (statement kept alive, stub, text, stub text)
_CACHE_LIMIT = 512


class Undeferred(Exception):
    """The deferral cannot be undone exactly for this module: rewrite it without deferring."""


@dataclass
class _Block:
    stub_text: str  # the stubs' code, without the first stub's leading lines
    text: str  # the helper's code, the same way
    lines: int  # stub_text's line count
    extra: int  # text's line count minus stub_text's


@dataclass
class Deferred:
    """The helper blocks of one module that stand as stubs in its tree (shared by its passes)."""

    blocks: list[_Block] = field(default_factory=list)
    _last: tuple[str, str] | None = None

    def __bool__(self) -> bool:
        return bool(self.blocks)

    def expand(self, code: str) -> str:
        """``code`` (a text of the tree with stubs) with every helper's text in place of its stubs."""
        last = self._last
        if last is not None and last[0] is code:
            return last[1]
        out = code
        for block in self.blocks:
            if out.count(block.stub_text) != 1:
                raise Undeferred
            out = out.replace(block.stub_text, block.text)
        self._last = (code, out)
        return out

    def line_in_full(self, code: str, line: int) -> int:
        """A line of ``code`` (with stubs) in :meth:`expand`'s text; Undeferred where it lies in a stub block."""
        starts = []
        for block in self.blocks:
            at = code.find(block.stub_text)
            if at < 0:
                raise Undeferred
            starts.append((code.count("\n", 0, at) + 1, block))
        shift = 0
        for first, block in starts:  # blocks are disjoint; a finding's line moves by the blocks above it
            if line >= first + block.lines:
                shift += block.extra
            elif line >= first:
                raise Undeferred
        return line + shift


def _key(statement: cst.CSTNode, skip_leading: bool, config: tuple[str, str]) -> _KEY:
    names = [f for f in statement.__dataclass_fields__ if not (skip_leading and f == "leading_lines")]
    return (type(statement), skip_leading, config, *(id(getattr(statement, f)) for f in names))


def _global_reads(code: str) -> list[str]:
    """The names the code of one module-level statement reads from the module (or builtins), in a
    stable order: what its body needs the module to keep."""
    found: dict[str, None] = {}

    def scan(table: symtable.SymbolTable) -> None:
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (symbol.is_global() or (table.get_type() == "class" and not symbol.is_assigned()
                                                                    and not symbol.is_local())):
                found.setdefault(symbol.get_name())
        for child in table.get_children():
            scan(child)

    top = symtable.symtable(code, "<helper>", "exec")
    for child in top.get_children():  # the statement's own scopes (its body), not the module level it is on
        scan(child)
    return [n for n in found if n.isidentifier() and n not in ("__class__",)] or []


def _stub(statement: cst.BaseStatement, code: str) -> cst.BaseStatement:
    if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or not isinstance(statement.body, cst.IndentedBlock):
        return statement
    body: list[cst.BaseStatement] = []
    first = statement.body.body[0] if statement.body.body else None
    if first is not None and is_docstring(first):
        body.append(first)
    reads = _global_reads(code)
    if reads:
        value: cst.BaseExpression = cst.Name(reads[0]) if len(reads) == 1 else cst.Tuple(
            [cst.Element(cst.Name(n)) for n in reads])
        body.append(cst.SimpleStatementLine([cst.Expr(value)]))
    if not body:
        body.append(cst.SimpleStatementLine([cst.Pass()]))
    return statement.with_changes(body=statement.body.with_changes(body=body, footer=()))


def _stubbed(module: cst.Module, statement: cst.BaseStatement, skip_leading: bool) -> tuple[cst.BaseStatement, str, str]:
    """The statement's stub, its code and its stub's code (without the leading lines if ``skip_leading``)."""
    config = (module.default_indent, module.default_newline)
    key = _key(statement, skip_leading, config)
    found = _CACHE.get(key)
    if found is None:
        bare = statement.with_changes(leading_lines=()) if skip_leading else statement
        text = module.code_for_node(bare)
        stub = _stub(bare, text if skip_leading else module.code_for_node(statement.with_changes(leading_lines=())))
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        found = _CACHE[key] = (statement, stub, text, module.code_for_node(stub))
    _, stub, text, stub_text = found
    if skip_leading:
        stub = stub.with_changes(leading_lines=statement.leading_lines)
    return stub, text, stub_text


def defer(module: cst.Module, written: list[cst.BaseStatement], deferred: Deferred) -> cst.Module:
    """``module`` with the helper statements ``written`` (a family's, in ``module.body`` in a row) as
    stubs, recorded in ``deferred``; ``module`` itself where they are not found so."""
    body = list(module.body)
    at = next((i for i, s in enumerate(body) if s is written[0]), None)
    if at is None or len(body) < at + len(written) or any(a is not b for a, b in zip(body[at:], written)):
        return module
    stubs, texts, stub_texts = [], [], []
    for k, statement in enumerate(written):
        stub, text, stub_text = _stubbed(module, statement, skip_leading=k == 0)
        stubs.append(stub)
        texts.append(text)
        stub_texts.append(stub_text)
    stub_text, text = "".join(stub_texts), "".join(texts)
    if stub_text == text:
        return module
    deferred.blocks.append(_Block(stub_text, text, stub_text.count("\n"), text.count("\n") - stub_text.count("\n")))
    deferred._last = None
    return module.with_changes(body=(*body[:at], *stubs, *body[at + len(written):]))
