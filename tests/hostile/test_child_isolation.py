"""Probe 1 of issue 17: a child process must never import from the directory tfmigrate is run in.

``python -m`` puts the current directory first on the import path; a ``tensorflow.py`` or a
``tfmigrate/`` planted there would be executed by ``tfmigrate report DIR`` or ``ckpt diff``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tfmigrate.childproc import child_env, module_command

# about what a fresh child imports from the directory it runs in: fresh interpreters, never a warm server's forks (tests/warm_servers.py)
pytestmark = pytest.mark.usefixtures("fresh_children")

PLANT = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"


def plant(directory: Path, marker: Path) -> None:
    code = PLANT.format(marker=str(marker))
    for name in ("tensorflow.py", "numpy.py", "absl.py", "json.py", "runpy.py"):
        (directory / name).write_text(code)
    package = directory / "tfmigrate"
    (package / "checkpoint").mkdir(parents=True)
    (package / "__init__.py").write_text(code)
    (package / "childproc.py").write_text(code)
    (package / "checkpoint" / "__init__.py").write_text(code)


def test_child_command_imports_nothing_from_the_current_directory(tmp_path: Path) -> None:
    hostile = tmp_path / "cwd"
    hostile.mkdir()
    marker = tmp_path / "marker"
    plant(hostile, marker)
    proc = subprocess.run(
        [*module_command("tfmigrate.childproc")], cwd=hostile, capture_output=True, text=True, timeout=60,
        env=child_env({"PATH": "/usr/bin:/bin", "PYTHONPATH": ":.:relative"}),
    )
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


@pytest.mark.slow
def test_checkpoint_child_ignores_a_planted_tensorflow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tfmigrate.checkpoint.targets import TargetError, run_child

    hostile = tmp_path / "cwd"
    hostile.mkdir()
    marker = tmp_path / "marker"
    plant(hostile, marker)
    monkeypatch.chdir(hostile)
    with pytest.raises(TargetError):
        run_child(["variables", "no-such-checkpoint"])
    assert not marker.exists()


@pytest.mark.slow
def test_report_without_validate_never_imports_the_users_code(tmp_path: Path) -> None:
    """A builder function (build_estimator) with a checkpoint beside it: only ``--validate`` may
    import the file and call it."""
    import shutil
    import sys

    samples = Path(__file__).resolve().parents[2] / "samples" / "checkpoints" / "contrib1x"
    shutil.copytree(samples, tmp_path / "models" / "iris")
    marker = tmp_path / "marker"
    (tmp_path / "train.py").write_text(
        "import pathlib\nimport tensorflow as tf\n"
        f"pathlib.Path({str(marker)!r}).write_text('imported')\n\n\n"
        "def build_estimator():\n"
        "    columns = [tf.feature_column.numeric_column('x', shape=[4])]\n"
        "    return tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns, n_classes=3,\n"
        "                                      model_dir='models/iris')\n"
    )
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "report", ".", "--checkpoint", "models/iris"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not marker.exists(), "tfmigrate report (no --validate) ran the user's code"


def _project_with_side_effects(root: Path) -> tuple[Path, Path]:
    """A project whose source writes a marker when imported, a checkpoint beside it, and modules
    planted in the directory tfmigrate runs from: (the marker of the user's code, the planted one's)."""
    import shutil

    samples = Path(__file__).resolve().parents[2] / "samples" / "checkpoints" / "contrib1x"
    shutil.copytree(samples, root / "models" / "iris")
    user_marker, planted_marker = root.parent / "user-code-ran", root.parent / "planted-module-ran"
    (root / "train.py").write_text(
        "import pathlib\nimport tensorflow as tf\n"
        f"pathlib.Path({str(user_marker)!r}).write_text('imported')\n\n\n"
        "def build():\n"
        "    columns = [tf.feature_column.numeric_column('x', shape=[4])]\n"
        "    return tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns, n_classes=3,\n"
        "                                      model_dir='models/iris')\n"
    )
    plant(root, planted_marker)
    return user_marker, planted_marker


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ("rewrite", "--check", "--no-cache", "train.py"),
    ("rewrite", "--diff", "--no-cache", "."),
    ("rewrite", "--no-cache", "train.py"),
    ("rules",),
    ("ckpt", "inspect", "models/iris"),
    ("ckpt", "diff", "models/iris", "--model", "train.py"),
    ("report", ".", "--no-cache", "--json", "report.json"),
])
def test_commands_the_readme_says_never_run_user_code_never_do(tmp_path: Path, args: tuple[str, ...]) -> None:
    """README, "Which commands run your code": no command but validate, report --validate and
    ckpt diff|convert --model file.py:function executes code from the user's files, or a module
    planted in the directory it runs from."""
    import sys

    root = tmp_path / "project"
    root.mkdir()
    user_marker, planted_marker = _project_with_side_effects(root)
    tfmigrate = Path(__file__).resolve().parents[2]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tfmigrate), "NO_COLOR": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-P", "-m", "tfmigrate", *args], cwd=root, capture_output=True, text=True,
                          timeout=300, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not user_marker.exists(), f"tfmigrate {' '.join(args)} ran the user's code"
    assert not planted_marker.exists(), f"tfmigrate {' '.join(args)} imported a module planted in the current directory"


@pytest.mark.slow
def test_ckpt_diff_with_a_function_runs_the_users_code_and_nothing_planted(tmp_path: Path) -> None:
    """The other side of the promise: `--model file.py:function` does import the file (in a child),
    and still never a module planted in the current directory."""
    import sys

    root = tmp_path / "project"
    root.mkdir()
    user_marker, planted_marker = _project_with_side_effects(root)
    tfmigrate = Path(__file__).resolve().parents[2]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tfmigrate), "NO_COLOR": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-P", "-m", "tfmigrate", "ckpt", "diff", "models/iris", "--model", "train.py:build"],
                          cwd=root, capture_output=True, text=True, timeout=300, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert user_marker.exists(), proc.stdout + proc.stderr
    assert not planted_marker.exists()
