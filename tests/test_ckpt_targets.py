"""TARGET parsing and the static search for ``tf.estimator`` constructions (``tfmigrate.targets_static``, no TensorFlow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tfmigrate.checkpoint import targets
from tfmigrate.checkpoint.targets import TargetError
from tests.tfchildren import run_python

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "checkpoints"

SOURCE = textwrap.dedent("""
    import tensorflow as tf
    import tensorflow.compat.v1 as tf1
    from tensorflow.estimator import DNNClassifier as Clf

    WIDTH = 4

    def main(train_x):
        cols = [tf.feature_column.numeric_column("x", shape=[WIDTH])]
        units = [10, 10]
        a = tf.estimator.DNNClassifier(feature_columns=cols, hidden_units=units, n_classes=3,
                                       optimizer=tf.keras.optimizers.legacy.Adagrad(learning_rate=0.1),
                                       activation_fn=tf.nn.relu, model_dir="models/iris")
        my_feature_columns = []
        for key in train_x.keys():
            my_feature_columns.append(tf.feature_column.numeric_column(key=key))
        b = tf.estimator.DNNClassifier(feature_columns=my_feature_columns, hidden_units=[10, 10], n_classes=3)
        c = Clf(feature_columns=cols, hidden_units=train_x, n_classes=3)
        d = tf1.estimator.LinearClassifier(feature_columns=cols, n_classes=int(open("n.txt").read()))
        e = tf.estimator.DNNRegressor(feature_columns=cols, hidden_units=[width(cols)])
        f = tf.estimator.DNNRegressor(feature_columns=cols, hidden_units=[len(cols) * 2], label_dimension=-3 + 6,
                                      optimizer=lambda: tf.keras.optimizers.legacy.Adam(0.01), config=CONFIG)

    CONFIG = tf.estimator.RunConfig(tf_random_seed=7)
    """)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    f = tmp_path / "migrated.py"
    f.write_text(SOURCE)
    return f


def test_constructions_are_found_and_evaluated(src: Path) -> None:
    found = {c.line: c for c in targets.find_constructions(src)}
    a = found[11]
    assert a.cls == "tf.estimator.DNNClassifier" and a.error is None
    assert a.args["hidden_units"] == "units" and a.args["optimizer"] == "tf.keras.optimizers.legacy.Adagrad(learning_rate=0.1)"
    assert a.args["activation_fn"] == "tf.nn.relu"
    assert a.uses == ["cols", "WIDTH", "units"]  # function locals, and WIDTH resolved from the module
    assert a.model_dir == "models/iris"
    assert found[18].cls == "tf.estimator.DNNClassifier"  # `Clf` is tf.estimator.DNNClassifier
    assert found[19].cls == "tf.compat.v1.estimator.LinearClassifier"
    f = found[21]  # arithmetic, builtins, a lambda optimizer and a module-level RunConfig are evaluable
    assert f.error is None and f.uses == ["cols", "WIDTH", "CONFIG"]


@pytest.mark.parametrize("line,why", [
    (17, "`my_feature_columns` is changed after its assignment (`my_feature_columns.append` on line 16)"),
    (18, "`train_x` is not bound by a plain assignment"),
    (19, "`open(...)` is the program's own code"),
    (20, "`width(...)` is the program's own code"),
])
def test_unevaluable_arguments_name_their_line(src: Path, line: int, why: str) -> None:
    with pytest.raises(TargetError) as info:
        targets.select_construction(targets.parse_target(f"{src}:{line}"))
    msg = str(info.value)
    assert msg.startswith(f"{src}:{line}:") and why in msg and "\n" not in msg


def test_first_good_construction_is_the_default(src: Path) -> None:
    assert targets.select_construction(targets.parse_target(str(src))).line == 11


def test_parse_target_forms(src: Path) -> None:
    assert targets.parse_target(f"{src}:main") == targets.Target("function", f"{src}:main", str(src), function="main")
    assert targets.parse_target(f"{src}:11").kind == "source"
    ck = targets.parse_target(str(SAMPLES / "contrib1x"))
    assert ck.kind == "checkpoint" and ck.path.endswith("model.ckpt-1")
    for bad in ("nope.py", f"{src}:not-an-id", "/nonexistent/dir"):
        with pytest.raises(TargetError):
            targets.parse_target(bad)
    with pytest.raises(TargetError, match="no tf.estimator construction on that line"):
        targets.select_construction(targets.parse_target(f"{src}:3"))


def test_checkpoint_target_needs_no_tensorflow() -> None:
    code = ("import sys; from tfmigrate.checkpoint import targets\n"
            f"r = targets.model_variables({str(SAMPLES / 'skflow')!r})\n"
            "assert r['model']['writer'] == 'skflow-0.8' and 'tensorflow' not in sys.modules\n"
            f"r = targets.model_variables_many([{str(SAMPLES / 'skflow')!r}, 'missing.py'])\n"
            "assert r[0]['ok'] and not r[1]['ok'] and 'tensorflow' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_load_keeps_the_run_config(tmp_path: Path) -> None:
    """A migrated file's ``config=`` reaches the estimator (its model_dir replaced); warm_start_from is dropped."""
    f = tmp_path / "train.py"
    f.write_text(textwrap.dedent("""
        import tensorflow as tf

        def main():
            config = tf.estimator.RunConfig(tf_random_seed=7, keep_checkpoint_max=2, model_dir="models/own")
            return tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("x")], config=config,
                                                warm_start_from="models/old")
        """))
    code = ("import json; from tfmigrate.checkpoint import targets\n"
            f"l = targets.load(targets.parse_target({str(f)!r}), model_dir={str(tmp_path / 'work')!r})\n"
            "c = l.estimator.config\n"
            "print(json.dumps([c.tf_random_seed, c.keep_checkpoint_max, c.model_dir, l.estimator.model_dir,"
            " l.estimator._warm_start_settings, l.construction.line]))\n")
    proc = run_python(["-c", code], timeout=300, check=False, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    work = str(tmp_path / "work")
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [7, 2, work, work, None, 6]
