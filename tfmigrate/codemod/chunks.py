"""Huge modules rewritten in chunks of top-level statements, so that memory stays bounded.

libcst's tree of a module costs some 20 KB a line (a 100,000-line file: 2 GB before any rule
runs, and CPython's own syntax check of the whole text another 400 MB). Above ``THRESHOLD_LINES``
a module is cut, between top-level statements, into chunks of about ``CHUNK_LINES`` lines, and
each chunk is rewritten by the ordinary engine (parse, families, fix loop, checks) as a module of
its own::

    <header>                      the module's docstring, its import block and the comments after it
    __tfmigrate_chunk__ = 0       a marker: where the header ends in the rewritten text
    <the chunk's statements>

The header is threaded: chunk k starts from the header as chunk k-1 left it, so an import added or
a line inserted after the imports for one chunk is seen by the later ones (which then add nothing
twice), and the header of the last chunk is the file's. What the families learn about the module
(``Context.facts``) is shared in the same way. Findings are kept from each chunk's own statements
(and the header's from the first chunk), with their lines moved to the file's.

Rules that look across the whole module (an import is removed only when no statement reads it any
more; facts one statement gives about another) see the header and their own chunk: a chunk is some
2,000 lines of whole top-level statements, and tests/test_chunks.py checks that the samples, the
test fixtures and generated files of every family come out byte-identical to the unchunked engine
with chunks as small as a few statements. Anything this module cannot cut safely (not UTF-8, lone
``\\r`` line endings, text Python's tokenizer rejects, a marker the rules moved) is rewritten whole.
"""

from __future__ import annotations

import difflib
import io
import re
import sys
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from tfmigrate.codemod.files import SourceError
from tfmigrate.codemod.imports import KEPT_FOR_ELSEWHERE, READ_ELSEWHERE
from tfmigrate.codemod.transform import RawFinding
from tfmigrate.codemod.tree import is_docstring, is_import_block

THRESHOLD_LINES = 4_000  # modules longer than this are rewritten in chunks
CHUNK_LINES = 1_500  # about this many lines a chunk (whole top-level statements)
MARKER = b"__tfmigrate_chunk__ = 0"
_CITED = re.compile(r"\bline (\d+(?:, \d+)*)")  # "line 25", "line 12, 15" in a finding's message


class Unchunkable(Exception):
    """The module cannot be cut safely: rewrite it whole."""


@dataclass(frozen=True)
class Plan:
    header_end: int  # byte offset where the header ends (the first body statement's first line)
    cuts: list[int]  # byte offsets where the chunks' statements start, the first at header_end
    starts: list[int]  # the 1-based line of each cut
    names: list[set[str]]  # the names each chunk's statements read (or bind)


@dataclass
class _Statement:
    first: int  # its first line
    opens: int  # how good a place to cut before: 2 an import or a lone string (a new program's docstring), 1 a def, class or decorator
    names: set[str]


_OPENERS = {"import": 2, "from": 2, "def": 1, "class": 1, "async": 1, "@": 1}


def plan(data: bytes, threshold: int = THRESHOLD_LINES, chunk_lines: int = CHUNK_LINES) -> Plan | None:
    """Where to cut ``data``; None when it is short or cannot be cut safely.

    A chunk ends after ``chunk_lines`` lines before an import or a lone string (where another
    program starts, in a file of several), after 1.5 times as many before a definition, or after
    twice as many before any statement."""
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
    size = 0
    for previous, statement in zip(statements[first_body:], statements[first_body + 1 :]):
        size += statement.first - previous.first
        if size >= chunk_lines * (4 - statement.opens) // 2:  # x1 before an import, x1.5 before a def, x2 anywhere
            cut = _leading_comments(lines, statement.first, previous.first)
            if cut > starts[-1]:
                starts.append(cut)
                names.append(set())
                size = 0
        names[-1] |= statement.names
    if len(starts) < 2:
        return None
    offsets = _line_offsets(data)
    return Plan(offsets[starts[0] - 1], [offsets[s - 1] for s in starts], starts, names)


def _line_offsets(data: bytes) -> list[int]:
    offsets, at = [0], data.find(b"\n")
    while at != -1:
        offsets.append(at + 1)
        at = data.find(b"\n", at + 1)
    return offsets


_SKIP = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER})


def _statements(text: str) -> list[_Statement]:
    """Every top-level statement, from Python's tokenizer (streamed: no tree is built)."""
    out: list[_Statement] = []
    current = _Statement(1, False, set())

    def start(token: tokenize.TokenInfo) -> set[str]:
        nonlocal current
        current = _Statement(token.start[0], 2 if token.type == tokenize.STRING else _OPENERS.get(token.string, 0), set())
        out.append(current)
        return current.names

    _scan(text, start)
    return out


def names_read(text: str) -> set[str]:
    """The names ``text`` mentions outside import statements (not attribute names)."""
    found: set[str] = set()
    _scan(text, lambda token: found)
    return found


def _scan(text: str, on_statement: Callable[[tokenize.TokenInfo], set[str]]) -> None:
    """Python's tokens of ``text``: ``on_statement(first token)`` at each top-level statement gives
    the set where the names that statement mentions (outside imports) go."""
    depth, fresh, logical, after_dot, in_import = 0, True, True, False, False
    names: set[str] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        kind = token.type
        if kind == tokenize.INDENT:
            depth += 1
        elif kind == tokenize.DEDENT:
            depth -= 1
            fresh = True
        elif kind == tokenize.NEWLINE:
            fresh = logical = True
        elif kind not in _SKIP:
            if fresh and depth == 0:  # the first token of a top-level statement
                names = on_statement(token)
            if logical:
                in_import = token.string in ("import", "from")
            fresh = logical = False
            if kind == tokenize.NAME and not after_dot and not in_import:
                names.add(sys.intern(token.string))
            after_dot = kind == tokenize.OP and token.string == "."


