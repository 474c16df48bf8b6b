"""Rule ids come from one registry (tfmigrate/rule_ids.py), which the catalog and the code agree on.

- the registry is what tools/gen_rule_ids.py makes of the catalog (one constant per id);
- the code never reports an id as a string literal, only through a registry constant, so that
  ``grep TFM103`` or an IDE leads from the id to its code and a typo fails at import;
- every id the code uses is in the catalog, and every catalog id is used by some code;
- a transform that reports an id the catalog lacks raises instead of dropping the finding.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from tfmigrate import rule_ids
from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.transform import Context, FamilyTransform, UnknownRuleError

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "tfmigrate"
RULE_ID = re.compile(r"TFM\d{3}")
CATALOG = load_catalog()


def _modules() -> list[tuple[Path, ast.Module]]:
    return [
        (path, ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "rule_ids.py"
    ]


def _registry_names(tree: ast.Module) -> set[str]:
    """The rule-id names a module imports from the registry (``from tfmigrate.rule_ids import ...``)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "tfmigrate.rule_ids"
        for alias in node.names
    }


def test_the_registry_is_generated_from_the_catalog(tmp_path):
    out = tmp_path / "rule_ids.py"
    subprocess.run([sys.executable, str(REPO / "tools" / "gen_rule_ids.py"), "--out", str(out)], check=True)
    assert out.read_text(encoding="utf-8") == (PACKAGE / "rule_ids.py").read_text(encoding="utf-8"), (
        "tfmigrate/rule_ids.py is stale: run python tools/gen_rule_ids.py"
    )
    assert rule_ids.ALL == CATALOG.ids


def test_the_code_names_rule_ids_only_through_the_registry():
    literals = [
        f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and RULE_ID.fullmatch(node.value)
    ]
    assert not literals, "report rule ids through tfmigrate.rule_ids constants, not strings:\n" + "\n".join(literals)


def test_code_and_catalog_have_the_same_rule_ids():
    used: set[str] = set()
    stray = []
    for path, tree in _modules():
        imported = _registry_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and RULE_ID.fullmatch(node.id):
                used.add(node.id)
                if node.id not in imported:
                    stray.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.id} is not imported from tfmigrate.rule_ids")
            elif isinstance(node, ast.Attribute) and RULE_ID.fullmatch(node.attr):
                used.add(node.attr)
    assert not stray, "\n".join(stray)
    assert not used - CATALOG.ids, f"ids the code uses but the catalog lacks: {sorted(used - CATALOG.ids)}"
    assert not CATALOG.ids - used, f"ids the catalog has but no code reports: {sorted(CATALOG.ids - used)}"


class _Typo(FamilyTransform):
    """A transform with a mistyped rule id (the real TFM501 family is not enabled either)."""

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if original.value == "tf":
            self.flag(original, "TFM5O1", "a finding nobody must lose")
        return updated


def test_an_unknown_rule_id_raises_instead_of_vanishing():
    module = cst.parse_module("import tensorflow as tf\ntf.x\n")
    sink: list = []
    for enabled in (frozenset(), frozenset({rule_ids.TFM501})):
        with pytest.raises(UnknownRuleError, match="TFM5O1"):
            _Typo(Context(), enabled, {}, sink, CATALOG.ids).apply(cst.MetadataWrapper(module))
    assert not sink


def test_a_disabled_known_rule_stays_silent():
    # the whole catalog but TFM501: no finding of it, no error
    enabled = CATALOG.ids - {rule_ids.TFM501}
    result = rewrite_source(b"import tensorflow as tf\nx = tf.placeholder(tf.float32)\n", enabled)  # raises on an error
    assert b"compat.v1.placeholder" not in result.new
    assert rule_ids.TFM501 not in {f.rule for f in result.findings}


def test_every_rule_leads_to_the_code_that_reports_it():
    from tfmigrate.codemod.rule_sites import sites

    for rule_id in CATALOG.rules:
        places = sites(rule_id)
        assert places, f"{rule_id}: no transform names it"
        for place in places:
            lines = (REPO / place.path).read_text(encoding="utf-8").splitlines()
            head = lines[place.line - 1]
            assert place.name.rpartition(".")[2] in head, f"{place}: the line does not define {place.name}"
            assert any(rule_id in line for line in lines[place.line - 1:]), place


def test_rules_command_shows_fix_safety_legacy_api_and_code():
    from click.testing import CliRunner

    from tfmigrate.cli.rules import rules

    shown = CliRunner().invoke(rules, ["TFM103"])
    assert shown.exit_code == 0, shown.output
    assert "Fix safety: unsafe" in shown.output
    assert "tf.train.*Optimizer" in shown.output  # its legacy API
    code = [line.split()[0] for line in shown.output.splitlines() if line.startswith("  tfmigrate/transforms/")]
    assert code, shown.output
    for place in code:  # each place is a def that reports TFM103
        path, line = place.rsplit(":", 1)
        source = (REPO / path).read_text(encoding="utf-8").splitlines()[int(line) - 1:]
        assert source[0].lstrip().startswith("def ")
        body = "\n".join(source[1:next((i for i, s in enumerate(source[1:], 1) if s.lstrip().startswith("def ")), None)])
        assert "TFM103" in body
    listing = CliRunner().invoke(rules, [])
    assert "unsafe" in listing.output and "safe" in listing.output and "manual" in listing.output
    data = json.loads(CliRunner().invoke(rules, ["TFM5", "--format", "json"]).output)
    assert {r["fix_safety"] for r in data} == {"safe", "none"}
    assert all(r["legacy_api"] and r["implemented_in"] for r in data)
