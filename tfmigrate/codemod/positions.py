"""Node positions from one plain code generation: libcst's ``PositionProvider`` at a quarter of the cost.

libcst's provider updates a line/column pair after every token (a regex split each time) and builds
two position objects for every node. Here code generation only records, per node, the index of its
first and last token; token indexes become lines and columns when a position is asked for, through
a table of the code's line starts. The ranges are the same as libcst's (syntactic positions where
a node declares them, whitespace-inclusive ones elsewhere): ``tests/test_fast_paths.py`` compares
every node of the samples and catalog examples.

A family changes a few statements of a tree; generating the new tree reuses, for every statement
(at any depth) the family left alone, the tokens and spans the previous generation made for it,
shifted to its new place. The hook for this is the one ``_codegen`` override below, on libcst's
``BaseStatement``: for any code generation but ours it is libcst's own; likewise the token and
whitespace classes skip the span hooks in ours. One more override makes all code generation
cheaper: the parentheses around expressions (see ``_Parenthesized``).
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

# Tokens and whitespace: half of all nodes, never asked about (no index, finding or rule looks at
# one), so no position is recorded for them; libcst's own constructors share default instances of
# these, so a tree that repeats one need not be copied either.
TRIVIA = (
    cst.BaseParenthesizableWhitespace, cst.Newline, cst.EmptyLine, cst.TrailingWhitespace, cst.Comment,
    cst.Dot, cst.Comma, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.ImportStar,
    cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
    cst.BaseUnaryOp, cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseAugOp,
)
TRIVIA_TYPES = frozenset(kind for kind in vars(cst).values() if isinstance(kind, type) and issubclass(kind, TRIVIA))
_UNRECORDED = TRIVIA_TYPES - {cst.RightParen, cst.ImportStar}  # these can end an import's syntactic range

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class _Syntactic:
    """The context manager ``record_syntactic_position`` returns: one per code generation (the
    ranges it closes are on the state's stack, ``with`` blocks being nested), cheaper than an
    object per node, let alone libcst's generator."""

    __slots__ = ("state",)

    def __init__(self, state: _RecordingState) -> None:
        self.state = state

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        state = self.state
        node, start_node, end_node, start = state.syntactic.pop()
        spans = state.spans
        if start_node is not None:
            start = spans[id(start_node)][0]
        end = spans[id(end_node)][1] if end_node is not None else len(state.tokens)
        spans[id(node)] = (start, end)


class _Generation:
    """One code generation's tokens and spans (``(id(node), span)`` in the order they were made;
    listed on first use, by the generation after it, if that one reuses anything)."""

    __slots__ = ("tokens", "_table", "_spans")

    def __init__(self, tokens: list[str], table: dict[int, tuple[int, int]]) -> None:
        self.tokens, self._table = tokens, table  # the recording state's own, filled as it generates
        self._spans: list[tuple[int, tuple[int, int]]] | None = None

    @property
    def spans(self) -> list[tuple[int, tuple[int, int]]]:
        if self._spans is None:
            self._spans = list(self._table.items())
        return self._spans


# A statement generated before: (the statement, the indentation it was generated under, the
# generation that made it, its first token and one past its last there, its first span and one
# past its last there, the ids of the statements nested in it, which are reusable with it).
_Generated = tuple[cst.CSTNode, tuple[str, ...], _Generation, int, int, int, int, tuple[int, ...]]


class _RecordingState(CodegenState):
    def __init__(self, module: cst.Module, reusable: dict[int, _Generated]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        # id(node) -> (first token, one past its last). Keyed by id: CSTNode.__hash__ is a Python
        # function, a cost on every node; the module outlives this table, so ids are stable.
        self.spans: dict[int, tuple[int, int]] = {}
        self._stack: list[int] = []
        self.popped_newline = False
        self.syntactic: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None, int]] = []  # open ranges
        self._closer = _Syntactic(self)
        self.reusable = reusable
        self.generation = _Generation(self.tokens, self.spans)  # for the next generation to reuse from
        self.generated: dict[int, _Generated] = {}  # what the next generation may reuse
        self._nested: list[list[int]] = []  # per statement being generated: the statements in it

    def before_codegen(self, node: cst.CSTNode) -> None:  # not called for tokens and whitespace
        self._stack.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        key = id(node)
        if key not in self.spans:
            self.spans[key] = (start, len(self.tokens))

    def pop_trailing_newline(self) -> None:
        """Kept for positions (libcst counts the module's last newline before dropping it); left out of the code."""
        self.popped_newline = bool(self.tokens)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):  # type: ignore[no-untyped-def,override]
        self.syntactic.append((node, start_node, end_node, len(self.tokens)))
        return self._closer

    def statement(self, statement: cst.BaseStatement, kwargs: dict[str, Any]) -> None:
        """Generate a statement (at any depth): the tokens and spans of the previous generation
        if it generated this very statement under the same indentation, else libcst's codegen."""
        tokens, spans = self.tokens, self.spans
        key, base, indent = id(statement), len(tokens), tuple(self.indent_tokens)
        done = self.reusable.get(key)
        if done is not None and done[0] is statement and done[1] == indent:
            _, _, generation, first, last, low, high, nested = done
            tokens.extend(generation.tokens[first:last])
            shift = base - first
            if shift:
                for node, (start, end) in generation.spans[low:high]:
                    spans[node] = (start + shift, end + shift)
            else:
                spans.update(generation.spans[low:high])
            generated, reusable = self.generated, self.reusable
            for inner in nested:
                generated[inner] = reusable[inner]
        else:
            low = len(spans)
            self._nested.append([])
            _libcst_codegen(statement, self, **kwargs)
            nested = tuple(self._nested.pop())
            done = (statement, indent, self.generation, base, len(tokens), low, len(spans), nested)
        self.generated[key] = done
        if self._nested:
            self._nested[-1].append(key)
            self._nested[-1].extend(nested)


