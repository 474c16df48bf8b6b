"""TensorFlow children for the tests, without a TensorFlow import each.

``run_python(args, ...)`` is ``subprocess.run([python, *args], capture_output=True, text=True, ...)``
for a program that imports TensorFlow: it runs in a fork of a server process (``tests/_tfserver.py``)
that imported TensorFlow once for this pytest process (one per xdist worker). Each call is still its
own process: its own memory (what one program does to TensorFlow's state never reaches another), cwd,
environment, argv, stdin, exit status and output, as a fresh interpreter would have them; what it saves
is the 3-5 CPU seconds of ``import tensorflow`` (more for 2.21's), which were most of the cost of most
TensorFlow tests.

``python`` picks the interpreter: TensorFlow 2.15's (``.venv``, the default: this pytest's own) or
2.21's (``tests/keras_env.keras_python()``). Environment settings that TensorFlow reads when it is
imported (``TF_CPP_MIN_LOG_LEVEL``...) are the server's, which has the suite's (tests/conftest.py).

``run_sources(programs, ...)``: many small programs in ONE such child, each executed in its own
namespace (and its own graph with ``graph=True``), returning each program's ``RESULT`` or the error
it raised: the runner the variant tests of each family share.
"""

from __future__ import annotations

import atexit
import copy
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

SERVER = Path(__file__).resolve().with_name("_tfserver.py")

# what the server imports before it forks: only what a program's own `import tensorflow` loads, so that
# a child starts in the state a fresh interpreter reaches after that line (no lazily loaded part touched)
PRELOAD = ["numpy", "tensorflow"]


class _Server:
    def __init__(self, python: str, preload: list[str]) -> None:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        if python != sys.executable:  # TensorFlow 2.21's interpreter reads none of this venv's paths
            env.pop("PYTHONPATH", None)
        self.proc = subprocess.Popen([python, "-P", "-u", str(SERVER), *preload], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                     cwd=tempfile.gettempdir())
        self.lock = threading.Lock()
        self.cpu = 0.0  # the children's CPU seconds, for a test that wants to report it
        self.ready = None  # the server's answer once it has imported TensorFlow

    def _log(self, seconds: float, cpu: float, what: str) -> None:
        """With $TIMELOG (the per-test CPU plugin of benchmarks/README.md's "The test suite"), one line per
        child: the plugin counts only the children pytest itself waits for, and these are the server's."""
        if os.environ.get("TIMELOG"):
            test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
            with open(os.environ["TIMELOG"], "a") as log:
                log.write(f"{seconds:.3f}\t0.000\t{cpu:.3f}\t{test} [tfchildren {what}]\n")

    def run(self, args, cwd, env, input, timeout, raw=False, **extra) -> subprocess.CompletedProcess:
        """The program's run; with ``raw``, its output as bytes (the caller decodes it), ``extra``: more job keys."""
        with self.lock, tempfile.TemporaryDirectory(prefix="tfchild-") as tmp:
            files = {name: os.path.join(tmp, name) for name in ("stdin", "stdout", "stderr")}
            for path in files.values():
                open(path, "w").close()
            if isinstance(input, bytes):
                Path(files["stdin"]).write_bytes(input)
            elif input is not None:
                Path(files["stdin"]).write_text(input, encoding="utf-8")
            job = {"argv": [str(a) for a in args], "cwd": str(cwd or os.getcwd()), "env": dict(os.environ if env is None else env),
                   "timeout": timeout or 3600, **files, "stdin": files["stdin"] if input is not None else None, **extra}
            if extra.get("stderr_to_stdout"):
                job["stderr"] = job["stdout"]
            started = time.perf_counter()
            if self.ready is None:
                self.ready = json.loads(self._answer())
                self._log(time.perf_counter() - started, self.ready["cpu"], "server start")
                started = time.perf_counter()
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            answer = json.loads(self._answer())
            self.cpu += answer["cpu"]
            self._log(time.perf_counter() - started, answer["cpu"], "child")
            if raw:
                out, err = Path(files["stdout"]).read_bytes(), Path(job["stderr"]).read_bytes()
            else:
                out = Path(files["stdout"]).read_text(encoding="utf-8", errors="replace")
                err = Path(files["stderr"]).read_text(encoding="utf-8", errors="replace")
        if answer["timed_out"]:
            raise subprocess.TimeoutExpired(args, timeout, out, err)
        return subprocess.CompletedProcess(args, answer["returncode"], out, err)

    def detach(self, args, cwd, env, stdout: str, stderr: str) -> int:
        """Start ``python *args`` as a long-lived fork that this server does not wait for; its pid."""
        job = {"argv": [str(a) for a in args], "cwd": str(cwd), "env": dict(env), "timeout": 0, "stdin": None,
               "stdout": stdout, "stderr": stderr, "detach": True}
        with self.lock:
            started = time.perf_counter()
            if self.ready is None:
                self.ready = json.loads(self._answer())
                self._log(time.perf_counter() - started, self.ready["cpu"], "server start")
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            return int(json.loads(self._answer())["pid"])

    def _answer(self) -> str:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the TensorFlow fork server ({self.proc.args[0]}) ended: exit {self.proc.poll()}")
        return line

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


