"""``tfmigrate report``'s composition (tfmigrate/assemble.py) without TensorFlow: the engine hands
over the new text, the estimators are found in it, and nothing in PATH is written."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tfmigrate.assemble import EstimatorSite, build_report, find_estimators, migrated_sources
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import Options, run

LEGACY = textwrap.dedent(
    """
    import tensorflow as tf
    from tensorflow.contrib import learn

    FEATURES = [tf.contrib.layers.real_valued_column("x", dimension=4)]
    classifier = learn.DNNClassifier(hidden_units=[20, 10], n_classes=3, feature_columns=FEATURES, model_dir="model")
    """
).lstrip()


def test_the_report_analyses_the_text_the_engine_made(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(LEGACY)
    (tmp_path / "other.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n")
    options = Options(enabled=load_catalog().selected(None), mode="diff", jobs=1)
    report = build_report(lambda opts: run([tmp_path], opts), tmp_path, options)
    assert (tmp_path / "train.py").read_text() == LEGACY  # nothing written
    assert all(r.new_text is None for r in report.files)  # not kept past the analysis
    assert report.notes == [] and report.checkpoints == [] and report.errors == []

    kept = run([tmp_path], Options(enabled=options.enabled, mode="diff", jobs=1, keep_text_with=b"estimator"))
    sources = migrated_sources(kept)
    assert list(sources) == [str(tmp_path / "train.py")]  # only the file that names an estimator
    new, unchanged = sources[str(tmp_path / "train.py")]
    written = run([tmp_path], Options(enabled=options.enabled, mode="write", jobs=1))
    assert written.files and new == (tmp_path / "train.py").read_bytes() and not unchanged
    (site,) = find_estimators(sources, tmp_path / "scratch")
    assert site.cls == "tf.estimator.DNNClassifier" and site.model_dir == "model" and site.error is None
    assert site.where != site.path and Path(site.where).read_bytes() == new  # the child reads the new text


def test_relabel_names_the_users_file_and_construction() -> None:
    site = EstimatorSite("pkg/train.py", 5, "tf.estimator.DNNClassifier", "/tmp/s/0/train.py:5", "/tmp/s/0/train.py")
    assert site.relabel("/tmp/s/0/train.py:5: cannot build (/tmp/s/0/train.py)") == (
        "pkg/train.py:5 tf.estimator.DNNClassifier: cannot build (pkg/train.py)")
    same = EstimatorSite("train.py", 5, "experiment_fn()", "train.py:experiment_fn", "train.py")
    assert same.relabel("train.py:experiment_fn failed") == "train.py:5 experiment_fn() failed"


def test_a_target_is_named_once_whether_or_not_the_file_changed() -> None:
    from tfmigrate.assemble import read_comparison, read_validation

    for where in ("pkg/train.py", "/tmp/s/0/train.py"):  # an unchanged file is read where it is
        site = EstimatorSite("pkg/train.py", 5, "tf.estimator.DNNClassifier", f"{where}:5", where)
        comparison = read_comparison(site, {"checkpoint": "m/model.ckpt-1", "compatible": True, "verdict": f"ok for {where}:5",
                                            "model": {"target": f"{where}:5"}})
        assert comparison.verdict == "ok for pkg/train.py:5 tf.estimator.DNNClassifier"
        assert comparison.model.target == "pkg/train.py:5 tf.estimator.DNNClassifier"
        validation = read_validation(site, {"passed": False, "error": f"{where}:5: cannot build", "target": f"{where}:5"})
        assert validation.target == "pkg/train.py:5 tf.estimator.DNNClassifier" and validation.outcome == "not run"
        assert validation.error == "pkg/train.py:5 tf.estimator.DNNClassifier: cannot build"
