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
