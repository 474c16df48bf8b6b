"""Huge modules rewritten in chunks of top-level statements, so that memory stays bounded.

libcst's tree of a module costs some 20 KB a line (a 100,000-line file: 2 GB before any rule runs,
and CPython's syntax check of the whole text another 400 MB). A module of more than
``THRESHOLD_LINES`` lines is cut between top-level statements (found with Python's tokenizer,
which builds no tree) into chunks of about ``CHUNK_LINES`` lines, preferably where another program
or definition starts, and each chunk is rewritten by the ordinary engine (parse, families, fix
loop, checks) as a module of its own::

    <header>                   the module's docstring and import block (with the comments after it)
    __tfmigrate_chunk__ = 0    marker: the header ends
    <context before>           statements of earlier chunks tied to this one (see below)
    __tfmigrate_context__ = 0  marker: the chunk's own statements follow
    <the chunk's statements>
    __tfmigrate_after__ = 0    marker (only with a context after)
    <context after>            statements of later chunks tied to this one

What makes the result the whole-module engine's:
- the header is threaded: chunk k is rewritten under the header as chunk k-1 left it, so imports
  added or code inserted after the imports is seen by the later chunks, and the last chunk's
  header is the file's; what the families learn about the module (``Context.facts``) is shared;
- the context: rules read across statements (an estimator's constructor and its ``fit``, a
  ``model_fn`` and the Estimator it is given to, a Saver and the variables made after it). A chunk
  is rewritten with the statements of other chunks tied to it by names (those binding a name it
  reads, those reading a name it binds, and so on, nearest first, at most ``CONTEXT_LINES`` lines
  a side), in their original text, with the header imports an earlier chunk removed; what is
  rewritten there is dropped (their own chunk reports and rewrites them);
- decisions over "the whole module": each chunk is given, as facts, how many times the whole module
  calls each name (``calls:NAME=N``, codemod.transform.module_calls), so TFM108 declines in a chunk a
  restore whose class the module constructs more often than the chunk shows, and the eager family
  treats every chunk as eager (and as an eager program) where the module is (``EAGER_MODULE``);
- an import is never removed while another chunk names what it binds (the rewritten text of the
  chunks done, the original of the others: ``imports.READ_ELSEWHERE``); a chunk whose own import
  stayed only for a chunk rewritten later that no longer names it is rewritten again at the end;
- findings come from each chunk's own statements (the header's from the first chunk), their lines
  and the lines their messages cite moved to the file's.

tests/hostile/test_huge_files.py checks on the samples, cut into chunks of 3 and 8 lines, that bytes and
findings are the whole-module engine's; and on generated 6,000-line files that a chunked rewrite
parses, reaches its fixed point, keeps every import still read and reports lines in range. Where
one file holds several programs that reuse each other's names, the whole-module engine mixes them
up (one program's Saver with another's variables) and a chunk, seeing fewer of them, may rewrite a
little more or say so differently. Whatever cannot be cut or put back together safely (not UTF-8,
lone ``\\r`` line endings, text the tokenizer rejects, a marker moved, an error outside the chunk's
own statements) is rewritten whole.
"""

from __future__ import annotations

import ast
import difflib
import io
import keyword
import re
import sys
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.codemod.files import SourceError
from tfmigrate.codemod.lines import line_map
from tfmigrate.codemod.imports import CONTEXT, KEPT_FOR_ELSEWHERE, READ_ELSEWHERE
from tfmigrate.codemod.transform import CALLS, EAGER_MODULE, RawFinding
from tfmigrate.codemod.tree import is_docstring, is_import_block

THRESHOLD_LINES = 4_000  # modules longer than this are rewritten in chunks
CHUNK_LINES = 1_500  # about this many lines a chunk (whole top-level statements)
CONTEXT_LINES = 300  # at most this many lines, on each side, of other chunks' statements tied to a chunk
CHUNK_BYTES = 512_000  # a chunk is cut after this many bytes too (long lines: memory follows bytes, not lines)
CONTEXT_BYTES = 128_000  # and its context holds at most this many bytes a side
MARKER = b"__tfmigrate_chunk__ = 0"
CONTEXT_END = b"__tfmigrate_context__ = 0"
AFTER = b"__tfmigrate_after__ = 0"
_CITED = re.compile(r"\bline (\d+(?:, \d+)*)")  # "line 25", "line 12, 15" in a finding's message


