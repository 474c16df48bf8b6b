"""The TensorFlow 2.21 interpreter of the ``--target keras`` tests (``make keras`` builds .venv-keras).

Without it a developer's run skips those tests with one line saying how to get it; in CI (``CI`` set),
where ``make test`` has built it, its absence fails them instead of skipping them.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.tfchildren import run_python
from tfmigrate.childproc import keras_interpreter


def keras_python() -> str:
    python = keras_interpreter()
    if python is None:
        message = "no TensorFlow 2.21 interpreter: run `make keras` (builds .venv-keras) or set TFMIGRATE_KERAS_PYTHON"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return python


def run_keras(args: list[str], cwd, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python args...`` with the TensorFlow 2.21 interpreter, TensorFlow's log noise off (a fork of
    the suite's TensorFlow 2.21 server: tests/tfchildren.py)."""
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    child_env.pop("PYTHONPATH", None)
    return run_python(args, cwd=cwd, timeout=timeout, env=child_env, python=keras_python())


def write_helpers(directory) -> None:
    """The Keras helpers module that ``rewrite --target keras`` writes beside the modules it migrates
    (``legacy_estimators.py``): what a module made by ``rewrite_source`` imports when it runs."""
    from pathlib import Path

    from tfmigrate import keras_runtime

    (Path(directory) / f"{keras_runtime.DEFAULT_HELPERS_MODULE}.py").write_text(keras_runtime.helpers_module_text())
