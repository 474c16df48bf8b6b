"""Issue 26: without TensorFlow, `report --validate` exited 1 where `validate` exits 2. Both exit 2 now,
with the same one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_report_validate_without_tensorflow_exits_2_as_validate_does(tmp_path: Path) -> None:
    fake = tmp_path / "fake" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named tensorflow (simulated)')\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "samples" / "iris_checkpoint_trap" / "expected.py", project / "train.py")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "fake"), COLUMNS="400", NO_COLOR="1")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tfmigrate", *args], cwd=project, capture_output=True, text=True,
                              env=env, timeout=120)

    validate = run("validate", "train.py")
    report = run("report", "--validate", ".")
    assert validate.returncode == 2 and report.returncode == 2, (validate.stdout, report.stdout + report.stderr)
    (line,) = [ln for ln in validate.stdout.splitlines() if "not installed" in ln]
    assert line.startswith("could not run: TensorFlow 2.15 is not installed")
    assert f"error: {line}" in report.stdout.splitlines()
    assert "Traceback" not in report.stdout + report.stderr
