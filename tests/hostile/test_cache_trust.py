"""The results cache is not trusted: whatever lies in ``.tfmigrate_cache/`` that this user's
tfmigrate did not write is a miss, the file is processed again and the exit code is a fresh run's.

Before: a tampered entry made ``--check`` pass on legacy code; entries of the wrong types or deeply
nested JSON gave a traceback on every later run; a FIFO named like the cache file hung the run."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tfmigrate.codemod import cache as cache_module
from tfmigrate.codemod.cache_key import sign
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import Options, run
from tfmigrate.results import FileResult

from tests.clichildren import run_cli

from .helpers import LEGACY

CLEAN_RECORD = {"status": "unchanged", "error": None, "diff": None, "findings": []}


def tfm(*args: str, cwd: Path, key_home: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1", XDG_CACHE_HOME=str(key_home))
    return run_cli(args, cwd=cwd, timeout=timeout, env=env)  # a fork of the warm CLI server (tests/clichildren.py)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_bytes(LEGACY)
    return root


@pytest.fixture(scope="module")
def checked_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """The first ``rewrite --check`` of the legacy project, run once for the module: the project with the cache
    that run wrote, the key home with the key it made, and what it printed (exit 1, TFM501)."""
    base = tmp_path_factory.mktemp("checked_once")
    root = base / "project"
    root.mkdir()
    (root / "a.py").write_bytes(LEGACY)
    first = tfm("rewrite", "--check", "a.py", cwd=root, key_home=base / "key")
    assert first.returncode == 1 and "TFM501" in first.stdout, first.stderr
    return root, base / "key", first


@pytest.fixture
def checked(checked_once: tuple[Path, Path, subprocess.CompletedProcess[str]], tmp_path: Path) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """A test's own copy of ``checked_once``'s project and key home (modes and times kept: the copied cache is a hit
    for the copied key), as if it had run the first ``rewrite --check`` itself."""
    root, key_home, first = checked_once
    shutil.copytree(root, tmp_path / "project")
    shutil.copytree(key_home, tmp_path / "key")
    cache, secret = cache_file(tmp_path / "project"), (tmp_path / "key" / "tfmigrate" / "cache-key").read_bytes()
    assert set(cache_module.ResultCache(cache.parent, cache.stem, secret=secret).entries) == {"a.py"}  # the copy holds
    return tmp_path / "project", tmp_path / "key", first


def cache_file(root: Path) -> Path:
    """The one results file of the cache, whatever its format (``*.cache`` now, ``*.json`` before)."""
    (found,) = [p for p in (root / ".tfmigrate_cache").iterdir() if cache_module._CACHE_NAME.fullmatch(p.name)
                or (p.suffix == ".json" and len(p.stem) == 32)]
    return found


def forge(path: Path, mutate: Callable[[dict[str, Any]], Any]) -> None:
    """What someone without the key can do: rewrite the entries, keep everything else (the HMAC
    line of the old content included, where there is one)."""
    raw = path.read_bytes()
    header, body = (b"", raw) if raw.startswith(b"{") else raw.split(b"\n", 1)
    data = json.loads(body)
    for entry in data["files"].values():
        entry[1] = mutate(entry[1])
    path.write_bytes((header + b"\n" if header else b"") + json.dumps(data).encode())


def test_a_tampered_entry_does_not_make_check_pass(checked: tuple[Path, Path, subprocess.CompletedProcess[str]]) -> None:
    project, key_home, first = checked
    forge(cache_file(project), lambda record: CLEAN_RECORD)  # "a.py: nothing to do"
    again = tfm("rewrite", "--check", "a.py", cwd=project, key_home=key_home)
    assert again.returncode == 1, again.stdout + again.stderr  # before: 0, the legacy code passed
    assert again.stdout == first.stdout


def test_an_entry_signed_with_another_users_key_is_a_miss(checked: tuple[Path, Path, subprocess.CompletedProcess[str]],
                                                           tmp_path: Path) -> None:
    """The attacker runs tfmigrate with their own key, forges an entry and signs it properly:
    it holds for them, and is a miss for everyone else."""
    project, theirs, _ = checked  # the attacker's run: exit 1, their key made
    mine = tmp_path / "my-key"
    path = cache_file(project)
    header, body = path.read_bytes().split(b"\n", 1)
    data = json.loads(body)
    data["files"]["a.py"][1] = CLEAN_RECORD
    body = json.dumps(data).encode()
    their_key = (theirs / "tfmigrate" / "cache-key").read_bytes()
    path.write_bytes(cache_module._HEADER + sign(their_key, path.name.encode(), body).encode() + b"\n" + body)
    assert tfm("rewrite", "--check", "a.py", cwd=project, key_home=theirs).returncode == 0  # well-formed: the key decides
    mine_run = tfm("rewrite", "--check", "a.py", cwd=project, key_home=mine)
    assert mine_run.returncode == 1 and "a.py:3:5: TFM501" in mine_run.stdout, mine_run.stdout + mine_run.stderr


@pytest.mark.parametrize("hostile", [
    {"status": ["x"], "error": None, "diff": None, "findings": []},
    {"status": "unchanged", "error": 5, "diff": {"a": 1}, "findings": "none"},
    {"status": "unchanged", "error": None, "diff": None, "findings": [{"rule": 1, "line": "x"}]},
    {"status": "changed", "error": None, "diff": None,
     "findings": [{"rule": "TFM501", "severity": "error", "path": "a.py", "line": [3], "col": 5, "message": "m",
                   "fix": "fixable", "safety": "safe", "cell": None}]},
    "a string",
    None,
])
def test_entries_of_the_wrong_types_are_a_miss_without_a_traceback(checked: tuple[Path, Path, subprocess.CompletedProcess[str]],
                                                                   hostile: Any) -> None:
    project, key_home, first = checked
    forge(cache_file(project), lambda record: hostile)
    for _ in range(2):  # and every later run
        proc = tfm("rewrite", "--check", "a.py", cwd=project, key_home=key_home)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode == 1 and proc.stdout == first.stdout, proc.stderr


def test_deeply_nested_json_is_a_miss_without_a_traceback(checked: tuple[Path, Path, subprocess.CompletedProcess[str]]) -> None:
    project, key_home, first = checked
    path = cache_file(project)
    head = path.read_bytes().split(b"\n", 1)[0] + b"\n" if path.suffix == ".cache" else b""
    path.write_bytes(head + b'{"format": 3, "files": {"a.py": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}")
    proc = tfm("rewrite", "--check", "a.py", cwd=project, key_home=key_home)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 1 and proc.stdout == first.stdout


@pytest.mark.parametrize("which", ["cache file", "MANIFEST", "CACHEDIR.TAG", "key"])
def test_a_fifo_in_place_of_a_cache_file_never_hangs(checked: tuple[Path, Path, subprocess.CompletedProcess[str]], which: str) -> None:
    project, key_home, first = checked
    target = {"cache file": cache_file(project), "MANIFEST": project / ".tfmigrate_cache" / "MANIFEST",
              "CACHEDIR.TAG": project / ".tfmigrate_cache" / "CACHEDIR.TAG",
              "key": key_home / "tfmigrate" / "cache-key"}[which]
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    proc = tfm("rewrite", "--check", "a.py", cwd=project, key_home=key_home, timeout=30)  # before: hung here
    assert proc.returncode == 1 and proc.stdout == first.stdout, proc.stderr
    assert "Traceback" not in proc.stderr
    if which == "key":
        assert proc.stderr.count("tfmigrate: note:") == 1 and "not a regular file" in proc.stderr


def test_the_key_is_private_and_outside_the_project(project: Path, tmp_path: Path) -> None:
    key_home = tmp_path / "key"
    assert tfm("rewrite", "--check", "a.py", cwd=project, key_home=key_home).returncode == 1
    key = key_home / "tfmigrate" / "cache-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert len(key.read_bytes()) == 32
    assert not any("key" in p.name for p in project.rglob("*"))
    key.chmod(0o644)  # open to others: not a secret any more, so the cache is not used
    proc = tfm("rewrite", "--check", "a.py", cwd=project, key_home=key_home)
    assert proc.returncode == 1 and proc.stderr.count("tfmigrate: note:") == 1 and "open to other users" in proc.stderr


# ---- the schema, in-process: entries signed with the key but not of the shape the cache writes


def test_signed_entries_of_the_wrong_shape_are_misses(tmp_path: Path) -> None:
    secret = b"k" * 32
    key = cache_module.fingerprint(frozenset({"TFM501"}), "check", False, None)
    good = FileResult("a.py", "changed", findings=[])
    written = cache_module.ResultCache(tmp_path / "c", key, secret=secret)
    written.put("a.py", "d" * 32, good)
    record = written.entries["a.py"][1]
    hostile = {
        "b.py": ["d" * 32, {**record, "status": "error"}],  # never stored: an error is processed again
        "c.py": ["d" * 32, {**record, "extra": 1}],
        "e.py": ["d" * 32, {**record, "findings": [{"rule": "TFM501"}]}],
        "f.py": ["d" * 32, {**record, "findings": [dict(rule="TFM501", severity="error", path="other.py", line=1, col=0,
                                                         message="m", fix="fixable", safety="safe", cell=None)]}],
        "g.py": ["d" * 32, {**record, "findings": [dict(rule="TFM501", severity="error", path="g.py", line=True, col=0,
                                                         message="m", fix="fixable", safety="safe", cell=None)]}],
    }
    written.entries.update(hostile)
    written.save()
    read = cache_module.ResultCache(tmp_path / "c", key, secret=secret)
    assert read.get("a.py", "d" * 32) == good  # the shape it writes is read back
    assert read.get("a.py", "e" * 32) is None  # other bytes
    for path in hostile:
        assert read.get(path, "d" * 32) is None, path
    assert cache_module.ResultCache(tmp_path / "c", key, secret=b"x" * 32).get("a.py", "d" * 32) is None  # another key


def test_signed_deep_json_is_a_miss(tmp_path: Path) -> None:
    secret = b"k" * 32
    key = "0" * 32
    directory = tmp_path / "c"
    directory.mkdir()
    body = b'{"format": 3, "files": {"a.py": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}"
    name = f"{key}.cache"
    (directory / name).write_bytes(cache_module._HEADER + sign(secret, name.encode(), body).encode() + b"\n" + body)
    assert cache_module.ResultCache(directory, key, secret=secret).entries == {}


def test_a_cache_file_over_the_size_bound_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "key"))
    (tmp_path / "a.py").write_bytes(LEGACY)
    options = Options(enabled=load_catalog().selected(None), mode="check", jobs=1, cache_dir=tmp_path / ".tfmigrate_cache")
    run(["a.py"], options)
    path = cache_file(tmp_path)
    monkeypatch.setattr(cache_module, "MAX_BYTES", path.stat().st_size - 1)
    secret = (tmp_path / "key" / "tfmigrate" / "cache-key").read_bytes()
    assert cache_module.ResultCache(path.parent, path.stem, secret=secret).entries == {}
    monkeypatch.setattr(cache_module, "MAX_BYTES", path.stat().st_size)
    assert set(cache_module.ResultCache(path.parent, path.stem, secret=secret).entries) == {"a.py"}
