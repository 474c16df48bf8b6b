"""The Markdown for a pull request fits a comment (65,536 characters): summary first, the manual
steps next, the rest collapsed, and where something is cut a last line says what and where the
whole report is. Escaping is tested in tests/hostile/test_injection.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
    text = markdown.render(report, full_report="reports/full.html")
    assert len(text) <= markdown.COMMENT_LIMIT
    assert text.startswith("## tfmigrate report\n\n**60** files scanned · **60** to change · **0** errors")
    assert "**12060** findings: **0** fixed · **12000** fixable (would be fixed by rewrite) · **60** manual" in text
    # the manual steps come whole before anything collapsed; what was cut is named, with the HTML file
    assert text.index("### Manual steps (60)") < text.index("<details>")
    assert text.count("| `TFM201` |") == 60
    last = text.rstrip("\n").splitlines()[-1]
    assert last.startswith("**Cut to fit 65,536 characters**") and "file diffs" in last and "`reports/full.html`" in last
    balanced(text)


def test_max_chars_is_honoured_down_to_a_small_comment() -> None:
    report = big_report(5)
    whole = markdown.render(report, max_chars=10_000_000)
    assert "Cut to fit" not in whole and whole.count("<details><summary><code>") == 5
    for limit in (1000, 5000, 20_000, 65_536):
        text = markdown.render(report, max_chars=limit)
        assert len(text) <= limit, limit
        assert "**5** files scanned" in text and "Cut" in text
        if limit >= 5000:
            balanced(text)
            assert "tfmigrate report PATH --html report.html" in text  # no HTML written: how to get the whole report


def test_the_report_command_names_its_html_file_when_the_markdown_is_cut(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    for i in range(3):
        (tmp_path / "p" / f"m{i}.py").write_text("import tensorflow as tf\n" + "".join(f"x{j} = tf.placeholder(tf.float32)\n" for j in range(300)))
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "report", "p", "--markdown", "pr.md", "--html", "full.html", "--max-chars", "8000"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    text = (tmp_path / "pr.md").read_text(encoding="utf-8")
    assert len(text) <= 8000 and "the full report is in `full.html`" in text.splitlines()[-1]
    assert (tmp_path / "full.html").stat().st_size > 8000
    assert proc.stdout.rstrip().splitlines()[-2:] == ["wrote HTML: full.html", "wrote Markdown: pr.md"]
