"""Probe 1 of issue 17: a child process must never import from the directory tfmigrate is run in.

``python -m`` puts the current directory first on the import path; a ``tensorflow.py`` or a
``tfmigrate/`` planted there would be executed by ``tfmigrate report DIR`` or ``ckpt diff``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tfmigrate.childproc import child_env, module_command

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
