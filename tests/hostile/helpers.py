from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.clichildren import run_cli

LEGACY = b"import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\n"


def run_tfmigrate(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m tfmigrate ARGS`` in ``cwd``, its output captured: a fork of the warm CLI server (tests/clichildren.py)."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    return run_cli(args, cwd=cwd, timeout=timeout, env=env)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` and its bytes (symlinks not followed)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath, name)
            if p.is_file() and not p.is_symlink():
                out[str(p.relative_to(root))] = p.read_bytes()
    return out

