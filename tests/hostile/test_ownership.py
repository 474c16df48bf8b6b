"""Probe 4 of issue 17: a rewritten file keeps its owner, group, mode and hard links."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm

root_only = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")


@root_only
def test_rewrite_as_root_keeps_owner_group_and_mode(tmp_path: Path) -> None:
    src = tmp_path / "a.py"
    src.write_bytes(LEGACY)
    os.chown(src, 1234, 5678)
    os.chmod(src, 0o640)
    proc = tfm("rewrite", "a.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    st = os.stat(src)
    assert src.read_bytes() != LEGACY
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 5678, 0o640)
    assert [p.name for p in tmp_path.iterdir()] == ["a.py"]  # no temporary file or copy left


def test_hard_link_twin_gets_the_new_content(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    src = tree / "a.py"
    src.write_bytes(LEGACY)
    os.link(src, outside / "twin.py")
    os.link(src, tree / "b.py")  # a second name inside the tree: processed once
    inode = os.stat(src).st_ino
    proc = tfm("rewrite", "tree", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    new = src.read_bytes()
    assert new != LEGACY and b"tf.compat.v1.placeholder" in new
    assert (outside / "twin.py").read_bytes() == new == (tree / "b.py").read_bytes()
    assert os.stat(src).st_ino == inode and os.stat(src).st_nlink == 3
    assert sorted(p.name for p in tree.iterdir()) == ["a.py", "b.py"]


@root_only
def test_a_user_rewriting_another_users_file_keeps_its_owner() -> None:
    try:
        subprocess.run([sys.executable, "-c", "import tfmigrate"], user=1234, group=1234, extra_groups=[], check=True,
                       capture_output=True, timeout=60)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("this Python cannot be run by an unprivileged user here")
    shared = Path(tempfile.mkdtemp(prefix="tfm-own-"))
    try:
        os.chmod(shared, 0o777)
        src = shared / "a.py"
        src.write_bytes(LEGACY)
        os.chown(src, 4321, 4321)
        os.chmod(src, 0o666)
        env = dict(os.environ, HOME=str(shared))
        proc = subprocess.run(
            [sys.executable, "-m", "tfmigrate", "rewrite", "--no-cache", "a.py"], cwd=shared, env=env,
            capture_output=True, text=True, timeout=120, user=1234, group=1234, extra_groups=[],
        )
        assert proc.returncode == 0, proc.stderr
        st = os.stat(src)
        assert src.read_bytes() != LEGACY
        assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4321, 0o666)
    finally:
        shutil.rmtree(shared)
