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
