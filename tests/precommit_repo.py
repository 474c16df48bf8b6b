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


def release_tag() -> str:
    """The tag README names for this version: ``v`` and pyproject.toml's version."""
    import tomllib

    return "v" + tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def tagged_clone(tmp_path: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A git repository holding this checkout's files as they are now (tracked and untracked, not
    ignored: what a commit of this work tree would hold), committed and tagged with the release tag,
    as the repository a user clones or names in ``repo:`` would be."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    clone = tmp_path / "tfmigrate-clone"
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file() and not name.startswith(("tests/", "benchmarks/", "samples/")):
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    tag = release_tag()
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "release"], ["git", "tag", tag]):
        subprocess.run(cmd, cwd=clone, env=env, check=True, capture_output=True)
    return clone, tag
