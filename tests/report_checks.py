"""What ``tfmigrate report samples/ --html report.html --markdown pr.md`` must print and write: the README's
main-job command on the bundled samples (without --validate). tests/test_readme.py runs that command as the
README gives it and calls :func:`assert_samples_report` on its output, so the one run serves both (its CPU
time is measured by ``benchmarks/bench_report_samples.py``)."""

from __future__ import annotations

from pathlib import Path

COMMAND = "tfmigrate report samples/ --html report.html --markdown pr.md"


def assert_samples_report(stdout: str, cwd: Path) -> None:
    """A page or two of output that ends with the commands that follow, and a pull-request comment under
    15,000 characters that names the HTML report."""
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    assert lines[0].strip() == "tfmigrate report" and max(len(ln) for ln in lines[:5]) <= 80
    assert "to change" in lines[1] and "manual" in lines[2]
    # `make report` (with --validate) adds a line a validation and the stages of a failed one: at most ~150 in all
    assert len(stdout.splitlines()) <= 125, len(stdout.splitlines())
    end = lines[lines.index("── summary ──"):]
    assert end[1].strip() == "tfmigrate report" and any(ln.startswith("wrote HTML: ") for ln in end)
    steps = [ln.split("   # ")[0].strip() for ln in end[end.index("── next steps ──") + 1:]]  # the last lines: what to run next
    assert steps[:1] == ["tfmigrate rewrite samples"] and "tfmigrate report samples --validate" in steps, steps
    assert steps[-1].startswith("tfmigrate rules TFM304 "), steps
    text = " ".join(stdout.split())
    # no finding's why repeated: TFM304's why once, its 10 places each one line
    assert text.count("Legacy distributed training wires the cluster by hand") == 1
    assert text.count("give each process a TF_CONFIG") == 10
    comment = (cwd / "pr.md").read_text(encoding="utf-8")
    assert len(comment) <= 15_000 and comment.count("Legacy distributed training wires the cluster by hand") == 1
    assert "### Files with manual work" in comment and "### Checkpoints and validation" in comment
    assert comment.rstrip().splitlines()[-1] == "The full report is in `report.html`."
    assert (cwd / "report.html").is_file()
    assert "checkpoint directories no estimator names as model_dir: samples/checkpoints/" in text
