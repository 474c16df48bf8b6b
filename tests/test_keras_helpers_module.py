"""`rewrite --target keras` writes the Keras helpers once a directory (issue 29), not into every module.

- each lowered module imports what it calls from ``legacy_estimators.py`` beside it (``.legacy_estimators``
  in a package), and that module holds every helper, with its provenance comment, once;
- a second run changes nothing, a module rewritten alone still gets a working import, an older text
  of the module is brought up to date, and a file of that name that tfmigrate did not write is never
  overwritten (an error names it);
- ``--keras-helpers NAME`` and ``keras_helpers`` of [tool.tfmigrate] choose the module; ``--check``
  reports a missing one;
- on TensorFlow 2.21 (one child for all of it): three migrated modules, two scripts and a package module,
  train and evaluate through the one helpers module of their directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.clichildren import run_cli

from tfmigrate import keras_runtime
from tfmigrate.codemod.runner import Options, run
from tfmigrate.codemod.rule import load_catalog

ROOT = Path(__file__).resolve().parent.parent
KERAS = load_catalog().selected(None, target="keras")

TRAINER = textwrap.dedent('''\
    import numpy as np
    import tensorflow as tf

    x = {{"x": np.arange(16, dtype=np.float32).reshape(16, 1) / 16}}
    y = (np.arange(16) % 2).astype(np.int64)
    model = tf.estimator.{cls}(feature_columns=[tf.feature_column.numeric_column("x")], model_dir="{model_dir}")
    model.train(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(x, y, batch_size=4, num_epochs=None, shuffle=True), steps={steps})
    print("{name}", sorted(model.evaluate(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(x, y, shuffle=False))))
    ''')
PREDICTOR = textwrap.dedent('''\
    import numpy as np
    import tensorflow as tf

    model = tf.estimator.LinearClassifier(feature_columns=[tf.feature_column.numeric_column("x")], model_dir="{model_dir}")
    x = {{"x": np.arange(4, dtype=np.float32).reshape(4, 1)}}
    print("{name}", [p["class_ids"][0] for p in model.predict(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(x, shuffle=False))])
    ''')


def trainer(name: str, cls: str = "LinearClassifier", model_dir: str = "m", steps: int = 3) -> str:
    return TRAINER.format(cls=cls, model_dir=model_dir, steps=steps, name=name)


def rewrite(paths: list[Path], mode: str = "write", helpers: str = "legacy_estimators"):
    return run(paths, Options(enabled=KERAS, mode=mode, target="keras", keras_helpers=helpers))


def statuses(report) -> dict[str, str]:
    return {Path(f.path).name: str(f.status) for f in report.files}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(trainer("a"))
    (tmp_path / "b.py").write_text(trainer("b", cls="DNNClassifier", model_dir="mb").replace(
        'feature_columns=', 'hidden_units=[3], feature_columns='))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "c.py").write_text(PREDICTOR.format(model_dir="m", name="c"))
    return tmp_path


def test_one_helpers_module_a_directory_imported_by_each_module(project: Path) -> None:
    report = rewrite([project])
    assert statuses(report) == {"a.py": "changed", "b.py": "changed", "__init__.py": "skipped", "c.py": "changed",
                                "legacy_estimators.py": "changed"}
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("legacy_estimators.py")) == [
        "legacy_estimators.py", "pkg/legacy_estimators.py"]
    text = keras_runtime.helpers_module_text()
    assert (project / "legacy_estimators.py").read_text() == text == (project / "pkg" / "legacy_estimators.py").read_text()
    assert text.startswith(keras_runtime.HELPERS_MARKER) and keras_runtime.WRITTEN_BY in text
    assert text.count("def canned_keras_model(") == 1
    a, c = (project / "a.py").read_text(), (project / "pkg" / "c.py").read_text()
    assert "from legacy_estimators import canned_keras_model, checkpoints, input_dataset, numpy_input_fn\n" in a
    assert "from .legacy_estimators import canned_keras_model, estimator_predictions, numpy_input_fn\n" in c
    assert "\ndef " not in a + c and len(a.splitlines()) == len(trainer("a").splitlines()) + 1  # the import
    # a second run changes nothing: the modules are migrated and the helpers module is current
    again = rewrite([project])
    assert {f.path for f in again.files if f.status == "changed"} == set()
    assert "legacy_estimators.py" not in statuses(again) or statuses(again)["legacy_estimators.py"] == "skipped"


def test_a_module_rewritten_alone_gets_an_import_that_works(project: Path) -> None:
    rewrite([project / "a.py"])
    assert (project / "legacy_estimators.py").read_text() == keras_runtime.helpers_module_text()
    (project / "legacy_estimators.py").write_text(keras_runtime.HELPERS_MARKER + "\n# an older text\n")
    (project / "d.py").write_text(PREDICTOR.format(model_dir="m", name="d"))
    report = rewrite([project / "d.py"])  # another module, alone: the helpers module is brought up to date
    assert statuses(report) == {"d.py": "changed", "legacy_estimators.py": "changed"}
    assert (project / "legacy_estimators.py").read_text() == keras_runtime.helpers_module_text()
    # new code in a migrated module: its import gets the new helper, once
    a = project / "a.py"
    a.write_text(a.read_text() + PREDICTOR.format(model_dir="m", name="a2").split("\n", 2)[2].replace("model ", "model2 ").replace("model.", "model2."))
    rewrite([a])
    assert ("from legacy_estimators import (\n    canned_keras_model,\n    checkpoints,\n    estimator_predictions,\n"
            "    input_dataset,\n    numpy_input_fn,\n)\n") in a.read_text()  # one name a line past 100 characters
    assert a.read_text().count("legacy_estimators") == 1


def test_check_reports_a_missing_helpers_module_and_writes_nothing(project: Path) -> None:
    rewrite([project / "a.py"])
    (project / "legacy_estimators.py").unlink()
    report = rewrite([project / "a.py"], mode="check")
    assert statuses(report) == {"a.py": "unchanged", "legacy_estimators.py": "changed"} and report.exit_code() == 1
    assert not (project / "legacy_estimators.py").exists()


def test_a_file_of_that_name_that_tfmigrate_did_not_write_is_never_touched(project: Path) -> None:
    mine = project / "legacy_estimators.py"
    mine.write_text("# my own module\n")
    report = rewrite([project / "a.py"])
    [error] = [f for f in report.files if f.status == "error"]
    assert error.path.endswith("legacy_estimators.py") and "--keras-helpers" in (error.error or "")
    assert mine.read_text() == "# my own module\n"


def test_the_cli_option_and_the_config_key_name_the_module(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return run_cli(["rewrite", "-q", "--target", "keras", "--no-cache", *args], cwd=project, env=env)  # tests/clichildren.py

    proc = cli("--keras-helpers", "estimators_keras", "a.py")
    assert proc.returncode == 0, proc.stderr
    assert "from estimators_keras import " in (project / "a.py").read_text() and (project / "estimators_keras.py").exists()
    (project / "pyproject.toml").write_text('[tool.tfmigrate]\nkeras_helpers = "kh"\n')
    assert cli("b.py").returncode == 0 and "from kh import " in (project / "b.py").read_text() and (project / "kh.py").exists()
    proc = cli("--keras-helpers", "a.b", "b.py")
    assert proc.returncode == 2 and "--keras-helpers" in proc.stderr
    (project / "pyproject.toml").write_text('[tool.tfmigrate]\nkeras_helpers = "my-helpers"\n')
    proc = cli("b.py")
    assert proc.returncode == 2 and "keras_helpers" in proc.stderr


CHILD = r'''
import contextlib, io, json, os, runpy, sys
out = {}
for directory, how, name in json.loads(sys.argv[1]):
    os.chdir(directory)
    sys.path.insert(0, directory)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        if how == "path":
            runpy.run_path(name, run_name="__main__")
        else:
            runpy.run_module(name, run_name="__main__")
    sys.path.pop(0)
    out[name] = printed.getvalue().splitlines()
    out[name + " modules"] = sorted(m for m in sys.modules if m.endswith("legacy_estimators"))
print(json.dumps(out))
'''


@pytest.mark.slow
def test_the_migrated_project_runs_on_tensorflow_2_21_with_one_helpers_module(project: Path) -> None:
    from tests.keras_env import keras_python, run_keras

    keras_python()
    rewrite([project])
    plan = [(str(project), "path", "a.py"), (str(project), "path", "b.py"), (str(project), "module", "pkg.c")]
    proc = run_keras(["-c", CHILD, json.dumps(plan)], cwd=project, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["a.py"][-1] == "a ['accuracy', 'loss']" and out["b.py"][-1] == "b ['accuracy', 'loss']"
    # pkg.c restores a.py's model_dir "m" (run from the project directory), says so in one line, and predicts
    assert [line for line in out["pkg.c"] if "restored" in line] == ["LinearClassifier: restored m/model.ckpt-3.weights.h5 (step 3)"]
    assert out["pkg.c"][-1].startswith("c [")
    assert not any("restored" in line for line in out["a.py"])
    assert out["pkg.c modules"] == ["legacy_estimators", "pkg.legacy_estimators"]
    names = sorted(os.listdir(project / "m"))
    assert names == ["model.ckpt-3.weights.h5"], names


def test_the_import_source_of_a_package_module_is_for_that_file_only(project: Path) -> None:
    from tfmigrate.codemod.engine import rewrite_source

    rewrite([project / "pkg" / "c.py"])
    assert "from .legacy_estimators import " in (project / "pkg" / "c.py").read_text()
    again = rewrite_source(PREDICTOR.format(model_dir="m", name="x").encode(), KERAS).new.decode()
    assert "\nfrom legacy_estimators import " in again  # not the package's relative form of the last file
