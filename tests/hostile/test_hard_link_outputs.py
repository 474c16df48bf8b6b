"""An output that is a hard link to an input is that input: refused, whatever its name.

Before, only realpaths were compared, so ``-o report.md`` where ``report.md`` was a hard link to a
source replaced the source with the report."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm

OUTPUTS = [("rewrite", "--check", "--format", "markdown", "-o"), ("rewrite", "--check", "--format", "json", "--output"),
           ("report", "--json"), ("report", "--sarif"), ("report", "--markdown"), ("report", "--html")]


def tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg" / "deep").mkdir(parents=True)
    (tmp_path / "pkg" / "deep" / "train.py").write_bytes(LEGACY)
    (tmp_path / "pkg" / "notes.txt").write_text("my notes\n")
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-1"\n')
    return tmp_path


@pytest.mark.parametrize("command", OUTPUTS, ids=lambda c: " ".join(c))
@pytest.mark.parametrize(("given", "linked"), [
    ("pkg", "pkg/deep/train.py"),  # a source inside a given directory
    ("pkg/deep/train.py", "pkg/deep/train.py"),  # a given file
    ("pkg", "pkg/notes.txt"),  # any file inside a given directory
])
def test_an_output_hard_linked_to_an_input_is_refused(tmp_path: Path, command: tuple[str, ...], given: str, linked: str) -> None:
    root = tree(tmp_path)
    os.link(root / linked, root / "report.out")
    before = (root / linked).read_bytes()
    if command[0] == "rewrite":
        proc = tfm(*command, "report.out", given, cwd=root)
    else:
        proc = tfm("report", given, *command[1:], "report.out", cwd=root)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "hard link" in lines[0] and "destroy" in lines[0], proc.stderr
    assert (root / linked).read_bytes() == before


@pytest.mark.parametrize("option", ["--json", "--markdown"])
def test_a_report_hard_linked_to_a_checkpoint_file_is_refused(tmp_path: Path, option: str) -> None:
    root = tree(tmp_path)
    os.link(root / "ckpt" / "checkpoint", root / "out.txt")
    proc = tfm("report", "pkg", "--checkpoint", "ckpt", option, "out.txt", cwd=root)
    assert proc.returncode == 2 and "hard link" in proc.stderr and "ckpt" in proc.stderr, proc.stderr
    assert (root / "ckpt" / "checkpoint").read_text() == 'model_checkpoint_path: "model.ckpt-1"\n'


def test_an_output_linked_only_outside_the_inputs_is_written(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "old.md").write_text("old\n")
    os.link(root / "elsewhere" / "old.md", root / "report.md")
    proc = tfm("rewrite", "--check", "--format", "markdown", "-o", "report.md", "pkg", cwd=root)
    assert proc.returncode == 1, proc.stderr
    assert (root / "report.md").read_text().startswith("## tfmigrate report")
    assert (root / "pkg" / "deep" / "train.py").read_bytes() == LEGACY
    # a report written again over its own earlier file (one name, inside the tree) is no clash
    proc = tfm("rewrite", "--check", "--format", "markdown", "-o", "pkg/report.md", "pkg", cwd=root)
    proc = tfm("rewrite", "--check", "--format", "markdown", "-o", "pkg/report.md", "pkg", cwd=root)
    assert proc.returncode == 1, proc.stderr
