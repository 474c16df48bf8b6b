"""The breaking changes of meaning in TensorFlow's release notes, 0.6 to 1.15, and what tfmigrate does
with each (issue 27): the table in ``benchmarks/data/breaking_changes.toml``, verified.

Every entry is a change from a "Breaking changes" / "Breaking Changes to the API" / "Backwards-
Incompatible Changes" / "Behavioral changes" section of RELEASE.md (and the changes of meaning the
notes list elsewhere) with a small legacy snippet and a decision:

- ``kept``: tfmigrate's rewrite keeps the legacy meaning (``rule`` fixes it);
- ``finding``: ``rule`` reports it on its line;
- ``not-silent``: the legacy code fails loudly on TF 2.15, as written or after the rewrite (``why``);
- ``unaffected``: no legacy program of 0.6-1.15 changes meaning on TF 2.15 (``why``);
- ``open``: a silent change tfmigrate does not detect yet (``why``).

Verification runs tfmigrate's real rewrite in this process (all rules, no TensorFlow) on each snippet:
the entry's rule is reported on the ``check.line`` (fixable or not, when the check says), and the
rewritten text contains ``check.contains`` / lacks ``check.absent``.

Usage: python benchmarks/breaking_changes.py [--markdown]   (exit 1 when an entry fails its check)
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tfmigrate.codemod.engine import rewrite_source  # noqa: E402
from tfmigrate.codemod.rule import load_catalog  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "breaking_changes.toml"
DECISIONS = ("kept", "finding", "not-silent", "unaffected", "open")
NEEDS_RULE = frozenset({"kept", "finding"})


@dataclass
class Change:
    id: str
    version: str
    section: str
    sentence: str
    symbols: list[str]
    snippet: str
    decision: str
    rule: str | None = None
    why: str | None = None
    check: dict = field(default_factory=dict)


def load(path: Path = DATA) -> list[Change]:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Change(**entry) for entry in raw["change"]]


def problems(change: Change, catalog=None) -> list[str]:
    """What is wrong with one entry: its form, or the rewrite of its snippet against its check."""
    catalog = catalog or load_catalog()
    out = []
    if change.decision not in DECISIONS:
        out.append(f"decision {change.decision!r} is none of {', '.join(DECISIONS)}")
    if change.decision in NEEDS_RULE and not change.rule:
        out.append(f"a {change.decision} entry names its rule")
    if change.decision not in NEEDS_RULE and not change.why:
        out.append(f"a {change.decision} entry says why")
    known = {rule.id for family in catalog.families for rule in family.rules}
    if change.rule and change.rule not in known:
        out.append(f"rule {change.rule} is not in the catalog")
    if change.decision in NEEDS_RULE and not ({"line", "contains"} & set(change.check)):
        out.append("a kept or finding entry checks a line or a text")
    if "line" in change.check and not change.rule:
        out.append("a line check needs a rule")
    if out:
        return out
    result = rewrite_source(change.snippet.encode(), catalog.selected(None), catalog=catalog)
    new = result.new.decode()
    if "line" in change.check:
        line, fixable = change.check["line"], change.check.get("fixable")
        here = [f for f in result.findings if f.rule == change.rule and f.line == line]
        if not here:
            seen = sorted({(f.line, f.rule) for f in result.findings})
            out.append(f"{change.rule} is not reported on line {line} (reported: {seen})")
        elif fixable is not None and not any(f.fixable == fixable for f in here):
            out.append(f"{change.rule} on line {line} is not {'a fix' if fixable else 'a manual finding'}")
    if "contains" in change.check and change.check["contains"] not in new:
        out.append(f"the rewrite lacks {change.check['contains']!r}:\n{new}")
    if "absent" in change.check and change.check["absent"] in new:
        out.append(f"the rewrite still has {change.check['absent']!r}")
    return out


def verify(changes: list[Change]) -> dict[str, list[str]]:
    catalog = load_catalog()
    return {c.id: problems(c, catalog) for c in changes}


def _cell(text: str, limit: int = 0) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if not limit or len(text) <= limit else text[: limit - 1].rstrip() + "…"


def markdown(changes: list[Change]) -> str:
    counts = Counter(c.decision for c in changes)
    lines = [
        f"{len(changes)} changes: " + ", ".join(f"{counts[d]} {d}" for d in DECISIONS) + ".",
        "",
        "| version | change (RELEASE.md) | symbols | decision | rule | note |",
        "|---|---|---|---|---|---|",
    ]
    for c in changes:
        symbols = ", ".join(f"`{s}`" for s in c.symbols[:3]) + (" …" if len(c.symbols) > 3 else "")
        lines.append(f"| {c.version} | {_cell(c.sentence, 140)} | {symbols} | {c.decision} | {c.rule or ''} | "
                     f"{_cell(c.why or '', 200)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    args = parser.parse_args(argv)
    changes = load()
    results = verify(changes)
    failed = {k: v for k, v in results.items() if v}
    if args.markdown:
        print(markdown(changes), end="")
    else:
        counts = Counter(c.decision for c in changes)
        print(f"{len(changes)} changes verified: " + ", ".join(f"{counts[d]} {d}" for d in DECISIONS))
    for key, found in failed.items():
        print(f"FAIL {key}: " + "; ".join(found), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
