"""Which branch of each version guard of a module TensorFlow 2.15 takes, and the lines it never runs.

:func:`decide` reads a module's code with ``ast`` (its guards evaluated by :mod:`.evaluate`, never run):

* ``if G: ... elif ...: ... else: ...`` with ``G`` decided: the branch taken is live, the others dead;
* ``try: <S>; ... except E: ...`` whose first statement ``S`` certainly raises on TF 2.15 (it reads a name
  TF 2.15 lacks, ``tf.image_summary``, or imports ``tensorflow.contrib``) an exception the handler ``E``
  catches: the handler is live; the ``try`` body, its ``else`` and the other handlers are dead;
* a ``try`` body that certainly raises nothing (``X = tf.summary.image``, ``import tensorflow.compat.v1``):
  its handlers are dead;
* otherwise, a handler whose own first statement certainly raises (a fallback to a name TF 2.15 lacks,
  ``except AttributeError: deconv = tf.nn.deconv2d(...)``): it can only fail, as it fails in the
  original on TF 2.15, so it is dead as a version fallback: left as it is, without findings.

``dead`` holds the line ranges no rule should touch (:func:`quiet_lines`): a rule that rewrote a dead
``try`` body (``tf.image_summary`` -> ``tf.compat.v1.summary.image``) would make it live, and change which
branch runs.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache

from tfmigrate.transforms.guards.evaluate import (
    _BUILTIN_EXCEPTIONS, _CATCHES, TF, Module, Raised, Reader, Undecided, attribute, module_import,
    read_from_compat_v1,
)

SAFE = "safe"  # a statement that certainly raises nothing


@dataclass(frozen=True)
class TryVerdict:
    """``handler``: the index of the live handler when the body raises (``raises`` its exception);
    ``safe``: the body raises nothing; ``failing``: handlers that can only fail (a fallback to a missing name)."""

    raises: str | None = None
    handler: int | None = None
    safe: bool = False
    failing: tuple[int, ...] = ()


@dataclass
class Decisions:
    ifs: dict[int, bool] = field(default_factory=dict)  # line of an `if`/`elif` -> its truth on TF 2.15
    tries: dict[int, TryVerdict] = field(default_factory=dict)  # line of a `try`
    conditionals: dict[tuple[int, int], bool] = field(default_factory=dict)  # (line, column) of `a if G else b`
    getattrs: dict[tuple[int, int], str | None] = field(default_factory=dict)  # getattr(tf.m, "x"[, d]): "tf.m.x", or None: d
    dead: list[tuple[int, int]] = field(default_factory=list)  # first and last line of each dead block


def statement_effect(reader: Reader, statement: ast.stmt) -> str:
    """The exception ``statement`` certainly raises on TF 2.15, or SAFE; Undecided otherwise."""
    if isinstance(statement, ast.Pass):
        return SAFE
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if (raised := module_import(alias.name)) is not None:
                return raised
        return SAFE
    if isinstance(statement, ast.ImportFrom):
        if statement.level or not statement.module:
            raise Undecided("relative import")
        if (raised := module_import(statement.module)) is not None:
            return raised
        rel = statement.module[len(TF) + 1:] if statement.module != TF else ""
        for alias in statement.names:
            if alias.name == "*":
                raise Undecided("*")
            if attribute(rel, alias.name) is None:
                if read_from_compat_v1(f"{rel}.{alias.name}" if rel else alias.name):
                    raise Undecided("a name the rewrite imports from tf.compat.v1")
                return "ImportError"
        return SAFE
    if isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets):
        return expression_effect(reader, statement.value)
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
        return expression_effect(reader, statement.value)
    if isinstance(statement, (ast.Expr, ast.Return)) and statement.value is not None:
        return expression_effect(reader, statement.value)
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        found = expression_effect(reader, statement.value)  # evaluated before its targets
        if found != SAFE:
            return found
    raise Undecided(type(statement).__name__)


def expression_effect(reader: Reader, node: ast.expr) -> str:
    """What evaluating ``node`` certainly does first: raise (the exception), or nothing at all (SAFE)."""
    if isinstance(node, ast.Constant):
        return SAFE
    if isinstance(node, (ast.Name, ast.Attribute)):
        qualified = reader.qualify(node)
        if qualified is None or not (qualified == TF or qualified.startswith(TF + ".")):
            raise Undecided("not tensorflow")
        try:
            reader.value(node)
        except Raised as raised:
            return raised.kind
        return SAFE
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and reader._builtin(node.func, node.func.id):
            try:
                reader.value(node)
            except Raised as raised:
                return raised.kind
            return SAFE
        found = expression_effect(reader, node.func)  # the callee is evaluated before the arguments
        if found != SAFE:
            return found
        raise Undecided("a call")
    if isinstance(node, (ast.Subscript, ast.BinOp)):
        first = node.value if isinstance(node, ast.Subscript) else node.left
        found = expression_effect(reader, first)
        if found != SAFE:
            return found
    raise Undecided(type(node).__name__)


def catches(reader: Reader, handler: ast.ExceptHandler, kind: str) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for name in kinds:
        if not isinstance(name, ast.Name) or not reader._builtin(name, name.id) or name.id not in _BUILTIN_EXCEPTIONS:
            raise Undecided("handler")
        if kind in _CATCHES.get(name.id, ()):
            return True
    return False


def _effect(reader: Reader, statement: ast.stmt) -> str | None:
    try:
        return statement_effect(reader, statement)
    except Undecided:
        return None


def try_verdict(reader: Reader, node: ast.Try) -> TryVerdict | None:
    first = _effect(reader, node.body[0])
    if first is not None and first != SAFE:
        try:
            for i, handler in enumerate(node.handlers):
                if catches(reader, handler, first):
                    return TryVerdict(raises=first, handler=i)
        except Undecided:
            return None
        return None  # not caught: the program stops there either way
    if first == SAFE and all(_effect(reader, s) == SAFE for s in node.body[1:]) and node.handlers:
        return TryVerdict(safe=True)
    failing = tuple(i for i, h in enumerate(node.handlers) if _effect(reader, h.body[0]) not in (None, SAFE))
    return TryVerdict(failing=failing) if failing else None


def _span(statements: list[ast.stmt]) -> tuple[int, int]:
    return statements[0].lineno, max(s.end_lineno or s.lineno for s in statements)


class _Collector:
    def __init__(self, reader: Reader, lines: list[str]):
        self.reader = reader
        self.lines = lines
        self.out = Decisions()

    def _column(self, node: ast.AST) -> tuple[int, int]:
        """(line, column in characters): ast counts UTF-8 bytes, libcst characters."""
        text = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return node.lineno, len(text.encode("utf-8")[: node.col_offset].decode("utf-8", "replace"))

    def decide_test(self, node: ast.If | ast.IfExp) -> bool:
        """Record the truth of an `if`/`elif` or a conditional expression; True when decided."""
        try:
            truth = self.reader.truth(node.test)
        except (Undecided, Raised):
            return False
        if isinstance(node, ast.IfExp):
            self.out.conditionals[self._column(node)] = truth
            return True
        self.out.ifs[node.lineno] = truth
        dead = node.orelse if truth else node.body
        if dead:
            self.out.dead.append(_span(dead))
        return True

    def visit_Try(self, node: ast.Try) -> None:
        verdict = try_verdict(self.reader, node)
        if verdict is not None:
            self.out.tries[node.lineno] = verdict
            if verdict.handler is not None:
                self.out.dead.append(_span(node.body))
                if node.orelse:
                    self.out.dead.append(_span(node.orelse))
                self.out.dead.extend(_span(h.body) for i, h in enumerate(node.handlers) if i != verdict.handler)
            elif verdict.safe:
                self.out.dead.extend(_span(h.body) for h in node.handlers)
            else:
                self.out.dead.extend(_span(node.handlers[i].body) for i in verdict.failing)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (isinstance(func, ast.Name) and func.id == "getattr" and self.reader._builtin(func, "getattr")
                and len(node.args) in (2, 3) and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
            try:
                target = self.reader.value(node.args[0])
                name = self.reader.value(node.args[1])
                if isinstance(target, Module) and isinstance(name, str) and name.isidentifier():
                    found = attribute(target.rel, name)
                    if found is not None:
                        self.out.getattrs[self._column(node)] = name
                    elif len(node.args) == 3 and not isinstance(node.args[2], ast.Constant):  # `x = getattr(tf, "y", None)` stays
                        self.out.getattrs[self._column(node)] = None
            except (Undecided, Raised):
                pass


GUARD_TEXT = re.compile(r"hasattr\(|getattr\(|\bdir\(|__version__|VERSION|"
                        r"except\s*(?::|\(|AttributeError|ImportError|ModuleNotFoundError|Exception|BaseException)")


def mentions_guards(code: str) -> bool:
    return "tensorflow" in code and GUARD_TEXT.search(code) is not None


@lru_cache(maxsize=8)
def decide(code: str) -> Decisions:
    """Every decided guard of ``code`` (a module's text); no decision for code that does not parse."""
    if not mentions_guards(code):
        return Decisions()
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Decisions()
    reader = Reader(tree)
    collector = _Collector(reader, code.splitlines())
    skipped: set[int] = set()  # the nodes of decided tests: they go with their guard
    try:
        for node in reader.bindings.candidates:
            if id(node) in skipped:
                continue
            kind = type(node)
            if kind is ast.If or kind is ast.IfExp:
                if collector.decide_test(node):
                    skipped.update(id(n) for n in ast.walk(node.test))
            elif kind is ast.Try:
                collector.visit_Try(node)
            else:
                collector.visit_Call(node)
    except RecursionError:
        return Decisions()
    return collector.out


def quiet_lines(code: str) -> dict[int, frozenset[str]]:
    """Line -> ``{"*"}`` for every line of a block TensorFlow 2.15 never runs: no rule rewrites or reports there."""
    every = frozenset({"*"})
    return {line: every for first, last in decide(code).dead for line in range(first, last + 1)}
