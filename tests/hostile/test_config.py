"""``[tool.tfmigrate]`` is an allow-list of README's keys, each with its type.

Before: any ``rewrite`` option could be set from the project's file, ``output`` included (a report
written outside the tree by cloning a repository); README's ``format`` was ignored while the
undocumented ``fmt`` worked; unknown keys and typos were ignored; ``jobs = [1]`` was a traceback
with exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm


def project(tmp_path: Path, table: str) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_bytes(LEGACY)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.tfmigrate]\n{table}\n")
    return root


def one_error_line(proc, *words: str) -> str:  # type: ignore[no-untyped-def]
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def test_the_documented_format_key_is_used(tmp_path: Path) -> None:
    root = project(tmp_path, 'format = "json"')
    proc = tfm("rewrite", "--check", "src", cwd=root)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["findings"] == 2


def test_output_from_the_config_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    root = project(tmp_path, 'output = "../outside.md"')
    proc = tfm("rewrite", "--check", "src", cwd=root)
    one_error_line(proc, "pyproject.toml", "'output'", "command line")
    assert not (tmp_path / "outside.md").exists()
    assert (root / "src" / "a.py").read_bytes() == LEGACY


@pytest.mark.parametrize(("table", "key"), [
    ('fmt = "json"', "'fmt'"),  # undocumented: an unknown key now
    ('selct = ["TFM5"]', "'selct'"),  # a typo
    ('no-cache = true', "'no-cache'"),  # a command-line option README does not list for the config
    ('quiet = true', "'quiet'"),
    ('diff = true', "'diff'"),
])
def test_unknown_keys_are_an_error_naming_the_key_and_the_file(tmp_path: Path, table: str, key: str) -> None:
    root = project(tmp_path, table)
    line = one_error_line(tfm("rewrite", "--check", "src", cwd=root), "pyproject.toml", key, "unknown key")
    assert "known keys: cache-dir, exclude, format, ignore, jobs, keras_helpers, keras_python, select, target" in line


def test_a_typo_gets_the_nearest_key(tmp_path: Path) -> None:
    root = project(tmp_path, 'fromat = "json"')
    one_error_line(tfm("rewrite", "--check", "src", cwd=root), "'fromat'", "did you mean 'format'?")


@pytest.mark.parametrize("table", [
    "jobs = [1]", 'jobs = "2"', "jobs = 0", "jobs = true", "jobs = 1.5",
    "select = 5", 'ignore = [1, "TFM5"]', "exclude = {a = 1}",
    'format = "xml"', "format = 1", 'target = "ker"', "target = []",
    "cache-dir = []", 'cache_dir = ""', "keras_python = 1",
])
def test_wrong_types_are_one_line_and_exit_2(tmp_path: Path, table: str) -> None:
    root = project(tmp_path, table)
    key = table.split(" =")[0]
    one_error_line(tfm("rewrite", "--check", "src", cwd=root), "pyproject.toml", f"{key} = ", "must be")


@pytest.mark.parametrize("command", [("report", "src"), ("rules",), ("validate", "src/a.py")])
def test_every_command_refuses_a_bad_config(tmp_path: Path, command: tuple[str, ...]) -> None:
    root = project(tmp_path, "jobs = [1]")
    one_error_line(tfm(*command, cwd=root), "pyproject.toml", "jobs = [1]")


@pytest.mark.parametrize("text", ["[tool]\ntfmigrate = 3\n", "tool = 1\n[x]\ny = 'tfmigrate'\n", "[tool.tfmigrate\n"])
def test_a_config_that_is_not_a_table_or_not_toml(tmp_path: Path, text: str) -> None:
    (tmp_path / "a.py").write_bytes(LEGACY)
    (tmp_path / "pyproject.toml").write_text(text)
    proc = tfm("rewrite", "--check", "a.py", cwd=tmp_path)
    if text.startswith("tool = 1"):  # no [tool.tfmigrate] at all: no config, no error
        assert proc.returncode == 1, proc.stderr
    else:
        one_error_line(proc, "pyproject.toml")


def test_every_documented_key_is_accepted_and_used(tmp_path: Path) -> None:
    root = project(tmp_path, "\n".join([
        'select = ["TFM5"]', 'ignore = "TFM502"', 'exclude = ["skip_*.py"]', "jobs = 2", 'format = "json"',
        'cache-dir = ".cache/tfm"', 'target = "estimator"', 'keras_python = "venv/bin/python"',
    ]))
    (root / "src" / "skip_me.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "src", cwd=root)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert [f["path"] for f in report["files"]] == ["src/a.py"]  # exclude
    assert {f["rule"] for f in report["findings"]} == {"TFM501"}  # select, ignore
    assert (root / ".cache" / "tfm" / "CACHEDIR.TAG").exists()  # cache-dir


def test_keras_python_is_accepted_and_said_to_be_unused(tmp_path: Path) -> None:
    """An interpreter named by the analysed project is never started (issue 26): the key of earlier versions
    is accepted, and a note says it is not used and what to do instead, on every command."""
    root = project(tmp_path, 'keras_python = "tools/py"')
    for command in (("rewrite", "--check", "src"), ("rules", "TFM501")):
        proc = tfm(*command, cwd=root)
        assert proc.returncode in (0, 1), proc.stderr
        notes = [line for line in proc.stderr.splitlines() if "keras_python" in line]
        assert len(notes) == 1 and "pyproject.toml" in notes[0] and "is not used" in notes[0], proc.stderr
        assert "--python" in notes[0] and "TFMIGRATE_KERAS_PYTHON" in notes[0]