class Unchunkable(Exception):
    """The module cannot be cut safely: rewrite it whole."""


@dataclass(frozen=True)
class Plan:
    header_end: int  # byte offset where the header ends (the first body statement's first line)
    cuts: list[int]  # byte offsets where the chunks' statements start, the first at header_end
    starts: list[int]  # the 1-based line of each cut
    names: list[set[str]]  # the names each chunk's statements read (or bind)
    statements: list[tuple[int, int, int]]  # (chunk, first line, end line) of each top-level statement after the header
    definitions: dict[str, list[int]]  # a top-level def or class's name -> the statements that define it
    readers: dict[str, list[int]]  # the same name -> the statements that name it
    statement_names: list[set[str]]  # the names each statement names
    spread_calls: dict[str, int] = field(default_factory=dict)  # a name called -> its calls in the module


@dataclass
class _Statement:
    first: int  # its first line
    opens: int  # how good a place to cut before: 2 an import or a lone string (a new program's docstring), 1 a def, class or decorator
    names: set[str]
    defines: list[str] = field(default_factory=list)  # what a def or class binds, or an assignment's plain names (a, b = ...)
    targets: bool = True  # only names and commas so far: an assignment's targets may follow
    pending: list[str] = field(default_factory=list)  # those names
    calls: list[str] = field(default_factory=list)  # the names it calls (`name(`, `x.name(`), once a call
    eager: bool = False  # it names tf.contrib.eager (`contrib.eager`, `contrib import eager`) or enable_eager_execution


_OPENERS = {"import": 2, "from": 2, "def": 1, "class": 1, "async": 1, "@": 1}


def plan(data: bytes, threshold: int | None = None, chunk_lines: int | None = None) -> Plan | None:
    """Where to cut ``data``; None when it is short or cannot be cut safely.

    A chunk ends after ``chunk_lines`` lines before an import or a lone string (where another
    program starts, in a file of several), after 1.5 times as many before a definition, or after
    twice as many before any statement, and after CHUNK_BYTES bytes wherever a statement starts (long
    lines). (Default sizes: THRESHOLD_LINES, CHUNK_LINES.)"""
    threshold = THRESHOLD_LINES if threshold is None else threshold
    chunk_lines = CHUNK_LINES if chunk_lines is None else chunk_lines
    if data.count(b"\n") <= threshold:
        return None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if encoding not in ("utf-8", "utf-8-sig") or data.count(b"\r") != data.count(b"\r\n"):
            return None
        text = data.decode(encoding)
        statements = _statements(text)
    except (SyntaxError, UnicodeDecodeError, tokenize.TokenError, ValueError):
        return None  # the whole-module engine reports it
    lines = text.splitlines(keepends=True)
    first_body = _header_statements(lines, statements)
    if first_body >= len(statements) - 1:
        return None
    starts, names = [statements[first_body].first], [set(statements[first_body].names)]
    places: list[tuple[int, int, int]] = []
    definitions: dict[str, list[int]] = {}
    size = weight = 0
    offsets = line_offsets(data)
    body = statements[first_body:]
    for number, statement in enumerate(body):
        following = body[number + 1] if number + 1 < len(body) else None
        end = _leading_comments(lines, following.first, statement.first) if following else len(lines) + 1
        places.append((len(starts) - 1, statement.first, end))
        for name in statement.defines:
            definitions.setdefault(name, []).append(number)
        if following is None:
            break
        size += following.first - statement.first
        weight += offsets[following.first - 1] - offsets[statement.first - 1]
        if size >= chunk_lines * (4 - following.opens) // 2 or weight >= CHUNK_BYTES:  # x1 before an import, x1.5 before a def, x2 anywhere
            if end > starts[-1]:
                starts.append(end)
                names.append(set())
                size = weight = 0
        names[-1] |= following.names
    if len(starts) < 2:
        return None
    # what a family decides from "the whole module" (how many constructors of a class it holds, TFM108)
    # it decides in a chunk from these counts (Context facts, codemod.transform.module_calls)
    counts: dict[str, int] = {}
    for statement in statements:
        for name in statement.calls:
            counts[name] = counts.get(name, 0) + 1
    if any(statement.eager for statement in statements):
        counts[EAGER_MODULE] = 1  # the eager family's "is this module eager" (TFM4)
    readers: dict[str, list[int]] = {}
    for number, statement in enumerate(body):
        for name in statement.names & definitions.keys():
            readers.setdefault(name, []).append(number)
    return Plan(
        offsets[starts[0] - 1], [offsets[s - 1] for s in starts], starts, names, places, definitions, readers,
        [statement.names for statement in body], counts,
    )


