"""Node positions from one plain code generation: libcst's ``PositionProvider`` at a quarter of the cost.

libcst's provider updates a line/column pair after every token (a regex split each time) and builds
two position objects for every node. Here code generation only records, per node, the index of its
first and last token; token indexes become lines and columns when a position is asked for, through
a table of the code's line starts. The ranges are the same as libcst's (syntactic positions where
a node declares them, whitespace-inclusive ones elsewhere): ``tests/test_fast_paths.py`` compares
every node of the samples and catalog examples.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate, islice

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class _Syntactic:
    """The context manager ``record_syntactic_position`` returns (a class: cheaper than a generator)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: _RecordingState, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = len(self.state.tokens)

    def __exit__(self, *exc: object) -> None:
        spans = self.state.spans
        start = spans[id(self.start_node)][0] if self.start_node is not None else self.start
        end = spans[id(self.end_node)][1] if self.end_node is not None else len(self.state.tokens)
        spans[id(self.node)] = (start, end)


class _RecordingState(CodegenState):
    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        # id(node) -> (first token, one past its last). Keyed by id: CSTNode.__hash__ is a Python
        # function, a cost on every node; the module outlives this table, so ids are stable.
        self.spans: dict[int, tuple[int, int]] = {}
        self._stack: list[int] = []
        self.popped_newline = False

    def before_codegen(self, node: cst.CSTNode) -> None:
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
        return _Syntactic(self, node, start_node, end_node)


class Positions:
    """``positions[node]`` is the node's :class:`~libcst.metadata.CodeRange`, as libcst computes it.

    ``code`` is the module's code (``module.code``) from the same code generation, so a tree is
    generated once whether its text, its positions or both are needed."""

    def __init__(self, module: cst.Module, previous: Positions | None = None) -> None:
        """Generate ``module``; top-level statements that ``previous`` (the tree this one was made
        from) already generated are reused, text and positions, instead of generated again."""
        state = _RecordingState(module)
        spans, tokens = state.spans, state.tokens
        reusable = (
            previous._statements
            if previous is not None
            and previous._module.default_indent == module.default_indent
            and previous._module.default_newline == module.default_newline
            else {}
        )
        # id(statement) -> (statement, its tokens, its first token's index, its nodes' spans then)
        self._statements: dict[int, tuple[cst.CSTNode, list[str], int, list[tuple[int, tuple[int, int]]]]] = {}
        state.before_codegen(module)  # what module._codegen(state) does, one statement at a time
        for header in module.header:
            header._codegen(state)
        for statement in module.body:
            base = len(tokens)
            cached = reusable.get(id(statement))
            if cached is not None and cached[0] is statement:
                _, statement_tokens, old_base, recorded = cached
                tokens.extend(statement_tokens)
                shift = base - old_base
                if shift:
                    for key, (start, end) in recorded:
                        spans[key] = (start + shift, end + shift)
                else:
                    spans.update(recorded)
            else:
                known = len(spans)
                statement._codegen(state)
                added = len(spans) - known
                recorded = list(islice(reversed(spans.items()), added)) if added else []
                cached = (statement, tokens[base:], base, recorded)
            self._statements[id(statement)] = cached
        for footer in module.footer:
            footer._codegen(state)
        if module.has_trailing_newline:
            if not tokens:
                state.add_token(state.default_newline)
        else:
            state.pop_trailing_newline()
        state.after_codegen(module)
        self._spans = spans
        self._offsets = [0, *accumulate(map(len, tokens))]  # token index -> character offset
        code = "".join(tokens)
        self.code = code[: self._offsets[-2]] if state.popped_newline else code  # == module.code
        self._line_starts = [0, *(m.end() for m in _LINE_BREAK.finditer(code))]
        self._cache: dict[int, CodeRange] = {}
        self._module = module  # keeps every node (and so every id above) alive

    def _position(self, token: int) -> CodePosition:
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