_libcst_codegen = cst.CSTNode._codegen


def _statement_codegen(self: cst.BaseStatement, state: CodegenState, **kwargs: Any) -> None:
    if type(state) is _RecordingState:
        state.statement(self, kwargs)
    else:
        _libcst_codegen(self, state, **kwargs)


# Every statement, at module level or in a block, is generated through its ``_codegen``: defined
# here on libcst's BaseStatement, it lets a Positions generation reuse the statements a family
# left alone (inside a changed function too). For any other code generation it is libcst's own.
cst.BaseStatement._codegen = _statement_codegen  # type: ignore[method-assign]


def _token_codegen(self: cst.CSTNode, state: CodegenState, **kwargs: Any) -> None:
    if type(state) is _RecordingState:  # no span is recorded for tokens and whitespace
        self._codegen_impl(state, **kwargs)
    else:
        _libcst_codegen(self, state, **kwargs)


# Tokens and whitespace, half of all nodes, skip the span hooks in our generation altogether.
for _kind in _UNRECORDED:
    _kind._codegen = _token_codegen  # type: ignore[method-assign]


class _Parenthesized:
    """What libcst's ``_BaseParenthesizedNode._parenthesize`` does (its parentheses around the
    node's syntactic range), as a class: the generator-based context manager it is in libcst costs
    a tenth of all code generation, and every expression is generated through it."""

    __slots__ = ("node", "state", "syntactic")

    def __init__(self, node: Any, state: CodegenState) -> None:
        self.node, self.state = node, state

    def __enter__(self) -> None:
        state = self.state
        for lpar in self.node.lpar:
            lpar._codegen(state)
        self.syntactic = state.record_syntactic_position(self.node)
        self.syntactic.__enter__()

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool:
        self.syntactic.__exit__(kind, error, trace)
        if kind is None:
            state = self.state
            for rpar in self.node.rpar:
                rpar._codegen(state)
        return False


