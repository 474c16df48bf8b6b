"""Where a relative model_dir is (issue 29): as the program resolves it when run from its own directory,
or from ``--cwd``; never from the directory tfmigrate was started in. Every checkpoint line of a report
shows the absolute path and the model_dir it came from.

The unit tests need no TensorFlow. One slow test runs ``tfmigrate report`` on the seed-001 trap sample
from a directory that holds an unrelated ``models/iris`` checkpoint (one TensorFlow child, no training).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.assemble import EstimatorSite, checkpoints_of, elsewhere_note, model_dir_of, resolve_model_dir, unreferenced_checkpoints

ROOT = Path(__file__).resolve().parents[1]
TRAP = ROOT / "samples" / "iris_checkpoint_trap"


def site(path: Path, model_dir: str | None) -> EstimatorSite:
    return EstimatorSite(str(path), 21, "tf.estimator.DNNClassifier", f"{path}:21", str(path), model_dir=model_dir)


def checkpoint_dir(directory: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-1"\n')
    (directory / "model.ckpt-1.index").write_bytes(b"")
    return directory


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """proj/train.py with proj/models/iris; tfmigrate started in elsewhere/, which has its own models/iris."""
    proj = tmp_path / "proj"
    checkpoint_dir(proj / "models" / "iris")
    (proj / "train.py").write_text("import tensorflow as tf\n")
    elsewhere = tmp_path / "elsewhere"
    checkpoint_dir(elsewhere / "models" / "iris")
    monkeypatch.chdir(elsewhere)
    return proj, elsewhere


@pytest.mark.parametrize("path_form", ["absolute", "relative"])
def test_relative_model_dir_is_the_programs_own(layout, path_form) -> None:
    proj, elsewhere = layout
    train = proj / "train.py"
    if path_form == "relative":  # the file as the command line named it, relative to tfmigrate's directory
        train = Path(os.path.relpath(train, elsewhere))
    found = model_dir_of(site(train, "models/iris"))
    assert found.path == proj / "models" / "iris" and found.path.is_absolute()
    assert "model_dir='models/iris' at" in found.origin and "the program's directory" in found.origin
    assert resolve_model_dir(site(train, "models/iris")) == proj / "models" / "iris"
    # the directory tfmigrate stands in is never used, and its checkpoint is only mentioned
    assert elsewhere_note(site(train, "models/iris"), None) is None


def test_cwd_option_resolves_against_the_given_directory(layout) -> None:
    proj, elsewhere = layout
    found = model_dir_of(site(proj / "train.py", "models/iris"), cwd=elsewhere)
    assert found.path == elsewhere / "models" / "iris" and f"--cwd {elsewhere}" in found.origin
    assert model_dir_of(site(proj / "train.py", "./models/../models/iris"), cwd=Path(".")).path == elsewhere / "models" / "iris"


def test_absolute_model_dir_is_as_written(layout, tmp_path: Path) -> None:
    proj, elsewhere = layout
    absolute = str(elsewhere / "models" / "iris")
    found = model_dir_of(site(proj / "train.py", absolute), cwd=proj)
    assert found.path == Path(absolute) and "relative" not in found.origin
    assert model_dir_of(site(proj / "train.py", None)) is None


def test_a_checkpoint_only_where_tfmigrate_stands_is_named_not_used(layout) -> None:
    proj, elsewhere = layout
    shutil.rmtree(proj / "models")
    s = site(proj / "train.py", "models/iris")
    assert resolve_model_dir(s) is None and checkpoints_of(s, (), None) == []
    note = elsewhere_note(s, None)
    assert note and str(proj / "models" / "iris") in note and str(elsewhere / "models" / "iris") in note
    assert f"--cwd {elsewhere}" in note
    # with --cwd it is the one compared, with its origin
    ((path, origin),) = checkpoints_of(s, (), elsewhere)
    assert path == str(elsewhere / "models" / "iris") and "--cwd" in origin


def test_checkpoint_option_is_absolute_with_its_origin(layout) -> None:
    proj, elsewhere = layout
    s = site(proj / "train.py", "models/iris")
    pairs = checkpoints_of(s, (Path("models/iris"),), None)
    assert pairs == [(str(proj / "models" / "iris"), pairs[0][1]), (str(elsewhere / "models" / "iris"), "--checkpoint models/iris")]
    # the same checkpoint named twice is analysed once
    assert len(checkpoints_of(s, (proj / "models" / "iris",), None)) == 1


def test_unreferenced_checkpoints_use_the_same_resolution(layout) -> None:
    proj, elsewhere = layout
    s = site(proj / "train.py", "models/iris")
    assert unreferenced_checkpoints(proj, [s], ()) == []
    (note,) = unreferenced_checkpoints(proj, [s], (), cwd=elsewhere)  # now models/iris of proj is nobody's
    assert "1 checkpoint directory no estimator names" in note


@pytest.mark.slow
def test_report_from_a_directory_with_an_unrelated_checkpoint_gives_the_samples_own_verdict(tmp_path: Path) -> None:
    """README's `python train.py` made ./models/iris; `tfmigrate report` of the trap sample run from there still
    compares the sample with its own checkpoint, and names it by its absolute path and model_dir."""
    shutil.copytree(ROOT / "samples" / "checkpoints" / "skflow", tmp_path / "models" / "iris")  # unrelated, other shapes
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "report", str(TRAP), "--json", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, env=dict(os.environ, COLUMNS="200"))
    assert proc.returncode == 1, proc.stderr
    (ck,) = json.loads(out.read_text())["checkpoints"]
    assert ck["checkpoint"] == str(TRAP / "models" / "iris" / "model.ckpt-20")
    assert ck["compatible"] is False and "[4, 10] in the checkpoint, [4, 20] in the model" in ck["verdict"]
    assert ck["origin"].startswith("model_dir='models/iris' at ") and "the program's directory" in ck["origin"]
    assert f"from {ck['origin']}" in " ".join(proc.stdout.split())


def test_every_format_shows_the_origin_and_json_reads_it_back() -> None:
    """The origin of a checkpoint's path is in the terminal, HTML, Markdown and JSON of one report, and the
    JSON model reads it back; a conversion for --target keras carries it too."""
    import io

    from rich.console import Console

    from tfmigrate.report import html, json_format, markdown, terminal
    from tfmigrate.results import CheckpointComparison, KerasConversion, ModelRef, Report, checkpoint_from_json

    origin = "model_dir='models/iris' at train.py:21, relative: resolved against the program's directory (--cwd DIR if it runs from elsewhere)"
    report = Report(checkpoints=[CheckpointComparison("/abs/models/iris/model.ckpt-20", ModelRef("train.py:21 tf.estimator.DNNClassifier"),
                                                      False, "layer sizes changed", origin=origin)],
                    keras_conversions=[KerasConversion("/abs/models/iris/model.ckpt-20", "train.py:40 canned_keras_model", False,
                                                       "not converted", origin=origin)])
    out = Console(file=io.StringIO(), width=300)
    terminal.print_details(report, out)
    assert out.file.getvalue().count(f"from {origin}") == 2
    assert markdown.render(report).count("at train.py:21, relative: resolved against the program") == 2
    page = html.render(report, subject="x")
    assert "resolved against the program" in page and page.count("model_dir=") >= 2
    data = json_format.render(report)
    parsed = json.loads(data)
    assert parsed["checkpoints"][0]["origin"] == origin and parsed["keras_conversions"][0]["origin"] == origin
    assert checkpoint_from_json(parsed["checkpoints"][0]).origin == origin
    # no origin (a path the user gave `ckpt diff`): no key
    report.checkpoints[0].origin = report.keras_conversions[0].origin = None
    parsed = json.loads(json_format.render(report))
    assert "origin" not in parsed["checkpoints"][0] and "origin" not in parsed["keras_conversions"][0]
