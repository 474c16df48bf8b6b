"""The legacy API inventory of issue 27: every public symbol of the legacy modules, and tfmigrate's
decision for each, counted per module.

The inventory (``benchmarks/data/legacy_api.json``, committed) is read out of TensorFlow's own
sources, statically, by ``benchmarks/legacy_extract.py``: the Python files of the PyPI wheels of
TF 0.12.1, 1.0.1, 1.3.0, 1.8.0 and 1.15.0, and Scikit Flow from the tensorflow/skflow repository.
Those sources are not in this repository: ``--extract`` regenerates the file where they are
(``--tfsrc``, ``--skflow-git``); everything else, the tests included, reads the committed file.

The decisions are tfmigrate's own, derived by running its real rewrite (``rewrite_source``, every
rule family) in-process on generated probe modules: one per legacy module and import form (see
``_forms``), each symbol on its own line (a reference, and a call where it can be called). Per line:

- **rewritten**: the line no longer references a name that TF 2.15 lacks
  (``tfmigrate/data/tf215_names.json``; tf-slim 1.1.0's names for ``tf_slim.*``), and has no manual finding;
- **helper**: the same, through a legacy helper that the rewrite wrote into the module;
- **manual**: a manual finding is on the line (its rule id is kept), whether or not a legacy name is left;
- **unchanged**: the name exists in TF 2.15 as written (TF 0.x top-level names that 1.x kept),
  and the line is left as it is;
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
import ast
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
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
    inventory["tf_slim"] = tf_slim_names()
    inventory["sources"] = {
        "tensorflow": "the Python files of the PyPI wheels " + ", ".join(VERSIONS),
        "skflow": f"github.com/tensorflow/skflow at {SKFLOW_COMMIT}" if skflow else "not available",
    }
    return inventory


def tf_slim_names() -> dict:
    """The names the installed tf-slim package binds at its top level (read statically): the
    target of TFM606's ``tf.contrib.slim`` / ``tf.contrib.layers`` rewrites, checked like TF 2.15's."""
    import importlib.metadata
    import importlib.util

    from legacy_extract import Tree

    spec = importlib.util.find_spec("tf_slim")
    if spec is None or spec.origin is None:
        return {"version": None, "names": []}
    tree = Tree(Path(spec.origin).parent.parent, top="tf_slim")
    package = tree.source("tf_slim")
    # importing tf_slim.X.Y binds X on the package too (from tf_slim.layers import * binds tf_slim.layers)
    submodules = {origin.split(".")[1] for origin, _ in package.imports.values() if origin.startswith("tf_slim.")}
    submodules |= {origin.split(".")[1] for origin in package.stars if origin.startswith("tf_slim.")}
    names = tree.star_bound("tf_slim") | submodules
    return {"version": importlib.metadata.version("tf-slim"), "names": sorted(names)}


def write_inventory(inventory: dict, path: Path = DATA) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    head = {k: v for k, v in inventory.items() if k != "symbols"}
    lines = [json.dumps(head, indent=1)[:-2] + ',\n "symbols": {']
    items = list(inventory["symbols"].items())
    for i, (name, entry) in enumerate(items):  # one symbol a line: reviewable diffs
        lines.append(f" {json.dumps(name)}: {json.dumps(entry)}" + ("," if i < len(items) - 1 else ""))
    lines.append(" }\n}\n")
    path.write_text("\n".join(lines), encoding="utf-8")


# --- probes ---------------------------------------------------------------------------------------
DECISIONS = ("silent", "manual", "helper", "rewritten", "unchanged")  # worst first
CATCH_ALL = "TFM503"  # the renames family's "does not exist in TF 2.15" finding: a module-wide hint
ARG_VALUES = {"model_dir": '"model_dir"', "master": '""', "evaluation_master": '""', "protocol": '"grpc"'}


@dataclass
class Probe:
    """One generated module: an import form of one legacy module, a line per use of a symbol."""

    module: str
    form: str
    header: list[str]
    lines: list[tuple[str, str]] = field(default_factory=list)  # (symbol, code)

    def text(self) -> str:
        body = [f"{code}  # probe:{i}" for i, (_, code) in enumerate(self.lines)]
        return "\n".join([*self.header, "", *body]) + "\n"


def _forms(module: str) -> list[tuple[str, list[str], str]]:
    """(form, import lines, the prefix that spells ``module``) for each import form it is used through:
    ``import tensorflow as tf`` and ``import tensorflow`` for the top level; for a contrib module also
    ``from tensorflow.contrib import X``, ``import tensorflow.contrib.X as X`` and a module alias
    ``M = tf.contrib.X``; ``import skflow`` and ``from tensorflow.contrib import skflow`` for skflow."""
    if module == "tensorflow":
        return [("import tensorflow as tf", ["import tensorflow as tf"], "tf"),
                ("import tensorflow", ["import tensorflow"], "tensorflow")]
    if module.split(".")[0] == "skflow":
        rest = module[len("skflow") :]
        return [
            ("import skflow", ["import skflow"], "skflow" + rest),
            ("from tensorflow.contrib import skflow", ["from tensorflow.contrib import skflow"], "skflow" + rest),
        ]
    parts = module.split(".")
    forms = [("import tensorflow as tf", ["import tensorflow as tf"], "tf." + ".".join(parts[1:]))]
    if parts[:2] == ["tensorflow", "contrib"] and len(parts) > 2:
        lead, rest = parts[2], "".join(f".{p}" for p in parts[3:])
        forms += [
            (f"from tensorflow.contrib import {lead}", [f"from tensorflow.contrib import {lead}"], lead + rest),
            (f"import tensorflow.contrib.{lead} as {lead}", [f"import tensorflow.contrib.{lead} as {lead}"], lead + rest),
            (f"M = tf.contrib.{lead}", ["import tensorflow as tf", f"M = tf.contrib.{lead}"], "M" + rest),
        ]
    return forms


def _uses(name: str, entry: dict, spelled: str) -> list[str]:
    """The probe lines of one symbol, spelled through an import form's prefix."""
    if entry["kind"] == "argument":
        cls, _, arg = name.partition("(")
        arg = arg.rstrip("=)")
        return [f"{spelled}({arg}={ARG_VALUES.get(arg, '1')})"]
    lines = [spelled]
    short = name.rpartition(".")[2]
    if entry["kind"] == "name" and not short.isupper():
        lines.append(f"{spelled}()")
    return lines