_servers: dict[tuple[str, tuple[str, ...]], _Server] = {}


def _server(python: str, preload: list[str] = PRELOAD) -> _Server:
    """The server of ``python`` that imported ``preload`` (TensorFlow's by default; tests/clichildren.py's
    imported tfmigrate's CLI instead), started at its first use."""
    key = (python, tuple(preload))
    server = _servers.get(key)
    if server is None or server.proc.poll() is not None:
        server = _servers[key] = _Server(python, list(preload))
    return server


@atexit.register
def _close_all() -> None:
    for server in _servers.values():
        server.close()


def skip_without_tensorflow() -> None:
    """``pytest.importorskip("tensorflow")`` without importing TensorFlow into this process (about 4 CPU
    seconds in a pytest worker that otherwise never needs it: the children have it)."""
    import importlib.util

    import pytest

    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("could not import 'tensorflow': No module named 'tensorflow'")


def run_python(args, *, cwd=None, env=None, input=None, timeout=300, check=False, python=None) -> subprocess.CompletedProcess:
    """``subprocess.run([python, *args], capture_output=True, text=True, ...)`` (``args``: a script and
    its arguments, or ``-c CODE ARGS...``) in a fork of a server that imported TensorFlow already.

    Not for a test about the process itself (what it imports, a planted module on its path: TensorFlow
    is already in ``sys.modules`` here), nor for a program that must not see TensorFlow loaded."""
    done = _server(str(python or sys.executable)).run(list(args), cwd, env, input, timeout)
    if check:
        done.check_returncode()
    return done


SOURCES_CHILD = textwrap.dedent('''
    import contextlib, io, json, sys, warnings
    warnings.filterwarnings("ignore")
    import tensorflow as tf
    options = json.loads(sys.argv[1])
    if options["disable_eager"]:
        tf.compat.v1.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")
    out = {}
    printed = options["printed"]
    for name, source in json.load(sys.stdin).items():
        try:
            buf = io.StringIO()
            with tf.Graph().as_default() if options["graph"] else contextlib.nullcontext():
                space = {"__name__": options["module"]}
                with contextlib.redirect_stdout(buf) if printed else contextlib.nullcontext():
                    exec(compile(source, name, "exec"), space)
                if printed:
                    out[name] = [l[len(printed):] for l in buf.getvalue().splitlines() if l.startswith(printed)][-1]
                else:
                    out[name] = space[options["result"]]
        except Exception as exc:
            out[name] = "error: %s: %s" % (type(exc).__name__, str(exc)[:300])
    print("RESULTS " + json.dumps(out, default=list))
''')


def spawn(args, *, cwd, env, stdout: str, stderr: str, python=None) -> int:
    """``python *args`` as a long-lived fork of the server of ``python`` (a process the caller ends: its pid),
    ``python -P -m MODULE ARGS`` for ``args`` ``-m MODULE ARGS``: tests/warm_servers.py starts tfmigrate's own
    warm server so, sharing the import of TensorFlow this server made."""
    return _server(str(python or sys.executable)).detach(list(args), cwd, env, stdout, stderr)


def run_sources(programs, *, graph: bool = True, disable_eager: bool = False, module: str = "variant",
                result: str = "RESULT", printed: str | None = None, timeout: float = 600, python=None):
    """Run each of ``programs`` (name -> source, or a list of sources) in ONE TensorFlow child: each in its
    own namespace (``__name__`` = ``module``), with ``graph=True`` inside a ``tf.Graph`` of its own
    (``disable_eager``: the whole child in graph mode). Returns, per program (a dict, or a list in the
    order given), the value the program left in ``result`` (JSON-able; tuples as lists) or, with
    ``printed`` (a prefix such as ``"SHAPE "``), the rest of the last line it printed that starts with
    it; or ``"error: Type: message"``.

    Programs of the same text run once: variants that differ before a rewrite are often the same program
    after it (an import form the rewrite normalises), and each runs alone (its own namespace and graph), so
    the first one's answer is every copy's."""
    named = programs if isinstance(programs, dict) else {f"<variant {i}>": src for i, src in enumerate(programs)}
    first: dict[str, str] = {}  # a text -> the first program's name with it
    for name, source in named.items():
        first.setdefault(source, name)
    options = json.dumps({"graph": graph, "disable_eager": disable_eager, "module": module, "result": result,
                          "printed": printed})
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # on CPU wherever the suite runs
    distinct = {name: source for source, name in first.items()}
    run = run_python(["-c", SOURCES_CHILD, options], input=json.dumps(distinct), env=env, timeout=timeout, python=python)
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULTS ")]
    assert run.returncode == 0 and lines, run.stderr[-3000:]
    ran = json.loads(lines[-1][len("RESULTS "):])
    out = {name: ran[name] if first[source] == name else copy.deepcopy(ran[first[source]]) for name, source in named.items()}
    return out if isinstance(programs, dict) else [out[name] for name in named]
