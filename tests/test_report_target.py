"""Every format says which target the code was migrated to (``--target estimator|keras``), and, for
Keras, shows each converted checkpoint's verdict (``ckpt convert --to keras``) and the TensorFlow that
validated it: terminal, JSON, SARIF (the run's properties), Markdown and HTML, from one Report.
"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from tfmigrate.report import html, json_format, markdown, sarif, terminal
from tfmigrate.results import (
    KerasConversion, Report, target_label, validation_from_json,
)

VALIDATION = {
    "schema": 1, "passed": True, "device": "CPU", "steps": 6, "target": "train.py:187", "migration_target": "keras",
    "tensorflow": "2.21.0", "seconds": 9.5, "steps_per_second": 40.0,
    "stages": [{"name": "train", "passed": True, "seconds": 1.5, "detail": "6 steps"},
               {"name": "restore", "passed": True, "seconds": 0.5, "detail": "second model from model.ckpt-6.weights.h5"}],
}
CONVERSION = KerasConversion(
    checkpoint="models/iris/model.ckpt-100", model='train.py:187 canned_keras_model("DNNClassifier")', passed=False,
    verdict="dnn/hiddenlayer_0/kernel is [4, 10] in the checkpoint, [4, 20] in the Keras model", out=None,
)


def terminal_text(report: Report) -> str:
    out = Console(file=io.StringIO(), width=300, color_system=None)
    out.print(terminal.summary_view(report))
    terminal.print_details(report, out)
    terminal.print_summary(report, out)
    return out.file.getvalue()  # type: ignore[attr-defined]


def keras_report() -> Report:
    return Report(target="keras", validations=[validation_from_json(VALIDATION)], keras_conversions=[CONVERSION])


def test_keras_target_in_every_format() -> None:
    report = keras_report()
    label = target_label("keras")
    assert label == "keras: Keras 3 (TensorFlow 2.16+)"

    text = " ".join(terminal_text(report).split())
    assert f"target {label}" in text
    assert "keras conversion 1 checkpoint(s) converted, 1 failed" in text
    assert "passed on CPU (--target keras, TensorFlow 2.21.0): 6 steps, 40.0 steps/s" in text
    assert f"keras conversion models/iris/model.ckpt-100: failed for {CONVERSION.model}" in text

    data = json.loads(json_format.render(report))
    assert data["target"] == "keras" and data["schema"] == 2
    assert data["validations"][0]["migration_target"] == "keras" and data["validations"][0]["tensorflow"] == "2.21.0"
    assert data["keras_conversions"] == [{"checkpoint": CONVERSION.checkpoint, "model": CONVERSION.model, "passed": False,
                                          "verdict": CONVERSION.verdict, "out": None, "max_difference": None, "notes": []}]
    assert data["summary"]["keras_conversions"] == 1 and data["summary"]["keras_conversions_failed"] == 1

    run = json.loads(sarif.render(report))["runs"][0]
    assert run["properties"]["target"] == "keras" and run["properties"]["summary"]["keras_conversions_failed"] == 1

    md = markdown.render_full(report)
    assert "target: **keras: Keras 3 \\(TensorFlow 2.16\\+\\)**" in md
    assert "### Keras conversion of `models/iris/model.ckpt-100`: failed" in md
    comment = markdown.render(report)  # the comment: one line a verdict
    assert "- Keras conversion of `models/iris/model.ckpt-100` for " in comment and "**failed**" in comment
    assert "(--target keras, TensorFlow 2.21.0)" in md.replace("\\", "")

    page = html.render(report, generated="now")
    assert '<span class="target">target keras: Keras 3 (TensorFlow 2.16+)</span>' in page
    assert '<section id="keras-conversion"><h2>Keras conversion</h2>' in page and "failed</span></h3>" in page
    assert '<a href="#keras-conversion">Keras conversion</a></nav>' in page
    assert "--target keras, TensorFlow 2.21.0" in page
    assert page.count("<section") == page.count("</section>")

    assert report.exit_code() == 1  # a conversion that failed is work left


@pytest.mark.parametrize("render", ["terminal", "json", "sarif", "markdown", "html"])
def test_the_estimator_target_is_named_too(render: str) -> None:
    report = Report()
    assert report.target == "estimator"
    text = {"terminal": terminal_text, "json": json_format.render, "sarif": sarif.render,
            "markdown": markdown.render, "html": lambda r: html.render(r, generated="now")}[render](report)
    if render in ("json", "sarif"):
        data = json.loads(text)
        assert (data if render == "json" else data["runs"][0]["properties"])["target"] == "estimator"
        assert "keras_conversions" not in data
    else:
        assert "estimator: tf.estimator (TensorFlow 2.15)" in text.replace("\\", "")
        assert "keras conversion" not in text.lower()


@pytest.mark.slow
def test_report_target_keras_converts_the_legacy_checkpoint_and_names_the_seed_001_trap(tmp_path) -> None:
    """The real composition: `report --target keras` over the trap sample (a [20, 20] model over the
    [10, 10] Estimator checkpoint in its model_dir) runs `ckpt convert --to keras` in the TensorFlow 2.21
    child and reports, layer by layer, that the checkpoint does not fit; nothing is written beside the sample."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from tests.keras_env import keras_python

    python = keras_python()
    sample = Path(__file__).resolve().parent.parent / "samples" / "iris_checkpoint_trap"
    shutil.copytree(sample, tmp_path / "trap")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    out = tmp_path.parent / f"{tmp_path.name}-report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "report", "--target", "keras", "trap/legacy.py", "--json", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "TFMIGRATE_KERAS_PYTHON": python},
    )
    assert proc.returncode == 1, proc.stderr[-2000:]  # migration work, and a conversion that failed
    data = json.loads(out.read_text())
    assert data["target"] == "keras"
    (conversion,) = data["keras_conversions"]
    # the absolute path, and the model_dir it came from (issue 29)
    assert conversion["checkpoint"] == str(tmp_path / "trap/models/iris/model.ckpt-20") and conversion["passed"] is False
    assert conversion["origin"].startswith("model_dir='models/iris' at trap/legacy.py:") and "program's directory" in conversion["origin"]
    assert "layer hiddenlayer_0: checkpoint [4, 10] + [10]" in conversion["verdict"]
    assert "the Keras model's is [4, 20] + [20]" in conversion["verdict"]
    assert data["summary"]["keras_conversions_failed"] == 1
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # the report wrote nothing there
