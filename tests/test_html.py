"""The HTML renderer without a browser: structure, escaping, highlighting (the browser test is in test_report.py)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import rule_infos
from tfmigrate.report import html
from tfmigrate.results import FileResult, Finding, Report, checkpoint_from_json, validation_from_json

EVIL = '<img src=x onerror="alert(1)">&'
DIFF = (
    "--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,3 @@\n import tensorflow as tf\n"
    f"-x = tf.contrib.learn.DNNClassifier()  # {EVIL}\n+x = tf.estimator.DNNClassifier()\n y = 1\n"
)


def sample_report() -> Report:
    rule = next(iter(load_catalog().rules.values()))
    report = Report(mode="diff", rules=rule_infos(load_catalog()))
    finding = Finding(rule.id, rule.severity, f"t{EVIL}.py", 2, 5, f"do this {EVIL}", fix="manual")
    report.files.append(FileResult(f"t{EVIL}.py", "changed", findings=[finding], diff=DIFF))
    report.files.append(FileResult("ok.py", "unchanged"))
    report.files.append(FileResult("bad.py", "error", error=f"bad.py:1:1: cannot parse {EVIL}"))
    report.checkpoints.append(checkpoint_from_json({
        "schema": 1, "checkpoint": f"m/{EVIL}", "compatible": False, "verdict": f"layer sizes changed {EVIL}",
        "pairs": [
            {"checkpoint_name": "dnn/hiddenlayer_0/kernel", "model_name": "dnn/hiddenlayer_0/kernel", "status": "shape_mismatch",
             "checkpoint_shape": [4, 10], "model_shape": [4, 20], "kind": "model"},
            {"checkpoint_name": "global_step", "model_name": "global_step", "status": "match", "checkpoint_shape": [], "model_shape": [], "kind": "bookkeeping"},
            {"checkpoint_name": None, "model_name": "training/Adagrad/x", "status": "missing_from_checkpoint", "checkpoint_shape": None,
             "model_shape": [3], "kind": "optimizer"},
        ],
    }))
    report.validations.append(validation_from_json({
        "schema": 1, "passed": False, "device": "CPU", "steps": 4, "target": f"t.py:{EVIL}",
        "stages": [{"name": "train", "passed": True, "seconds": 1.5, "detail": "4 steps"},
                   {"name": "checkpoint files", "passed": False, "seconds": 0.0, "detail": f"none {EVIL}"}],
    }))
    return report


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_everything_from_the_user_is_escaped() -> None:
    page = html.render(sample_report(), subject=EVIL)
    parser = Tags()
    parser.feed(page)
    assert not [t for t, _ in parser.tags if t in ("img", "script", "link", "iframe")]
    assert not [a for _, a in parser.tags if any(k.startswith("on") for k in a)]
    assert page.count("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;") >= 7


def test_structure_summary_diff_findings_checkpoints_validation() -> None:
    report = sample_report()
    page = html.render(report)
    rule = next(iter(load_catalog().rules.values()))
    assert re.search(r'<span class="num">3</span><span class="label">files scanned', page)
    assert re.search(r'<span class="num">0/1</span><span class="label">checkpoints compatible', page)
    # diff lines keep their old/new numbers and carry Python highlighting
    assert '<div class="tfm-l del"><span class="tfm-n">2</span>' in page
    assert '<div class="tfm-l add"><span class="tfm-n"></span><span class="tfm-n">2</span>' in page
    assert '<span class="kn">import</span>' in page
    # the rule's explanation from the catalog, next to its finding
    assert f'id="rule-{rule.id}"' in page and html.e(rule.why) in page
    # the mismatched weight is a highlighted row, the optimizer slot a warning, the match plain
    assert re.search(r'<tr class="row-bad"><td class="mono">' + re.escape(html.path("dnn/hiddenlayer_0/kernel")) + "</td>", page)
    assert re.search(r'<tr class="row-warn"><td class="mono">' + re.escape(html.path("—")) + '</td><td class="mono">'
                     + re.escape(html.path("training/Adagrad/x")) + "</td>", page)
    assert re.search(r'<tr class="row-ok"><td class="mono">' + re.escape(html.path("global_step")) + "</td>", page)
    assert page.index("row-bad") < page.index("row-warn") < page.index('row-ok"><td class="mono">' + html.path("global_step"))
    assert '<tr class="row-bad"><td>checkpoint files</td>' in page


def test_empty_report_says_so() -> None:
    page = html.render(Report(mode="diff"))
    assert "Nothing to rewrite." in page and "No findings." in page and "Not validated" in page
