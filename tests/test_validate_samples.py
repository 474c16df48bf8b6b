"""``tfmigrate validate`` on every bundled sample that defines a builder (e.g. ``experiment_fn``) or whose
migrated tf.estimator construction tfmigrate can build statically.

Each is one short TF child (3 steps, CPU) run in a scratch directory, so a model_dir the sample
names relative to the working directory is never touched.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.validate import static

ROOT = Path(__file__).resolve().parents[1]


BUILDERS = ("build_estimator", "make_estimator", "experiment_fn", "estimator_fn")


def buildable() -> list[str]:
    """One target per sample: a builder function it defines, else its statically buildable construction."""
    import ast

    out = []
    for path in sorted((ROOT / "samples").glob("*/expected.py")):
        functions = {n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)}
        builder = next((f for f in BUILDERS if f in functions), None)
        if builder:
            out.append(f"{path.relative_to(ROOT)}:{builder}")
            continue
        for site in static.find(path.read_bytes(), str(path)):
            if site.error is None:
                out.append(f"{path.relative_to(ROOT)}:{site.line}")
                break  # one construction per sample: the others repeat the definition
    return out


SAMPLES = buildable()


def test_some_sample_is_buildable() -> None:
    assert SAMPLES, "no sample's migrated code has a statically buildable tf.estimator construction"


@pytest.mark.slow
@pytest.mark.parametrize("target", SAMPLES)
def test_sample_validates_on_cpu(target: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "validate", str(ROOT / target), "--steps", "3", "--device", "cpu", "--format", "json"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    result = json.loads(proc.stdout)
    assert proc.returncode == 0, result
    assert [s["name"] for s in result["stages"]] == ["load", "train", "checkpoint files", "restore", "resume", "checkpoint analysis"]
    assert all(s["passed"] for s in result["stages"])
