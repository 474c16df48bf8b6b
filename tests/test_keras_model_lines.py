"""`--model FILE.py[:LINE]` of `ckpt convert --to keras` and the lines a keras report shows (issue 29), no TensorFlow.

- ``--model FILE.py`` picks the only model of the file, and lists them (``FILE.py:LINE`` each) when there
  are several;
- a line of skflow / tf.contrib.learn code (every import form the samples use) is refused with the
  command that makes it a model ``--to keras`` reads: ``tfmigrate rewrite`` first;
- ``report --target keras`` (the rewrite in diff mode: nothing written) names each Keras model by the line
  of the user's file it came from, the line ``--model FILE.py:LINE`` names there, not a line of text
  that exists only in memory.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tfmigrate.checkpoint import keras
from tfmigrate.checkpoint.index import CheckpointError

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

TWO = textwrap.dedent('''\
    import tensorflow as tf

    X = tf.feature_column.numeric_column("x", shape=[4])
    a = tf.estimator.DNNClassifier(feature_columns=[X], hidden_units=[8], n_classes=3)
    b = tf.estimator.LinearRegressor(feature_columns=[X])
    ''')


def test_a_file_without_a_line_is_its_only_model_or_a_list(tmp_path: Path) -> None:
    one = tmp_path / "one.py"
    one.write_text(TWO.replace("b = tf.estimator.LinearRegressor(feature_columns=[X])\n", ""))
    spec = keras.parse_model(str(one))
    assert (spec.estimator, spec.line) == ("DNNClassifier", 4)
    two = tmp_path / "two.py"
    two.write_text(TWO)
    with pytest.raises(CheckpointError) as info:
        keras.parse_model(str(two))
    assert str(info.value) == (f"{two}: 2 models ({two}:4 DNNClassifier, {two}:5 LinearRegressor); "
                               "name one with --model FILE.py:LINE")
    assert keras.parse_model(f"{two}:5").estimator == "LinearRegressor"
    keras_form = tmp_path / "migrated.py"
    keras_form.write_text('import tensorflow as tf\na = canned_keras_model("DNNClassifier", feature_columns=[], n_classes=3)\n'
                          'b = canned_keras_model("LinearRegressor", feature_columns=[])\n')
    with pytest.raises(CheckpointError, match=r"2 models \(.*migrated.py:2 canned_keras_model\('DNNClassifier'\), "
                                              r".*migrated.py:3 canned_keras_model\('LinearRegressor'\)\)"):
        keras.parse_model(str(keras_form))


@pytest.mark.parametrize("sample, line", [
    ("skflow_dnn_save_restore", 21),  # learn.TensorFlowDNNClassifier(...), skflow's class through contrib.learn
    ("learn_dnn_fit", 15),  # learn.DNNClassifier(...), from tensorflow.contrib import learn
    ("skflow_dnn_save_restore", None),  # the file alone
])
def test_legacy_estimator_code_gets_the_rewrite_first_hint(sample: str, line: int | None) -> None:
    path = SAMPLES / sample / "legacy.py"
    spec = f"{path}:{line}" if line else str(path)
    with pytest.raises(CheckpointError) as info:
        keras.parse_model(spec)
    assert f"run `tfmigrate rewrite --target keras {path}` first" in str(info.value)


@pytest.mark.parametrize("code", [
    "import skflow\nclf = skflow.TensorFlowDNNClassifier(hidden_units=[10], n_classes=3)\n",
    "import tensorflow as tf\nclf = tf.contrib.learn.DNNClassifier(hidden_units=[10], feature_columns=[])\n",
    "import tensorflow.contrib.learn as L\nclf = L.LinearRegressor(feature_columns=[])\n",
])
def test_every_import_form_of_a_legacy_construction_line_gets_the_hint(tmp_path: Path, code: str) -> None:
    path = tmp_path / "legacy.py"
    path.write_text(code)
    with pytest.raises(CheckpointError, match="first, then name the canned_keras_model"):
        keras.parse_model(f"{path}:2" if "L." not in code else str(path))


def test_a_line_of_other_code_gets_no_hint(tmp_path: Path) -> None:
    path = tmp_path / "plain.py"
    path.write_text("import tensorflow as tf\nx = tf.constant(1)\n")
    with pytest.raises(CheckpointError) as info:
        keras.parse_model(f"{path}:2")
    assert "rewrite" not in str(info.value)


def test_a_keras_report_names_the_line_of_the_users_file(tmp_path: Path) -> None:
    from tfmigrate.assemble import TARGET_KERAS, find_estimators
    from tfmigrate.codemod.engine import rewrite_source
    from tfmigrate.codemod.rule import load_catalog

    legacy = tmp_path / "train.py"
    shutil.copy(SAMPLES / "learn_dnn_fit" / "legacy.py", legacy)
    new = rewrite_source(legacy.read_bytes(), load_catalog().selected(None, target="keras"), path=str(legacy)).new
    new_lines = [i + 1 for i, text in enumerate(new.decode().splitlines()) if "canned_keras_model(" in text]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    sites = find_estimators({str(legacy): (new, False)}, scratch, target=TARGET_KERAS)
    assert [s.line for s in sites] == [15, 21] != new_lines  # learn.DNNClassifier( of the user's file, twice
    assert all(s.spec.startswith(str(scratch)) for s in sites)  # the child still reads the migrated copy
    assert [int(s.spec.rsplit(":", 1)[1]) for s in sites] == new_lines
    unchanged = find_estimators({str(legacy): (new, True)}, scratch, target=TARGET_KERAS)  # a file already migrated
    assert [s.line for s in unchanged] == new_lines
