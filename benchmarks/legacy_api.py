"""The legacy API inventory of issue 27: every public symbol of the legacy modules, and tfmigrate's
decision for each, counted per module.

The inventory (``benchmarks/data/legacy_api.json``, committed) is read out of TensorFlow's own
sources, statically, by ``benchmarks/legacy_extract.py``: the Python files of the PyPI wheels of
TF 0.12.1, 1.0.1, 1.3.0, 1.8.0 and 1.15.0, and Scikit Flow from the tensorflow/skflow repository.
Those sources are not in this repository: ``--extract`` regenerates the file where they are
(``--tfsrc``, ``--skflow-git``); everything else, the tests included, reads the committed file.

The decisions are tfmigrate's own, derived by running its real rewrite (``rewrite_source``, every
rule family) in-process on generated probe modules: one per legacy module and import form, each
symbol on its own line (a reference, and a call where it can be called). Per line:

- **rewritten**: the line no longer references a name that TF 2.15 lacks
  (``tfmigrate/data/tf215_names.json``);
- **helper**: it does, through a legacy helper that the rewrite wrote into the module;
- **manual**: a legacy name is left and a manual finding is on the line (its rule id is kept);
- **unchanged**: the name exists in TF 2.15 as written (TF 0.x top-level names that 1.x kept);
- **silent**: a legacy name is left with no finding: undecided. The target is none.

A symbol takes the worst decision of its lines (silent, then manual, helper, rewritten, unchanged).

Usage:
  python benchmarks/legacy_api.py                 the coverage table (text)
  python benchmarks/legacy_api.py --markdown      the table for benchmarks/README.md
  python benchmarks/legacy_api.py --list silent   the symbols of one decision, with rule ids
  python benchmarks/legacy_api.py --extract       regenerate the inventory from the sources
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data" / "legacy_api.json"
CENSUS = HERE / "data" / "census.json"
TFSRC = Path("/work/tfsrc")
SKFLOW_GIT = Path("/work/.mirror/tensorflow+skflow/repo")
SKFLOW_COMMIT = "81426556f9094d7996ce8e8956b10db504b3ab8b"  # tensorflow/skflow, 2016-04-12: its last commit with code
VERSIONS = ("0.12.1", "1.0.1", "1.3.0", "1.8.0", "1.15.0")

sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))


def load_inventory(path: Path = DATA) -> dict:
    """The committed inventory: ``{"versions": [...], "modules": [...], "symbols": {full name:
    {"module", "kind" ("name" or "argument"), "versions"}}}``."""
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def wheel_roots(tfsrc: Path = TFSRC) -> dict[str, Path]:
    """{version: the folder holding its ``tensorflow/`` package} of the extracted wheels."""
    roots = {}
    for version in VERSIONS:
        base = tfsrc / version
        purelib = sorted(base.glob("*.data/purelib"))
        roots[version] = purelib[0] if purelib else base
    return roots


def extract_all(tfsrc: Path = TFSRC, skflow_git: Path | None = SKFLOW_GIT) -> dict:
    from legacy_extract import extract

    with tempfile.TemporaryDirectory() as tmp:
        skflow = None
        if skflow_git is not None and skflow_git.exists():
            archive = subprocess.run(
                ["git", "--git-dir", str(skflow_git), "archive", SKFLOW_COMMIT, "skflow"], check=True, capture_output=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            skflow = (f"skflow@{SKFLOW_COMMIT[:8]}", Path(tmp))
        inventory = extract(wheel_roots(tfsrc), skflow)
    inventory["sources"] = {
        "tensorflow": "the Python files of the PyPI wheels " + ", ".join(VERSIONS),
        "skflow": f"github.com/tensorflow/skflow at {SKFLOW_COMMIT}" if skflow else "not available",
    }
    return inventory


def write_inventory(inventory: dict, path: Path = DATA) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    head = {k: v for k, v in inventory.items() if k != "symbols"}
    lines = [json.dumps(head, indent=1)[:-2] + ',\n "symbols": {']
    items = list(inventory["symbols"].items())
    for i, (name, entry) in enumerate(items):  # one symbol a line: reviewable diffs
        lines.append(f" {json.dumps(name)}: {json.dumps(entry)}" + ("," if i < len(items) - 1 else ""))
    lines.append(" }\n}\n")
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extract", action="store_true", help="regenerate the inventory from the legacy sources")
    parser.add_argument("--tfsrc", type=Path, default=TFSRC)
    parser.add_argument("--skflow-git", type=Path, default=SKFLOW_GIT)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--list", metavar="DECISION")
    args = parser.parse_args(argv)
    if args.extract:
        inventory = extract_all(args.tfsrc, args.skflow_git)
        write_inventory(inventory)
        print(f"{len(inventory['symbols'])} symbols of {len(inventory['modules'])} modules -> {DATA.relative_to(ROOT)}")
        return 0
    inventory = load_inventory()
    counts = Counter(entry["module"] for entry in inventory["symbols"].values())
    for module, n in sorted(counts.items()):
        print(f"{module:50} {n:5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
