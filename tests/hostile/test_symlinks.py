"""Probe 3 of issue 17: no write ever goes through a symlink out of the given roots."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm, snapshot


@pytest.fixture()
def layout(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.py").write_bytes(LEGACY)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "l.py").symlink_to(outside / "victim.py")
    (tree / "own.py").write_bytes(LEGACY)
    (tree / "alias.py").symlink_to("own.py")  # inside the tree: the file is processed once, by its name
    (tree / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    return tmp_path


def test_rewrite_of_a_tree_does_not_follow_a_link_out(layout: Path) -> None:
    before = snapshot(layout / "outside")
    proc = tfm("rewrite", "tree", cwd=layout)
    assert snapshot(layout / "outside") == before
    assert proc.returncode == 2
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error")]
    assert any("tree/l.py" in ln and "outside tree: not followed" in ln for ln in errors), proc.stderr
    assert any("tree/dangling.py" in ln and "broken symlink" in ln for ln in errors), proc.stderr
    assert (layout / "tree" / "l.py").is_symlink() and (layout / "tree" / "alias.py").is_symlink()
    assert (layout / "tree" / "own.py").read_bytes() != LEGACY  # the tree's own file is rewritten
    assert "Traceback" not in proc.stderr


def test_a_named_link_out_of_the_project_is_refused(layout: Path) -> None:
    before = snapshot(layout / "outside")
    proc = tfm("rewrite", "l.py", "own.py", cwd=layout / "tree")
    assert snapshot(layout / "outside") == before
    assert proc.returncode == 2 and "not followed" in proc.stderr
    assert (layout / "tree" / "own.py").read_bytes() != LEGACY
