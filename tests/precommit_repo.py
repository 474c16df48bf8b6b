"""A git repository for the real `pre-commit` to run this checkout's hooks in (tests/test_precommit.py,
tests/hostile/test_precommit_names.py): the pre-commit of this venv, a private hook cache, a git identity.

The hooks come from this checkout as it is now (its tracked files and the untracked ones git does not
ignore, committed into a copy: what ``pre-commit try-repo`` does), named by a ``.pre-commit-config.yaml``
as a user's repository names them. ``try-repo`` installed the hook environment (a venv with tfmigrate
and its dependencies, ~14 CPU seconds) again at every call, in a store of its own; through the config,
every run of one pytest process shares one store, so the environment is installed once.
"""

from __future__ import annotations

import os
import shutil
import sys
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    assert found, "pre-commit is a dev dependency"
    return found


def hooks_checkout(base: Path) -> tuple[Path, str]:
    """This checkout's files as they are now, committed into a new repository under ``base`` and tagged with
    the release tag README names: (its path, the tag)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    copy = base / "hooks"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out, as in the working tree
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    env = {**os.environ, **IDENTITY}
    tag = release_tag()  # README's rev: the release tag of this version
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the checkout under test", "--no-verify"], ["tag", tag]):
        subprocess.run(["git", *args], cwd=copy, env=env, check=True, capture_output=True)
    return copy, tag


def hook_ids() -> list[str]:
    return [line.split(":", 1)[1].strip() for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
            if line.startswith("- id:")]


def new_repo(tmp_path: Path, hooks: tuple[Path, str, Path] | None = None) -> tuple[Path, dict[str, str]]:
    """An empty git repository under ``tmp_path`` whose staged ``.pre-commit-config.yaml`` names every hook
    of ``hooks`` (the session's :func:`hooks_checkout` and pre-commit store: the ``precommit_hooks``
    fixture), and the environment to run git and pre-commit in it; without ``hooks``, no configuration
    and a store of its own."""
    repo = tmp_path / "repo"
    repo.mkdir()
    home = hooks[2] if hooks is not None else tmp_path / "pre-commit-store"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), **IDENTITY, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True, capture_output=True)
    if hooks is None:
        return repo, env
    copy, rev, _ = hooks
    config = [f"repos:\n-   repo: {copy}\n    rev: {rev}\n    hooks:"] + [f"    -   id: {hook}" for hook in hook_ids()]
    (repo / ".pre-commit-config.yaml").write_text("\n".join(config) + "\n")
    subprocess.run(["git", "add", ".pre-commit-config.yaml"], cwd=repo, env=env, check=True, capture_output=True)
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
