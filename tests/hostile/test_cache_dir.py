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
