"""Node positions from plain code generation: libcst's ``PositionProvider`` at a fraction of the cost.

libcst's provider updates a line/column pair after every token (a regex split each time) and builds
two position objects for every node. Here a tree's code generation records only where each
statement's tokens begin and end; a node's span (the index of its first and last token) is worked
out when a position is first asked for, by generating the innermost statement around it again with
every span recorded, and token indexes become lines and columns through a table of the code's line
starts. A rewrite asks about a few dozen nodes of a tree (and about none of the last tree, whose
text is all it needs). The ranges are the same as libcst's (syntactic positions where a node
declares them, whitespace-inclusive ones elsewhere): ``tests/test_fast_paths.py`` compares every
node of the samples and catalog examples.

A family changes a few statements of a tree; generating the new tree reuses, for every statement
(at any depth) the family left alone, the tokens the previous generation made for it. The hook for
this is the one ``_codegen`` override below, on libcst's ``BaseStatement``: for any code generation
but ours it is libcst's own; likewise the token and whitespace classes skip the span hooks in ours.
Two more overrides make our code generation cheaper: the parentheses around expressions (see
``_Parenthesized``) and a no-op syntactic-position context (``_NoPosition``). All four are in place
only while one of our own generations runs (``_Hooks``): libcst is never patched for anyone else.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
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
# (by the classes' own bases: libcst registers no virtual subclasses, and issubclass's checks
# against these abstract classes cost a few hundredths of a second at every start)
TRIVIA_TYPES = frozenset(
    kind for kind in vars(cst).values() if isinstance(kind, type) and any(base in TRIVIA for base in kind.__mro__)
)
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
            start = (spans.get(id(start_node)) or state.nested_span(start_node))[0]
        end = (spans.get(id(end_node)) or state.nested_span(end_node))[1] if end_node is not None else len(state.tokens)
        spans[id(node)] = (start, end)


# A statement generated before: (the statement, the indentation and the keyword arguments it was
# generated with, its first token and one past its last in that generation's token list, the ids
# of the statements nested in it, which are reusable with it).
_Generated = tuple[cst.CSTNode, tuple[str, ...], dict[str, Any], int, int, tuple[int, ...]]


class _StatementTable:
    """Where each statement (at any depth) of a code generation begins and ends, for the next
    generation to reuse and for positions to be found statement by statement."""

    def __init__(self) -> None:
        self.generated: dict[int, _Generated] = {}  # id(statement) -> where it is in this generation
        self._nested: list[list[int]] = []  # per statement being generated: the statements in it

    def enter(self) -> None:
        self._nested.append([])

    def leave(self, statement: cst.CSTNode, indent: tuple[str, ...], kwargs: dict[str, Any], base: int, end: int) -> None:
        nested = tuple(self._nested.pop())
        self.generated[id(statement)] = (statement, indent, kwargs, base, end, nested)
        self.note(id(statement), nested)

    def note(self, key: int, nested: tuple[int, ...]) -> None:
        if self._nested:
            self._nested[-1].append(key)
            self._nested[-1].extend(nested)


class _OurState(CodegenState):
    """What our code generations share: the module's last newline stays in the tokens."""

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.popped_newline = False

    def pop_trailing_newline(self) -> None:
        """Kept for positions (libcst counts the module's last newline before dropping it); left out of the code."""
        self.popped_newline = bool(self.tokens)


