"""A warm TensorFlow process for tfmigrate's own children (``tfmigrate serve``, ``python -m tfmigrate.warm``).

tfmigrate's TensorFlow children (``validate``, ``report --validate``, the ``ckpt`` commands, the cluster
tasks, the Keras road's children) each paid a fresh interpreter, ``import tensorflow`` (about 4 CPU s for
2.15, more for 2.21) and TensorFlow's teardown at exit. A server started by the user imports TensorFlow
once and forks one child per request; with ``$TFMIGRATE_WARM`` naming its socket (several, separated by
``:``: one server per interpreter), tfmigrate starts its children as forks of it.

A forked child is the process ``python -P -m MODULE ARGS`` would be after ``import tensorflow``: the
request's argv, environment (PYTHONPATH, TMPDIR...), working directory, stdin/stdout/stderr (the client's
own file descriptors, passed over the socket), its own session and process group (the client gets its
real pid: a timeout or Ctrl-C kills the group as for a fresh child), its exit status, ``atexit``
handlers and tracebacks. When the client's connection closes before the child ends (the client died),
the server kills the child's group. What a fork cannot change is the server's: settings read when the
interpreter starts or when TensorFlow is imported (PYTHONHASHSEED: a request naming another seed gets a
fresh process instead; TF_CPP_MIN_LOG_LEVEL), the parent pid, umask and resource limits.

Safety: only the user starts a server (nothing in a project file does); it imports TensorFlow and numpy
only (``PRELOAD``), answers only its own user (the peer's uid) and only for its own interpreter and its
own tfmigrate checkout, and runs only tfmigrate's child modules. A client ignores a socket that is not a
socket of its own user, or on which no server listens (a stale one), with a one-line message on stderr,
and starts a fresh child; so does a request the server declines.

This module imports only the standard library: a client (:func:`popen`, :func:`run`) pays nothing.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ENV = "TFMIGRATE_WARM"
PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])
# what the server imports before it forks: what the children's own `import tensorflow` loads, nothing more
PRELOAD = ("numpy", "tensorflow")
_MODULE_PREFIX = "tfmigrate."  # the only modules a server runs
_MAX_REQUEST = 16 << 20


# ------------------------------------------------------------------------------------------- the server


def _pythonpath(env: Mapping[str, str]) -> list[str]:
    return [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]


def _module_name(filename: str) -> str:
    """The top-level module a directory entry provides: ``numpy/`` and ``numpy.py`` -> numpy, an extension
    ``_foo.cpython-311-x86_64-linux-gnu.so`` -> _foo."""
    return filename.split(".", 1)[0]


def _loaded_modules() -> dict[str, str]:
    """The top-level modules imported so far, each with the file it came from (built-ins and namespace
    packages without a file are left out: no PYTHONPATH entry changes a built-in)."""
    out: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        if "." in name or module is None:
            continue
        where = getattr(module, "__file__", None)
        if where:
            out[name] = os.path.abspath(where)
    return out


def _read_line(conn: socket.socket, first: bytes = b"") -> bytes:
    data = first
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > _MAX_REQUEST:
            raise ValueError("request too large")
    return data


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        pass  # the client is gone


class _Server:
    def __init__(self, path: str) -> None:
        self.path = path
        self.seed = os.environ.get("PYTHONHASHSEED")
        self.base_path = [p for p in sys.path if p not in set(_pythonpath(os.environ))]
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.jobs: dict[int, tuple[socket.socket, int, int]] = {}  # pidfd -> (connection, pid, started)
        self.own_path = _pythonpath(os.environ)
        self.loaded: dict[str, str] = {}  # top-level module -> the file it was imported from (after the imports)

    def bind(self) -> None:
        """Bind before TensorFlow is imported: a client connecting meanwhile waits in the backlog."""
        if os.path.lexists(self.path):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.path)
            except OSError:
                os.unlink(self.path)  # stale: no server listens there
            else:
                raise SystemExit(f"tfmigrate serve: a server already listens on {self.path}")
            finally:
                probe.close()
        Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        old = os.umask(0o177)
        try:
            self.listener.bind(self.path)  # srw------- : only this user can connect
        finally:
            os.umask(old)
        self.listener.listen(64)

    def serve(self) -> dict[str, Any] | None:
        """Answer requests until stopped (returns None); in a forked child, return the child's request."""
        import select

        poller = select.poll()
        poller.register(self.listener, select.POLLIN)
        while True:
            for fd, _events in poller.poll():
                if fd == self.listener.fileno():
                    job = self._accept(poller)
                    if job is not None:
                        return job
                elif fd in self.jobs:
                    self._ended(fd, poller)
                else:
                    self._client_event(fd, poller)

    def _accept(self, poller) -> dict[str, Any] | None:
        conn, _ = self.listener.accept()
        fds: list[int] = []
        try:
            uid = _peer_uid(conn)
            if uid != os.getuid():
                _send(conn, {"refused": f"the server runs as uid {os.getuid()}, the client as {uid}"})
                conn.close()
                return None
            conn.settimeout(10)
            data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 3)
            request = json.loads(_read_line(conn, data))
            conn.settimeout(None)
            refusal = self._refusal(request, fds)
        except (OSError, ValueError) as exc:
            for fd in fds:
                os.close(fd)
            _send(conn, {"refused": f"bad request: {exc}"})
            conn.close()
            return None
        if refusal:
            for fd in fds:
                os.close(fd)
            _send(conn, {"refused": refusal})
            conn.close()
            return None
        sys.stdout.flush()
        sys.stderr.flush()
        ready, led = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: nothing of the server's is left open in it
            os.setsid()  # its own session and process group (the client kills the group), before the client hears its pid
            os.close(ready)
            os.write(led, b"x")
            os.close(led)
            self.listener.close()
            for pidfd, (other, _pid, _t) in self.jobs.items():
                os.close(pidfd)
                other.close()
            conn.close()
            request["fds"] = fds
            return request
        for fd in fds:
            os.close(fd)
        os.close(led)
        os.read(ready, 1)  # the child leads its group now (empty: it died first)
        os.close(ready)
        pidfd = os.pidfd_open(pid)
        self.jobs[pidfd] = (conn, pid, time.monotonic_ns())
        poller.register(pidfd, select_in())
        poller.register(conn, select_in())
        _send(conn, {"pid": pid})
        return None

    def _refusal(self, request: dict[str, Any], fds: list[int]) -> str | None:
        if os.path.abspath(request.get("python", "")) != os.path.abspath(sys.executable):
            return f"this server runs {sys.executable}"
        if request.get("root") != PACKAGE_ROOT:
            return f"this server runs the tfmigrate of {PACKAGE_ROOT}"
        module = request.get("module", "")
        if not (isinstance(module, str) and module.startswith(_MODULE_PREFIX)):
            return "a server runs tfmigrate's own child modules only"
        seed = request.get("env", {}).get("PYTHONHASHSEED")
        if seed not in (None, "", "random") and seed != self.seed:
            return f"PYTHONHASHSEED={seed} (the server's: {self.seed})"
        if len(fds) != 3:
            return "three file descriptors expected"
        return self._shadowed(_pythonpath(request.get("env", {})))

    def _shadowed(self, wanted: list[str]) -> str | None:
        """Would a fresh interpreter with the request's PYTHONPATH import another module than one this server
        imported? A PYTHONPATH entry the server did not have that holds a module of the same top-level name (a
        planted ``tensorflow/``, a ``numpy.py``), or an entry only the server had that a loaded module came from:
        the request gets a fresh process (its child would not be the process it asks for)."""
        for entry in wanted:
            if entry in self.own_path or not os.path.isdir(entry):
                continue
            try:
                names = {_module_name(n) for n in os.listdir(entry)}
            except OSError:
                continue
            clash = sorted(names.intersection(self.loaded))
            if clash:
                return f"PYTHONPATH entry {entry} holds {clash[0]}, which this server imported from {self.loaded[clash[0]]}"
        for entry in self.own_path:
            if entry in wanted:
                continue
            prefix = os.path.join(os.path.abspath(entry), "")
            for name, where in self.loaded.items():
                if where.startswith(prefix):
                    return f"this server imported {name} from {entry}, which the request's PYTHONPATH does not hold"
        return None

    def _client_event(self, fd: int, poller) -> None:
        """A client's connection became readable: it closed (the client died, or it gave up): kill the group."""
        for conn, pid, _t in self.jobs.values():
            if conn.fileno() == fd:
                try:
                    data = conn.recv(64, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    return
                except OSError:
                    data = b""
                if not data:
                    _kill(pid)
                    poller.unregister(conn)  # its status is sent (to no one) when the child is reaped
                return

    def _ended(self, pidfd: int, poller) -> None:
        conn, pid, _t = self.jobs.pop(pidfd)
        poller.unregister(pidfd)
        try:
            poller.unregister(conn)
        except (KeyError, ValueError):
            pass
        os.close(pidfd)
        _, status, usage = os.wait4(pid, 0)
        _send(conn, {"returncode": os.waitstatus_to_exitcode(status), "cpu": usage.ru_utime + usage.ru_stime})
        conn.close()

    def close(self) -> None:
        for conn, pid, _t in self.jobs.values():
            _kill(pid)
            conn.close()
        self.listener.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


def select_in() -> int:
    import select

    return select.POLLIN | select.POLLHUP


def _peer_uid(conn: socket.socket) -> int:
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _kill(pid: int) -> None:
    import signal

    try:
        os.killpg(pid, signal.SIGKILL)  # the child leads its own group
    except OSError:
        pass


def _stdio(fd: int, writing: bool, env: Mapping[str, str], like):
    """The text stream a fresh interpreter makes for fd 0, 1 or 2: ``like``'s (the server's stream, made
    for the same locale) encoding and errors, unless the request's PYTHONIOENCODING says otherwise."""
    import io

    raw = io.FileIO(fd, "wb" if writing else "rb", closefd=False)
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    buffered = (io.BufferedWriter(raw) if writing else io.BufferedReader(raw))
    named, _, named_errors = env.get("PYTHONIOENCODING", "").partition(":")
    encoding = named or like.encoding
    errors = named_errors or like.errors
    interactive = raw.isatty()
    return io.TextIOWrapper(buffered, encoding=encoding, errors=errors, write_through=unbuffered and writing,
                            line_buffering=writing and (interactive or fd == 2))


_KEEP: list = []


def become(job: dict[str, Any], base_path: list[str]) -> None:
    """Turn this fork into ``python -P -m MODULE ARGS`` after ``import tensorflow``, then run MODULE."""
    import runpy
    import tempfile
    import types
    import warnings

    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    _KEEP.extend((sys.stdin, sys.stdout, sys.stderr))  # the server's streams: collected, they would close fds 0-2
    fds = job.pop("fds")
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    env = job["env"]
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # TMPDIR is the request's
    sys.stdin = sys.__stdin__ = _stdio(0, False, env, _KEEP[0])
    sys.stdout = sys.__stdout__ = _stdio(1, True, env, _KEEP[1])
    sys.stderr = sys.__stderr__ = _stdio(2, True, env, _KEEP[2])
    # -P: nothing before the standard path; PYTHONPATH's entries first, as the fresh interpreter's
    sys.path[:] = [*dict.fromkeys(_pythonpath(env)), *base_path]
    if env.get("PYTHONWARNINGS"):
        sys.warnoptions[:] = env["PYTHONWARNINGS"].split(",")
        warnings._processoptions(sys.warnoptions)  # type: ignore[attr-defined]
    sys.modules.pop("tfmigrate.warm", None)
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    sys.argv = ["-m", *job["args"]]
    try:
        runpy._run_module_as_main(job["module"], alter_argv=True)  # type: ignore[attr-defined]  # what `python -m` runs
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:  # the traceback a fresh `python -m` prints: from runpy's frame on, not this one's
        if exc.__traceback__ is not None:
            exc.__traceback__ = exc.__traceback__.tb_next  # the printed traceback is the exception's own
        sys.excepthook(type(exc), exc, exc.__traceback__)
        sys.exit(1)


def main(argv: Sequence[str] | None = None) -> dict[str, Any] | None:
    """``python -m tfmigrate.warm SOCKET``: serve until SIGINT/SIGTERM; in a child, its request."""
    import gc
    import signal

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        raise SystemExit("usage: python -P -m tfmigrate.warm SOCKET  (tfmigrate serve --help)")
    server = _Server(os.path.abspath(args[0]))
    server.bind()

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    import numpy  # PRELOAD: these two names, never one a request or a project names
    import tensorflow

    assert numpy and tensorflow
    server.loaded = _loaded_modules()
    # what the imports made is never collected in a child: the collector's walks would copy its pages
    gc.freeze()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    print(f"tfmigrate serve: {sys.executable} (TensorFlow imported) on {server.path}", flush=True)
    base = server.base_path
    try:
        signal.signal(signal.SIGTERM, stop)
        job = server.serve()
    except KeyboardInterrupt:
        server.close()
        return None
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    job["_base_path"] = base
    return job


# ------------------------------------------------------------------------------------------- the client


_warned: set[str] = set()


def _note(path: str, why: str) -> None:
    if path not in _warned:
        _warned.add(path)
        print(f"tfmigrate: ${ENV} {path}: {why}; starting a fresh process", file=sys.stderr, flush=True)


def _usable(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        _note(path, "no such socket (no server started?)")
        return False
    if not stat.S_ISSOCK(info.st_mode):
        _note(path, "not a socket, ignored")
        return False
    if info.st_uid != os.getuid():
        _note(path, f"owned by uid {info.st_uid}, not by you: ignored")
        return False
    return True


def _split(command: Sequence[str]) -> tuple[str, str, list[str]] | None:
    """(python, module, args) of ``[python, -P, -m, MODULE, ARGS...]``, the only shape a server runs."""
    parts = [str(c) for c in command]
    if len(parts) >= 4 and parts[1:3] == ["-P", "-m"] and parts[3].startswith(_MODULE_PREFIX):
        return parts[0], parts[3], parts[4:]
    return None


class _Line:
    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.buffer = b""

    def read(self, timeout: float | None) -> dict[str, Any] | None:
        """The next message; None at the timeout. EOFError when the server closed without one."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            self.conn.settimeout(left)
            try:
                chunk = self.conn.recv(65536)
            except (TimeoutError, BlockingIOError, socket.timeout):
                return None
            if not chunk:
                raise EOFError
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)


def _fd_of(spec: Any, mode: str, opened: list[int], stdout_fd: int | None = None) -> tuple[int, int | None]:
    """(the fd to pass, the parent's end of a pipe or None) for a Popen stdin/stdout/stderr argument."""
    if spec is None:
        return {"r": 0, "w": 1}[mode] if stdout_fd is None else 2, None
    if spec == subprocess.DEVNULL:
        fd = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
        opened.append(fd)
        return fd, None
    if spec == subprocess.PIPE:
        read, write = os.pipe()
        ours, theirs = (write, read) if mode == "r" else (read, write)
        opened.append(theirs)
        return theirs, ours
    if spec == subprocess.STDOUT:
        assert stdout_fd is not None
        return stdout_fd, None
    return (spec if isinstance(spec, int) else spec.fileno()), None


class WarmProcess:
    """A child forked by a warm server, with the part of :class:`subprocess.Popen`'s interface tfmigrate
    uses: ``pid`` (the child's real pid: it leads its own process group), ``args``, ``stdin``/``stdout``/
    ``stderr`` (with PIPE), ``poll``, ``wait``, ``communicate``, ``kill``/``terminate``/``send_signal``
    (to its process group: a warm child is never in the terminal's, so Ctrl-C reaches it only through
    tfmigrate), ``returncode``; ``cpu``: the child's CPU seconds once it has ended."""

    def __init__(self, conn: socket.socket, line: _Line, pid: int, args: list[str], pipes: dict[str, Any], started: float) -> None:
        self.conn, self._line, self.pid, self.args = conn, line, pid, args
        self.stdin, self.stdout, self.stderr = pipes.get("stdin"), pipes.get("stdout"), pipes.get("stderr")
        self.returncode: int | None = None
        self.cpu: float | None = None
        self._started = started
        self._lock = threading.Lock()

    def _finish(self, message: dict[str, Any]) -> None:
        self.returncode = message["returncode"]
        self.cpu = message.get("cpu")
        self.conn.close()
        _timelog(time.perf_counter() - self._started, self.cpu or 0.0, self.args)

    def _server_gone(self) -> dict[str, Any]:
        """The server ended before the child (killed): the child's group is killed, as a fresh child's at its end."""
        _kill(self.pid)
        return {"returncode": -9}

    def poll(self) -> int | None:
        if self.returncode is None:
            with self._lock:
                if self.returncode is None:
                    try:
                        message = self._line.read(0)
                    except EOFError:
                        message = self._server_gone()
                    if message is not None:
                        self._finish(message)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            with self._lock:
                if self.returncode is None:
                    try:
                        message = self._line.read(timeout)
                    except EOFError:
                        message = self._server_gone()
                    if message is None:
                        raise subprocess.TimeoutExpired(self.args, timeout)
                    self._finish(message)
        return self.returncode  # type: ignore[return-value]

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            try:
                os.killpg(self.pid, sig)
            except OSError:
                pass

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)

    def communicate(self, input: Any = None, timeout: float | None = None) -> tuple[Any, Any]:
        """Popen.communicate: threads feed stdin and drain stdout and stderr (the ones that are pipes)."""
        if not hasattr(self, "_out"):
            self._out: dict[str, Any] = {}

            def drain(name: str, stream) -> None:
                self._out[name] = stream.read()
                stream.close()

            def feed(stream) -> None:
                try:
                    if input:
                        stream.write(input)
                    stream.close()
                except (BrokenPipeError, OSError, ValueError):
                    pass

            self._threads = [threading.Thread(target=drain, args=(n, s), daemon=True)
                             for n, s in (("stdout", self.stdout), ("stderr", self.stderr)) if s is not None]
            if self.stdin is not None:
                self._threads.append(threading.Thread(target=feed, args=(self.stdin,), daemon=True))
            for thread in self._threads:
                thread.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in self._threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout)
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return self._out.get("stdout"), self._out.get("stderr")

    def __enter__(self) -> WarmProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        for stream in (self.stdout, self.stderr, self.stdin):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self.wait()


def _timelog(seconds: float, cpu: float, args: list[str]) -> None:
    """With $TIMELOG (the test suite's per-test CPU plugin): one line per warm child, whose CPU is the
    server's child's and never reaches the client's own rusage."""
    if os.environ.get("TIMELOG"):
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        module = args[3] if len(args) > 3 else "?"
        try:
            with open(os.environ["TIMELOG"], "a") as log:
                log.write(f"{seconds:.3f}\t0.000\t{cpu:.3f}\t{test} [warm {module}]\n")
        except OSError:
            pass


def _connect(path: str, request: dict[str, Any], fds: list[int]) -> tuple[socket.socket, _Line, int] | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError as exc:
        conn.close()
        _note(path, f"no server listens there ({exc.strerror or exc}): a stale socket")
        return None
    try:
        socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], fds)
        line = _Line(conn)
        answer = line.read(None)
    except (OSError, EOFError, ValueError) as exc:
        conn.close()
        _note(path, f"the server did not answer ({exc})")
        return None
    if "pid" not in answer:
        conn.close()  # another interpreter's or checkout's server: silently the next one, or a fresh process
        return None
    return conn, line, int(answer["pid"])


