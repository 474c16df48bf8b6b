"""Finding and judging tf.estimator constructions in migrated code (static, no TensorFlow)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tfmigrate import targets_static as static
from tfmigrate.validate import targets


def find(code: str) -> list[static.Site]:
    return static.find(textwrap.dedent(code), "m.py")


def test_what_rewrite_writes_is_buildable() -> None:
    (site,) = find(
        '''
        import tensorflow as tf
        FEATURES = [tf.feature_column.numeric_column("x", shape=(4,))]
        UNITS = [10, 10]
        DIR = "models/iris"
        c = tf.estimator.DNNClassifier(hidden_units=UNITS, feature_columns=FEATURES, model_dir=DIR, n_classes=3,
            optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05),
            loss_reduction=tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE)
        '''
    )
    assert site.error is None and site.cls == "tf.estimator.DNNClassifier" and site.line == 6
    assert site.model_dir == "models/iris"
    assert sorted(site.uses) == ["FEATURES", "UNITS"]


def test_numpy_data_shapes_are_computed_but_nothing_else_of_numpy() -> None:
    (ok,) = find(
        '''
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(1)
        x_train = rng.rand(120, 5).astype(np.float32)
        c = tf.estimator.LinearClassifier(feature_columns=[tf.feature_column.numeric_column("x", shape=x_train.shape[1:])])
        '''
    )
    assert ok.error is None and ok.uses == ["x_train", "rng"]
    (bad,) = find(
        '''
        import numpy as np
        import tensorflow as tf
        x_train = np.load("data.npy")
        c = tf.estimator.LinearClassifier(feature_columns=[tf.feature_column.numeric_column("x", shape=x_train.shape[1:])])
        '''
    )
    assert bad.error is not None and "m.py:4: `np.load('data.npy')` cannot be evaluated statically: `np.load(...)` is not one of " \
        "the constructors tfmigrate builds" in bad.error


def test_aliases_and_from_imports_are_resolved() -> None:
    sites = find(
        '''
        from tensorflow import estimator as est, feature_column as fc
        import tensorflow.compat.v1 as v1
        a = est.LinearRegressor(feature_columns=[fc.numeric_column("x")])
        b = v1.estimator.DNNRegressor(hidden_units=[3], feature_columns=[fc.numeric_column("x")])
        '''
    )
    assert [(s.cls, s.error) for s in sites] == [
        ("tf.estimator.LinearRegressor", None),
        ("tf.compat.v1.estimator.DNNRegressor", None),
    ]


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("cols = make_columns()\nc = tf.estimator.LinearRegressor(feature_columns=cols)", "`make_columns(...)` is the program's own code"),
        ("def f():\n    pass\nc = tf.estimator.LinearRegressor(feature_columns=f)", "`f` is not a module-level constant"),
        ("n = 1\nn = 2\nc = tf.estimator.DNNRegressor(hidden_units=[n], feature_columns=[])", "`n` is assigned more than once"),
        ("c = tf.estimator.LinearRegressor([tf.feature_column.numeric_column('x')])", "positional or ** arguments"),
        ("c = tf.estimator.Estimator(model_fn=model_fn)", "runs the program's own model_fn"),
        ("c = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column(k) for k in 'ab'])", "cannot be evaluated statically"),
    ],
)
def test_what_cannot_be_evaluated_is_refused_with_its_line(code: str, why: str) -> None:
    sites = find("import tensorflow as tf\n" + code + "\n")
    assert len(sites) == 1
    error = sites[0].error
    assert error is not None and why in error
    assert error.startswith("m.py:")


def test_function_locals_and_local_imports_are_evaluable() -> None:
    (site,) = find(
        '''
        WIDTH = 4

        def main():
            import tensorflow as tf
            from tensorflow import feature_column as fc
            cols = [fc.numeric_column("x", shape=[WIDTH])]
            return tf.estimator.DNNClassifier(feature_columns=cols, hidden_units=[3], n_classes=3)
        '''
    )
    assert site.error is None and site.uses == ["cols", "WIDTH"] and site.cls == "tf.estimator.DNNClassifier"


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("X = [1]\ndef grow():\n    X.append(2)\nc = tf.estimator.DNNRegressor(hidden_units=X, feature_columns=[])",
         "`X` is changed after its assignment (`X.append` on line 4)"),
        ("X = [1]\nX[0] = 3\nc = tf.estimator.DNNRegressor(hidden_units=X, feature_columns=[])",
         "`X` is changed after its assignment (line 3)"),
        ("def main(units):\n    c = tf.estimator.DNNRegressor(hidden_units=units, feature_columns=[])",
         "`units` is not bound by a plain assignment"),
    ],
)
def test_changed_or_unbound_names_are_refused(code: str, why: str) -> None:
    (site,) = find("import tensorflow as tf\n" + code + "\n")
    assert site.error is not None and why in site.error and site.error.startswith("m.py:")


def test_identical_definitions_share_a_key() -> None:
    code = 'import tensorflow as tf\nX = [tf.feature_column.numeric_column("x")]\nc = tf.estimator.LinearRegressor(feature_columns=X)\n'
    assert static.find(code, "a/legacy.py")[0].key == static.find(code, "b/expected.py")[0].key
    other = code.replace('"x"', '"y"')
    assert static.find(code, "a.py")[0].key != static.find(other, "a.py")[0].key


def test_target_spelling() -> None:
    assert targets.split("dir/train.py:build") == (Path("dir/train.py"), "build")
    assert targets.split("dir/train.py:12") == (Path("dir/train.py"), "12")
    assert targets.split("dir/train.py") == (Path("dir/train.py"), None)
    assert targets.split("C:/x/train.py") == (Path("C:/x/train.py"), None)


def test_validate_unknown_file_cannot_run_without_tensorflow(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", str(tmp_path / "none.py")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "could not run" in proc.stdout and "no such file" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_without_tensorflow_the_child_says_how_to_install_it(tmp_path: Path) -> None:
    fake = tmp_path / "fake" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named tensorflow (simulated)')\n", encoding="utf-8")
    target = tmp_path / "m.py"
    target.write_text("def build():\n    pass\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "fake"))
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", f"{target}:build"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert "TensorFlow 2.15 is not installed" in proc.stdout and "pip install 'tfmigrate[tf]'" in proc.stdout


def test_report_prefers_a_builder_function_over_an_unbuildable_construction(tmp_path: Path) -> None:
    from tfmigrate import targets_static
    from tfmigrate.assemble import BUILDERS, find_estimators

    code = textwrap.dedent(
        '''
        import tensorflow as tf

        def experiment_fn(output_dir):
            return tf.estimator.Estimator(model_fn=model_fn, model_dir=output_dir)
        '''
    ).encode()
    assert targets_static.find_with_builder(code, "train.py", BUILDERS)[1] == ("experiment_fn", 4)
    (site,) = find_estimators({"pkg/train.py": (code, False)}, tmp_path)
    assert site.cls == "experiment_fn()" and site.error is None and site.spec.endswith("train.py:experiment_fn")
    plain = code.replace(b"experiment_fn", b"helper")
    (site,) = find_estimators({"pkg/train.py": (plain, False)}, tmp_path / "2")
    assert site.error is not None and "runs the program's own model_fn" in site.error


def test_refusal_names_the_function_that_returns_the_estimator_or_one_to_write() -> None:
    (returned,) = find(
        '''
        import tensorflow as tf

        def experiment(output_dir):
            est = tf.estimator.Estimator(model_fn=model_fn, model_dir=output_dir)
            return est, None
        '''
    )
    assert returned.error.endswith("name the function that returns it: m.py:experiment")
    # trains inside the function (its nested input_fn returns, the function does not): no such target exists
    (trained,) = find(
        '''
        import tensorflow as tf

        def train(model_dir):
            def input_fn():
                return None
            est = tf.estimator.Estimator(model_fn=model_fn, model_dir=model_dir)
            est.train(input_fn, steps=1)
        '''
    )
    assert "m.py:train" not in trained.error
    assert trained.error.endswith("(def build_estimator(model_dir): return tf.estimator....) and name it: m.py:build_estimator")
    # the same as a program (it calls train() when run): validate --program runs it up to its first train
    (program,) = find(
        """
        import tensorflow as tf

        def main():
            est = tf.estimator.Estimator(model_fn=model_fn, model_dir="out")
            est.train(input_fn, steps=1)

        if __name__ == "__main__":
            main()
        """
    )
    assert program.error.endswith("and name it: m.py:build_estimator; or validate the program itself, run up to its first "
                                  "train: tfmigrate validate --program m.py")


def test_an_expression_that_cannot_be_evaluated_is_quoted_whole_or_cut_between_tokens() -> None:
    (short,) = find("import tensorflow as tf\nc = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column(key=k) for k in data.keys()])\n")
    assert "`[tf.feature_column.numeric_column(key=k) for k in data.keys()]` cannot be evaluated statically" in short.error
    long_names = " + ".join(f"columns_number_{i}" for i in range(12))
    (long,) = find(f"import tensorflow as tf\nc = tf.estimator.LinearRegressor(feature_columns=[x for x in {long_names}])\n")
    quoted = long.error.split("`")[1]
    assert quoted.endswith(" ...") and quoted.removesuffix(" ...").split()[-1] in long_names.split()