def line_offsets(data: bytes) -> list[int]:
    offsets, at = [0], data.find(b"\n")
    while at != -1:
        offsets.append(at + 1)
        at = data.find(b"\n", at + 1)
    return offsets


_CLAUSES = frozenset({"except", "else", "elif", "finally"})
_SKIP = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER})


def _statements(text: str) -> list[_Statement]:
    """Every top-level statement, from Python's tokenizer (streamed: no tree is built)."""
    out: list[_Statement] = []
    current = _Statement(1, False, set())

    def start(token: tokenize.TokenInfo) -> _Statement:
        nonlocal current
        current = _Statement(token.start[0], 2 if token.type == tokenize.STRING else _OPENERS.get(token.string, 0), set())
        out.append(current)
        return current

    _scan(text, start)
    return out


def names_read(text: str) -> set[str]:
    """The names ``text`` mentions outside import statements (not attribute names)."""
    found = _Statement(0, 0, set())
    _scan(text, lambda token: found)
    return found.names


def _scan(text: str, on_statement: Callable[[tokenize.TokenInfo], _Statement]) -> None:
    """Python's tokens of ``text``: ``on_statement(first token)`` at each top-level statement gives
    the statement the names it mentions (outside imports) go to, and the name it defines."""
    depth, fresh, logical, after_dot, in_import, defining, decorating = 0, True, True, False, False, False, False
    statement = _Statement(0, 0, set())
    names = statement.names
    called: str | None = None  # the name just read, if a `(` now makes it a call
    before = ("", "")  # the two tokens before this one (outside comments and line breaks)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        kind = token.type
        if kind == tokenize.NAME and (
            token.string == "enable_eager_execution" or (token.string == "eager" and before[1] == "contrib" and before[0] in (".", "import"))
        ):
            statement.eager = True
        if kind not in _SKIP:
            before = (token.string, before[0])
        if kind == tokenize.OP and token.string == "(" and called is not None:
            statement.calls.append(called)
        called = sys.intern(token.string) if kind == tokenize.NAME and not keyword.iskeyword(token.string) else (
            called if kind in (tokenize.NL, tokenize.COMMENT) else None)
        if kind == tokenize.INDENT:
            depth += 1
        elif kind == tokenize.DEDENT:
            depth -= 1
            fresh = True
        elif kind == tokenize.NEWLINE:
            fresh = logical = True
        elif kind not in _SKIP:
            if fresh and depth == 0 and token.string not in _CLAUSES:
                # the first token of a top-level statement (a decorator's def continues it, and an
                # `except`/`else`/`elif`/`finally` clause continues its `try`/`if`/`for`/`while`)
                if not decorating:
                    statement = on_statement(token)
                    names = statement.names
                decorating = token.string == "@"
            if logical:
                in_import = token.string in ("import", "from")
            fresh = logical = False
            if kind == tokenize.NAME and not after_dot and not in_import:
                names.add(sys.intern(token.string))
                if defining and not statement.defines:
                    statement.defines.append(sys.intern(token.string))
                defining = depth == 0 and token.string in ("def", "class")
            if statement.targets and depth == 0:  # `a = ...`, `a, b = ...`: what it binds
                if kind == tokenize.OP and token.string == "=" and statement.pending:
                    statement.defines.extend(statement.pending)
                    statement.targets = False
                elif kind == tokenize.NAME and not keyword.iskeyword(token.string):
                    statement.pending.append(sys.intern(token.string))
                elif not (kind == tokenize.OP and token.string == ","):
                    statement.targets = False
            after_dot = kind == tokenize.OP and token.string == "."


