from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LEGACY = b"import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\n"


def run_tfmigrate(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "tfmigrate", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` and its bytes (symlinks not followed)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath, name)
            if p.is_file() and not p.is_symlink():
                out[str(p.relative_to(root))] = p.read_bytes()
    return out

