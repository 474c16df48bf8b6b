"""Issue 26, inputs that abort everything: a chain of 1,100 directories. Python 3.11's os.walk
recurses once a level (RecursionError, nothing processed); the walk is a loop now, with the same
order and pruning as os.walk on ordinary trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tfmigrate.codemod.files import discover, walk_tree

from .helpers import LEGACY, run_tfmigrate as tfm


def _chain(root: Path, depth: int) -> Path:
    os.makedirs(root, exist_ok=True)
    here = os.open(root, os.O_RDONLY)
    for _ in range(depth):  # relative steps: the full path is long, but each call names one level
        os.mkdir("d", dir_fd=here)
        nxt = os.open("d", os.O_RDONLY, dir_fd=here)
        os.close(here)
        here = nxt
    fd = os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
    os.write(fd, LEGACY)
    os.close(fd)
    os.close(here)
    return root.joinpath(*["d"] * depth, "deep.py")


def _unchain(root: Path, depth: int) -> None:
    """Remove the chain bottom-up with relative steps (shutil.rmtree, and so pytest's clean-up of old
    temporary folders, recurses once a level and fails on it)."""
    fds = [os.open(root, os.O_RDONLY)]
    for _ in range(depth):
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    for name in os.listdir(fds[-1]):
        os.unlink(name, dir_fd=fds[-1])
    for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:])):
        os.close(child)
        os.rmdir("d", dir_fd=parent)
    os.close(fds[0])


@pytest.fixture
def chain_root(tmp_path: Path):
    yield tmp_path
    if (tmp_path / "d").exists():
        _unchain(tmp_path, 1100)


def test_a_1100_level_chain_is_walked(chain_root: Path) -> None:
    tmp_path = chain_root
    deep = _chain(tmp_path, 1100)
    (tmp_path / "top.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "--format", "json", ".", cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 1
    paths = [f["path"] for f in json.loads(proc.stdout)["files"]]
    assert paths == [deep.relative_to(tmp_path).as_posix(), "top.py"]
    assert all(f["status"] == "changed" for f in json.loads(proc.stdout)["files"])


def test_report_walks_a_1100_level_chain(chain_root: Path) -> None:
    tmp_path = chain_root
    _chain(tmp_path, 1100)
    proc = tfm("report", ".", cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 1
    assert "files        1 scanned, 1 to change, 0 error(s)" in proc.stdout


def _tree(root: Path) -> None:
    for rel in ["a/b/c/x.py", "a/b/y.py", "a/z.txt", "b/q.py", "c/d/e/f/g.py", "c/d/h.py", "zz/top.py", "top.py"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(LEGACY)
    (root / "link").symlink_to(root / "a", target_is_directory=True)  # listed, never entered
    (root / "c" / "skip").mkdir()
    (root / "c" / "skip" / "s.py").write_bytes(LEGACY)


def test_walk_tree_is_os_walk(tmp_path: Path) -> None:
    _tree(tmp_path)

    def walked(walker) -> list[tuple[str, list[str], list[str]]]:
        out = []
        for directory, dirs, files in walker:
            dirs[:] = sorted(d for d in dirs if d != "skip")  # pruning as discover prunes
            out.append((directory, list(dirs), sorted(files)))
        return out

    assert walked(walk_tree(tmp_path, lambda e: None)) == walked(os.walk(tmp_path))


def test_discover_finds_what_it_found_before(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / ".gitignore").write_text("b/\n*.txt\nc/**/g.py\n")
    found = [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], excludes=("zz",)).files]
    assert found == ["c/d/h.py", "c/skip/s.py", "top.py"]  # `b/` is a directory b at any depth
