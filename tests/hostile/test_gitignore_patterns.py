"""Issue 26, standards: a .gitignore pattern with 18 stars makes pathspec's regular expression (and
git) backtrack for hours on one long file name. A pattern with more than three wildcards is not used:
one line names the .gitignore and its line, and the rest of the file still applies."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import LEGACY, run_tfmigrate as tfm

HOSTILE = "**/" + "*a" * 18 + "*b"


def test_a_pathological_pattern_is_refused_with_one_line(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text(f"# generated\nignored.py\n{HOSTILE}\n**/*_pb2*.py\n")
    name = "x" * 40 + "a" * 150 + ".py"
    (tmp_path / name).write_bytes(LEGACY)
    (tmp_path / "ignored.py").write_bytes(LEGACY)
    (tmp_path / "model_pb2_grpc.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "--format", "json", ".", cwd=tmp_path, timeout=60)  # a hang is a TimeoutExpired
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "error: .gitignore:3:1: pattern with 20 wildcards (more than 3) not used: matching it could take hours"]
    files = {f["path"]: f["status"] for f in json.loads(proc.stdout)["files"]}
    assert files == {".gitignore": "error", name: "changed"}  # ignored.py and *_pb2*.py stay ignored


def test_three_wildcards_are_still_honoured(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("**/gen/**/*_pb2.py\nvendor/**\n")
    for rel in ["gen/a/x_pb2.py", "vendor/v/w.py", "keep.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "--format", "json", ".", cwd=tmp_path, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert [f["path"] for f in json.loads(proc.stdout)["files"]] == ["keep.py"]


def test_a_gitignore_above_several_given_directories_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(HOSTILE + "\n")
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "m.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "--check", "a", "b", cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count(".gitignore:1:1: pattern with 20 wildcards") == 1
