"""A ``--cache-dir`` pointed at a directory of the user's never loses its files (the cache prunes
only its own files)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from .helpers import LEGACY, run_tfmigrate as tfm


def test_cache_dir_on_a_users_directory_keeps_its_json_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(LEGACY)
    mine = {f"data{i}.json": f'{{"i": {i}}}' for i in range(8)}
    for name, text in mine.items():
        (tmp_path / name).write_text(text)
        os.utime(tmp_path / name, (time.time() + 100, time.time() + 100))  # newer than any cache file
    for select in ("TFM5", "TFM1", "TFM2", "TFM3", "TFM4", "TFM6"):  # one cache file per option set
        tfm("rewrite", "--check", "--select", select, "--cache-dir", ".", "a.py", cwd=tmp_path)
    for name, text in mine.items():
        assert (tmp_path / name).read_text() == text, name
    assert (tmp_path / "a.py").read_bytes() == LEGACY


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
    (cache / ".gitignore").symlink_to(victim)  # an existing target: left alone
    (cache / "CACHEDIR.TAG").symlink_to(outside / "created.txt")  # a dangling one: never created through
    proc = tfm("rewrite", "--check", "a.py", cwd=tree)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert victim.read_text() == "keep me\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    # a cache file that is a symlink: the cache is refused with a note, the target untouched
    for made in cache.glob("*.json"):
        made.unlink()
        made.symlink_to(victim)
        proc = tfm("rewrite", "--check", "a.py", cwd=tree)
        assert proc.returncode == 1 and proc.stderr.count("tfmigrate: note:") == 1 and "a symlink" in proc.stderr, proc.stderr
        assert victim.read_text() == "keep me\n"
