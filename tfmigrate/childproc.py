"""How tfmigrate starts its Python child processes (the TensorFlow side of ``ckpt`` and ``report``,
and ``validate``).

``python -m MODULE`` puts the current directory first on the import path, so a ``tensorflow.py``,
``numpy.py`` or ``tfmigrate/`` lying in the directory the user runs tfmigrate from would be
executed. A child is therefore started with ``-P`` (Python 3.11: nothing is put before the standard
import path, neither the current directory nor the script's) and a PYTHONPATH of the directory
tfmigrate itself is loaded from, then the absolute entries of the user's PYTHONPATH (never an empty
or relative one, which would mean the current directory again). The other ``PYTHON*`` settings the
callers make (unbuffered output, hash seed, warnings) still apply, which ``-I`` would drop.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])


def import_path(env: Mapping[str, str]) -> list[str]:
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.isabs(p)]
    return [PACKAGE_ROOT, *(p for p in dict.fromkeys(extra) if p != PACKAGE_ROOT)]


def module_command(module: str, *args: str) -> list[str]:
    """The argv that runs ``module`` as ``__main__`` with ``args``, never importing from the current
    directory (with :func:`child_env`)."""
    return [sys.executable, "-P", "-m", module, *args]


def child_env(env: Mapping[str, str] | None = None, tmpdir: str | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with PYTHONPATH made safe for :func:`module_command`.

    ``tmpdir``: the child's temporary directory (TMPDIR, TMP, TEMP), one the caller removes when the
    child has ended. A TensorFlow child leaves files there that it never removes: an Estimator made
    without a model_dir creates one in the temporary directory, and AutoGraph's generated modules
    (``__autograph_generated_file*.py``) are removed only by the interpreter's exit handlers."""
    out = dict(os.environ if env is None else env)
    out["PYTHONPATH"] = os.pathsep.join(import_path(out))
    out.pop("PYTHONSAFEPATH", None)
    if tmpdir is not None:
        out["TMPDIR"] = out["TMP"] = out["TEMP"] = tmpdir
    return out


# --target keras: the TensorFlow 2.21 children run with a second interpreter (tf.estimator ends with
# TensorFlow 2.15, which cannot share a venv with 2.21); `make keras` builds it as .venv-keras.
KERAS_VENV = ".venv-keras"
KERAS_PYTHON_ENV = "TFMIGRATE_KERAS_PYTHON"


def keras_interpreter(given: str | None = None) -> str | None:
    """The Python of the TensorFlow 2.21 children, or None when there is none: ``--python`` (``given``),
    then $TFMIGRATE_KERAS_PYTHON, then tfmigrate's own ``.venv-keras/bin/python`` (beside its checkout,
    where ``make keras`` builds it).

    Only the user names an interpreter: one named by the analysed project (``keras_python`` in its
    pyproject.toml) or lying in it (a ``.venv-keras`` of the current directory) is never started unless
    passed with --python or $TFMIGRATE_KERAS_PYTHON, since running it would run the project's code."""
    if given:
        return given
    if os.environ.get(KERAS_PYTHON_ENV):
        return os.environ[KERAS_PYTHON_ENV]
    candidate = Path(PACKAGE_ROOT) / KERAS_VENV / "bin" / "python"
    return str(candidate) if candidate.exists() else None


def interpreter_command(python: str, module: str, *args: str) -> list[str]:
    """:func:`module_command` for another interpreter (the TensorFlow 2.21 one of ``--target keras``)."""
    return [python, "-P", "-m", module, *args]


def json_answer(proc: subprocess.CompletedProcess[str], what: str, error: type[Exception]) -> dict:
    """The result a tfmigrate child prints as its last ``{...}`` line, or ``error`` in one line: the
    child's last stderr line when it printed none, its own message when it answered ``ok: false``.
    ``what`` names the child in those messages (``"TensorFlow"``: "TensorFlow child process failed")."""
    import json

    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        raise error(f"{what} child process failed (exit {proc.returncode}): {tail[-1][:300] if tail else 'no output'}")
    result = json.loads(lines[-1])
    if not result.get("ok"):
        raise error(result.get("error") or f"{what} child process failed")
    return result
