"""Real estimator programs, rewritten, validated as a user would: ``tfmigrate validate --program`` with the
harness's own flags (``benchmarks/realworld_validate.py`` runs every one of them and gives the N/M figure).

The programs come from the development corpus beside the repository and are never copied into the
project; skipped where it is absent.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TFMIGRATE_CORPUS") or ROOT.parent / "shared" / "realworld")  # a worktree elsewhere: set it

pytestmark = [
    pytest.mark.slow,
    pytest.mark.tf,
    pytest.mark.skipif(not (CORPUS / "tools" / "run_one.py").exists(), reason="no realworld corpus beside the repository"),
]

# a canned DNNClassifier built in main() from the program's data; a two-file package whose task.py takes its
# data, steps and output directory from flags and trains a custom model_fn through train_and_evaluate
PROGRAMS = ["learn_iris_val_early_stopping", "tda_taxifare"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("rw-validate") / "realworld"
    shutil.copytree(CORPUS, root, ignore=shutil.ignore_patterns("work", "results"))
    spec = importlib.util.spec_from_file_location("realworld_validate", ROOT / "benchmarks" / "realworld_validate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module, module.load_harness(root), module.families(root)


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_real_estimator_program_validates_after_rewrite(bench, name):
    module, harness, families = bench
    result = module.one(harness, name, 4, families.get(name, ""))
    assert result["estimator"] and result["exit"] == 0, result
    assert "the program ran as __main__ up to its first Estimator.train" in result["load"]
    if harness.CONFIG[name].get("args"):
        assert "--args" in result["command"]
