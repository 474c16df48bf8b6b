"""The suite's warm TensorFlow servers for tfmigrate's own children (:mod:`tfmigrate.warm`, ``tfmigrate serve``).

tfmigrate's CLI runs (``validate``, ``report --validate``, ``ckpt ...``) start their TensorFlow children
themselves; ``tests/tfchildren.py``'s server cannot serve them. So each pytest process (each xdist
worker) starts the product's own server, lazily, at the first test that may need it: TensorFlow 2.15's
(this interpreter) at the first ``slow``/``tf`` test or one about checkpoints, validation or reports,
TensorFlow 2.21's (``.venv-keras``, when it exists) at the first Keras test; ``$TFMIGRATE_WARM`` then
names their sockets, for the CLI subprocesses and in-process calls alike.

A test about the fresh process itself (what a child imports, ``-P`` path safety, interpreter choice, which
process is whose child) uses the ``fresh_children`` fixture: the variable is unset for it.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tfmigrate.childproc import child_env, keras_interpreter
from tfmigrate.warm import ENV, server_command

_servers: dict[str, subprocess.Popen] = {}
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
    for python in new:
        path = os.path.join(_dir, f"{len(_servers)}.sock")
        argv, env = server_command(child_env(), python, path)
        if python != sys.executable:
            env["PYTHONPATH"] = env["PYTHONPATH"].split(os.pathsep)[0]  # tfmigrate only: 2.21 reads no path of this venv
        env.pop("TIMELOG", None)
        _servers[python] = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=open(os.path.join(_dir, f"{len(_servers)}.log"), "w"), cwd=_dir)
        deadline = time.monotonic() + 60
        while not os.path.exists(path) and time.monotonic() < deadline and _servers[python].poll() is None:
            time.sleep(0.02)
        _servers[python].socket = path  # type: ignore[attr-defined]
    os.environ[ENV] = os.pathsep.join(s.socket for s in _servers.values() if s.poll() is None)  # type: ignore[attr-defined]


@atexit.register
def stop() -> None:
    import signal

    for python, proc in _servers.items():
        if proc.poll() is None:
            _log_cpu(proc, python)
            proc.send_signal(signal.SIGTERM)
    for proc in _servers.values():
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    if _dir is not None:
        import shutil

        shutil.rmtree(_dir, ignore_errors=True)
    _servers.clear()



def _log_cpu(proc: subprocess.Popen, python: str) -> None:
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
