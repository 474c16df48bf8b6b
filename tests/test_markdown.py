"""Markdown for a pull request. The comment (``render``, ``report --markdown``) is what a reviewer
reads: at most 15,000 characters by default, the summary, the findings by rule, the files with manual
work, the verdicts, the manual steps by rule (each rule's why once), the next commands and where the
full report is. The full Markdown (``render_full``, ``report --markdown-full``) fits a comment too when
asked (65,536 characters): summary first, the manual steps next, the rest collapsed, and where
something is cut a last line says what and where the whole report is. Escaping is tested in
tests/hostile/test_injection.py."""

from __future__ import annotations

import re
from pathlib import Path

from tests.clichildren import run_cli
from tfmigrate.report import markdown
from tfmigrate.results import FileResult, Finding, Report

ROOT = Path(__file__).resolve().parents[1]


def big_report(files: int = 60) -> Report:
    """A run the size of a real repository: many files with long diffs and many findings."""
    report = Report(mode="check")
    for i in range(files):
        diff = f"--- a/pkg/m{i}.py\n+++ b/pkg/m{i}.py\n@@ -1,200 +1,200 @@\n" + "".join(
            f"-x{j} = tf.placeholder(tf.float32, shape=[None, {j}])\n+x{j} = tf.compat.v1.placeholder(tf.float32, shape=[None, {j}])\n"
            for j in range(200))
        findings = [Finding("TFM501", "warning", f"pkg/m{i}.py", j + 1, 6, "tf.placeholder does not exist in TensorFlow 2.15", "fixable")
                    for j in range(200)]
        findings.append(Finding("TFM201", "error", f"pkg/m{i}.py", 3, 1, "the Saver is built before its variables | `x`", "manual"))
        report.files.append(FileResult(f"pkg/m{i}.py", "changed", findings=findings, diff=diff))
    return report


def balanced(text: str) -> None:
    assert text.count("<details>") == text.count("</details>"), "a collapsed section left open"
    fences = re.findall(r"^(`{3,})", text, re.M)
    assert len(fences) % 2 == 0, "a code fence left open"


def test_a_large_run_fits_a_comment_with_the_summary_first_and_a_pointer_to_the_html() -> None:
    report = big_report()
    text = markdown.render_full(report, full_report="reports/full.html")
    assert len(text) <= markdown.COMMENT_LIMIT
    assert text.startswith("## tfmigrate report\n\n**60** files scanned · **60** to change · **0** errors")
    assert "**12060** findings: **12000** fixable (would be fixed by rewrite) · **60** manual" in text  # a check fixes nothing
    # the manual steps come whole before anything collapsed; what was cut is named, with the HTML file
    assert text.index("### Manual steps (60)") < text.index("<details>")
    assert text.count("| `TFM201` |") == 60
    last = text.rstrip("\n").splitlines()[-1]
    assert last.startswith("**Cut to fit 65,536 characters**") and "file diffs" in last and "`reports/full.html`" in last
    balanced(text)


def test_max_chars_is_honoured_down_to_a_small_comment() -> None:
    report = big_report(5)
    whole = markdown.render_full(report, max_chars=10_000_000)
    assert "Cut to fit" not in whole and whole.count("<details><summary><code>") == 5
    for limit in (1000, 5000, 20_000, 65_536):
        text = markdown.render_full(report, max_chars=limit)
        assert len(text) <= limit, limit
        assert "**5** files scanned" in text and "Cut" in text
        if limit >= 5000:
            balanced(text)
            assert "tfmigrate report PATH --html report.html" in text  # no HTML written: how to get the whole report


def test_the_comment_of_a_large_run_is_short_and_says_what_to_do() -> None:
    report = big_report()
    text = markdown.render(report, full_report="reports/full.html", paths=("pkg",))
    assert len(text) <= markdown.COMMENT_CHARS == 15_000
    assert text.startswith("## tfmigrate report\n\n**60** files scanned · **60** to change · **0** errors")
    # top findings by rule, the files with manual work, the manual steps by rule with a few places each
    assert "| `TFM501` | 12000 | 0 | " in text and "| `TFM201` | 0 | 60 | " in text
    assert "### Files with manual work" in text and "| `pkg/m0.py` | 1 | 200 |" in text
    assert text.count("| `pkg/m") - 60 <= markdown.PLACES_PER_RULE  # the files table, then a few places of TFM201
    assert "| … | 54 more places (full report) |" in text
    # no diff, no finding of the automatic rules one by one
    assert "+x0 = tf.compat.v1.placeholder" not in text and "pkg/m0.py:1:6" not in text
    # it ends with the next commands and where the full report is
    assert "tfmigrate rewrite pkg   # apply the 12000 fixable finding(s) in 60 file(s)" in text
    assert text.rstrip("\n").splitlines()[-1] == "The full report is in `reports/full.html`."
    balanced(text)


def test_the_comment_gives_each_manual_rule_its_why_once() -> None:
    from tfmigrate.codemod.rule import load_catalog
    from tfmigrate.results import RuleInfo

    rule = load_catalog().rules["TFM201"]
    report = big_report(8)
    report.rules = {"TFM201": RuleInfo(rule.id, rule.title, rule.why, rule.severity, rule.family, rule.fix_safety)}
    text = markdown.render(report)
    assert text.count("Why: ") == 1 and "tf.train.Saver\\(\\) without var\\_list" in text
    assert "(the whole: `tfmigrate rules TFM201`)" in text  # the why is cut at a sentence: all of it is one command away
    assert "tfmigrate rules TFM201   # why each of the 8 manual step(s)" in text


def test_the_report_command_names_its_html_file_when_the_markdown_is_cut(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    for i in range(3):
        (tmp_path / "p" / f"m{i}.py").write_text("import tensorflow as tf\n" + "".join(f"x{j} = tf.placeholder(tf.float32)\n" for j in range(300)))
    proc = run_cli(["report", "p", "--markdown", "pr.md", "--html", "full.html", "--markdown-full", "full.md"],
                   cwd=tmp_path, timeout=300)
    assert proc.returncode == 1, proc.stderr
    text = (tmp_path / "pr.md").read_text(encoding="utf-8")
    assert len(text) <= 2000 and text.splitlines()[-1] == "The full report is in `full.md`."  # the artifact it names
    full = (tmp_path / "full.md").read_text(encoding="utf-8")
    assert "Cut to fit" not in full and full.count("+x299 = tf.compat.v1.placeholder") == 3  # every diff, whole
    assert (tmp_path / "full.html").stat().st_size > 8000
    wrote = [ln for ln in proc.stdout.splitlines() if ln.startswith("wrote ")]
    assert wrote == ["wrote HTML: full.html", "wrote Markdown (full): full.md", "wrote Markdown: pr.md"], proc.stdout
