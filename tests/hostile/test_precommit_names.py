"""A staged file name is a file name, never an option: the pre-commit hooks pass the names after ``--``.

Before, a staged file named ``-oconftest.py`` made the check hook run ``tfmigrate rewrite --check
--jobs 1 -oconftest.py train.py``, which wrote the Markdown report over ``conftest.py``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.precommit_repo import ROOT, new_repo, pre_commit as find_pre_commit

from .helpers import LEGACY, run_tfmigrate as tfm

CONFTEST = b"import os\n"


def test_every_hook_entry_ends_with_a_double_dash() -> None:
    entries = [line.split(":", 1)[1].strip() for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
               if line.strip().startswith("entry:")]
    assert len(entries) == 2
    assert all(entry.split()[-1] == "--" for entry in entries), entries


def test_the_hooks_command_line_takes_a_dash_name_as_a_file(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_bytes(CONFTEST)
    (tmp_path / "-oconftest.py").write_bytes(LEGACY)
    (tmp_path / "train.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "--jobs", "1", "--", "-oconftest.py", "train.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "-oconftest.py:3:5: TFM501" in proc.stdout
    assert (tmp_path / "conftest.py").read_bytes() == CONFTEST


def git(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.mark.slow
def test_real_pre_commit_with_a_staged_file_named_like_an_option(tmp_path: Path, precommit_hooks) -> None:
    pre_commit = find_pre_commit()
    repo, env = new_repo(tmp_path, precommit_hooks)
    (repo / "conftest.py").write_bytes(CONFTEST)
    git(repo, env, "add", "conftest.py")
    git(repo, env, "commit", "-qm", "init")
    (repo / "-oconftest.py").write_bytes(LEGACY)
    (repo / "train.py").write_bytes(LEGACY)
    git(repo, env, "add", "--", "-oconftest.py", "train.py")  # staged: what the hooks are given

    # every hook of the repository, on the staged files: the check, then the fix
    done = subprocess.run([pre_commit, "run"], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "-oconftest.py:3:5: TFM501" in done.stdout, done.stdout
    assert (repo / "conftest.py").read_bytes() == CONFTEST  # before: the check hook's report
    for name in ("-oconftest.py", "train.py"):  # the fix hook rewrote both: file names, not options
        assert b"tf.compat.v1.placeholder" in (repo / name).read_bytes(), name
