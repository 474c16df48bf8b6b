"""Issue 27's breaking-changes table: every change of meaning in TensorFlow's release notes, 0.6 to 1.15,
has a decision, and each decision holds for tfmigrate's real rewrite of the entry's legacy snippet
(``benchmarks/breaking_changes.py``, in this process: libcst only, no TensorFlow). The table in
``benchmarks/README.md`` is the one the script prints."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("breaking_changes", ROOT / "benchmarks" / "breaking_changes.py")
breaking = importlib.util.module_from_spec(_spec)
sys.modules["breaking_changes"] = breaking
_spec.loader.exec_module(breaking)  # type: ignore[union-attr]

CHANGES = breaking.load()
CATALOG = breaking.load_catalog()


@pytest.mark.parametrize("change", CHANGES, ids=[c.id for c in CHANGES])
def test_decision_holds_for_the_rewrite(change):
    assert breaking.problems(change, CATALOG) == []


def test_every_entry_is_decided_and_unique():
    ids = [c.id for c in CHANGES]
    assert len(ids) == len(set(ids))
    assert {c.decision for c in CHANGES} <= set(breaking.DECISIONS)
    versions = {c.version.rsplit(".", 1)[0] for c in CHANGES}
    assert {"0.6", "0.7", "0.11", "0.12", "1.0", "1.2", "1.4", "1.9", "1.13", "1.14", "1.15"} <= versions


def test_the_issue_examples_are_kept():
    by_id = {c.id: c for c in CHANGES}
    assert by_id["0.11-state-is-tuple"].decision == "kept" and by_id["0.11-state-is-tuple"].rule == "TFM560"
    assert by_id["1.2-multirnncell-shared"].decision == "kept" and by_id["1.2-multirnncell-shared"].rule == "TFM561"


def test_a_wrong_decision_is_caught():
    """The verification fails when the rule does not hold where the entry says (it can fail)."""
    change = next(c for c in CHANGES if c.id == "0.11-state-is-tuple")
    wrong = breaking.Change(**{**change.__dict__, "check": {"line": 2, "fixable": True}})
    assert breaking.problems(wrong, CATALOG)
    untouched = breaking.Change(**{**change.__dict__, "snippet": "import tensorflow as tf\ncell = tf.nn.rnn_cell.BasicLSTMCell(8)\n"})
    assert breaking.problems(untouched, CATALOG)


def test_readme_table_is_the_scripts():
    readme = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert breaking.markdown(CHANGES) in readme