class _TextState(_OurState):
    """A code generation of the text and where each statement is, reusing the tokens of the
    statements the previous generation made (no span is recorded: see ``Positions._span``)."""

    def __init__(self, module: cst.Module, previous: Positions) -> None:
        super().__init__(module.default_indent, module.default_newline)
        self.reusable = previous._generated
        self.reused_tokens = previous._tokens
        self.table = _StatementTable()
        self.shifts: dict[int, int] = {}  # id(statement reused, at any depth) -> its first token here minus there

    def statement(self, statement: cst.BaseStatement, kwargs: dict[str, Any]) -> None:
        """Generate a statement (at any depth): the previous generation's tokens if it generated this
        very statement under the same indentation, else libcst's codegen."""
        tokens, table = self.tokens, self.table
        key, base, indent = id(statement), len(tokens), tuple(self.indent_tokens)
        done = self.reusable.get(key)
        if done is not None and done[0] is statement and done[1] == indent and done[2] == kwargs:
            _, _, _, first, last, nested = done
            tokens.extend(self.reused_tokens[first:last])
            generated = table.generated
            generated[key] = (statement, indent, kwargs, base, base + last - first, nested)
            shift = base - first
            shifts = self.shifts
            shifts[key] = shift
            reusable = self.reusable
            for inner in nested:
                shifts[inner] = shift
                node, inner_indent, inner_kwargs, inner_first, inner_last, inner_nested = reusable[inner]
                generated[inner] = (node, inner_indent, inner_kwargs, inner_first + shift, inner_last + shift, inner_nested)
            table.note(key, nested)
        else:
            table.enter()
            statement._codegen_impl(self, **kwargs)  # the span hooks are no-ops here
            table.leave(statement, indent, kwargs, base, len(tokens))


class _RecordingState(_OurState):
    """A code generation that records every node's span (first token, one past its last), libcst's
    syntactic ranges where a node declares them.

    For a whole module (a tree's first generation) it also records where each statement is.
    Given instead the ``positions`` of a generation and the statement ``root`` it generated at
    token ``base``, it generates that statement only, and the statements nested in it are copied
    from that generation's tokens (their spans are recorded when asked for, as for any statement):
    ``with`` around a whole training loop costs its header, not the loop."""

    def __init__(
        self, default_indent: str, default_newline: str, positions: Positions | None = None,
        root: cst.CSTNode | None = None, base: int = 0,
    ) -> None:
        super().__init__(default_indent, default_newline)
        self.positions, self.root, self.base = positions, root, base
        self.table = _StatementTable() if positions is None else None
        # id(node) -> (first token, one past its last). Keyed by id: CSTNode.__hash__ is a Python
        # function, a cost on every node; the module outlives this table, so ids are stable.
        self.spans: dict[int, tuple[int, int]] = {}
        self._stack: list[int] = []
        self.syntactic: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None, int]] = []  # open ranges
        self._closer = _Syntactic(self)

    def before_codegen(self, node: cst.CSTNode) -> None:  # not called for tokens and whitespace
        self._stack.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        key = id(node)
        if key not in self.spans:
            self.spans[key] = (start, len(self.tokens))

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):  # type: ignore[no-untyped-def,override]
        self.syntactic.append((node, start_node, end_node, len(self.tokens)))
        return self._closer

    def statement(self, statement: cst.BaseStatement, kwargs: dict[str, Any]) -> None:
        positions, table = self.positions, self.table
        if positions is not None:  # one statement: the root generated, those nested in it copied
            if statement is self.root:
                _libcst_codegen(statement, self, **kwargs)
            else:
                _, _, _, first, last, _ = positions._generated[id(statement)]
                self.tokens.extend(positions._tokens[first:last])
        else:
            assert table is not None
            base, indent = len(self.tokens), tuple(self.indent_tokens)
            table.enter()
            _libcst_codegen(statement, self, **kwargs)
            table.leave(statement, indent, kwargs, base, len(self.tokens))

    def nested_span(self, statement: cst.CSTNode) -> tuple[int, int]:
        """The span of a nested statement (copied, not recorded here), in this generation's tokens."""
        assert self.positions is not None
        start, end = self.positions._span(statement)  # type: ignore[misc]
        return start - self.base, end - self.base


_libcst_codegen = cst.CSTNode._codegen


def _statement_codegen(self: cst.BaseStatement, state: CodegenState, **kwargs: Any) -> None:
    if type(state) is _TextState or type(state) is _RecordingState:
        state.statement(self, kwargs)
    else:
        _libcst_codegen(self, state, **kwargs)


# Every statement, at module level or in a block, is generated through its ``_codegen``: on
# libcst's BaseStatement while one of our generations runs (see ``_hooks``), it lets a Positions
# generation reuse the statements a family left alone (inside a changed function too).


def _token_codegen(self: cst.CSTNode, state: CodegenState, **kwargs: Any) -> None:
    if type(state) is _RecordingState or type(state) is _TextState:  # no span for tokens and whitespace
        self._codegen_impl(state, **kwargs)
    else:
        _libcst_codegen(self, state, **kwargs)