def probes(inventory: dict) -> list[Probe]:
    by_module: dict[str, list[tuple[str, dict]]] = {}
    for name, entry in inventory["symbols"].items():
        by_module.setdefault(entry["module"], []).append((name, entry))
    out = []
    for module, members in sorted(by_module.items()):
        for form, header, prefix in _forms(module):
            probe = Probe(module, form, header)
            for name, entry in members:
                if entry["kind"] == "argument":
                    spelled = prefix
                else:
                    spelled = prefix + name[len(module) :]
                for code in _uses(name, entry, spelled):
                    probe.lines.append((name, code))
            out.append(probe)
    return out


class _Names(ast.NodeVisitor):
    """(line, dotted name) of each use of a name rooted at tensorflow, skflow or tf_slim."""

    ROOTS = ("tensorflow", "skflow", "tf_slim")

    def __init__(self) -> None:
        self.bindings: dict[str, str] = {}
        self.uses: list[tuple[int, str]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] in self.ROOTS:
                if alias.asname:
                    self.bindings[alias.asname] = alias.name
                else:
                    self.bindings[alias.name.split(".")[0]] = alias.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and not node.level and node.module.split(".")[0] in self.ROOTS:
            for alias in node.names:
                self.bindings[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _dotted(self, node: ast.expr) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.bindings:
            return ".".join([self.bindings[node.id], *reversed(parts)])
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self._dotted(node)
        if name:
            self.uses.append((node.lineno, name))
        else:
            self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.bindings and isinstance(node.ctx, ast.Load):
            self.uses.append((node.lineno, self.bindings[node.id]))


def missing_in_215(name: str, slim: frozenset[str]) -> bool:
    """Does a dotted name, as written, name something TF 2.15 (or tf-slim, for tf_slim.*) lacks?"""
    from tfmigrate.transforms.common.tf_names import V2, names

    root = name.split(".")[0]
    if root == "skflow":
        return True
    if root == "tf_slim":
        parts = name.split(".")
        return len(parts) > 1 and parts[1] not in slim
    if name == "tensorflow":
        return False
    return names().status(name[len("tensorflow.") :]) != V2


@dataclass
class LineResult:
    symbol: str
    form: str
    code: str
    decision: str
    rules: tuple[str, ...]
    new: str


def run_probe(probe: Probe, enabled: frozenset[str], slim: frozenset[str]) -> list[LineResult]:
    """tfmigrate's rewrite of one probe module, decided line by line (see the module docstring)."""
    from tfmigrate.codemod.engine import rewrite_source

    text = probe.text()
    result = rewrite_source(text.encode(), enabled, path=f"probe_{probe.module}.py")
    new = result.new.decode()
    first = len(probe.header) + 2  # the line of probe:0
    manual: dict[int, list[str]] = {}
    for finding in result.findings:
        if not finding.fixable:
            manual.setdefault(finding.line - first, []).append(finding.rule)
    # the statements of the new text, each attributed to the probe whose marker it holds; a statement
    # with no marker after the first marked one belongs to the next marked statement
    tree = ast.parse(new)
    new_lines = new.splitlines()
    owner: dict[int, int] = {}  # new line -> probe index
    pending: list[ast.stmt] = []
    helpers = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    seen_marker = False
    for stmt in tree.body:
        span = range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
        marks = [int(m) for line in span for m in re.findall(r"# probe:(\d+)", new_lines[line - 1])]
        if not marks:
            if seen_marker:
                pending.append(stmt)
            continue
        seen_marker = True
        for extra in pending:
            for line in range(extra.lineno, (extra.end_lineno or extra.lineno) + 1):
                owner[line] = marks[0]
        pending = []
        for line in span:
            owner[line] = marks[0]
    collector = _Names()
    collector.visit(tree)
    uses: dict[int, list[str]] = {}
    for line, name in collector.uses:
        if line in owner:
            uses.setdefault(owner[line], []).append(name)
    helper_use: dict[int, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in helpers and getattr(node, "lineno", 0) in owner:
            helper_use[owner[node.lineno]] = True
    text_of: dict[int, list[str]] = {}
    for line, index in owner.items():
        text_of.setdefault(index, []).append(new_lines[line - 1])
    out = []
    for index, (symbol, code) in enumerate(probe.lines):
        left = [n for n in uses.get(index, []) if missing_in_215(n, slim)]
        rules = tuple(manual.get(index, []))
        rewritten = "\n".join(text_of.get(index, []))
        if rules:  # the rewrite itself asks for work on this line, whatever it changed
            decision = "manual"
        elif left:
            decision = "silent"
        elif helper_use.get(index):
            decision = "helper"
        elif not missing_in_215(symbol, slim) and rewritten.split("  # probe:")[0] == code:
            decision = "unchanged"  # a name TF 2.15 has, left as it is
        else:
            decision = "rewritten"
        out.append(LineResult(symbol, probe.form, code, decision, rules, rewritten))
    return out


def decide(inventory: dict, modules: set[str] | None = None) -> dict[str, dict]:
    """{symbol: {"decision", "rules", "lines": [LineResult...]}} for every symbol (of ``modules``)."""
    from tfmigrate.codemod.rule import load_catalog

    enabled = load_catalog().selected(None)
    slim = frozenset(inventory.get("tf_slim", {}).get("names", ()))
    decided: dict[str, dict] = {}
    for probe in probes(inventory):
        if modules is not None and probe.module not in modules:
            continue
        for line in run_probe(probe, enabled, slim):
            entry = decided.setdefault(line.symbol, {"decision": "unchanged", "rules": set(), "lines": []})
            entry["lines"].append(line)
            entry["rules"].update(line.rules)
            if DECISIONS.index(line.decision) < DECISIONS.index(entry["decision"]):
                entry["decision"] = line.decision
    return decided


def load_census(path: Path = CENSUS) -> dict[str, dict] | None:
    """``census.json``'s ``{"symbols": {full name: {"uses", "repos"}}}`` where it exists (the census of
    use, issue 27's second bullet, another script's output): the table orders its modules by it."""
    if not path.is_file():
        return None
    with path.open(encoding="utf-8") as handle:
        return json.load(handle).get("symbols", {})


COLUMNS = ("rewritten", "helper", "manual", "unchanged", "silent")


def table_rows(inventory: dict, decided: dict[str, dict], census: dict[str, dict] | None = None) -> list[dict]:
    """One row per module: symbols, the count of each decision, the TFM503 catch-all among the
    manual ones, and (with a census) the uses of the module's symbols."""
    rows: dict[str, dict] = {}
    for name, entry in inventory["symbols"].items():
        row = rows.setdefault(entry["module"], {"module": entry["module"], "symbols": 0, "catch_all": 0, "uses": 0, **{c: 0 for c in COLUMNS}})
        row["symbols"] += 1
        decision = decided[name]["decision"]
        row[decision] += 1
        if decision == "manual" and decided[name]["rules"] == {CATCH_ALL}:
            row["catch_all"] += 1
        if census:
            row["uses"] += census.get(name, {}).get("uses", 0)
    ordered = sorted(rows.values(), key=lambda r: (-r["uses"], r["module"]) if census else r["module"])
    return ordered


def _total(rows: list[dict]) -> dict:
    total = {"module": "total"}
    for key in ("symbols", "catch_all", "uses", *COLUMNS):
        total[key] = sum(r[key] for r in rows)
    return total


def render(rows: list[dict], census: bool, markdown: bool) -> str:
    heads = ["module", "symbols", *COLUMNS[:3], "of which TFM503 only", *COLUMNS[3:]] + (["uses"] if census else [])
    keys = ["module", "symbols", *COLUMNS[:3], "catch_all", *COLUMNS[3:]] + (["uses"] if census else [])
    body = [*rows, _total(rows)]
    if markdown:
        out = ["| " + " | ".join(heads) + " |", "|" + "|".join(["---"] + ["---:"] * (len(heads) - 1)) + "|"]
        for row in body:
            cells = [f"`{row['module']}`" if row["module"] != "total" else "**total**"]
            cells += [str(row[k]) if row["module"] != "total" else f"**{row[k]}**" for k in keys[1:]]
            out.append("| " + " | ".join(cells) + " |")
        return "\n".join(out)
    width = max(len(r["module"]) for r in body) + 2
    out = [f"{'module':{width}}" + "".join(f"{h[:10]:>11}" for h in heads[1:])]
    for row in body:
        out.append(f"{row['module']:{width}}" + "".join(f"{row[k]:>11}" for k in keys[1:]))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extract", action="store_true", help="regenerate the inventory from the legacy sources")
    parser.add_argument("--tfsrc", type=Path, default=TFSRC)
    parser.add_argument("--skflow-git", type=Path, default=SKFLOW_GIT)
    parser.add_argument("--markdown", action="store_true", help="the table as Markdown (benchmarks/README.md)")
    parser.add_argument("--list", metavar="DECISION", choices=DECISIONS, help="list the symbols of one decision")
    parser.add_argument("--module", action="append", help="only these modules (repeatable)")
    args = parser.parse_args(argv)
    if args.extract:
        inventory = extract_all(args.tfsrc, args.skflow_git)
        write_inventory(inventory)
        print(f"{len(inventory['symbols'])} symbols of {len(inventory['modules'])} modules -> {DATA.relative_to(ROOT)}")
        return 0
    inventory = load_inventory()
    if args.module:
        inventory = {**inventory, "symbols": {k: v for k, v in inventory["symbols"].items() if v["module"] in args.module}}
    decided = decide(inventory)
    if args.list:
        for name, entry in decided.items():
            if entry["decision"] == args.list:
                print(name, ",".join(sorted(entry["rules"])) or "-")
                for line in entry["lines"]:
                    print(f"    [{line.form}] {line.code}  ->  {line.new.split('  # probe:')[0]!r} {line.decision} {','.join(line.rules)}")
        return 0
    census = load_census()
    rows = table_rows(inventory, decided, census)
    print(render(rows, census is not None, args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
