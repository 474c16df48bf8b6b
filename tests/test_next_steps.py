"""The commands that end every report (tfmigrate/report/next_steps.py): each follows from what the
report holds, and only then. Reports are built here as the stages build them (no TensorFlow); the
renderers are the real ones, and `rewrite` runs in-process (CliRunner)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tfmigrate.cli import cli
from tfmigrate.report import html, markdown, terminal
from tfmigrate.report.console import make_console
from tfmigrate.report.next_steps import next_steps
from tfmigrate.results import CheckpointComparison, FileResult, Finding, ModelRef, Report, Stage, Validation

TRAP = CheckpointComparison(
    "proj/models/iris/model.ckpt-20", ModelRef("proj/train.py:21 tf.estimator.DNNClassifier"), False,
    "layer sizes changed: TF 2.15 restores silently. Remedy: train in a NEW model_dir.")
RENAMED = CheckpointComparison(
    "proj/old/model.ckpt-1", ModelRef("proj/train.py:5 tf.estimator.DNNClassifier"), False,
    "raises NotFoundError at restore: other names. Remedy: `tfmigrate ckpt convert ...`, then point the model at OUT.",
    name_map={"dnn/hiddenlayer_0/weights": "dnn/hiddenlayer_0/kernel", "global_step": "global_step"})
COMPATIBLE = CheckpointComparison("proj/ok/model.ckpt-9", ModelRef("proj/ok.py:3 tf.estimator.DNNClassifier"), True, "restores as it is.")


def report(mode: str = "diff", fixable: int = 2, manual: int = 1, **fields) -> Report:
    findings = [Finding("TFM501", "warning", "proj/train.py", i + 1, 1, "tf.placeholder -> tf.compat.v1", "fixable") for i in range(fixable)]
    findings += [Finding("TFM201", "error", "proj/saver.py", 3, 1, "the Saver misses 'b'", "manual") for _ in range(manual)]
    files = [FileResult("proj/train.py", "changed" if fixable else "unchanged", findings=findings)]
    return Report(mode=mode, files=files, **fields)


def commands(r: Report, **kwargs) -> list[str]:
    return [s.command for s in next_steps(r, ("proj",), **kwargs)]


def test_fixes_are_applied_only_when_something_is_fixable() -> None:
    assert commands(report()) == ["tfmigrate rewrite proj", "tfmigrate rules TFM201"]
    assert commands(report(fixable=0)) == ["tfmigrate rules TFM201"]
    assert commands(report(mode="write", fixable=0, manual=0)) == []  # all fixed: nothing follows
    assert commands(report(target="keras"))[0] == "tfmigrate rewrite --target keras proj"
    assert next_steps(report(), ("my dir",))[0].command == "tfmigrate rewrite 'my dir'"  # pasted as it is
    # a hook passes every staged file: the command names those with fixes, and a name like an option after --
    assert next_steps(report(), ("proj/a.py", "proj/train.py", "proj/b.py"))[0].command == "tfmigrate rewrite proj/train.py"
    r = report()
    r.files[0].path = "-oconftest.py"
    assert next_steps(r, ("-oconftest.py",))[0].command == "tfmigrate rewrite -- -oconftest.py"


def test_each_checkpoint_verdict_gives_its_command() -> None:
    steps = next_steps(report(checkpoints=[TRAP, RENAMED, COMPATIBLE]), ("proj",))
    got = {s.command: s.why for s in steps}
    # renamed tensors: the convert that carries them, onto the model's own line
    convert = "tfmigrate ckpt convert proj/old/model.ckpt-1 proj/old/model.ckpt-1-tf2 --model proj/train.py:5"
    assert convert in got and "1 tensor(s)" in got[convert] and "point the model at OUT" in got[convert]
    # shapes changed: no renaming carries it; the diff, and the remedy of the verdict
    diff = "tfmigrate ckpt diff proj/models/iris/model.ckpt-20 --model proj/train.py:21"
    assert got[diff].endswith("train in a NEW model_dir")
    assert not [c for c in got if "proj/ok" in c]  # a compatible checkpoint needs nothing


def test_a_target_that_could_not_be_built_is_run_as_a_program_and_an_unvalidated_report_asks_for_it() -> None:
    not_run = Validation("proj/premade.py:38 tf.estimator.DNNClassifier", "not run", error="a comprehension")
    failed = Validation("proj/train.py:21 tf.estimator.DNNClassifier", "failed", stages=[Stage("restore", False)])
    assert "tfmigrate validate --program proj/premade.py" in commands(report(validations=[not_run, failed]), validated=True)
    assert not [c for c in commands(report(validations=[failed]), validated=True) if "validate" in c]
    unvalidated = report(checkpoints=[TRAP])
    assert "tfmigrate report proj --validate" in commands(unvalidated, validated=False)
    assert "tfmigrate report proj --validate" not in commands(unvalidated, validated=None)  # rewrite has no --validate


def test_every_report_ends_with_them() -> None:
    r = report(checkpoints=[RENAMED])
    out = make_console()
    with out.capture() as captured:
        terminal.print_summary(r, out, [], next_steps(r, ("proj",)))
    text = captured.get().splitlines()
    steps = text[text.index("── next steps ──") + 1:]  # the last lines
    assert [s.split("   # ")[0] for s in steps] == ["  " + c for c in commands(r)] and len(steps) == 3
    assert steps[0].startswith("  tfmigrate rewrite proj   # apply the 2 fixable")
    page = html.render(r, subject="proj", validated=True)
    assert page.index('<section id="next-steps">') > page.index('<section id="validation">')
    assert "<code>tfmigrate ckpt convert proj/old/model.ckpt-1 proj/old/model.ckpt-1-tf2 --model proj/train.py:5</code>" in page
    assert '<a href="#next-steps">' in page
    for md in (markdown.render(r, paths=("proj",)), markdown.render_full(r, paths=("proj",))):
        assert "### Next steps" in md and "tfmigrate rewrite proj   # apply the 2 fixable" in md


def test_a_report_that_writes_nothing_shows_no_fixed_count() -> None:
    for mode, shown in (("diff", False), ("check", False), ("write", True)):
        r = report(mode=mode)
        out = make_console()
        with out.capture() as captured:
            out.print(terminal.summary_view(r))
        assert (" 0 fixed" in captured.get()) is shown
        assert ("**0** fixed" in markdown.render(r)) is shown
        assert ('<span class="label">fixed: ' in html.render(r)) is shown


def test_rewrite_check_ends_with_the_command_that_applies_the_fixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "train.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["rewrite", "--check", "--no-cache", "train.py"])
    assert result.exit_code == 1, result.output
    assert result.output.rstrip().splitlines()[-1].startswith("next: tfmigrate rewrite train.py   # apply the 2 fixable finding(s) in 1 file(s)")
    result = CliRunner().invoke(cli, ["rewrite", "--no-cache", "train.py"])
    assert result.exit_code == 0 and "next:" not in result.output  # fixed: nothing follows


def test_the_rules_command_it_gives_explains_each_rule() -> None:
    from tfmigrate.codemod.rule import load_catalog

    r = report()
    r.files[0].findings.append(Finding("TFM304", "warning", "proj/train.py", 9, 1, "tf.train.Server sets up a cluster by hand", "manual"))
    (command,) = [c for c in commands(r) if c.startswith("tfmigrate rules ")]
    assert command == "tfmigrate rules TFM201 TFM304"
    result = CliRunner().invoke(cli, command.split()[1:])
    assert result.exit_code == 0, result.output
    catalog = load_catalog()
    for rule in ("TFM201", "TFM304"):  # each explained in full, with its examples
        assert f"{rule} {catalog.rules[rule].title}" in result.output
        assert " ".join(catalog.rules[rule].why.split())[:200] in " ".join(result.output.split())
    assert result.output.count("Example 1") == 2
