"""The results cache never hides a change: edits, renames, touches, options, versions, corruption."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.clichildren import run_cli

import tfmigrate.codemod.engine as engine
from tfmigrate.codemod import cache as cache_module
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import Options, run
from tfmigrate.report.json_format import data

LEGACY = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 3])\nsess = tf.Session()\n"
OTHER = "import tensorflow as tf\nw = tf.Variable(tf.zeros([3]))\ninit = tf.initialize_all_variables()\n"
CLEAN = "import tensorflow as tf\ny = tf.constant(1)\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # the HMAC key of these runs
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(LEGACY)
    (tmp_path / "src" / "b.py").write_text(OTHER)
    (tmp_path / "src" / "c.py").write_text(CLEAN)
    return tmp_path


@pytest.fixture
def processed(monkeypatch):
    """The paths process_file really worked on (counted, not replaced)."""
    seen: list[str] = []
    real = engine.process_file

    def counting(path, options):  # type: ignore[no-untyped-def]
        seen.append(Path(path).name)
        return real(path, options)

    monkeypatch.setattr(engine, "process_file", counting)
    return seen


def options(tmp: Path, select: tuple[str, ...] | None = None, mode: str = "check") -> Options:
    return Options(enabled=load_catalog().selected(select), mode=mode, jobs=1, cache_dir=tmp / ".tfmigrate_cache")  # type: ignore[arg-type]


def as_json(report) -> str:  # type: ignore[no-untyped-def]
    return json.dumps(data(report), sort_keys=True) + "".join(str(f.diff) for f in report.files)


def test_unchanged_files_are_not_processed_again_and_give_the_same_results(tree, processed):
    first = run(["src"], options(tree))
    assert sorted(processed) == ["a.py", "b.py", "c.py"]
    processed.clear()
    second = run(["src"], options(tree))
    assert processed == []
    assert as_json(second) == as_json(first)
    assert (tree / ".tfmigrate_cache" / "CACHEDIR.TAG").exists()
    assert (tree / ".tfmigrate_cache" / ".gitignore").read_text() == "*\n"


def test_edits_renames_and_touches(tree, processed):
    run(["src"], options(tree))
    processed.clear()
    (tree / "src" / "b.py").write_text(LEGACY)  # edited: processed, new results
    os.rename(tree / "src" / "c.py", tree / "src" / "d.py")  # renamed: a new path, processed
    os.utime(tree / "src" / "a.py", (1, 1))  # touched only: same bytes, same results
    report = run(["src"], options(tree))
    assert sorted(processed) == ["b.py", "d.py"]
    b = next(r for r in report.files if r.path.endswith("b.py"))
    assert {f.rule for f in b.findings} == {f.rule for f in next(r for r in report.files if r.path.endswith("a.py")).findings}
    processed.clear()
    (tree / "src" / "b.py").write_text(OTHER)  # and back: the old bytes are a new state of the file
    run(["src"], options(tree))
    assert processed == ["b.py"]


def test_other_options_and_another_version_process_everything(tree, processed, monkeypatch):
    run(["src"], options(tree))
    processed.clear()
    run(["src"], options(tree, select=("TFM5",)))
    assert sorted(processed) == ["a.py", "b.py", "c.py"]
    processed.clear()
    run(["src"], options(tree, mode="diff"))
    assert sorted(processed) == ["a.py", "b.py", "c.py"]
    processed.clear()
    monkeypatch.setattr(cache_module, "__version__", "99.0")
    cache_module._code_fingerprint.cache_clear()
    try:
        run(["src"], options(tree))
        assert sorted(processed) == ["a.py", "b.py", "c.py"]
    finally:
        cache_module._code_fingerprint.cache_clear()


def test_a_change_to_tfmigrates_own_code_invalidates_the_cache(tree, processed, monkeypatch):
    run(["src"], options(tree))
    before = cache_module._code_fingerprint()
    catalog_file = cache_module.CATALOG_DIR / "aliases.toml"  # the top-level rules/ of a checkout
    stat = catalog_file.stat()
    try:
        os.utime(catalog_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        cache_module._code_fingerprint.cache_clear()
        assert cache_module._code_fingerprint() != before
        processed.clear()
        run(["src"], options(tree))
        assert sorted(processed) == ["a.py", "b.py", "c.py"]
    finally:
        os.utime(catalog_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        cache_module._code_fingerprint.cache_clear()


@pytest.mark.parametrize(
    "damage",
    [
        b"\x00\xff not json",
        b'{"format": 1, "files": {"src/a.py": ["abc"',  # truncated
        b'["a list"]',
        b'{"format": 1, "files": {"src/a.py": "not an entry", "src/b.py": [1, 2, 3]}}',
        None,  # entries whose findings have the wrong fields (the HMAC line kept: it no longer matches)
    ],
)
def test_a_corrupt_cache_is_ignored_and_rebuilt(tree, processed, damage):
    first = run(["src"], options(tree))
    (cache_file,) = (tree / ".tfmigrate_cache").glob("*.cache")
    if damage is None:
        header, body = cache_file.read_bytes().split(b"\n", 1)
        data = json.loads(body)
        for entry in data["files"].values():
            entry[1]["findings"] = [{"rule": "TFM501", "nonsense": 1}]
        cache_file.write_bytes(header + b"\n" + json.dumps(data).encode())
    else:
        cache_file.write_bytes(damage)
    processed.clear()
    second = run(["src"], options(tree))
    assert sorted(processed) == ["a.py", "b.py", "c.py"]
    assert as_json(second) == as_json(first)
    processed.clear()
    run(["src"], options(tree))  # rebuilt
    assert processed == []


def test_rewriting_in_place_never_serves_a_stale_change(tree, processed):
    run(["src"], options(tree, mode="write"))
    migrated = (tree / "src" / "a.py").read_text()
    assert migrated != LEGACY
    processed.clear()
    report = run(["src"], options(tree, mode="write"))  # the rewritten files are processed from their new bytes
    assert sorted(processed) == ["a.py", "b.py"]
    assert all(r.status == "unchanged" for r in report.files)
    (tree / "src" / "a.py").write_text(LEGACY)  # the legacy bytes again: rewritten again, not skipped
    processed.clear()
    report = run(["src"], options(tree, mode="write"))
    assert processed == ["a.py"]
    assert (tree / "src" / "a.py").read_text() == migrated


def test_outputs_are_byte_identical_with_and_without_the_cache_and_for_every_jobs(tree):
    outputs = set()
    for args in (["--jobs", "1"], ["--jobs", "2"], ["--jobs", "2"], ["--jobs", "1", "--no-cache"], ["--jobs", "2", "--no-cache"]):
        for fmt in ("json", "sarif"):
            done = run_cli(["rewrite", "--check", "src", "--format", fmt, *args], text=False, timeout=120, cwd=tree)
            assert done.returncode == 1, done.stderr
            outputs.add((fmt, done.stdout))
        diff = run_cli(["rewrite", "--diff", "src", *args], text=False, timeout=120, cwd=tree)
        outputs.add(("diff", diff.stdout))
    assert len(outputs) == 3
    assert len(list((tree / ".tfmigrate_cache").glob("*.cache"))) == 2  # check and diff: two option sets


def test_the_cache_directory_follows_the_project_and_the_options(tree):
    (tree / "pyproject.toml").write_text('[tool.tfmigrate]\ncache-dir = "build-cache"\n')
    (tree / "src" / "sub").mkdir()
    (tree / "src" / "sub" / "m.py").write_text(CLEAN)
    done = run_cli(["rewrite", "--check", "."], text=False, timeout=120, cwd=tree / "src" / "sub")
    assert done.returncode == 0, done.stderr
    assert (tree / "build-cache" / "CACHEDIR.TAG").exists()  # beside pyproject.toml, not in the current directory
    assert not (tree / "src" / "sub" / "build-cache").exists()
    (tree / "pyproject.toml").unlink()
    done = run_cli(["rewrite", "--check", "src", "--no-cache"], text=False, timeout=120, cwd=tree)
    assert done.returncode == 1 and not (tree / ".tfmigrate_cache").exists()
    done = run_cli(["rewrite", "--check", ".", "--cache-dir", "elsewhere"], text=False, timeout=120, cwd=tree / "src")
    assert (tree / "src" / "elsewhere" / "CACHEDIR.TAG").exists()  # a --cache-dir is taken from the current directory