def _header_statements(lines: list[str], statements: list[_Statement]) -> int:
    """How many top-level statements make the header: a docstring, then the import block (as
    :func:`tfmigrate.codemod.tree.is_import_block` sees one)."""
    count = 0
    for number, statement in enumerate(statements):
        end = statements[number + 1].first - 1 if number + 1 < len(statements) else len(lines)
        if end - statement.first > 200:  # a header is a few lines; a long block is code
            break
        try:
            body = cst.parse_module("".join(lines[statement.first - 1 : end])).body
        except Exception:  # noqa: BLE001 - not a statement on its own: no header past it
            break
        if not body or not ((number == 0 and is_docstring(body[0])) or is_import_block(body[0])):
            break
        count += 1
    return count


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
    findings: list[tuple[RawFinding, RawFinding]]  # (in the original file's lines, in the new body's / the header's)
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
    marker = MARKER + _newline(data)
    header = data[: the_plan.header_end]
    if header and not header.endswith(b"\n"):
        raise Unchunkable("header")
    facts: set[str] = set()
    bounds = [*the_plan.cuts, len(data)]
    done: list[_Done] = []
    encoding = "utf-8"
    for k, (start, end) in enumerate(zip(bounds, bounds[1:])):
        chunk, encoding = _rewrite_chunk(data[start:end], k, header, the_plan, rewrite, facts, marker)
        done.append(chunk)
        header = chunk.header_out
        if chunk.body != data[start:end]:
            the_plan.names[k] = _names_of(chunk.body, encoding)
    first_header_out = done[0].header_out
    for k, chunk in enumerate(done):
        if chunk.blocked and chunk.blocked - frozenset().union(*the_plan.names[:k], *the_plan.names[k + 1 :]):
            again, _ = _rewrite_chunk(data[bounds[k] : bounds[k + 1]], k, chunk.header_in, the_plan, rewrite, facts, marker)
            header = _lines_removed(header, chunk.header_out, again.header_out)  # the header's imports it now removed
            done[k] = again
            the_plan.names[k] = _names_of(again.body, encoding)
    final = header + b"".join(c.body for c in done)
    findings: list[RawFinding] = []
    new_findings: list[RawFinding] = []
    from tfmigrate.codemod.engine import _line_map  # the engine imports this module lazily

    to_final = _line_map(first_header_out.decode(encoding, "replace"), header.decode(encoding, "replace"))
    offset = header.count(b"\n")
    for k, chunk in enumerate(done):
        for f, g in chunk.findings:
            findings.append(f)
            new_findings.append(_at(g, to_final(g.line) if f.line < the_plan.starts[0] else g.line + offset))
        offset += chunk.body.count(b"\n")
    return final, findings, new_findings, encoding


def _rewrite_chunk(
    body: bytes, k: int, header: bytes, the_plan: Plan, rewrite: Callable[[bytes, set[str]], object],
    facts: set[str], marker: bytes,
) -> tuple[_Done, str]:
    h = header.count(b"\n")
    elsewhere = frozenset().union(*the_plan.names[:k], *the_plan.names[k + 1 :])
    blocked: set[str] = set()
    tokens = READ_ELSEWHERE.set(elsewhere), KEPT_FOR_ELSEWHERE.set(blocked)
    try:
        result = rewrite(header + marker + body, facts)
    except SourceError as exc:
        if exc.line > h + 1:
            raise SourceError(exc.path, exc.message, exc.line - h - 1 + the_plan.starts[k] - 1, exc.col) from None
        if k and exc.line:
            raise Unchunkable("an error in the header") from None
        raise
    finally:
        READ_ELSEWHERE.reset(tokens[0])
        KEPT_FOR_ELSEWHERE.reset(tokens[1])
    new = result.new  # type: ignore[attr-defined]
    at = _marker_at(new, marker)
    header_out, body_out = new[:at], new[at + len(marker) :]
    out_h = header_out.count(b"\n")
    kept = []
    for f, g in zip(result.findings, result.new_findings):  # type: ignore[attr-defined]
        if f.line > h + 1 and g.line > out_h + 1:
            shift = the_plan.starts[k] - h - 2  # a line of the chunk's module -> the file's
            message = _CITED.sub(lambda m: "line " + ", ".join(str(int(n) + shift if int(n) > h + 1 else n) for n in m.group(1).split(", ")), f.message)
            kept.append((_at(f, f.line + shift, message), _at(g, g.line - out_h - 1, message)))
        elif f.line <= h and g.line <= out_h:
            if k == 0:  # the header's findings, once
                kept.append((f, g))
        else:
            raise Unchunkable("a finding crossed the marker")
    return _Done(header, header_out, body_out, kept, blocked), result.encoding  # type: ignore[attr-defined]


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


def _names_of(body: bytes, encoding: str) -> set[str]:
    try:
        return names_read(body.decode(encoding))
    except (SyntaxError, tokenize.TokenError, UnicodeDecodeError):
        raise Unchunkable("the rewritten chunk") from None


def _marker_at(new: bytes, marker: bytes) -> int:
    at = new.find(marker)
    if at == -1 or (at and new[at - 1 : at] != b"\n") or new.find(marker, at + 1) != -1:
        raise Unchunkable("the marker moved")
    return at


def _at(finding: RawFinding, line: int, message: str | None = None) -> RawFinding:
    return RawFinding(finding.rule, line, finding.col, finding.message if message is None else message, finding.fixable)