# Tokens and whitespace, half of all nodes, skip the span hooks in our generation altogether.


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


class _Hooks:
    """libcst's code generation, with our four hooks in place only while one of our own generations
    runs (``with _hooks:``; re-entrant), and libcst's own functions back in place afterwards: code
    outside tfmigrate never runs them. Even then they change nothing for any state but ours: the
    statement and token hooks hand other states to libcst's own ``_codegen``, and the parentheses
    and the no-op syntactic-position context do exactly what libcst's generators do
    (``tests/test_fast_paths.py`` compares every text and position, and checks that libcst's own
    functions are in place before, after and between our generations)."""

    def __init__(self) -> None:
        self.depth = 0
        places: list[tuple[type, str, Any]] = [
            (cst.BaseStatement, "_codegen", _statement_codegen),
            *((kind, "_codegen", _token_codegen) for kind in sorted(_UNRECORDED, key=lambda k: k.__name__)),
            (_ParenthesizedBase, "_parenthesize", _parenthesize),
            (CodegenState, "record_syntactic_position", _record_no_position),
        ]
        # (class, attribute, ours, libcst's own entry in the class's __dict__ or None if inherited)
        self.places = [(kind, name, ours, kind.__dict__.get(name)) for kind, name, ours in places]

    def __enter__(self) -> None:
        self.depth += 1
        if self.depth == 1:
            for kind, name, ours, _ in self.places:
                setattr(kind, name, ours)

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1
        if self.depth == 0:
            for kind, name, _, own in self.places:
                if own is None:
                    delattr(kind, name)
                else:
                    setattr(kind, name, own)


_hooks = _Hooks()


