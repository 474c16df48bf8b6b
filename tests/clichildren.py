"""The tfmigrate CLI for the tests, without a Python start and an import of tfmigrate each.

``run_cli(args, ...)`` is ``subprocess.run([sys.executable, "-m", "tfmigrate", *args], capture_output=True,
...)``: the same process a user starts, run in a fork of a server (``tests/_tfserver.py``, through
``tests/tfchildren.py``'s machinery) that imported every module of tfmigrate once for this pytest process
(one per xdist worker). Each call is still its own process: its own memory, cwd, environment, umask, argv
(``sys.argv[0]`` the path of ``tfmigrate/__main__.py``, ``__main__`` that module, run as ``python -m``
runs it, the working directory first on ``sys.path``), stdin (``/dev/null`` without ``input``, as pytest's
own), stdout and stderr (files, not ttys, as pipes are not; stderr line-buffered as a fresh interpreter's),
exit status, ``atexit`` handlers and signal dispositions (a fresh interpreter's). The output is byte for
byte what ``python -m tfmigrate`` prints; ``text=True`` decodes it as ``subprocess.run`` does (the locale's
encoding, universal newlines). What it saves is the interpreter's start and the import of tfmigrate and
libcst: 0.1 CPU s for ``--version``, 0.6 of the 1.0 CPU s of a one-file ``rewrite --check``.

What differs from a fresh process, and where a call therefore runs as a real subprocess instead:
- the modules a fresh ``python -m tfmigrate`` would import lazily are imported already (TensorFlow never
  is): a test about what the process imports runs its own subprocess, and a call that plants a module
  (``PYTHONPATH`` naming another directory than this checkout's) runs as a real subprocess;
- settings read when the interpreter starts or when tfmigrate is imported (``PYTHON*``, the locale,
  ``TFMIGRATE_PROGRAM_LIMIT``...) are the server's: a call whose environment differs from the server's in
  one of them (``IMPORT_TIME``) runs as a real subprocess;
- its parent is the server and it leads its own process group: a test that signals, times or watches the
  process itself (start-up, termination, pre-commit's console script, interpreter choice) keeps its real
  ``subprocess.Popen``/``run``.

``TFMIGRATE_CLI_FRESH=1`` (or ``TFMIGRATE_SUITE_FRESH=1``, the suite without any warm server) runs every call
as a real subprocess (to compare).
"""

from __future__ import annotations

import locale
import os
import subprocess
import sys
from pathlib import Path

import tfmigrate

# settings a fresh interpreter reads before tfmigrate's code runs, or tfmigrate reads when a module is imported
IMPORT_TIME = ("LANG", "LANGUAGE", "TFMIGRATE_PROGRAM_LIMIT", "TFMIGRATE_PROGRAM_COPY_LIMIT", "TFMIGRATE_CLI_FRESH")
IMPORT_TIME_PREFIXES = ("PYTHON", "LC_")


def preload() -> list[str]:
    """Every module of the tfmigrate package (none imports TensorFlow), less ``__main__``, which each call
    runs as ``python -m tfmigrate`` runs it; and the catalog's cache filled."""
    root = Path(tfmigrate.__file__).resolve().parent
    names = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts[-1] != "__main__":
            names.append(".".join(parts))
    # the rule catalog every command reads, parsed from rules/*.toml once per process (@cache): 0.06 CPU s a call
    return [*names, "tfmigrate.codemod.rule:load_catalog"]


_PRELOAD: list[str] | None = None
_SERVER_ENV: dict[str, str] | None = None


# the directory tfmigrate is imported from: on PYTHONPATH (tests that name this checkout so), it adds no module
ROOT = Path(tfmigrate.__file__).resolve().parent.parent


def _import_time(env: dict[str, str]) -> dict[str, str]:
    out = {k: v for k, v in env.items() if k in IMPORT_TIME or k.startswith(IMPORT_TIME_PREFIXES)}
    if "PYTHONPATH" in out:
        kept = [p for p in out["PYTHONPATH"].split(os.pathsep) if p and Path(p).resolve() != ROOT]
        out["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(kept))
        if not out["PYTHONPATH"]:
            del out["PYTHONPATH"]
    return out


def _fresh(env: dict[str, str]) -> bool:
    """Whether a call with ``env`` must be a real subprocess: an import-time setting differs from the server's."""
    if os.environ.get("TFMIGRATE_CLI_FRESH") or env.get("TFMIGRATE_CLI_FRESH") or os.environ.get("TFMIGRATE_SUITE_FRESH"):
        return True
    server = _SERVER_ENV if _SERVER_ENV is not None else os.environ  # before it starts: this process's, which it gets
    return _import_time(env) != _import_time(dict(server))


def _decode(data: bytes) -> str:
    """As ``subprocess.run(..., text=True)`` decodes a child's output."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


def run_cli(args, *, cwd=None, env=None, input=None, timeout=None, text=True, check=False,
            stderr_to_stdout=False) -> subprocess.CompletedProcess:
    """``subprocess.run([sys.executable, "-m", "tfmigrate", *args], capture_output=True, text=text, cwd=cwd,
    env=env, input=input, timeout=timeout, check=check)`` (``stderr_to_stdout``: ``stderr=subprocess.STDOUT``
    instead of its own pipe), run in a fork of the warm CLI server."""
    global _PRELOAD, _SERVER_ENV
    argv = [sys.executable, "-m", "tfmigrate", *[str(a) for a in args]]
    env = dict(os.environ if env is None else env)
    if _fresh(env):
        done = subprocess.run(argv, cwd=cwd, env=env, input=input, timeout=timeout, text=text, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT if stderr_to_stdout else subprocess.PIPE)
        if check:
            done.check_returncode()
        return done
    from tests.tfchildren import _server

    if _PRELOAD is None:
        _PRELOAD = preload()
    if _SERVER_ENV is None:
        _SERVER_ENV = dict(os.environ)  # the server starts with this process's environment
    if text and isinstance(input, str):
        input = input.encode(locale.getpreferredencoding(False))
    umask = os.umask(0o022)
    os.umask(umask)
    done = _server(sys.executable, _PRELOAD).run(["-m", "tfmigrate", *argv[3:]], cwd, env, input, timeout, raw=True,
                                                 umask=umask, safe_path=False, stderr_to_stdout=stderr_to_stdout)
    out, err = done.stdout, (None if stderr_to_stdout else done.stderr)
    if text:
        out, err = _decode(out), (None if err is None else _decode(err))
    done = subprocess.CompletedProcess(argv, done.returncode, out, err)
    if check:
        done.check_returncode()
    return done

