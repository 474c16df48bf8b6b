"""The sizes tfmigrate refuses to parse, each with a one-line error naming the file and line.

libcst's tree costs about 1.6 KB of memory per byte of dense code (``x = [1, 2, 3, ...]``; some 500
bytes per byte of ordinary code). A module is parsed whole up to ``chunks.THRESHOLD_LINES`` lines,
and a longer one a chunk of whole top-level statements at a time (``chunks.CHUNK_BYTES`` at most,
unless one statement is larger); no chunk can split a line or a statement, and a single 5 MB line
took 10 GB and minutes. Measured on every ``.py`` file of TensorFlow 2.15's virtualenv (its longest
line: 28,027 characters; its largest top-level statement: 140,235 bytes, a dict of emoji names), these
are refused, the file left unchanged:

- a line longer than ``MAX_LINE_CHARS`` (200,000) bytes;
- a piece parsed whole larger than ``MAX_STATEMENT_BYTES`` (1,000,000 bytes): a top-level statement,
  the docstring and imports that head a long file, or a whole file of at most 4,000 lines (or one
  the chunking cannot cut: not UTF-8, lone ``\r`` line endings).

What is left costs at most about 1.6 GB for the densest code, ordinary code far less.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfmigrate.codemod.files import SourceError

if TYPE_CHECKING:
    from tfmigrate.codemod.chunks import Plan

MAX_LINE_CHARS = 200_000
MAX_STATEMENT_BYTES = 1_000_000


def check_size(data: bytes, path: str) -> None:
    """Before anything is parsed: SourceError (one line, naming the line) for a line over
    MAX_LINE_CHARS, or a file parsed whole (at most THRESHOLD_LINES lines) over MAX_STATEMENT_BYTES."""
    from tfmigrate.codemod.chunks import THRESHOLD_LINES

    longest, line = _longest_line(data)
    if longest > MAX_LINE_CHARS:
        raise SourceError(path, f"line of {longest:,} bytes (over {MAX_LINE_CHARS:,}): not processed, its tree would "
                                f"take gigabytes of memory (generated data? keep it out of the run with --exclude)", line, 1)
    if len(data) > MAX_STATEMENT_BYTES and data.count(b"\n") <= THRESHOLD_LINES:
        _whole(data, path)


def check_pieces(data: bytes, the_plan: Plan | None, path: str) -> None:
    """A longer file, once the chunks are planned (from Python's tokenizer, no tree): SourceError for a
    top-level statement over MAX_STATEMENT_BYTES (no chunk can split it), or, where the file cannot be
    cut (``the_plan`` None: it is parsed whole), for a file over that size."""
    if len(data) <= MAX_STATEMENT_BYTES:
        return
    if the_plan is None:
        _whole(data, path)
        return
    from tfmigrate.codemod.chunks import line_offsets

    offsets = line_offsets(data)
    header = offsets[the_plan.starts[0] - 1]
    if header > MAX_STATEMENT_BYTES:
        raise SourceError(path, f"docstring and imports of {header:,} bytes (over {MAX_STATEMENT_BYTES:,}): not processed, "
                                "their tree would take gigabytes of memory", 1, 1)
    for _, first, end in the_plan.statements:
        size = (offsets[end - 1] if end - 1 < len(offsets) else len(data)) - offsets[first - 1]
        if size > MAX_STATEMENT_BYTES:
            raise SourceError(path, f"top-level statement of {size:,} bytes (over {MAX_STATEMENT_BYTES:,}): not processed, "
                                    "its tree would take gigabytes of memory", first, 1)


def _whole(data: bytes, path: str) -> None:
    raise SourceError(path, f"{len(data):,} bytes parsed in one piece (over {MAX_STATEMENT_BYTES:,}; a file of at most "
                            f"4,000 lines, or one that cannot be cut between statements): not processed, its tree would "
                            "take gigabytes of memory", 1, 1)


def _longest_line(data: bytes) -> tuple[int, int]:
    """(length in bytes, 1-based line) of the longest line, without copying the lines."""
    longest, at_line, start, number = 0, 1, 0, 1
    while True:
        end = data.find(b"\n", start)
        stop = len(data) if end == -1 else end
        if stop - start > longest:
            longest, at_line = stop - start, number
        if end == -1:
            return longest, at_line
        start, number = end + 1, number + 1