def popen(command: Sequence[str], *, stdin: Any = None, stdout: Any = None, stderr: Any = None, text: bool = False,
          encoding: str | None = None, errors: str | None = None, env: Mapping[str, str] | None = None,
          cwd: str | os.PathLike[str] | None = None, start_new_session: bool = False) -> subprocess.Popen | WarmProcess:
    """``subprocess.Popen(command, ...)``, or the same child forked by a warm server when ``$TFMIGRATE_WARM``
    names one for ``command``'s interpreter (``command``: ``childproc.module_command`` or
    ``interpreter_command``). A warm child always has its own session (``start_new_session``)."""
    sockets = [p for p in os.environ.get(ENV, "").split(os.pathsep) if p]
    split = _split(command) if sockets else None
    if split is not None:
        python, module, args = split
        request = {"python": os.path.abspath(python), "module": module, "args": args, "root": PACKAGE_ROOT,
                   "cwd": os.path.abspath(cwd if cwd is not None else os.getcwd()),
                   "env": dict(os.environ if env is None else env)}
        for path in sockets:
            if not _usable(path):
                continue
            started = time.perf_counter()
            opened: list[int] = []
            ends: dict[str, int | None] = {}
            try:
                fd_in, ends["stdin"] = _fd_of(stdin, "r", opened)
                fd_out, ends["stdout"] = _fd_of(stdout, "w", opened)
                fd_err, ends["stderr"] = _fd_of(stderr, "w", opened, stdout_fd=fd_out)
                done = _connect(path, request, [fd_in, fd_out, fd_err])
            finally:
                for fd in opened:
                    os.close(fd)
            if done is None:
                for fd in ends.values():
                    if fd is not None:
                        os.close(fd)
                continue
            conn, line, pid = done
            textual = text or encoding is not None or errors is not None
            pipes = {name: open(fd, ("w" if name == "stdin" else "r") + ("" if textual else "b"),
                                **({"encoding": encoding, "errors": errors} if textual else {}))
                     for name, fd in ends.items() if fd is not None}
            return WarmProcess(conn, line, pid, [str(c) for c in command], pipes, started)
    return subprocess.Popen(command, stdin=stdin, stdout=stdout, stderr=stderr, text=text, encoding=encoding,
                            errors=errors, env=env, cwd=cwd, start_new_session=start_new_session)


