"""Every bundled sample: `tfmigrate rewrite` (all rules) turns legacy.py into exactly expected.py.

The family tests run the expected programs with TensorFlow 2.15; this test pins the exact text.
"""

from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PAIRS = sorted(p.parent for p in SAMPLES.glob("*/legacy.py"))
ALL_RULES = load_catalog().selected(None)


def test_there_are_samples():
    assert len(PAIRS) >= 5


@pytest.mark.parametrize("sample", PAIRS, ids=[p.name for p in PAIRS])
def test_sample_migrates_to_expected(sample: Path):
    expected = sample / "expected.py"
    assert expected.exists(), f"{sample.name}: add expected.py (the exact output of tfmigrate rewrite)"
    result = rewrite_source((sample / "legacy.py").read_bytes(), ALL_RULES, path=f"{sample.name}/legacy.py")
    assert result.new.decode() == expected.read_text()
    again = rewrite_source(result.new, ALL_RULES, path=f"{sample.name}/expected.py")
    assert again.new == result.new, "a second run must change nothing"
    compile(result.new, str(expected), "exec")


def test_report_on_samples_shows_the_silent_restore_and_touches_nothing(tmp_path):
    import json
    import os
    import subprocess
    import sys

    root = SAMPLES.parent
    before = {p: p.stat().st_mtime_ns for p in SAMPLES.rglob("*") if p.is_file()}
    out = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "report", "samples/", "--json", str(out)],
        cwd=root, capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(out.read_text())
    trap = [c for c in data["checkpoints"] if "iris_checkpoint_trap" in c["checkpoint"]]
    assert len(trap) == 1 and trap[0]["compatible"] is False
    assert "SILENTLY KEEPS" in trap[0]["verdict"]
    kernel = next(p for p in trap[0]["pairs"] if p["checkpoint_name"] == "dnn/hiddenlayer_0/kernel")
    assert (kernel["status"], kernel["checkpoint_shape"], kernel["model_shape"]) == ("shape_mismatch", [4, 10], [4, 20])
    after = {p: p.stat().st_mtime_ns for p in SAMPLES.rglob("*") if p.is_file()}
    assert after == before, "report must not write into the tree it reports on"
