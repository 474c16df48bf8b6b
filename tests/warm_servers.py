"""The suite's warm TensorFlow servers for tfmigrate's own children (:mod:`tfmigrate.warm`, ``tfmigrate serve``).

tfmigrate's CLI runs (``validate``, ``report --validate``, ``ckpt ...``) start their TensorFlow children
themselves; ``tests/tfchildren.py``'s server cannot serve them. So each pytest process (each xdist
worker) starts the product's own server, lazily, at the first test that may need it: TensorFlow 2.15's
(this interpreter) at the first ``slow``/``tf`` test or one about checkpoints, validation or reports,
TensorFlow 2.21's (``.venv-keras``, when it exists) at the first Keras test; ``$TFMIGRATE_WARM`` then
names their sockets, for the CLI subprocesses and in-process calls alike.

Each server is a fork of the suite's own TensorFlow server of the same interpreter (``tests/tfchildren.py``,
``spawn``): a process ``python -P -m tfmigrate.warm SOCKET`` would be, which shares that server's
``import tensorflow`` instead of paying a second one (about 4 CPU seconds a worker and interpreter).

A test about the fresh process itself (what a child imports, ``-P`` path safety, interpreter choice, which
process is whose child) uses the ``fresh_children`` fixture: the variable is unset for it.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from tfmigrate.childproc import child_env, keras_interpreter
from tfmigrate.warm import ENV, server_command

class _Forked:
    """A server forked by the suite's TensorFlow server (not this process's child): its pid, and whether it runs."""

    def __init__(self, pid: int, socket: str) -> None:
        self.pid, self.socket = pid, socket

    def poll(self) -> int | None:
        try:
            state = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return 0
        return 0 if state in ("Z", "X") else None

    def send_signal(self, sig: int) -> None:
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_servers: dict[str, _Forked] = {}
_dir: str | None = None
_NEEDS_TF = ("ckpt", "checkpoint", "validate", "report", "readme", "realworld", "hostile/test_temp_files", "cluster")


def wanted(nodeid: str, markers: set[str]) -> list[str]:
    """The interpreters whose server this test may use."""
    out = []
    lowered = nodeid.lower()
    if markers & {"slow", "tf"} or any(word in lowered for word in _NEEDS_TF):
        out.append(sys.executable)
    if "keras" in lowered:
        python = keras_interpreter()
        if python and os.path.exists(python):
            out.append(python)
    return out


def start(pythons: list[str]) -> None:
    """Start the servers of ``pythons`` not started yet (each binds its socket at once and imports TensorFlow
    behind it: a child asked for meanwhile waits), and name every socket in $TFMIGRATE_WARM."""
    global _dir
    if os.environ.get("TFMIGRATE_SUITE_FRESH"):  # the suite without servers, to compare
        return
    new = [p for p in pythons if p not in _servers or _servers[p].poll() is not None]
    if not new:
        return
    if _dir is None:
        _dir = tempfile.mkdtemp(prefix="tfmigrate-warm-suite-")
    from tests.tfchildren import spawn

    for python in new:
        path = os.path.join(_dir, f"{len(_servers)}.sock")
        argv, env = server_command(child_env(), python, path)
        if python != sys.executable:
            env["PYTHONPATH"] = env["PYTHONPATH"].split(os.pathsep)[0]  # tfmigrate only: 2.21 reads no path of this venv
        env.pop("TIMELOG", None)
        assert argv[1:3] == ["-P", "-m"], argv
        log = os.path.join(_dir, f"{len(_servers)}.log")
        open(log, "w").close()
        _servers[python] = _Forked(spawn(argv[2:], cwd=_dir, env=env, stdout=os.devnull, stderr=log, python=python), path)
        deadline = time.monotonic() + 60
        while not os.path.exists(path) and time.monotonic() < deadline and _servers[python].poll() is None:
            time.sleep(0.02)
    os.environ[ENV] = os.pathsep.join(s.socket for s in _servers.values() if s.poll() is None)


@atexit.register
def stop() -> None:
    for python, proc in _servers.items():
        if proc.poll() is None:
            _log_cpu(proc, python)
            proc.send_signal(signal.SIGTERM)
    for proc in _servers.values():
        proc.wait(timeout=30)
        if proc.poll() is None:
            proc.kill()
    if _dir is not None:
        import shutil

        shutil.rmtree(_dir, ignore_errors=True)
    _servers.clear()



def _log_cpu(proc: _Forked, python: str) -> None:
    """With $TIMELOG: the server's own CPU (its TensorFlow import, its forks' bookkeeping), one line, since
    pytest waits for it only after the last test."""
    log = os.environ.get("TIMELOG")
    if not log:
        return
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        with open(log, "a") as out:
            out.write(f"0.000\t0.000\t{cpu:.3f}\t[warm server {python}]\n")
    except (OSError, ValueError, IndexError):
        pass