def run(command: Sequence[str], *, input: Any = None, capture_output: bool = False, text: bool = False,
        timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: Any = None,
        check: bool = False) -> subprocess.CompletedProcess:
    """``subprocess.run`` through :func:`popen` (a warm child where one is served)."""
    if not os.environ.get(ENV):
        return subprocess.run(command, input=input, capture_output=capture_output, text=text, timeout=timeout, env=env,
                              cwd=cwd, check=check)
    pipe = subprocess.PIPE if capture_output else None
    with popen(command, stdin=subprocess.PIPE if input is not None else None, stdout=pipe, stderr=pipe, text=text,
               env=env, cwd=cwd) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            proc.kill()
            proc.wait()
            raise subprocess.TimeoutExpired(proc.args, timeout) from exc
        except BaseException:
            proc.kill()
            raise
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    if check:
        done.check_returncode()
    return done


def default_socket(python: str | None = None) -> str:
    """Where ``tfmigrate serve`` listens unless told: one socket per interpreter, in a directory of the user's."""
    import hashlib

    base = os.environ.get("XDG_RUNTIME_DIR") or os.path.join("/tmp", f"tfmigrate-{os.getuid()}")
    tag = hashlib.sha256(os.path.abspath(python or sys.executable).encode()).hexdigest()[:12]
    return os.path.join(base, f"tfmigrate-warm-{tag}.sock")


def server_command(env: Mapping[str, str], python: str | None = None, path: str | None = None) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of a server of ``python`` (default: this interpreter) listening on ``path``;
    ``env``: ``childproc.child_env()`` (the server runs as tfmigrate's children do)."""
    env = dict(env)
    env["OPENBLAS_NUM_THREADS"] = "1"  # no thread exists when it forks (numpy's OpenBLAS would start them)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env.setdefault("ABSL_MIN_LOG_LEVEL", "3")
    env.pop("PYTHONWARNINGS", None)  # each child applies its own
    return [python or sys.executable, "-P", "-m", "tfmigrate.warm", path or default_socket(python)], env


if __name__ == "__main__":
    _job = main()
    if _job is not None:
        _base = _job.pop("_base_path")
        del main
        become(_job, _base)
