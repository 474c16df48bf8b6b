"""Probe 2 of issue 17: an output option must never overwrite a source being processed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm


@pytest.mark.parametrize("args", [
    ("rewrite", "src.py", "--format", "json", "-o", "src.py"),
    ("rewrite", "src.py", "--check", "--format", "sarif", "-o", "./link.py"),
    ("rewrite", ".", "--format", "markdown", "-o", "pkg/other.py"),
    ("report", ".", "--html", "src.py"),
    ("report", ".", "--markdown", "pkg/other.py"),
    ("report", ".", "--json", "link.py"),
    ("report", "pkg", "--sarif", "pkg/other.py"),
])
def test_output_over_a_source_is_refused(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "src.py").write_bytes(LEGACY)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "other.py").write_bytes(LEGACY)
    (tmp_path / "link.py").symlink_to("src.py")
    proc = tfm(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "destroy" in proc.stderr
    assert (tmp_path / "src.py").read_bytes() == LEGACY
    assert (tmp_path / "pkg" / "other.py").read_bytes() == LEGACY


def test_output_beside_the_sources_is_written(tmp_path: Path) -> None:
    (tmp_path / "src.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "src.py", "--check", "--format", "json", "-o", "out.json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "out.json").read_text().startswith("{")
    assert (tmp_path / "src.py").read_bytes() == LEGACY
