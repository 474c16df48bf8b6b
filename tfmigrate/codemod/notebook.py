"""Jupyter notebooks (``.ipynb``): their code cells as one Python module, and back.

A notebook's code cells share one namespace and run top to bottom, so they are rewritten as one
module: ``import tensorflow as tf`` in cell 1 is what makes ``tf.Session()`` in cell 5 legacy
TensorFlow. The module is the cells' code joined with a boundary comment between cells. IPython's
own syntax at the start of a logical line (line magics ``%matplotlib inline``, shell escapes
``!pip install ...``, ``x = !ls``, help ``tf.Session?``) is masked as a marked ``pass`` and put
back afterwards; a cell whose cell magic makes it another language (``%%bash``, ``%%writefile``)
is left out. After the rewrite the text is cut at the boundaries again, and each cell must still
compile on its own, or the notebook is refused (a fix that would join two cells' code).

Cells are numbered as a notebook editor shows them: all cells, from 1. Findings point at a cell
and a line in it (``model.ipynb:cell 3:2:5``).

Writing keeps the file's own JSON layout (indent, key order, ASCII escapes, newlines, final
newline, BOM): the layout is found by reproducing the original bytes exactly; a notebook whose
layout cannot be reproduced is refused rather than reformatted. Only the ``source`` of changed
cells differs; outputs and execution counts are left as they are.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from dataclasses import dataclass

from tfmigrate.codemod.files import SourceError

BOUNDARY = "# tfmigrate: cell boundary 5b1c"
MAGIC_COMMENT = "# tfmigrate: magic 5b1c:"  # the comment of a masked IPython line (``%matplotlib inline``)
_MASK = f"pass  {MAGIC_COMMENT}"
_MASKED = re.compile(r"^([ \t]*)pass  # tfmigrate: magic 5b1c:(\d+)$")
# IPython syntax at the start of a line: %magic, !shell, ?help / name? / name??, x = %magic, x = !shell
_MAGIC_START = re.compile(r"[ \t]*(?:[%!]|\?+[\w.]|[\w.]+[ \t]*=[ \t]*[%!]|[\w.]+\?\??[ \t]*$)")
_CITED = re.compile(r"\bline (\d+(?:, \d+)*)")  # "line 25", "line 12, 15" in a finding's message
# Cell magics whose body is Python run by the kernel; any other (%%bash, %%writefile, %%html...)
# makes the cell another language, left as it is.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


@dataclass
class _Cell:
    index: int  # position in the notebook's "cells" (the cell's number is index + 1)
    code: str  # the source as the kernel sees it
    masked: dict[int, str]  # line number in the cell (0-based) -> the IPython line masked there


class Notebook:
    """One notebook's code cells as Python text, and the way back to the notebook's JSON."""

    def __init__(self, data: bytes, path: str) -> None:
        self.path = path
        self.bom = data.startswith(b"\xef\xbb\xbf")
        try:
            self.text = data.decode("utf-8-sig")
            self.json = json.loads(self.text)
        except UnicodeDecodeError as exc:
            raise SourceError(path, f"cannot decode as utf-8: invalid byte 0x{data[exc.start]:02x}") from None
        except json.JSONDecodeError as exc:
            raise SourceError(path, f"not a notebook: invalid JSON ({exc.msg})", exc.lineno, exc.colno) from None
        cells = self.json.get("cells") if isinstance(self.json, dict) else None
        if not isinstance(cells, list):
            form = self.json.get("nbformat") if isinstance(self.json, dict) else None
            hint = " (nbformat 3: upgrade it with `jupyter nbconvert --to notebook`)" if form == 3 else ""
            raise SourceError(path, f"not a notebook: no list of cells{hint}")
        self.cells: list[_Cell] = []
        for index, cell in enumerate(cells):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            if isinstance(source, list) and all(isinstance(s, str) for s in source):
                code = "".join(source)
            elif isinstance(source, str):
                code = source
            else:
                raise SourceError(f"{path}:cell {index + 1}", "not a notebook: a cell's source is neither text nor a list of lines")
            first = code.split("\n", 1)[0].strip()
            if first.startswith("%%") and first[2:].split(" ", 1)[0] not in PYTHON_CELL_MAGICS:
                continue  # another language
            self.cells.append(_Cell(index, code, _magic_lines(code)))
        self._masked: list[str] = []  # the IPython lines, by the number their mask carries
        parts, self.starts = [], []  # starts: 1-based line of each cell's first line in the module
        line = 1
        for position, cell in enumerate(self.cells):
            if position:
                parts.append(BOUNDARY + "\n")
                line += 1
            self.starts.append(line)
            lines = cell.code.split("\n")
            if lines[-1] == "":
                lines.pop()
            for number, original in cell.masked.items():
                lines[number] = f"{_indent(original)}{_MASK}{len(self._masked)}"
                self._masked.append(original)
            parts.append("".join(f"{text}\n" for text in lines))
            line += len(lines)
        self.code = "".join(parts)

    @property
    def is_python(self) -> bool:
        """False for notebooks of another kernel language (R, Julia...), which are skipped."""
        def table(value: object) -> dict:
            return value if isinstance(value, dict) else {}

        metadata = table(self.json.get("metadata"))
        language = table(metadata.get("kernelspec")).get("language") or table(metadata.get("language_info")).get("name")
        return not isinstance(language, str) or language.lower() in ("python", "python3", "ipython")

    # --- positions -------------------------------------------------------------------------------
    def locate(self, line: int, starts: list[int] | None = None) -> tuple[int, int]:
        """(cell number, line in the cell) of a line of the module (of ``starts``' version of it)."""
        starts = starts or self.starts
        position = max(bisect.bisect_right(starts, line) - 1, 0)
        return self.cells[position].index + 1, line - starts[position] + 1

    def cite_lines(self, message: str, starts: list[int] | None = None) -> str:
        """A finding's message with the module lines it cites ("line 25") as cells and lines."""

        def cited(match: re.Match[str]) -> str:
            return " and ".join("cell {}, line {}".format(*self.locate(int(n), starts)) for n in match.group(1).split(", "))

        return _CITED.sub(cited, message) if self.cells else message

    def error_in_cell(self, exc: SourceError) -> SourceError:
        """A parse error of the module, pointed at the cell and line it comes from."""
        if not exc.line or not self.cells:
            return SourceError(self.path, exc.message)
        cell, line = self.locate(exc.line)
        return SourceError(f"{self.path}:cell {cell}", exc.message, line, exc.col)

    # --- the way back ------------------------------------------------------------------------------
    def split(self, code: str) -> tuple[list[str], list[int]]:
        """The rewritten module cut back into the cells' new code, and where each cell now starts.

        Raises :class:`SourceError` when the rewrite moved code across cells."""
        lines = code.split("\n")
        cut = [i for i, text in enumerate(lines) if text.strip() == BOUNDARY]
        if len(cut) != len(self.cells) - 1 or any(lines[i] != BOUNDARY for i in cut):
            raise self._joined()
        pieces, starts, begin = [], [], 0
        for end in [*cut, len(lines) - 1]:  # the module ends with a newline: its last "line" is empty
            starts.append(begin + 1)
            pieces.append(lines[begin:end])
            begin = end + 1
        restored: list[str] = []
        seen: set[int] = set()
        for cell, piece in zip(self.cells, pieces):
            try:
                compile("\n".join(piece), self.path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            except SyntaxError:
                raise self._joined() from None
            for i, text in enumerate(piece):
                match = _MASKED.match(text)
                if match:
                    k = int(match.group(2))
                    if k in seen or k >= len(self._masked):
                        raise self._joined()
                    seen.add(k)
                    piece[i] = match.group(1) + self._masked[k].lstrip(" \t")
            keep = _trailing_blank_lines(cell.code.split("\n")[: -1 if cell.code.endswith("\n") else None])
            while _trailing_blank_lines(piece) > keep:  # spacing a fix added at the end of a cell means nothing there
                piece.pop()
            new = "".join(f"{text}\n" for text in piece)
            if new and not cell.code.endswith("\n"):
                new = new[:-1]
            restored.append(new)
        if len(seen) != len(self._masked):
            raise self._joined()
        return restored, starts

    def _joined(self) -> SourceError:
        return SourceError(
            self.path,
            "cannot rewrite: a fix would move code from one cell into another; merge the cells it "
            "touches (see --diff on a copy as a script) or fix them by hand; notebook left unchanged",
        )

    def with_code(self, cells: list[str]) -> bytes:
        """The notebook's bytes with these cells' new code, in the file's own JSON layout."""
        layout = self._layout()
        if layout is None:
            raise SourceError(
                self.path,
                "cannot rewrite: its JSON layout is not one tfmigrate can reproduce exactly, and "
                "writing it would reformat the whole file; notebook left unchanged (--diff shows the fixes)",
            )
        entries = list(self.json["cells"])  # the parsed notebook stays as read: copies of what changes
        for index, _, new in self.changed_cells(cells):
            entry = entries[index]
            entries[index] = {**entry, "source": _lines(new) if isinstance(entry.get("source"), list) else new}
        text = self._dump({**self.json, "cells": entries}, *layout)
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")

    def _layout(self) -> tuple[int | None, bool, tuple[str, str] | None, bool, bool] | None:
        text = self.text
        match = re.search(r"\n( +)\S", text)
        indent = len(match.group(1)) if match else None
        crlf, final = "\r\n" in text, text.endswith("\n")
        for ensure_ascii in (False, True):
            for separators in ([None] if indent is not None else [None, (",", ":")]):
                if self._dump(self.json, indent, ensure_ascii, separators, crlf, final) == text:
                    return indent, ensure_ascii, separators, crlf, final
        return None

    @staticmethod
    def _dump(document: object, indent: int | None, ensure_ascii: bool, separators: tuple[str, str] | None, crlf: bool, final: bool) -> str:
        text = json.dumps(document, indent=indent, ensure_ascii=ensure_ascii, separators=separators)
        if crlf:
            text = text.replace("\n", "\r\n")
        return text + ("\r\n" if crlf else "\n") if final else text

    def changed_cells(self, cells: list[str]) -> list[tuple[int, str, str]]:
        """(position in the notebook, old code, new code) of each cell ``cells`` changes."""
        return [(cell.index, cell.code, new) for cell, new in zip(self.cells, cells) if new != cell.code]


def _magic_lines(code: str) -> dict[int, str]:
    """Lines of a cell that are IPython syntax, not Python (by 0-based line number).

    As IPython decides: only where a logical line starts. ``% (a, b)`` continuing a bracketed
    expression, a line inside a triple-quoted string or after a backslash is Python. One pass
    over the cell, keeping track of open brackets, an open string and a trailing backslash.
    """
    found: dict[int, str] = {}
    depth, quote, continued = 0, "", False
    for number, text in enumerate(code.split("\n")):
        if depth == 0 and not quote and not continued and (
            _MAGIC_START.match(text) or (number == 0 and text.lstrip().startswith("%%"))
        ):
            found[number] = text
            continue
        depth, quote, continued = _scan(text, depth, quote)
    return found


def _scan(text: str, depth: int, quote: str) -> tuple[int, str, bool]:
    """Bracket depth, open string delimiter ('' if none) and backslash continuation after a line."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\":
                i += 2  # an escaped character (in raw strings too, a quote does not end it)
            elif text.startswith(quote, i):
                i += len(quote)
                quote = ""
            else:
                i += 1
            continue
        if c == "#":
            break
        if c in "\"'":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            i += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        elif c == "\\" and i == n - 1:
            return depth, quote, True
        i += 1
    if len(quote) == 1 and not text.endswith("\\"):
        quote = ""  # a one-quote string ends with its line (or the line is not Python)
    return depth, quote, bool(quote) and text.endswith("\\")


def _trailing_blank_lines(lines: list[str]) -> int:
    count = 0
    for text in reversed(lines):
        if text.strip():
            break
        count += 1
    return count


def _indent(text: str) -> str:
    return text[: len(text) - len(text.lstrip(" \t"))]


def _lines(code: str) -> list[str]:
    """A cell's source as nbformat stores it: lines split at "\\n" only, each keeping it."""
    parts = code.split("\n")
    return [f"{part}\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