def _header_statements(lines: list[str], statements: list[_Statement]) -> int:
    """How many top-level statements make the header: a docstring, the import block (as
    :func:`tfmigrate.codemod.tree.is_import_block` sees one), then the calls right after it (where
    the families put ``tf.compat.v1.disable_eager_execution()``, which every chunk must see)."""
    count, calls = 0, False
    for number, statement in enumerate(statements):
        end = statements[number + 1].first - 1 if number + 1 < len(statements) else len(lines)
        if end - statement.first > 200:  # a header is a few lines; a long block is code
            break
        source = "".join(lines[statement.first - 1 : end])
        try:
            body = cst.parse_module(source).body
        except Exception:  # noqa: BLE001 - not a statement on its own: no header past it
            break
        if not body:
            break
        if (number == 0 and is_docstring(body[0])) or (is_import_block(body[0]) and not calls):
            count += 1
        elif _is_call(body[0]) and count and "\n" not in source.strip():
            count, calls = count + 1, True
        else:
            break
    return count


def _is_call(statement: cst.BaseStatement) -> bool:
    """A one-line statement of calls only (``tf.logging.set_verbosity(tf.logging.INFO)``)."""
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) for small in statement.body
    )


def _leading_comments(lines: list[str], start: int, floor: int) -> int:
    """The line where the statement at ``start`` begins with the blank lines and unindented
    comments above it (where libcst puts them: the statement's leading lines)."""
    line = start
    while line - 1 > floor and (not lines[line - 2].strip() or lines[line - 2].startswith("#")):
        line -= 1
    return line


def _newline(data: bytes) -> bytes:
    end = data.find(b"\n")
    return b"\r\n" if end > 0 and data[end - 1 : end] == b"\r" else b"\n"


@dataclass
class _Done:
    header_in: bytes  # the header the chunk was rewritten under
    header_out: bytes
    body: bytes  # the rewritten statements
    findings: list[RawFinding]  # its findings, in the original file's lines
    about_context: list[RawFinding]  # its fixes on statements of other chunks (in the file's lines)
    blocked: set[str]  # names whose import stayed only because another chunk read them


