"""``tfmigrate validate --target keras``: the Keras code ``rewrite --target keras`` writes, trained,
checkpointed, restored and resumed with TensorFlow 2.21 (the second interpreter, tests/keras_env.py).

The migrated module is written by hand in the shape the rewrite gives it (tfmigrate.keras_runtime's
docstring): its imports, the helpers after them (the same text the rewrite writes), then the user's
code with a ``canned_keras_model("DNNClassifier", ...)`` call. One TensorFlow 2.21 child validates
the call (shared by the tests of this module); the ``--program`` run is the whole program run twice.
The refusals (no interpreter, a file still on tf.estimator, a function) start no TensorFlow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.keras_env import keras_python
from tfmigrate import keras_runtime
from tfmigrate import targets_static as static

ROOT = Path(__file__).resolve().parents[1]

USER_CODE = '''

FEATURES = [
    tf.feature_column.numeric_column("x", shape=(4,)),
    tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    ),
]


def build(model_dir="models/iris"):
    return canned_keras_model(
        "DNNClassifier",
        feature_columns=FEATURES,
        optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
        hidden_units=[8, 8],
        n_classes=3,
        model_dir=model_dir,
        config=dict(save_checkpoints_steps=2, keep_checkpoint_max=3, tf_random_seed=1),
    )


def train_data():
    rng = np.random.RandomState(0)
    x = rng.rand(24, 4).astype("float32")
    color = np.array([["red"], ["green"], ["blue"]] * 8)
    return {"x": x, "color": color}, (np.arange(24) % 3).astype("int64")


def main():
    est = canned_keras_model(
        "DNNClassifier",
        feature_columns=FEATURES,
        optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
        hidden_units=[8, 8],
        n_classes=3,
        model_dir="models/iris",
        config=dict(save_checkpoints_steps=2, keep_checkpoint_max=3, tf_random_seed=1),
    )
    x, y = train_data()
    est.fit(input_dataset(numpy_input_fn(x, y, batch_size=8, num_epochs=None, shuffle=True)), epochs=1, steps_per_epoch=4,
            callbacks=checkpoints(est))


if __name__ == "__main__":
    main()
'''

ESTIMATOR_CODE = '''import tensorflow as tf

FEATURES = [tf.feature_column.numeric_column("x", shape=(4,))]
est = tf.estimator.DNNClassifier(feature_columns=FEATURES, hidden_units=[4], n_classes=3)
'''


def migrated_text() -> str:
    """A module as `tfmigrate rewrite --target keras` writes it: imports, the helpers, the user's code."""
    names = list(keras_runtime.HELPERS)
    imports = "\n".join(f"import {imp}" for imp in keras_runtime.imports_of(names))
    return imports + "\n\n\n" + keras_runtime.source_of(names) + "\n" + USER_CODE


def call_line(text: str) -> int:
    """The line of the canned_keras_model call in main()."""
    lines = text.splitlines()
    main = next(i for i, line in enumerate(lines) if line.startswith("def main("))
    return next(i for i in range(main, len(lines)) if "canned_keras_model(" in lines[i]) + 1


def validate(*args: str, cwd: Path = ROOT, timeout: float = 300) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", "--target", "keras", *args, "--format", "json"],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def stage(result: dict, name: str) -> dict:
    for st in result["stages"]:
        if st["name"] == name:
            return st
    raise AssertionError(f"no stage {name!r} in {[s['name'] for s in result['stages']]}")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("keras-project")
    (root / "train.py").write_text(migrated_text(), encoding="utf-8")
    (root / "still_estimator.py").write_text(ESTIMATOR_CODE, encoding="utf-8")
    return root


# ------------------------------------------------------------------ static: no TensorFlow


def test_the_calls_are_found_statically_with_their_model_dir(project: Path) -> None:
    text = (project / "train.py").read_text()
    sites = static.find_keras(text, "train.py")
    assert [s.cls for s in sites] == ['canned_keras_model("DNNClassifier")'] * 2
    in_build, in_main = sites
    assert in_main.line == call_line(text) and in_main.model_dir == "models/iris" and in_main.error is None
    assert "`model_dir` is not bound by a plain assignment" not in (in_build.error or "")  # model_dir is never evaluated
    assert static.select_keras(sites, "train.py", None) is in_build
    with pytest.raises(static.StaticError, match=r"train.py:3: no canned_keras_model\(\.\.\.\) call on that line"):
        static.select_keras(sites, "train.py", 3)
    assert static.find(text, "train.py") == []  # nothing of tf.estimator is left


def test_a_file_still_on_tf_estimator_is_refused_in_one_line(project: Path) -> None:
    path = project / "still_estimator.py"
    for target in (str(path), f"{path}:4"):
        code, result = validate(target, "--python", sys.executable)
        assert code == 2 and result["stages"] == [] and "\n" not in result["error"], result
        assert result["error"] == (f"{path}:4: still tf.estimator code (tf.estimator.DNNClassifier); rewrite it for Keras first: "
                                   f"tfmigrate rewrite --target keras {path}")
    code, result = validate("--program", str(path), "--python", sys.executable)
    assert code == 2 and "rewrite it for Keras first" in result["error"]


def test_no_interpreter_names_make_keras_and_python(project: Path) -> None:
    from tfmigrate.validate.keras import run_keras_validation

    result = run_keras_validation(str(project / "train.py"), python=None)
    assert result["exit_code"] == 2 and result["stages"] == []
    assert "`make keras`" in result["error"] and "--python" in result["error"] and "\n" not in result["error"]
    code, result = validate(str(project / "train.py"), "--python", str(project / "no-such-python"))
    assert code == 2 and result["error"].startswith(f"the TensorFlow 2.21 interpreter {project / 'no-such-python'} does not exist")
    assert "`make keras`" in result["error"]


