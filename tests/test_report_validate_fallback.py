"""``tfmigrate report --validate`` where no static target can be built (issue 29): the program itself runs up
to its first ``train()`` (as ``validate --program`` does), its migrated text in a copy of its directory;
a notebook runs as the script of its cells. What is not validated says why in one line.

The slow test is one report over a tree of two programs (a changed legacy script, the iris_premade
sample, and a notebook), 2 training steps each: two short TensorFlow children for the whole module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]

CELLS = [
    "%matplotlib inline\nimport numpy as np\nimport tensorflow as tf",
    "rng = np.random.RandomState(0)\nlabels = rng.randint(0, 3, size=32).astype(np.int64)\n"
    "features = {name: rng.rand(32).astype(np.float32) + labels for name in ['a', 'b']}\n"
    "columns = [tf.feature_column.numeric_column(name) for name in features]",
    "classifier = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[4], n_classes=3, model_dir='models/nb')",
    "classifier.train(input_fn=lambda: tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(8), steps=5)",
]


def make_notebook(cells: list[str]) -> str:
    entries = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c.splitlines(True)} for c in cells]
    return json.dumps({"cells": entries, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict, Path]:
    root = tmp_path_factory.mktemp("fallback")
    proj = root / "proj"
    proj.mkdir()
    shutil.copy(ROOT / "samples" / "iris_premade" / "legacy.py", proj / "train.py")  # changed by the rewrite
    (proj / "explore.ipynb").write_text(make_notebook(CELLS), encoding="utf-8")
    before = sorted((p.relative_to(proj), p.stat().st_mtime_ns) for p in proj.rglob("*"))
    out = root / "r.json"
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "report", str(proj), "--validate", "--steps", "2", "--json", str(out)],
                          capture_output=True, text=True, cwd=root, timeout=600, env=dict(os.environ, COLUMNS="200"))
    assert sorted((p.relative_to(proj), p.stat().st_mtime_ns) for p in proj.rglob("*")) == before  # nothing written there
    return proc, json.loads(out.read_text()), proj


@pytest.mark.slow
def test_a_construction_with_no_static_target_is_validated_by_running_the_program(validated) -> None:
    proc, data, proj = validated
    by_file = {Path(v["target"].split(":")[0]).name: v for v in data["validations"]}
    assert sorted(by_file) == ["explore.ipynb", "train.py"], data["validations"]
    assert by_file["explore.ipynb"]["target"] == "proj/explore.ipynb:cell 3:1 tf.estimator.DNNClassifier"  # as an editor shows it
    for name, v in by_file.items():
        assert v["outcome"] == "passed" and v["passed"], (name, v)
        load = v["stages"][0]
        assert "the program ran as __main__" in load["detail"]
        assert "tfmigrate-report-" not in json.dumps(v)  # the scratch copy is named as the user's file
    # the program's own relative model_dir is read where it writes it: its own directory
    assert f"({proj / 'models' / 'iris'}) holds no checkpoint yet" in by_file["train.py"]["stages"][0]["detail"]
    assert f"({proj / 'models' / 'nb'}) holds no checkpoint yet" in by_file["explore.ipynb"]["stages"][0]["detail"]
    assert proc.returncode == 1  # the rewrite's work remains


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(__import__("tfmigrate.cli", fromlist=["cli"]).cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout


def test_without_validate_the_summary_says_it_was_not_asked_for(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text("import tensorflow as tf\nx = tf.constant(1)\n")
    code, out = invoke("report", str(tmp_path))
    assert code == 0 and "not asked for (--validate trains, restores, resumes each)" in " ".join(out.split())


def test_validate_with_nothing_to_validate_says_so_in_one_line_without_tensorflow(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text("import tensorflow as tf\nx = tf.constant(1)\n")
    from tfmigrate.assemble import build_report
    from tfmigrate.codemod.rule import load_catalog
    from tfmigrate.codemod.runner import Options, run

    options = Options(enabled=load_catalog().selected(None), mode="diff", jobs=1)
    report = build_report(lambda opts: run([tmp_path], opts), tmp_path, options, validate=True)
    assert report.validations == [] and report.notes == [
        "--validate: no tf.estimator construction (or function that builds one) in PATH to validate"]


def test_an_unparsable_file_is_not_run_and_says_why(tmp_path: Path) -> None:
    from tfmigrate.assemble import EstimatorSite, run_validations
    from tfmigrate.results import Report

    bad = EstimatorSite("py2.py", 2, "?", "py2.py:2", "py2.py", error="py2.py:2: cannot parse: Missing parentheses")
    assert not bad.runs_as_program
    report = Report(files=[])
    run_validations([bad], 2, report, lambda message: None)
    (v,) = report.validations
    assert v.outcome == "not run" and v.error == "py2.py:2: cannot parse: Missing parentheses"
    assert EstimatorSite("a.py", 3, "tf.estimator.Estimator", "a.py:3", "a.py", error="runs the program's own model_fn").runs_as_program


def test_a_notebooks_estimator_is_named_by_its_cell(tmp_path: Path) -> None:
    """A notebook's cells are analysed as one script; the construction is named as an editor shows it."""
    from tfmigrate.assemble import find_estimators, migrated_sources
    from tfmigrate.codemod.rule import load_catalog
    from tfmigrate.codemod.runner import Options, run

    cells = [("markdown", "# Iris"), *(("code", c) for c in CELLS)]
    entries = [{"cell_type": k, "metadata": {}, "source": c.splitlines(True), **({"execution_count": None, "outputs": []} if k == "code" else {})}
               for k, c in cells]
    (tmp_path / "explore.ipynb").write_text(json.dumps({"cells": entries, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n")
    kept = run([tmp_path], Options(enabled=load_catalog().selected(None), mode="diff", jobs=1, keep_text_with=b"estimator"))
    (site,) = find_estimators(migrated_sources(kept), tmp_path / "scratch")
    assert site.shown == f"{tmp_path / 'explore.ipynb'}:cell 4:1 tf.estimator.DNNClassifier"
    assert site.runs_as_program and site.where.endswith("explore.py") and Path(site.where).is_file()