def rewrite_in_chunks(
    data: bytes, the_plan: Plan, rewrite: Callable[[bytes, set[str]], object], path: str
) -> tuple[bytes, list[RawFinding], list[RawFinding], str]:
    """(new bytes, findings in the original lines, findings in the new lines, encoding).

    ``rewrite(module_bytes, facts)`` is the whole-module engine (a SourceResult). Raises
    :class:`Unchunkable` when a chunk's result cannot be put back together safely.

    An import that some chunk no longer reads stays when another chunk reads the name (the names
    each chunk reads: its rewritten text for the chunks done, its original text for the others).
    A chunk whose import stayed only for a chunk that was rewritten later and reads it no more is
    rewritten once again at the end, when every other chunk's text is final."""
    header = data[: the_plan.header_end]
    if header and not header.endswith(b"\n"):
        raise Unchunkable("header")
    chunking = _Chunking(data, the_plan, rewrite)
    done: list[_Done] = []
    for k in range(len(the_plan.cuts)):
        chunk = chunking.rewrite(k, header)
        done.append(chunk)
        header = chunk.header_out
        if chunk.body != chunking.body(k):
            the_plan.names[k] = chunking.names_of(chunk.body)
    header_names = _imported_names(data[: the_plan.header_end])
    last_blocking = {name: k for k, chunk in enumerate(done) for name in chunk.blocked & header_names}
    still_imported = _imported_names(header)
    for k, chunk in enumerate(done):
        unread = chunk.blocked - frozenset().union(*the_plan.names[:k], *the_plan.names[k + 1 :])
        # a header import: the last chunk that asked for its removal removes it (if still there)
        unread = {n for n in unread if n not in header_names or (last_blocking[n] == k and n in still_imported)}
        if unread:
            again = chunking.rewrite(k, chunk.header_in, final=True)
            header = _lines_removed(header, chunk.header_out, again.header_out)  # the header's imports it now removed
            start = the_plan.starts[0]  # the header's findings: the first round's
            again.findings = [f for f in chunk.findings if f.line < start] + [f for f in again.findings if f.line >= start]
            done[k] = again
            the_plan.names[k] = chunking.names_of(again.body)
    encoding = chunking.encoding
    final = header + b"".join(c.body for c in done)

    # lines in the new text as the whole-module engine gives them: the original's line, mapped
    to_new = line_map(data.decode(encoding, "replace"), final.decode(encoding, "replace"))
    original_header, final_header = data[: the_plan.header_end].splitlines(), set(header.splitlines())

    def out_of_date(finding: RawFinding) -> bool:  # a manual finding on a header import a later chunk removed
        if finding.fixable or finding.line > len(original_header):
            return False
        text = original_header[finding.line - 1]
        return text.startswith((b"import ", b"from ")) and text not in final_header

    findings = [f for chunk in done for f in chunk.findings if not out_of_date(f)]
    # A fix reported on another chunk's statement whose own chunk did not report it: its change was
    # made elsewhere (code inserted after the imports, in the header the later chunks were given).
    reported = {(f.rule, f.line, f.col) for f in findings}
    extra = {(f.rule, f.line, f.col): f for chunk in done for f in chunk.about_context if (f.rule, f.line, f.col) not in reported}
    if extra:
        findings = sorted([*findings, *extra.values()], key=lambda f: (f.line, f.col))
    return final, findings, [_at(f, to_new(f.line)) for f in findings], encoding


