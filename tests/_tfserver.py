"""The TensorFlow fork server of the test suite (started by ``tests/tfchildren.py``; never imported).

It imports the modules named on its command line (``tensorflow`` and the parts of it programs reach
for; ``MODULE:FUNCTION`` also calls a function of no argument, which fills a cache), once, then waits for jobs: one JSON line each on stdin. For each job it forks: the child is
the process a fresh ``python ARGS...`` would be once it has imported TensorFlow (its own memory, its
own process group, the job's cwd, environment, argv, stdin, stdout and stderr files), and it ends as
that interpreter would (exit status, traceback, ``atexit``). The server answers one JSON line per job:
the exit status and the child's CPU seconds. The objects of the imports are frozen (``gc.freeze``)
before the first fork, so that no child's garbage collection touches, and so copies, their pages.

It is started with ``OPENBLAS_NUM_THREADS=1`` so that it holds no thread when it forks (numpy's and
scipy's OpenBLAS start one each otherwise; TensorFlow itself starts none before its first op).

A job may carry ``"umask"`` (the caller's, which a child of the caller inherits) and, for ``-m``,
``"safe_path": false`` (``python -m`` without ``-P``: the working directory first on the path).
``tests/clichildren.py`` runs the tfmigrate CLI so, in a fork of a server that imported tfmigrate.

A job with ``"detach": true`` is a long-lived process the server does not wait for: it answers at once
with the child's pid. The suite starts tfmigrate's own warm server so (``-m tfmigrate.warm SOCKET``,
tests/warm_servers.py): a fork of this process, it shares this process's ``import tensorflow`` instead
of paying its own. A ``-m MODULE`` job runs as ``python -P -m MODULE`` would: the job's PYTHONPATH, then
the interpreter's own path (this server's, less the PYTHONPATH it was started with), and standard
streams made for the interpreter's locale.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import signal
import sys


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


# the interpreter's own import path: this server's, less the PYTHONPATH entries it was started with
BASE_PATH = [p for p in sys.path if p not in set(os.environ.get("PYTHONPATH", "").split(os.pathsep))]
_detached: set[int] = set()


def _reap() -> None:
    """Collect the detached children that ended (none is waited for otherwise)."""
    for pid in list(_detached):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _detached.discard(pid)


def serve() -> dict | None:
    """Answer jobs until stdin closes (returns None); in a forked child, return the child's job."""
    for name in sys.argv[1:]:
        module, _, function = name.partition(":")  # MODULE:FUNCTION: a cache the module fills once, filled here
        module = importlib.import_module(module)
        if function:
            getattr(module, function)()
    # what the imports made is never garbage-collected in a child: the collector's walks over TensorFlow's
    # objects would copy their pages into every child (about 1 CPU second at each child's exit alone)
    gc.freeze()
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    protocol.write(json.dumps({"ready": True, "cpu": own.ru_utime + own.ru_stime}) + "\n")  # what the imports cost
    signal.signal(signal.SIGALRM, _alarm)
    for line in sys.stdin:
        job = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            protocol.close()
            return job
        _reap()
        if job.get("detach"):
            _detached.add(pid)
            protocol.write(json.dumps({"pid": pid}) + "\n")
            continue
        timed_out = False
        signal.alarm(max(1, int(job["timeout"] + 0.999)))
        try:
            _, status, usage = os.wait4(pid, 0)
        except _Timeout:
            timed_out = True
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, usage = os.wait4(pid, 0)
        finally:
            signal.alarm(0)
        protocol.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out,
                                   "cpu": usage.ru_utime + usage.ru_stime}) + "\n")
    return None


def _reopen(fd: int, path: str, mode: str) -> None:
    target = os.open(path, mode)
    os.dup2(target, fd)
    os.close(target)


def run(job: dict) -> None:
    """Become ``python *job['argv']``: the process state a fresh interpreter has, then run the program."""
    os.setpgid(0, 0)  # a timeout kills the program and whatever it started
    _reopen(0, job["stdin"] or os.devnull, os.O_RDONLY)
    _reopen(1, job["stdout"], os.O_WRONLY | os.O_TRUNC)
    if job["stderr"] == job["stdout"]:  # stderr=subprocess.STDOUT: one file description, as a pipe shared
        os.dup2(1, 2)
    else:
        _reopen(2, job["stderr"], os.O_WRONLY | os.O_TRUNC)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")
    os.chdir(job["cwd"])
    if "umask" in job:  # the caller's, as a child of the caller would inherit it
        os.umask(job["umask"])
    os.environ.clear()
    os.environ.update(job["env"])
    import tempfile

    tempfile.tempdir = None  # TMPDIR is the job's
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in sys.path]
    argv = job["argv"]
    import types

    if argv[0] == "-m":  # python -P -m MODULE ARGS: no directory before the interpreter's path
        for fd, name in enumerate(("stdin", "stdout", "stderr")):
            like = getattr(sys, f"__{name}__")  # the interpreter's stream: the encoding and errors of its locale
            setattr(sys, name, open(fd, "w" if fd else "r", closefd=False, encoding=like.encoding, errors=like.errors))
        sys.stderr.reconfigure(line_buffering=True)  # as a fresh interpreter's stderr (Python 3.9+), even to a file
        sys.path[:] = [*dict.fromkeys(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p), *BASE_PATH]
        if job.get("safe_path") is False:  # `python -m` without -P: the working directory first
            sys.path.insert(0, os.getcwd())
        sys.argv = ["-m", *argv[2:]]
        import runpy

        runpy._run_module_as_main(argv[1], alter_argv=True)  # type: ignore[attr-defined]  # what `python -m` runs
    elif argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        sys.path[0:0] = ["", *extra]
        main = types.ModuleType("__main__")
        main.__builtins__ = __builtins__
        sys.modules["__main__"] = main
        exec(compile(argv[1], "<string>", "exec"), main.__dict__)
    else:
        import runpy

        sys.argv = list(argv)
        sys.path[0:0] = [os.path.dirname(os.path.abspath(argv[0])), *extra]
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    _job = serve()
    if _job is not None:
        del serve
        run(_job)
