"""Issue 26, hangs: a FIFO (or socket) named like a checkpoint file in a model_dir. Neither the
checkpoint reader nor the TensorFlow child opens it (TensorFlow would wait for a writer for ever):
one line naming the file, exit 2, well within the test's timeout."""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from tfmigrate.checkpoint.index import CheckpointError, open_regular, read

from .helpers import run_tfmigrate as tfm

TRAP = Path(__file__).resolve().parents[2] / "samples" / "iris_checkpoint_trap"
FILES = ["checkpoint", "model.ckpt-20.index", "model.ckpt-20.data-00000-of-00001"]


@pytest.fixture()
def sample(tmp_path: Path) -> Path:
    shutil.copytree(TRAP, tmp_path / "trap")
    return tmp_path / "trap"


@pytest.mark.parametrize("name", FILES)
def test_ckpt_inspect_refuses_a_fifo_with_one_line(sample: Path, name: str) -> None:
    target = sample / "models" / "iris" / name
    target.unlink()
    os.mkfifo(target)
    proc = tfm("ckpt", "inspect", "models/iris", cwd=sample, timeout=60)  # a hang is a TimeoutExpired
    assert "Traceback" not in proc.stderr
    assert f"models/iris/{name}: a FIFO, not a regular file: not opened" in proc.stdout + proc.stderr
    if ".data-" not in name:
        assert proc.returncode == 2
        return
    # inspect needs only the .index (names, shapes, dtypes): it says so and why the shard is not read
    assert proc.returncode == 0 and "index only:" in proc.stdout and "global_step" in proc.stdout
    convert = tfm("ckpt", "convert", "models/iris", "converted", cwd=sample, timeout=60)  # values need the shard
    assert convert.returncode == 2 and "Traceback" not in convert.stderr
    assert f"models/iris/{name}: a FIFO, not a regular file: not opened" in convert.stdout + convert.stderr


def test_a_socket_named_like_the_index_is_refused(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = sample / "models" / "iris" / "model.ckpt-20.index"
    index.unlink()
    monkeypatch.chdir(index.parent)  # a relative name: AF_UNIX paths are short
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(index.name)
    sock.close()
    with pytest.raises(CheckpointError, match="model.ckpt-20.index: a socket, not a regular file"):
        read(sample / "models" / "iris" / "model.ckpt-20")


def test_open_regular_does_not_block_on_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "checkpoint")
    started = time.monotonic()
    with pytest.raises(CheckpointError, match="checkpoint: a FIFO, not a regular file"):
        open_regular(tmp_path / "checkpoint")
    assert time.monotonic() - started < 5


@pytest.mark.slow
def test_report_with_a_fifo_state_file_in_the_model_dir_does_not_hang(sample: Path) -> None:
    """The TensorFlow child (tf.train.latest_checkpoint) would open the FIFO and wait for ever: the
    report names it and goes on."""
    state = sample / "models" / "iris" / "checkpoint"
    state.unlink()
    os.mkfifo(state)
    proc = tfm("report", ".", cwd=sample, timeout=180)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "models/iris/checkpoint: a FIFO" in ln]
    assert len(lines) == 1 and "not a regular file" in lines[0]
    assert "files        3 scanned" in proc.stdout  # the rest of the report is there


@pytest.mark.slow
def test_validate_with_a_fifo_in_the_own_model_dir_does_not_hang(sample: Path) -> None:
    state = sample / "models" / "iris" / "checkpoint"
    state.unlink()
    os.mkfifo(state)
    proc = tfm("validate", "expected.py:21", "--steps", "2", cwd=sample, timeout=180)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "models/iris/checkpoint: a FIFO, not a regular file: not opened" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_validate_keras_with_a_fifo_weights_file_in_the_own_model_dir_does_not_hang(sample: Path) -> None:
    from tests.keras_env import keras_python

    python = keras_python()
    os.mkfifo(sample / "models" / "iris" / "model.ckpt-5.weights.h5")
    proc = tfm("validate", "--target", "keras", "--python", python, "expected_keras.py:22", "--steps", "2", cwd=sample, timeout=180)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "models/iris/model.ckpt-5.weights.h5: a FIFO, not a regular file: not opened" in proc.stdout + proc.stderr
