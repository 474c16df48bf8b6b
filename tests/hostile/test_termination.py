"""Issue 26, hangs and orphans: SIGTERM (``timeout``, a CI cancel) or SIGHUP to tfmigrate while its
TensorFlow child trains. The child runs in its own session, so only tfmigrate can end it: the
child's whole process group is gone afterwards, no temporary directory is left, exit 128 + signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

from .helpers import LEGACY

# about the child process of tfmigrate's own (found by its parent pid): fresh interpreters, never a warm server's forks (tests/warm_servers.py)
pytestmark = pytest.mark.usefixtures("fresh_children")

ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            out += [int(x) for x in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            pass
    return out


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes whose process group is ``pgid``."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry))
    return members


def _until(done, seconds: float, every: float = 0.02) -> bool:
    """Poll ``done()`` until it holds or ``seconds`` have passed (a wait for a thing, not a fixed sleep)."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)
    return True


def _cpu(pid: int) -> float:
    """A live process's CPU seconds (user + system); 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _training(scratch: Path) -> bool:
    """The validation child trains: its scratch model_dir holds the events file that training opens."""
    return any(scratch.glob("tfmigrate-validate-*/events.out.tfevents.*"))


@pytest.mark.slow
@pytest.mark.parametrize("sig, phase", [(signal.SIGTERM, "training"), (signal.SIGHUP, "starting")])
def test_a_terminated_validate_leaves_no_child_and_no_temporary_directory(tmp_path: Path, sig: int, phase: str) -> None:
    """The signal lands while the child trains (the events file of its scratch model_dir written, its own temporary
    files made) or while it starts (importing TensorFlow): either way its group is gone and nothing is left. Each
    case polls for its moment (no fixed sleep: one of 6 s hit the import on a loaded machine, training on an idle one)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    proc = subprocess.Popen([sys.executable, "-m", "tfmigrate", "validate", "samples/skflow_dnn_save_restore/expected.py:39",
                             "--steps", "10000000"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # the default disposition, whatever pytest was started with: under `nohup`, SIGHUP is ignored
                            # and tfmigrate (as every program run by nohup) keeps ignoring it
                            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    children: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not children and time.monotonic() < deadline and proc.poll() is None:
            children = _children(proc.pid)
            time.sleep(0.1)
        assert children, "the validation child never started"
        child = children[0]
        assert os.getpgid(child) == child  # its own group, which a signal to tfmigrate does not reach
        if phase == "training":
            assert _until(lambda: _training(scratch) or proc.poll() is not None, 120), "the child never started training"
        else:  # well into its start (its interpreter up, TensorFlow being imported), tfmigrate long past starting it
            assert _until(lambda: _cpu(child) >= 0.3 or proc.poll() is not None, 120), "the child never ran"
        assert proc.poll() is None
        assert any(scratch.iterdir())  # the child's temporary directory and the scratch model_dir exist
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + sig, err[-2000:]
        assert "Traceback" not in err
        assert f"interrupted ({signal.Signals(sig).name})" in err
        assert _until(lambda: _group(child) == [], 0.5), _group(child)
        assert list(scratch.iterdir()) == []
    finally:
        for pid in children:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_to_the_whole_group_keeps_every_file_whole(tmp_path: Path, jobs: str) -> None:
    """``kill -TERM -PGID`` reaches the workers too: each file is old or new, no temporary file, no traceback."""
    body = (LEGACY.decode() + "def f(a):\n    return tf.reduce_sum(tf.nn.relu(tf.matmul(a, a)))\n") * 60
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(body)
    proc = subprocess.Popen([sys.executable, "-m", "tfmigrate", "rewrite", "--no-cache", "--jobs", jobs, "-q", "."],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(1.5)
    os.killpg(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    rewritten = rewrite_source(body.encode(), load_catalog().selected(None)).new.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"m{i:02d}.py" for i in range(40)]  # no temporary file left
    assert all(p.read_text() in (body, rewritten) for p in tmp_path.iterdir())
    assert "Traceback" not in err, err[-2000:]
    if proc.returncode != 0:  # the run may finish before the signal on a fast machine
        assert proc.returncode == 143 and "interrupted (SIGTERM)" in err
    assert _until(lambda: _group(proc.pid) == [], 0.3), _group(proc.pid)  # no worker left behind