class _Chunking:
    def __init__(self, data: bytes, the_plan: Plan, rewrite: Callable[[bytes, set[str]], object]) -> None:
        self.data, self.plan, self.run = data, the_plan, rewrite
        self.bounds = [*the_plan.cuts, len(data)]
        self.newline = _newline(data)
        self.facts: set[str] = {f"{CALLS}{name}={count}" for name, count in the_plan.spread_calls.items()}
        self.encoding = "utf-8"
        self.offsets: list[int] | None = None
        self.original_names = [set(n) for n in the_plan.names]
        self.contexts: dict[int, tuple[tuple[bytes, list[int]], tuple[bytes, list[int]]]] = {}
        self.header_names = frozenset(_imported_names(data[: the_plan.header_end]))

    def body(self, k: int) -> bytes:
        return self.data[self.bounds[k] : self.bounds[k + 1]]

    def names_of(self, body: bytes) -> set[str]:
        try:
            return names_read(body.decode(self.encoding))
        except (SyntaxError, tokenize.TokenError, UnicodeDecodeError):
            raise Unchunkable("the rewritten chunk") from None

    def context(self, k: int) -> tuple[tuple[bytes, list[int]], tuple[bytes, list[int]]]:
        """The top-level statements of other chunks tied to chunk ``k`` by the names they bind and
        read (a breadth-first search from the chunk's names: the statements that bind a name it
        reads, that read a name it binds, and so on; the nearest first, at most CONTEXT_LINES lines
        on each side), as the text of those before it and of those after it, each with the file's
        line of every line."""
        if k in self.contexts:
            return self.contexts[k]
        plan = self.plan
        mine = [i for i, (chunk, _, _) in enumerate(plan.statements) if chunk == k]
        seen = set(mine)
        names: set[str] = set().union(*(plan.statement_names[i] for i in mine))
        done_names: set[str] = set()
        chosen: list[int] = []
        budget = {False: CONTEXT_LINES, True: CONTEXT_LINES}  # lines left before / after
        room = {False: CONTEXT_BYTES, True: CONTEXT_BYTES}  # and bytes
        if self.offsets is None:
            self.offsets = line_offsets(self.data)
        offsets = self.offsets
        middle = mine[len(mine) // 2] if mine else 0
        while names:
            level = {i for name in names for i in (*plan.definitions.get(name, ()), *plan.readers.get(name, ()))} - seen
            done_names |= names
            names = set()
            for i in sorted(level, key=lambda i: abs(i - middle)):
                seen.add(i)
                _, first, end = plan.statements[i]
                side = plan.statements[i][0] > k
                weight = (offsets[end - 1] if end - 1 < len(offsets) else len(self.data)) - offsets[first - 1]
                if end - first <= budget[side] and weight <= room[side]:
                    budget[side] -= end - first
                    room[side] -= weight
                    chosen.append(i)
                    names |= plan.statement_names[i]
            names -= done_names
            if not any(budget.values()):
                break
        wanted = set(chosen)
        sides = []
        for side in (sorted(i for i in wanted if plan.statements[i][0] < k), sorted(i for i in wanted if plan.statements[i][0] > k)):
            parts, lines = [], []
            for i in side:
                _, first, end = plan.statements[i]
                text = self.data[self.offsets[first - 1] : self.offsets[end - 1] if end - 1 < len(self.offsets) else len(self.data)]
                if not text.endswith(b"\n"):
                    text += self.newline
                parts.append(text)
                lines.extend(range(first, first + text.count(b"\n")))
            sides.append((b"".join(parts), lines))
        self.contexts[k] = (sides[0], sides[1])
        return self.contexts[k]

    def rewrite(self, k: int, header: bytes, final: bool = False) -> _Done:
        """Chunk ``k`` rewritten under ``header``, with the statements of other chunks it is tied to
        (:meth:`context`) before and after it, between markers (rewritten with it, then dropped)::

            header / MARKER / context before / CONTEXT_END / the chunk / AFTER / context after
        """
        body, start = self.body(k), self.plan.starts[k]
        (before, before_lines), (after, after_lines) = self.context(k)
        newline = self.newline
        if before or after:  # the imports an earlier chunk removed from the header, for the context's original text
            gone = _imports_gone(self.data[: self.plan.header_end], header)
            before, before_lines = gone + before, [0] * gone.count(b"\n") + before_lines
        module = header + MARKER + newline + before + CONTEXT_END + newline + body
        if after:
            if not module.endswith(b"\n"):
                raise Unchunkable("no newline before the context after")
            module += AFTER + newline + after
        h, b = header.count(b"\n"), len(before_lines)
        first_body = h + b + 3  # the body's first line in the module
        last_body = first_body + body.count(b"\n") - 1 if after else None

        def to_file(line: int) -> int | None:  # a line of the chunk's module -> the file's (None: a marker)
            if line <= h:
                return line
            if h + 1 < line < h + 2 + b:
                return before_lines[line - h - 2]
            if line >= first_body and (last_body is None or line <= last_body):
                return line - first_body + start
            if last_body is not None and line > last_body + 1 and line - last_body - 2 < len(after_lines):
                return after_lines[line - last_body - 2]
            return None

        elsewhere = frozenset().union(*self.plan.names[:k], *self.plan.names[k + 1 :])
        if k < len(self.plan.cuts) - 1 and not final:  # the header's imports stay until the last chunk (what
            elsewhere |= self.header_names  # they import tells later chunks what their code is: tf.contrib.eager)
        blocked: set[str] = set()
        tokens = READ_ELSEWHERE.set(elsewhere), KEPT_FOR_ELSEWHERE.set(blocked), CONTEXT.set(bool(before or after))
        try:
            result = self.run(module, self.facts)
        except SourceError as exc:
            if exc.line >= first_body and (last_body is None or exc.line <= last_body):
                raise SourceError(exc.path, exc.message, to_file(exc.line) or 0, exc.col) from None
            raise Unchunkable("an error outside the chunk's own statements") from None
        finally:
            READ_ELSEWHERE.reset(tokens[0])
            KEPT_FOR_ELSEWHERE.reset(tokens[1])
            CONTEXT.reset(tokens[2])
        self.encoding = result.encoding  # type: ignore[attr-defined]
        new = result.new  # type: ignore[attr-defined]
        at = _marker_at(new, MARKER + newline)
        header_out = new[:at]
        body_at = _marker_at(new, CONTEXT_END + newline) + len(CONTEXT_END + newline)
        body_end = _marker_at(new, AFTER + newline) if after else len(new)
        body_out = new[body_at:body_end]
        out_h = header_out.count(b"\n")
        out_first = new[:body_at].count(b"\n") + 1
        out_last = out_first + body_out.count(b"\n") - 1 if after else None
        kept: list[RawFinding] = []
        about_context: list[RawFinding] = []

        def cite(match: re.Match[str]) -> str:
            return "line " + ", ".join(str(to_file(int(n)) or n) for n in match.group(1).split(", "))

        for f, g in zip(result.findings, result.new_findings):  # type: ignore[attr-defined]
            in_body = f.line >= first_body and (last_body is None or f.line <= last_body)
            new_in_body = g.line >= out_first and (out_last is None or g.line <= out_last)
            if in_body and new_in_body:
                kept.append(_at(f, f.line - first_body + start, _CITED.sub(cite, f.message)))
            elif f.line <= h and g.line <= out_h:
                if k == 0:  # the header's findings, once
                    kept.append(f)
            elif not in_body and not new_in_body and not (f.line <= h) and not (g.line <= out_h):
                if f.fixable and to_file(f.line):  # about a statement of another chunk: that chunk reports it
                    about_context.append(_at(f, to_file(f.line) or 0, _CITED.sub(cite, f.message)))
            else:
                raise Unchunkable("a finding crossed a marker")
        return _Done(header, header_out, body_out, kept, about_context, blocked)


def _imported_names(header: bytes) -> set[str]:
    """The names the import statements of a header bind."""
    try:
        tree = ast.parse(header)
    except (SyntaxError, ValueError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    return found


def _imports_gone(original: bytes, header: bytes) -> bytes:
    """The one-line import statements of the original header that ``header`` lacks."""
    have = set(header.splitlines())
    return b"".join(
        line for line in original.splitlines(keepends=True)
        if line.startswith((b"import ", b"from ")) and not line.rstrip().endswith((b"(", b"\\")) and line.rstrip(b"\r\n") not in have
    )


def _lines_removed(header: bytes, before: bytes, after: bytes) -> bytes:
    """``header`` without the lines a chunk's second round removed from its own header (``before``
    -> ``after``): import lines only, each found once in ``header``; anything else is Unchunkable."""
    if before == after:
        return header
    old, new, lines = before.splitlines(keepends=True), after.splitlines(keepends=True), header.splitlines(keepends=True)
    removed: list[bytes] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "delete":
            removed.extend(old[i1:i2])
        elif op != "equal":
            raise Unchunkable("a header edited on the second round")
    for line in removed:  # (a later chunk may have removed it already)
        if lines.count(line) > 1 or not line.lstrip().startswith((b"import ", b"from ")):
            raise Unchunkable("a header edited on the second round")
        if line in lines:
            lines.remove(line)
    return b"".join(lines)


def _marker_at(new: bytes, marker: bytes) -> int:
    at = new.find(marker)
    if at == -1 or (at and new[at - 1 : at] != b"\n") or new.find(marker, at + 1) != -1:
        raise Unchunkable("the marker moved")
    return at


def _at(finding: RawFinding, line: int, message: str | None = None) -> RawFinding:
    return RawFinding(finding.rule, line, finding.col, finding.message if message is None else message, finding.fixable)
