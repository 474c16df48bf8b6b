"""Huge legacy modules for the memory tests and benchmarks/bench_huge.py: the samples' legacy programs
(every rule family) one after another, as many times as it takes, each copy's module-level names
suffixed with its number (``x_train_3``), so that the copies are independent programs in one file
and not one program that rebinds the same names a hundred times."""

from __future__ import annotations

import ast
import io
import keyword
import tokenize
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _bound_at_module_level(source: str) -> set[str]:
    names: set[str] = set()
    for statement in ast.parse(source).body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With)):
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
    return names


def _suffixed(source: str, suffix: str) -> str:
    """``source`` with its module-level names renamed ``name_<suffix>`` (not attributes, keywords
    of calls or parameters)."""
    bound = {n for n in _bound_at_module_level(source) if not keyword.iskeyword(n)}
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    depth = 0
    for i, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        if token.type != tokenize.NAME or token.string not in bound:
            continue
        before = tokens[i - 1] if i else None
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if before is not None and before.type == tokenize.OP and before.string == ".":
            continue
        if depth and after is not None and after.type == tokenize.OP and after.string == "=":
            continue  # a keyword argument or a parameter's default
        edits.append((token.start[0], token.start[1], token.string))
    for row, col, name in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + f"{name}_{suffix}" + line[col + len(name):]
    return "".join(lines)


def tf1_module(lines: int, exclude: tuple[str, ...] = (), one_import_block: bool = False) -> str:
    """About ``lines`` lines of legacy TensorFlow code (whole sample programs, so a little more;
    ``exclude``: sample names left out). ``one_import_block``: the programs' imports once, at the
    top (one long module), instead of each program's own at its start (programs one after another)."""
    sources = [p.read_text() for p in sorted(SAMPLES.glob("*/legacy.py")) if p.parent.name not in exclude]
    imports: list[str] = []
    out: list[str] = []
    count = copy = 0
    while count < lines:
        source = sources[copy % len(sources)]
        text = _suffixed(source, str(copy))
        if not text.endswith("\n"):
            text += "\n"
        if one_import_block:
            kept = []
            for line in text.splitlines(keepends=True):
                if line.startswith(("import ", "from ")):
                    if line not in imports:
                        imports.append(line)
                else:
                    kept.append(line)
            text = "".join(kept)
        out.append(text)
        count += text.count("\n")
        copy += 1
    return "".join(imports) + "\n" + "".join(out) if one_import_block else "".join(out)