class Positions:
    """``positions[node]`` is the node's :class:`~libcst.metadata.CodeRange`, as libcst computes it.

    ``code`` is the module's code (``module.code``) from the same code generation, so a tree is
    generated once whether its text, its positions or both are needed. That generation records
    where each statement is; a node's span is worked out when first asked for, by generating again
    the innermost statement around it (found through ``parents``) with every span recorded: a
    rewrite asks about a few dozen nodes of a tree, and for none of its last tree's."""

    def __init__(self, module: cst.Module, previous: Positions | None = None, parents: Mapping[cst.CSTNode, cst.CSTNode] | None = None) -> None:
        """Generate ``module``, recording every node's span; or, given ``previous`` (the positions of
        the tree this one was made from), only the text, reusing the statements (at any depth)
        ``previous`` generated: spans are then found statement by statement, when asked for,
        through ``parents`` (or :meth:`use_parents` later); without it the first question
        generates the whole module again with every span recorded."""
        self._shifts: dict[int, int] = {}
        self._earlier: tuple[dict[int, tuple[int, int]], dict[int, int], Any] | None = None
        if previous is not None and (
            previous._module.default_indent != module.default_indent or previous._module.default_newline != module.default_newline
        ):
            previous = None
        state: _TextState | _RecordingState
        if previous is None:  # a parsed tree: families ask about dozens of its nodes
            state = _RecordingState(module.default_indent, module.default_newline)
            with _hooks:
                module._codegen(state)
            state._closer.state = None  # no cycle left behind for the collector
            self._spans = state.spans
        else:  # a family's output: asked about a few nodes, or only for its text
            state = _TextState(module, previous)
            with _hooks:
                module._codegen(state)
            self._spans = {}
            self._shifts = state.shifts
            # the spans of the generations before (ints by id, not their trees), for _inherited_span
            self._earlier = (previous._spans, previous._shifts, previous._earlier)
        assert state.table is not None
        self._generated = state.table.generated
        self._whole = previous is None  # every span recorded
        tokens = state.tokens
        self._tokens = tokens
        code = "".join(tokens)
        self._full_code = code  # with the last newline libcst counts for positions
        self.code = code[: len(code) - len(tokens[-1])] if state.popped_newline else code  # == module.code
        self._parents = parents
        self._offsets: list[int] = []  # token index -> character offset, made on first use
        self._line_starts: list[int] = []
        self._cache: dict[int, CodeRange] = {}
        self._module = module  # keeps every node (and so every id above) alive

    def statement_code(self, statement: cst.CSTNode) -> str | None:
        """The code of a statement of this tree (at any depth: a function in a class), as this
        generation made it: its lines above, decorators and body, indented as in the module (what
        ``Module.code_for_node`` gives, up to that indentation and the newlines), without generating
        it again; None for a node this generation did not make as a statement."""
        done = self._generated.get(id(statement))
        if done is None or done[0] is not statement:
            return None
        return "".join(self._tokens[done[3]:done[4]])

    def use_parents(self, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        """The tree's parent table (an index's), to find the statement around a node."""
        self._parents = parents

    def _position(self, token: int) -> CodePosition:
        if not self._offsets:  # the last tree of a rewrite is asked for its code only
            self._offsets = [0, *accumulate(map(len, self._tokens))]
            self._line_starts = [0, *(m.end() for m in _LINE_BREAK.finditer(self._full_code))]
        offset = self._offsets[token]
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return CodePosition(line + 1, offset - self._line_starts[line])

    def _span(self, node: cst.CSTNode) -> tuple[int, int] | None:
        key = id(node)
        span = self._spans.get(key)
        if span is not None or self._whole or type(node) in _UNRECORDED:
            return span
        parents, generated = self._parents, self._generated
        if parents is not None:
            current: cst.CSTNode | None = node
            while current is not None:
                done = generated.get(id(current))
                if done is not None and done[0] is current:
                    span = self._inherited_span(key, done)
                    if span is not None:
                        self._spans[key] = span
                        return span
                    self._record(done)
                    return self._spans.get(key)
                current = parents.get(current)
        self._record_whole()  # the module itself, or no parent table
        return self._spans.get(key)

    def _inherited_span(self, key: int, done: _Generated) -> tuple[int, int] | None:
        """The span of node ``key`` in the statement ``done`` generated (the innermost statement
        around it), when an earlier generation recorded it and every generation since reused that
        statement's tokens: the same tokens, shifted; what ``_record(done)`` would record. (Only
        nodes of this tree are asked about, and a reused statement, with every node in it, was in
        each of those trees: the ids are theirs. A span outside the statement, a node object in two
        places, is left to ``_record``.)"""
        statement = id(done[0])
        shift = self._shifts.get(statement)
        earlier = self._earlier
        while shift is not None and earlier is not None:
            spans, shifts, earlier = earlier
            span = spans.get(key)
            if span is not None:
                start, end = span[0] + shift, span[1] + shift
                return (start, end) if done[3] <= start <= end <= done[4] else None
            before = shifts.get(statement)
            if before is None:
                return None
            shift += before
        return None

    def _record(self, done: _Generated) -> None:
        """Every span in one statement (but in the statements nested in it), from a generation of
        the statement alone under the indentation it had: the same tokens, so only shifted."""
        statement, indent, kwargs, first, last, _ = done
        state = _RecordingState(self._module.default_indent, self._module.default_newline, self, statement, first)
        state.indent_tokens = list(indent)
        with _hooks:
            statement._codegen(state, **kwargs)
        state._closer.state = None  # no cycle left behind for the collector
        if len(state.tokens) != last - first:  # cannot happen: code generation is deterministic
            raise AssertionError(f"statement generated as {len(state.tokens)} tokens, not {last - first}")
        spans = self._spans
        for key, (start, end) in state.spans.items():
            spans[key] = (start + first, end + first)

    def _record_whole(self) -> None:
        state = _RecordingState(self._module.default_indent, self._module.default_newline)
        with _hooks:
            self._module._codegen(state)
        state._closer.state = None
        self._spans.update(state.spans)
        self._whole = True

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        key = id(node)
        found = self._cache.get(key)
        if found is None:
            span = self._span(node)
            if span is None:
                raise KeyError(node)
            found = self._cache[key] = CodeRange(self._position(span[0]), self._position(span[1]))
        return found

    def get(self, node: cst.CSTNode, default: object = None) -> CodeRange | object:
        return self[node] if self._span(node) is not None else default


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
    with _hooks:
        node._codegen(state)
    offsets = [0, *accumulate(map(len, state.tokens))]
    return {key: offsets[end] - offsets[start] for key, (start, end) in state.ranges.items()}