_ParenthesizedBase = next(k for k in cst.BaseExpression.__mro__ if k.__name__ == "_BaseParenthesizedNode")
_libcst_parenthesize = _ParenthesizedBase._parenthesize  # type: ignore[attr-defined]  # kept for the tests


def _parenthesize(self: Any, state: CodegenState) -> _Parenthesized:
    return _Parenthesized(self, state)


_ParenthesizedBase._parenthesize = _parenthesize  # type: ignore[attr-defined]


class _NoPosition:
    """What ``CodegenState.record_syntactic_position`` gives when no positions are recorded: a
    context that does nothing, as libcst's own does, without a generator per call (every operator
    and many expressions enter one)."""

    __slots__ = ()

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> bool:
        return False


_NO_POSITION = _NoPosition()
_libcst_record_syntactic_position = CodegenState.record_syntactic_position  # kept for the tests


def _record_no_position(self: CodegenState, node: cst.CSTNode, *, start_node: Any = None, end_node: Any = None) -> _NoPosition:
    return _NO_POSITION


# Only plain code generation (``module.code``, ``code_for_node``) uses this no-op: libcst's
# position-providing state and ours define their own.
CodegenState.record_syntactic_position = _record_no_position  # type: ignore[method-assign,assignment]


class Positions:
    """``positions[node]`` is the node's :class:`~libcst.metadata.CodeRange`, as libcst computes it.

    ``code`` is the module's code (``module.code``) from the same code generation, so a tree is
    generated once whether its text, its positions or both are needed."""

    def __init__(self, module: cst.Module, previous: Positions | None = None) -> None:
        """Generate ``module``; statements (at any depth) that ``previous`` (the tree this one was
        made from) already generated are reused, text and positions, instead of generated again."""
        reusable = (
            previous._generated
            if previous is not None
            and previous._module.default_indent == module.default_indent
            and previous._module.default_newline == module.default_newline
            else {}
        )
        state = _RecordingState(module, reusable)
        module._codegen(state)
        state._closer.state = None  # no cycle left behind for the collector
        tokens = state.tokens
        self._generated = state.generated
        self._spans = state.spans
        self._tokens = tokens
        code = "".join(tokens)
        self._full_code = code  # with the last newline libcst counts for positions
        self.code = code[: len(code) - len(tokens[-1])] if state.popped_newline else code  # == module.code
        self._offsets: list[int] = []  # token index -> character offset, made on first use
        self._line_starts: list[int] = []
        self._cache: dict[int, CodeRange] = {}
        self._module = module  # keeps every node (and so every id above) alive

    def _position(self, token: int) -> CodePosition:
        if not self._offsets:  # the last tree of a rewrite is asked for its code only
            self._offsets = [0, *accumulate(map(len, self._tokens))]
            self._line_starts = [0, *(m.end() for m in _LINE_BREAK.finditer(self._full_code))]
        offset = self._offsets[token]
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return CodePosition(line + 1, offset - self._line_starts[line])

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        key = id(node)
        found = self._cache.get(key)
        if found is None:
            start, end = self._spans[key]
            found = self._cache[key] = CodeRange(self._position(start), self._position(end))
        return found

    def get(self, node: cst.CSTNode, default: object = None) -> CodeRange | object:
        return self[node] if id(node) in self._spans else default


class _LengthState(CodegenState):
    def __init__(self) -> None:
        super().__init__(default_indent=" " * 4, default_newline="\n")
        self.ranges: dict[int, tuple[int, int]] = {}
        self._stack: list[int] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        self.ranges[id(node)] = (self._stack.pop(), len(self.tokens))


def code_lengths(node: cst.CSTNode) -> dict[int, int]:
    """id(n) -> ``len(cst.Module([]).code_for_node(n))`` for ``node`` and every node in it, from
    one code generation (a layout decision measures a call and then each of its arguments)."""
    state = _LengthState()
    node._codegen(state)
    offsets = [0, *accumulate(map(len, state.tokens))]
    return {key: offsets[end] - offsets[start] for key, (start, end) in state.ranges.items()}

