"""An edit saved to a file while ``rewrite`` works on it is never overwritten.

Before, the rewritten bytes replaced the file without a look at what it held by then, and the
edit was lost without a word. Now the file is read again just before the replace; when it changed
it is left with the edit, and the run reports that file in one line (exit 2).

The edit is made for real, in the middle of the run, by a fixture rule family
(``tests/fixtures/tfm_probe_transforms.py``) that appends to the file being rewritten, loaded
through a catalog of its own (``Options.catalog_dir``, the engine's seam for families): nothing of
tfmigrate is replaced or mocked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import Options, run
from tfmigrate.report.json_format import data as as_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EDIT = b"# saved by the user while tfmigrate ran\n"
LEGACY = b"import tensorflow as tf\nx = tf.placeholder(tf.float32)\n"
NOTEBOOK = (json.dumps({
    "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
               "source": ["import tensorflow as tf\n", "x = tf.placeholder(tf.float32)"]}],
    "metadata": {"kernelspec": {"language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5,
}, indent=1) + "\n").encode()


def catalog(tmp_path: Path, transform: str) -> Path:
    directory = tmp_path / "catalog"
    directory.mkdir(exist_ok=True)
    (directory / "demo.toml").write_text((FIXTURES / "catalog" / "demo.toml").read_text()
                                         .replace("tfm_fixture_transform:Demo", transform))
    return directory


def options(directory: Path, jobs: int = 1) -> Options:
    return Options(enabled=frozenset(load_catalog(directory).rules), mode="write", jobs=jobs, catalog_dir=directory)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("linked", [False, True], ids=["renamed-over", "hard-link-in-place"])
def test_an_edit_made_during_the_run_is_kept_and_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int, linked: bool) -> None:
    monkeypatch.chdir(tmp_path)
    directory = catalog(tmp_path, "tfm_probe_transforms:EditsTheFile")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_bytes(LEGACY)
    (tmp_path / "src" / "b.py").write_bytes(LEGACY)
    (tmp_path / "src" / "model.ipynb").write_bytes(NOTEBOOK)
    if linked:  # written in place, through its own inode: the same check
        os.link(tmp_path / "src" / "a.py", tmp_path / "a-link.py")
    report = run(["src"], options(directory, jobs))
    for name, original, edit in (("a.py", LEGACY, EDIT), ("b.py", LEGACY, EDIT), ("model.ipynb", NOTEBOOK, b"\n")):
        assert (tmp_path / "src" / name).read_bytes() == original + edit, name  # before: the edit was lost
    results = {Path(r.path).name: r for r in report.files}
    for name in ("a.py", "b.py", "model.ipynb"):
        assert results[name].status == "error", results[name]
        assert "changed while tfmigrate worked on it" in results[name].error and "\n" not in results[name].error
        assert results[name].error.startswith(f"src/{name}: ")
    assert report.exit_code() == 2
    assert as_json(report)["summary"]["errors"] == 3
    assert not [p for p in tmp_path.rglob("*") if ".tfmigrate" in p.name]  # no temporary file left


def test_without_an_edit_the_file_is_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    directory = catalog(tmp_path, "tfm_fixture_transform:Demo")
    (tmp_path / "a.py").write_bytes(LEGACY)
    report = run(["a.py"], options(directory))
    assert report.files[0].status == "changed" and report.exit_code() == 0
    assert (tmp_path / "a.py").read_bytes() == LEGACY.replace(b"tf.placeholder", b"tf.compat.v1.placeholder")