def test_the_interpreter_is_the_users_never_the_projects(project: Path, tmp_path: Path) -> None:
    """--python, then $TFMIGRATE_KERAS_PYTHON; keras_python of [tool.tfmigrate] is the analysed project's
    and never started (issue 26; tests/hostile/test_interpreter_choice.py plants one)."""
    (tmp_path / "pyproject.toml").write_text('[tool.tfmigrate]\nkeras_python = "venvs/keras/bin/python"\ntarget = "keras"\n')
    (tmp_path / "sub").mkdir()
    env = {**os.environ, "TFMIGRATE_KERAS_PYTHON": "/nowhere/env/python", "PYTHONPATH": str(ROOT)}
    for extra, named in (((), "/nowhere/env/python"), (("--python", "/nowhere/given/python"), "/nowhere/given/python")):
        proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", str(project / "train.py"), *extra, "--format", "json"],
                              capture_output=True, text=True, cwd=tmp_path / "sub", env=env, timeout=60)
        result = json.loads(proc.stdout)  # target = "keras" of the configuration: no --target needed
        assert proc.returncode == 2 and result["migration_target"] == "keras", result
        assert result["error"].startswith(f"the TensorFlow 2.21 interpreter {named} does not exist"), result


def test_a_function_or_a_line_without_a_call_is_refused(project: Path) -> None:
    code, result = validate(f"{project / 'train.py'}:build", "--python", sys.executable)
    assert code == 2 and "not a function" in result["error"] and "--program" in result["error"]
    code, result = validate(f"{project / 'train.py'}:3", "--python", sys.executable)
    assert code == 2 and "no canned_keras_model(...) call on that line" in result["error"]


def test_estimator_only_options_are_refused_with_keras(project: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", "--target", "keras", str(project / "train.py"),
                           "--cluster", "chief=1,worker=1,ps=1"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "--cluster validates tf.estimator code" in proc.stderr


# ------------------------------------------------------------------ TensorFlow 2.21


@pytest.fixture(scope="module")
def line_run(project: Path) -> tuple[int, dict]:
    python = keras_python()
    target = f"{project / 'train.py'}:{call_line((project / 'train.py').read_text())}"
    return validate(target, "--steps", "6", "--python", python)


@pytest.mark.slow
def test_the_call_trains_checkpoints_restores_and_resumes_on_tensorflow_2_21(line_run: tuple[int, dict], project: Path) -> None:
    code, result = line_run
    assert code == 0 and result["passed"], result
    assert result["migration_target"] == "keras" and result["tensorflow"].startswith("2.21")
    assert [s["name"] for s in result["stages"]] == ["load", "train", "checkpoint files", "restore", "resume"]
    load = stage(result, "load")["detail"]
    assert "Keras model 'DNNClassifier'" in load and "Adagrad(learning_rate=0.05)" in load
    assert "x: numeric [4]" in load and "color: vocabulary of 3" in load and "(label): 3 classes" in load
    assert stage(result, "train")["detail"].startswith("6 steps") and "optimizer.iterations 6" in stage(result, "train")["detail"]
    # save_checkpoints_steps=2, keep_checkpoint_max=3: steps 2, 4, 6 as model.ckpt-STEP.weights.h5
    assert stage(result, "checkpoint files")["checkpoint_steps"] == [2, 4, 6]
    restore = stage(result, "restore")["detail"]
    assert "model.ckpt-6.weights.h5" in restore and "predictions equal" in restore and "optimizer.iterations 6" in restore
    assert "optimizer.iterations 6 + 3 = 9, model.ckpt-9.weights.h5" in stage(result, "resume")["detail"]
    assert result["model_dir_removed"] and not Path(result["model_dir"]).exists()
    assert not (project / "models").exists()  # the call's own model_dir is never trained into


@pytest.mark.slow
def test_the_whole_program_runs_twice_and_resumes(project: Path) -> None:
    python = keras_python()
    code, result = validate("--program", str(project / "train.py"), "--python", python)
    assert code == 0 and result["passed"], result
    assert [s["name"] for s in result["stages"]] == ["train", "checkpoint files", "resume"]
    # four steps a run, a checkpoint every 2: the second run restores step 4 and goes on to 8
    assert stage(result, "checkpoint files")["detail"] == "2 checkpoint(s): models/iris: steps [2, 4]"
    assert stage(result, "resume")["detail"] == "second run resumed: models/iris: model.ckpt-4 -> model.ckpt-8.weights.h5"
    assert not (project / "models").exists()  # it ran in a scratch working directory


@pytest.mark.slow
def test_the_report_validates_keras_code_with_the_keras_interpreter(project: Path, tmp_path: Path) -> None:
    from tfmigrate.assemble import EstimatorSite, run_validations
    from tfmigrate.report import json_format
    from tfmigrate.results import Report

    path = str(project / "train.py")
    line = call_line((project / "train.py").read_text())
    site = EstimatorSite(path, line, 'canned_keras_model("DNNClassifier")', f"{path}:{line}", path)
    report = Report(target="keras")
    run_validations([site], 2, report, lambda message: None, target="keras", keras_python=keras_python())
    (v,) = report.validations
    assert v.passed and v.migration_target == "keras" and v.tensorflow.startswith("2.21"), v
    assert v.target == f'{path}:{line} canned_keras_model("DNNClassifier")'
    data = json.loads(json_format.render(report))
    assert data["target"] == "keras" and data["validations"][0]["migration_target"] == "keras"
