"""A git repository for the real `pre-commit` to run this checkout's hooks in (tests/test_precommit.py,
tests/hostile/test_precommit_names.py): the pre-commit of this venv, a private hook cache, a git identity."""

from __future__ import annotations

import os
import shutil
import sys
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    assert found, "pre-commit is a dev dependency"
    return found


def new_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An empty git repository under ``tmp_path`` and the environment to run git and pre-commit in it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True, capture_output=True)
    return repo, env
