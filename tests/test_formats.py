"""One run, five formats: terminal, JSON, SARIF, Markdown and HTML show the same counts.

The run is real (the engine over a small project with automatic fixes, manual findings and a file
that cannot be parsed), once without writing (fixable) and once rewriting a copy (fixed); a
checkpoint comparison and a validation, as their commands print them, complete the Report.
"""

from __future__ import annotations

import io
import os
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest

from tests.clichildren import run_cli
from rich.console import Console

from tests import formats
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import Options, run
from tfmigrate.report import html, json_format, markdown, sarif, terminal
from tfmigrate.results import FIX_MEANING, Fix, Report, checkpoint_from_json, validation_from_json

ROOT = Path(__file__).resolve().parents[1]
LEGACY = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\nsess = tf.Session()\n"
MANUAL = "import tensorflow as tf\n\ny = tf.contrib.framework.nest.flatten([1])\n"
BROKEN = "import tensorflow as tf\nprint tf.__version__\n"
CHECKPOINT = {
    "schema": 1, "checkpoint": "model/model.ckpt-1", "compatible": False, "verdict": "layer sizes changed",
    "model": {"kind": "estimator", "class": "DNNClassifier", "api": "v2", "target": "train.py:5"},
    "pairs": [
        {"checkpoint_name": "dnn/hiddenlayer_0/kernel", "model_name": "dnn/hiddenlayer_0/kernel", "status": "shape_mismatch",
         "checkpoint_shape": [4, 10], "model_shape": [4, 20], "checkpoint_dtype": "float32", "model_dtype": "float32", "kind": "model"},
        {"checkpoint_name": "global_step", "model_name": "global_step", "status": "match", "checkpoint_shape": [],
         "model_shape": [], "checkpoint_dtype": "int64", "model_dtype": "int64", "kind": "bookkeeping"},
    ],
}
VALIDATION = {"schema": 1, "passed": False, "device": "CPU", "steps": 4, "target": "train.py:5",
              "stages": [{"name": "train", "passed": True, "seconds": 1.5, "detail": "4 steps"},
                         {"name": "restore", "passed": False, "seconds": 0.1, "detail": "NotFoundError"}]}


def project(root: Path) -> Path:
    root.mkdir()
    (root / "legacy.py").write_text(LEGACY)
    (root / "manual.py").write_text(MANUAL)
    (root / "py2.py").write_text(BROKEN)
    shutil.copy(ROOT / "samples" / "saver_traps" / "legacy.py", root / "saver.py")
    (root / "clean.py").write_text("x = 1\n")
    return root


def terminal_text(report: Report) -> str:
    out = Console(file=io.StringIO(), width=300, color_system=None)
    out.print(terminal.summary_view(report))
    terminal.print_details(report, out)
    terminal.print_summary(report, out, [("HTML", "r.html")])
    return out.file.getvalue()


def all_formats(report: Report) -> dict[str, dict[str, int]]:
    return {
        "terminal": formats.from_terminal(terminal_text(report)),
        "json": formats.from_json(json_format.render(report)),
        "sarif": formats.from_sarif(sarif.render(report)),
        "markdown": formats.from_markdown(markdown.render(report)),
        "html": formats.from_html(html.render(report)),
    }


@pytest.mark.parametrize("mode", ["check", "write"])
def test_one_run_shows_the_same_counts_in_all_five_formats(tmp_path: Path, mode: str) -> None:
    root = project(tmp_path / "p")
    report = run([root], Options(enabled=load_catalog().selected(None), mode=mode, jobs=1))
    report.checkpoints.append(checkpoint_from_json(CHECKPOINT))
    report.validations.append(validation_from_json(VALIDATION))
    s = report.summary()
    expected = {k: v for k, v in asdict(s).items() if k in ("files", "changed", "errors", "findings", "fixed", "fixable", "manual",
                                                           "checkpoints", "incompatible")}
    # the run has each kind of finding its mode can have, and an error
    assert s.errors == 1 and s.manual > 0 and s.checkpoints == s.incompatible == 1
    assert (s.fixed, s.fixable) == ((0, s.fixable) if mode == "check" else (s.fixed, 0)) and s.fixed + s.fixable > 0
    assert s.fixed + s.fixable + s.manual == s.findings
    shown = all_formats(report)
    assert shown == {name: expected for name in shown}


def test_the_words_for_a_fix_are_defined_once() -> None:
    assert [str(f) for f in Fix] == ["fixed", "fixable", "manual"]
    assert FIX_MEANING[Fix.FIXABLE] == "would be fixed by rewrite"
    page = html.render(Report(mode="write"))
    for fix in Fix:
        assert f"{fix}: {FIX_MEANING[fix]}" in page
    # a report that writes nothing (check, diff: `tfmigrate report`) has no "fixed" card
    page = html.render(Report(mode="diff"))
    assert f"{Fix.FIXED}: " not in page and f"{Fix.FIXABLE}: {FIX_MEANING[Fix.FIXABLE]}" in page


def test_rewrite_command_summary_agrees_with_its_json(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    env = {**os.environ, "COLUMNS": "200"}
    for args in (("--check",), ("--diff",)):
        text = run_cli(["rewrite", *args, "."], cwd=root, env=env)
        data = run_cli(["rewrite", *args, "--format", "json", "."], cwd=root, env=env)
        assert text.returncode == data.returncode == 2  # py2.py cannot be parsed
        from_json = formats.from_json(data.stdout)
        del from_json["checkpoints"], from_json["incompatible"]
        assert formats.from_rewrite_terminal(text.stderr) == from_json
        assert from_json["fixable"] > 0 and from_json["fixed"] == 0
        # the rule table: the same three columns, summing to the same counts
        rows = [ln for ln in text.stderr.splitlines() if ln.startswith("│ TFM")]
        cells = [[int(c) for c in ln.split("│")[2:-1]] for ln in rows]
        assert [sum(c[i] for c in cells) for i in range(4)] == [from_json[k] for k in ("findings", "fixed", "fixable", "manual")]
