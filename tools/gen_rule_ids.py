"""Generate ``tfmigrate/rule_ids.py``: one constant per rule id of the catalog.

    python tools/gen_rule_ids.py [--out tfmigrate/rule_ids.py]

Run it after adding a rule to a catalog file; ``tests/test_rule_ids.py`` fails while the module is
stale, while the code reports an id as a string, or while the code and the catalog disagree on the
ids (one that the code uses and the catalog lacks, or the reverse).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's tfmigrate, whatever is installed

from tfmigrate.codemod.rule import Catalog, load_catalog  # noqa: E402

OUT = REPO / "tfmigrate" / "rule_ids.py"
HEADER = '''"""Every rule id of the catalog (``rules/*.toml``), one constant each. Generated: never edit.

Titles, why, fix safety and examples stay in the catalog: ``tfmigrate rules TFM103``.

The code reports a rule through its constant, never a string (``self.fix(node, TFM103, ...)``),
so ``grep -rn TFM103 tfmigrate`` or an IDE's "find usages" leads from an id to every line that
reports it, and a mistyped id is an ImportError. ``tfmigrate rules TFM103`` lists those places
too. After adding a rule to a catalog file, run ``python tools/gen_rule_ids.py``;
``tests/test_rule_ids.py`` checks that this module, the catalog and the code agree.
"""

from __future__ import annotations
'''


def render(catalog: Catalog) -> str:
    lines = [HEADER]
    for family in catalog.families:
        lines.append(f"\n# rules/{family.source}")
        lines.extend(f'{rule.id} = "{rule.id}"' for rule in family.rules)
    lines.append("\nALL: frozenset[str] = frozenset({")
    for family in catalog.families:
        ids = [rule.id for rule in family.rules]
        lines.extend(f"    {line}" for line in textwrap.wrap(", ".join(ids) + ",", 96))
    lines.append("})")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(render(load_catalog()), encoding="utf-8")


if __name__ == "__main__":
    main()
