"""Issue 26: the analysed tree picked the interpreter. `keras_python = "tools/py"` in its pyproject.toml,
or a `.venv-keras/bin/python` inside it, was started by `report` (even without --validate). Now only
the user names one (--python, $TFMIGRATE_KERAS_PYTHON), else tfmigrate's own .venv-keras is used.

Each planted interpreter is a shell script that leaves a marker file when it runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# about which interpreter tfmigrate starts: fresh interpreters, never a warm server's forks (tests/warm_servers.py)
pytestmark = pytest.mark.usefixtures("fresh_children")

ROOT = Path(__file__).resolve().parents[2]
TRAP = ROOT / "samples" / "iris_checkpoint_trap"
KERAS_LINE = 22  # the canned_keras_model(...) call of expected_keras.py


def plant(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexit 3\n", encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The seed-001 trap (a Keras model over a legacy checkpoint in its model_dir: `report --target keras`
    converts it with the TensorFlow 2.21 interpreter), with an interpreter named by its configuration
    and one in its own .venv-keras."""
    root = tmp_path / "project"
    shutil.copytree(TRAP, root)
    (root / "pyproject.toml").write_text('[tool.tfmigrate]\nkeras_python = "tools/py"\ntarget = "keras"\n', encoding="utf-8")
    plant(root / "tools" / "py", tmp_path / "marker-config")
    plant(root / ".venv-keras" / "bin" / "python", tmp_path / "marker-venv")
    return root


def run(project: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfmigrate", *args], cwd=project, capture_output=True, text=True, env=env,
                          timeout=300)


def planted(project: Path) -> list[str]:
    return sorted(p.name for p in project.parent.glob("marker-*"))


def test_the_projects_interpreters_never_run_the_users_does(project: Path) -> None:
    """With $TFMIGRATE_KERAS_PYTHON set (here another marker script, outside the project), every command
    that needs TensorFlow 2.21 starts that one, never the project's."""
    mine = project.parent / "mine" / "python"
    plant(mine, project.parent / "marker-mine")
    env = {k: v for k, v in os.environ.items() if k != "TFMIGRATE_KERAS_PYTHON"}
    env["TFMIGRATE_KERAS_PYTHON"] = str(mine)
    commands = [
        ("report", "."),
        ("report", "--target", "keras", "."),
        ("report", "--target", "keras", "--validate", "--steps", "1", "."),
        ("validate", "--target", "keras", f"expected_keras.py:{KERAS_LINE}"),
        ("ckpt", "convert", "models/iris", "../out", "--to", "keras", "--model", f"expected_keras.py:{KERAS_LINE}"),
    ]
    for args in commands:
        proc = run(project, *args, env=env)
        assert "Traceback" not in proc.stdout + proc.stderr, (args, proc.stderr[-2000:])
        assert "marker-config" not in planted(project) and "marker-venv" not in planted(project), args
    assert planted(project) == ["marker-mine"]  # the user's own choice did run


@pytest.mark.slow
def test_report_without_an_interpreter_named_by_the_user_uses_tfmigrates_own(project: Path) -> None:
    """No --python, no $TFMIGRATE_KERAS_PYTHON: `report --target keras` (no --validate) converts with
    tfmigrate's own .venv-keras (or says there is none), never the project's."""
    env = {k: v for k, v in os.environ.items() if k != "TFMIGRATE_KERAS_PYTHON"}
    proc = run(project, "report", "--target", "keras", ".", env=env)
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert planted(project) == []
