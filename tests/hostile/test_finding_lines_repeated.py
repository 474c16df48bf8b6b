"""Findings stay on their own line in a module that repeats a program (issue 28, found in session 12).

A finding a later stage makes (a later family, or the second pass, on code an earlier one rewrote) is
reported on the original and the new text through ``codemod/lines.py``'s ``line_map``, an alignment of
the two texts. It anchored only on lines that occur once in the whole file: in a module of copies of one
program, a program's line is in every copy, so a whole copy aligned by line offsets alone and a TFM501
of the second pass landed a few lines off, on a blank line (the eager and monitored samples). The
alignment now looks again, within each gap, for the lines that occur once in that gap.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tfmigrate.codemod import engine
from tfmigrate.codemod.lines import line_map
from tfmigrate.codemod.rule import load_catalog

from .generate import _suffixed

ROOT = Path(__file__).resolve().parents[2]
CATALOG = load_catalog()
ENABLED = CATALOG.selected(None)
COPIES = 3


def _key(findings: list, shift: int = 0) -> set[tuple]:
    return {(f.rule, f.line + shift, f.col, f.message, f.fixable) for f in findings}


# the two samples whose later-pass findings (TFM501 on code TFM411 wrote; on code the monitored family
# wrote) the old alignment put on the wrong lines once the program was repeated
@pytest.mark.parametrize("sample", ["eager_mnist", "monitored_mnist"])
def test_each_copy_of_a_program_gets_the_findings_of_the_program_alone_on_its_lines(sample: str) -> None:
    source = (ROOT / "samples" / sample / "legacy.py").read_text()
    copies = [_suffixed(source, str(k)) for k in range(COPIES)]  # its module-level names numbered: independent programs
    copies = [c if c.endswith("\n") else c + "\n" for c in copies]
    result = engine.rewrite_source("".join(copies).encode(), ENABLED, catalog=CATALOG, whole=True)
    expected, start = set(), 0
    for copy in copies:
        alone = engine.rewrite_source(copy.encode(), ENABLED, catalog=CATALOG, whole=True)
        expected |= _key(alone.findings, start)
        start += copy.count("\n")
    assert _key(result.findings) == expected
    # (the new text's copies are not each alone's: a later copy's GradientTape gets another free name)
    lines, new_lines = "".join(copies).splitlines(), result.new.decode().splitlines()
    assert all(lines[f.line - 1].strip() for f in result.findings)  # never on a blank line
    assert all(new_lines[f.line - 1].strip() for f in result.new_findings)


def test_a_line_of_a_repeated_block_maps_onto_its_own_copy() -> None:
    """Three copies of a function (only their names differ), one statement of each rewritten over more
    lines: every line left as it was maps onto itself in its own copy, both ways."""
    body = ["    a = 1", "    b = 2", "", "    return a + b", ""]
    rewritten = {0: (4, ["    return (", "        a + b)"]), 1: (1, ["    a = (", "        1", "    )"]), 2: (2, ["    b = (", "        2)"])}
    old, new, same = [], [], []  # same: (old line, new line) of each line left as it was
    for k in range(3):
        for i, line in enumerate([f"def f{k}():", *body]):
            old.append(line)
            if rewritten[k][0] == i:
                new.extend(rewritten[k][1])
            else:
                new.append(line)
                same.append((len(old), len(new)))
    to_new, to_old = line_map("\n".join(old), "\n".join(new)), line_map("\n".join(new), "\n".join(old))
    assert [to_new(a) for a, _ in same] == [b for _, b in same]
    assert [to_old(b) for _, b in same] == [a for a, _ in same]
