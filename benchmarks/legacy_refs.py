"""Count references to TensorFlow names that TF 2.15 lacks: before and after `tfmigrate rewrite`,
and after `tf_upgrade_v2`, side by side.

A reference is one dotted-name use or import rooted at ``tensorflow`` or ``skflow`` (import aliases
and ``x = tf.contrib.learn`` module aliases resolved with libcst): ``tf.train.Saver`` in ``x =
tf.train.Saver()``, ``tensorflow.contrib.slim`` in ``import tensorflow.contrib.slim as slim``, each
name of ``from tensorflow.contrib import learn, layers`` (a bare ``decoder(...)`` after ``decoder =
tf.contrib.legacy_seq2seq.rnn_decoder`` is not counted again: the assignment is the reference). It is *legacy* when the name, as written,
does not exist in TensorFlow 2.15 (neither in ``tf`` nor, spelled ``tf.compat.v1.X``, in
``tf.compat.v1``), per ``tfmigrate/data/tf215_names.json``; every ``skflow`` name is legacy. Of the
legacy references left after tfmigrate, those on a line with a tfmigrate finding are *reported*;
the rest are *silent*. (Semantic changes of names that still exist, such as TF 0.x positional
cross-entropy arguments, are not references and are not counted here.)

Usage: python benchmarks/legacy_refs.py TREE [--keep DIR]
Runs tfmigrate and tf_upgrade_v2 from the Python running this script (its bin/ folder) on copies;
TREE is never written. Files that Python 3 cannot parse are skipped (listed in the count).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import libcst as cst

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tfmigrate.codemod.tree import full_name  # noqa: E402
from tfmigrate.transforms.common.tf_names import V2, names  # noqa: E402

BIN = Path(sys.executable).parent
ROOTS = ("tensorflow", "skflow")


def _rooted(name: str | None) -> bool:
    return bool(name) and name.split(".")[0] in ROOTS


def legacy(name: str) -> bool:
    if name.split(".")[0] == "skflow":
        return True
    if name == "tensorflow":
        return False
    return names().status(name[len("tensorflow.") :]) != V2


class _Refs(cst.CSTVisitor):
    """Bindings first (imports and module aliases anywhere in the file), then references."""

    def __init__(self, bindings: dict[str, str] | None = None) -> None:
        super().__init__()
        self.bindings: dict[str, str] = bindings if bindings is not None else {}
        self.assigned: set[str] = set()  # names bound by `x = tf.contrib.learn`, not by an import
        self.defined: set[str] = set()  # tensorflow.* names the program assigns itself (tf.model = ...)
        self.collecting = bindings is None
        self.refs: list[tuple[int, str]] = []
        self.in_import = 0
        self.parents: list[cst.CSTNode] = []

    # bindings ---------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self.in_import += 1
        for alias in node.names:
            name = full_name(alias.name)
            if not _rooted(name):
                continue
            if self.collecting:
                if alias.asname is not None:
                    self.bindings[alias.evaluated_alias] = name
                else:
                    self.bindings.setdefault(name.split(".")[0], name.split(".")[0])
            else:
                self._ref(alias, name)

    def leave_Import(self, node: cst.Import) -> None:
        self.in_import -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_import += 1
        if node.relative or node.module is None:
            return
        module = full_name(node.module)
        if not _rooted(module):
            return
        if isinstance(node.names, cst.ImportStar):
            if not self.collecting:
                self._ref(node, module)
            return
        for alias in node.names:
            name = f"{module}.{full_name(alias.name)}"
            if self.collecting:
                self.bindings[alias.evaluated_alias or full_name(alias.name)] = name
            else:
                self._ref(alias, name)

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_import -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.collecting:
            return
        for target in node.targets:  # `tf.model = Sequential()`: the program adds that name itself
            added = self.resolve(target.target) if isinstance(target.target, cst.Attribute) else None
            if added and _rooted(added):
                self.defined.add(added)
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        resolved = self.resolve(node.value)
        if resolved:  # learn = tf.contrib.learn
            self.bindings[node.targets[0].target.value] = resolved
            self.assigned.add(node.targets[0].target.value)

    # references -------------------------------------------------------------------------------
    def resolve(self, node: cst.BaseExpression) -> str | None:
        parts = []
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        if not isinstance(node, cst.Name) or node.value not in self.bindings:
            return None
        return ".".join([self.bindings[node.value], *reversed(parts)])

    def on_visit(self, node: cst.CSTNode) -> bool:
        result = super().on_visit(node)
        if not self.collecting and not self.in_import and isinstance(node, (cst.Name, cst.Attribute)):
            parent = self.parents[-1] if self.parents else None
            outer = not (isinstance(parent, cst.Attribute) and parent.value is node)
            attr_name = isinstance(parent, cst.Attribute) and parent.attr is node
            alias_call = type(node) is cst.Name and node.value in self.assigned  # the assignment was the reference
            if outer and not attr_name and not alias_call and not self._is_target_of_alias(node):
                name = self.resolve(node)
                if name and _rooted(name):
                    self._ref(node, name)
        self.parents.append(node)
        return result

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.parents.pop()
        super().on_leave(original_node)

    def _is_target_of_alias(self, node: cst.CSTNode) -> bool:
        parent = self.parents[-1] if self.parents else None
        return isinstance(parent, cst.AssignTarget) and parent.target is node

    def _ref(self, node: cst.CSTNode, name: str) -> None:
        if any(name == d or name.startswith(d + ".") for d in self.defined):
            return  # a name the program itself adds to the module (tf.model = ...): not TensorFlow's
        self.refs.append((self.line_of(node), name))


def references(path: Path) -> list[tuple[int, str]] | None:
    """(line, dotted name) of every reference in a file; None when Python 3 cannot parse it."""
    return references_in(path.read_bytes())


def references_in(source: bytes) -> list[tuple[int, str]] | None:
    """(line, dotted name) of every reference in a module's source; None when Python 3 cannot parse it.
    Reused by ``benchmarks/census.py``, which reads sources straight from git."""
    found = scan_source(source)
    return None if found is None else found[0]


def scan_source(source: bytes) -> tuple[list[tuple[int, str]], set[str]] | None:
    """The references of a module's source, and the tensorflow.* names it adds itself
    (``tf.GraphKeys.INPUTS = 'inputs'``); None when Python 3 cannot parse it."""
    try:
        wrapper = cst.MetadataWrapper(cst.parse_module(source))
    except Exception:
        return None
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    collect = _Refs()
    wrapper.module.visit(collect)
    refs = _Refs(collect.bindings)
    refs.assigned = collect.assigned
    refs.defined = collect.defined
    refs.line_of = lambda node: positions[node].start.line  # type: ignore[attr-defined]
    wrapper.module.visit(refs)
    return refs.refs, collect.defined


def count(tree: Path) -> tuple[dict[str, list[tuple[int, str]]], int, list[str]]:
    """Legacy references per file (relative path), all references, unparsable files."""
    legacy_refs: dict[str, list[tuple[int, str]]] = {}
    total = 0
    skipped = []
    for path in sorted(tree.rglob("*.py")):
        rel = str(path.relative_to(tree))
        found = references(path)
        if found is None:
            skipped.append(rel)
            continue
        total += len(found)
        legacy_refs[rel] = [(line, name) for line, name in found if legacy(name)]
    return legacy_refs, total, skipped


def run_tfmigrate(tree: Path) -> dict[str, set[int]]:
    """Rewrite ``tree`` in place; lines (of the new text) with a finding, per file."""
    proc = subprocess.run(
        [str(BIN / "tfmigrate"), "rewrite", "--format", "json", "--jobs", "1", "."],
        cwd=tree, capture_output=True, text=True,
    )
    if proc.returncode not in (0, 1):
        print(proc.stderr[-2000:], file=sys.stderr)
    data = json.loads(proc.stdout)
    lines: dict[str, set[int]] = {}
    for finding in data["findings"]:
        lines.setdefault(finding["path"], set()).add(finding["line"])
    return lines


def run_tf_upgrade_v2(tree: Path, out: Path, report: Path) -> None:
    subprocess.run(
        [str(BIN / "tf_upgrade_v2"), "--intree", str(tree), "--outtree", str(out), "--reportfile", str(report)],
        capture_output=True, text=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--keep", type=Path, help="keep the rewritten copies here")
    parser.add_argument("--list", action="store_true", help="list the legacy references left silent")
    args = parser.parse_args()
    tree = args.tree.resolve()
    work = Path(tempfile.mkdtemp(prefix="legacy_refs-")) if args.keep is None else args.keep.resolve()
    work.mkdir(parents=True, exist_ok=True)
    tfm, upg = work / "tfmigrate", work / "tf_upgrade_v2"
    for d in (tfm, upg):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(tree, tfm)

    before, total, skipped = count(tree)
    finding_lines = run_tfmigrate(tfm)
    after, _, _ = count(tfm)
    run_tf_upgrade_v2(tree, upg, work / "tf_upgrade_v2_report.txt")
    upgraded, _, _ = count(upg)

    n_before = sum(len(v) for v in before.values())
    n_after = sum(len(v) for v in after.values())
    n_upgraded = sum(len(v) for rel, v in upgraded.items())
    reported = {rel: [r for r in refs if r[0] in finding_lines.get(rel, set())] for rel, refs in after.items()}
    n_reported = sum(len(v) for v in reported.values())
    n_silent = n_after - n_reported

    def pct(n: int) -> str:
        return f"{100.0 * n / n_before:5.1f}%" if n_before else "  n/a"

    print(f"tree: {tree}  ({len(before)} Python 3 files, {len(skipped)} skipped: cannot parse)")
    print(f"references to tensorflow/skflow names: {total}; legacy (not in TF 2.15 as written): {n_before}\n")
    print(f"{'':34}{'tfmigrate':>12}{'tf_upgrade_v2':>16}")
    print(f"{'legacy references before':34}{n_before:>12}{n_before:>16}")
    print(f"{'left after the rewrite':34}{n_after:>12}{n_upgraded:>16}")
    print(f"{'  resolved':34}{pct(n_before - n_after):>12}{pct(n_before - n_upgraded):>16}")
    print(f"{'  left, with a finding on the line':34}{pct(n_reported):>12}{'':>16}")
    print(f"{'  left silently':34}{pct(n_silent):>12}{'':>16}")
    print(f"\n(left silently by tfmigrate: {n_silent} of {n_before}; counts: reported {n_reported})")
    if args.list or n_silent:
        silent = Counter()
        for rel, refs in after.items():
            for line, name in refs:
                if line not in finding_lines.get(rel, set()):
                    silent[name] += 1
                    if args.list:
                        print(f"  silent: {rel}:{line}: {name}")
        if silent:
            print("silent names:", ", ".join(f"{n} x{c}" for n, c in silent.most_common(20)))
    left = Counter(".".join(name.split(".")[:3]) for refs in after.values() for _, name in refs)
    print("left after tfmigrate, by module:", ", ".join(f"{n} {c}" for n, c in left.most_common(12)))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
