"""The cache directory holds only what the cache wrote, and never hides the project.

Before: ``--cache-dir`` at a folder of the user's deleted its 32-hex-named ``.json`` files; the
config's ``cache-dir`` could point outside the tree or at the project's root, which then got a
``.gitignore`` of ``*`` and a ``CACHEDIR.TAG`` (git and backups skipped the whole project)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm, snapshot


HEX_NAMES = [f"{i:032x}.json" for i in range(6)]  # named as the cache named its files before


def one_error_line(proc, *words: str) -> str:  # type: ignore[no-untyped-def]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def users_files(directory: Path) -> dict[str, str]:
    directory.mkdir(exist_ok=True)
    mine = {name: f'{{"i": {i}}}' for i, name in enumerate([*HEX_NAMES, "data.json"])}
    for name, text in mine.items():
        (directory / name).write_text(text)
        os.utime(directory / name, (time.time() - 1000, time.time() - 1000))  # older than any cache file
    return mine


def test_cache_dir_on_a_users_directory_is_refused_and_its_files_kept(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(LEGACY)
    mine = users_files(tmp_path / "mine")
    for select in ("TFM5", "TFM1", "TFM2", "TFM3", "TFM4", "TFM6"):  # before: one cache file each, the oldest pruned
        proc = tfm("rewrite", "--check", "--select", select, "--cache-dir", "mine", "a.py", cwd=tmp_path)
        one_error_line(proc, "--cache-dir mine", "not empty", "--no-cache")
    assert {p.name: p.read_text() for p in (tmp_path / "mine").iterdir()} == mine  # nothing added, nothing removed
    assert (tmp_path / "a.py").read_bytes() == LEGACY


@pytest.mark.parametrize("where", [".", "..", "src/.."])
def test_cache_dir_at_the_project_root_or_above_is_refused(tmp_path: Path, where: str) -> None:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_bytes(LEGACY)
    one_error_line(tfm("rewrite", "--check", "--cache-dir", where, "src", cwd=root), "project's root", "git")
    assert sorted(p.name for p in root.iterdir()) == ["src"]  # no .gitignore of "*", no CACHEDIR.TAG
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


@pytest.mark.parametrize(("value", "words"), [
    (".", ("project's root",)),
    ("..", ("project's root",)),
    ("../elsewhere", ("outside the project",)),
    ("/tmp/tfmigrate-cache-probe", ("outside the project",)),
    ("link/cache", ("outside the project",)),  # inside by its name, outside through a symlink
    ("src", ("not empty",)),
])
def test_cache_dir_from_the_config_stays_inside_the_project(tmp_path: Path, value: str, words: tuple[str, ...]) -> None:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_bytes(LEGACY)
    (tmp_path / "elsewhere").mkdir()
    (root / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (root / "pyproject.toml").write_text(f'[tool.tfmigrate]\ncache-dir = "{value}"\n')
    before = snapshot(tmp_path)
    one_error_line(tfm("rewrite", "--check", "src", cwd=root / "src"), "pyproject.toml", "cache-dir", *words)
    assert snapshot(tmp_path) == before
    assert list((tmp_path / "elsewhere").iterdir()) == [] and not Path("/tmp/tfmigrate-cache-probe").exists()


def test_cache_dir_on_the_command_line_may_be_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "--cache-dir", "../ci-cache", "a.py", cwd=root)
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "ci-cache" / "MANIFEST").is_file() and (tmp_path / "ci-cache" / "CACHEDIR.TAG").is_file()


def test_only_files_the_manifest_lists_are_ever_removed(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(LEGACY)
    cache = tmp_path / ".tfmigrate_cache"
    assert tfm("rewrite", "--check", "--select", "TFM5", "a.py", cwd=tmp_path).returncode == 1
    planted = {f"{i:032x}.cache": "not the cache's" for i in range(3)}  # named as the cache names its files
    for name, text in planted.items():
        (cache / name).write_text(text)
        os.utime(cache / name, (1, 1))  # the oldest of all
    for select in ("TFM1", "TFM2", "TFM3", "TFM4", "TFM6", "TFM54"):
        tfm("rewrite", "--check", "--select", select, "a.py", cwd=tmp_path)
    for name, text in planted.items():
        assert (cache / name).read_text() == text, name
    listed = json.loads((cache / "MANIFEST").read_text())["files"]
    made = [p.name for p in cache.glob("*.cache") if p.name not in planted]
    assert sorted(listed) == sorted(made) and len(made) == 4  # the cache's own files, pruned to KEEP


def test_a_symlinked_cache_directory_is_not_used(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_bytes(LEGACY)
    (tree / ".tfmigrate_cache").symlink_to(outside, target_is_directory=True)
    for _ in range(2):
        proc = tfm("rewrite", "--check", "a.py", cwd=tree)
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.count("tfmigrate: note:") == 1 and "a symlink" in proc.stderr and "Traceback" not in proc.stderr
    assert list(outside.iterdir()) == []  # nothing written through the link
    assert (tree / "a.py").read_bytes() == LEGACY


def test_links_inside_the_cache_directory_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("keep me\n")
    tree = tmp_path / "tree"
    cache = tree / ".tfmigrate_cache"
    cache.mkdir(parents=True)
    (tree / "a.py").write_bytes(LEGACY)
    (cache / "MANIFEST").write_text('{"written_by": "tfmigrate", "files": []}\n')  # a cache tfmigrate made
    (cache / ".gitignore").symlink_to(victim)  # an existing target: left alone
    (cache / "CACHEDIR.TAG").symlink_to(outside / "created.txt")  # a dangling one: never created through
    proc = tfm("rewrite", "--check", "a.py", cwd=tree)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert victim.read_text() == "keep me\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    (cache / "MANIFEST").unlink()  # no longer recognisably the cache's: one line, exit 2, nothing touched
    proc = tfm("rewrite", "--check", "a.py", cwd=tree)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and "not empty" in proc.stderr, proc.stderr
    (cache / "MANIFEST").write_text('{"written_by": "tfmigrate", "files": []}\n')
    # a cache file that is a symlink: the cache is refused with a note, the target untouched
    assert list(cache.glob("*.cache"))
    for made in cache.glob("*.cache"):
        made.unlink()
        made.symlink_to(victim)
        proc = tfm("rewrite", "--check", "a.py", cwd=tree)
        assert proc.returncode == 1 and proc.stderr.count("tfmigrate: note:") == 1 and "a symlink" in proc.stderr, proc.stderr
        assert victim.read_text() == "keep me\n"
