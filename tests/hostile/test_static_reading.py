"""Issue 26: reading a model definition ran code. `ckpt diff --model file.py:LINE`, `report` (no --validate)
and `ckpt convert --to keras --model` evaluated the arguments with an allow-list by name, so
`hidden_units=[10, 10 + 0*len(np.testing._private.utils.os.popen("touch M").read())]` ran the shell
command. Now the arguments are read in a closed grammar (tfmigrate.static_values) and built from
tfmigrate's own table of constructors: each probe plants a command that would create a marker file,
and the marker must never appear; each is refused in one line naming the file and line."""

from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

import pytest

from tfmigrate import static_values, targets_static

from .helpers import run_tfmigrate as tfm

ROOT = Path(__file__).resolve().parents[2]
TRAP = ROOT / "samples" / "iris_checkpoint_trap" / "models"

# each is a hidden_units= value that runs `touch MARKER` if anything evaluates it
PROBES = {
    "popen": '[10, 10 + 0*len(np.testing._private.utils.os.popen("touch MARKER").read())]',
    "constant": "UNITS",  # UNITS = the popen probe, at module level
    "builtins": '[10, 10 + 0*len(str(tf.feature_column.numeric_column.__globals__["__builtins__"]["__import__"]("os").system("touch MARKER")))]',
    "dunder": '[10, 10 + 0*().__class__.__base__.__subclasses__()[0].__init__.__globals__["os"].system("touch MARKER")]',
    "gfile": '[10, 10 + 0*len(str(tf.io.gfile.makedirs("MARKER")))]',
    "numpy": '[10, 10 + 0*len(np.save("MARKER", np.zeros(1)) or [])]',
    "lambda": '(lambda: __import__("os").system("touch MARKER"))()',
    "method": '[10, 10 + 0*len("x".join(__import__("os").popen("touch MARKER").read()))]',
    "optimizer": '[10, 10]',  # with optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=<the popen probe>)
}
SOURCE = '''\
import numpy as np
import tensorflow as tf

UNITS = [10, 10 + 0*len(np.testing._private.utils.os.popen("touch MARKER").read())]
FEATURES = [tf.feature_column.numeric_column("x", shape=[4])]
classifier = tf.estimator.DNNClassifier(feature_columns=FEATURES, hidden_units={units}, n_classes=3, model_dir="models/iris"{extra})
'''
KERAS_SOURCE = '''\
import numpy as np
import tensorflow as tf

UNITS = [10, 10 + 0*len(np.testing._private.utils.os.popen("touch MARKER").read())]
model = canned_keras_model("DNNClassifier", feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
                           hidden_units={units}, n_classes=3, model_dir="models/iris"{extra})
'''
OPTIMIZER = ',\n    optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05 + 0*len(np.testing._private.utils.os.popen("touch MARKER").read()))'


def project(tmp_path: Path, name: str, template: str) -> tuple[Path, Path]:
    root = tmp_path / name
    shutil.copytree(TRAP, root / "models")
    marker = tmp_path / f"marker-{name}"
    extra = OPTIMIZER if name == "optimizer" else ""
    text = template.format(units=PROBES[name], extra=extra).replace("MARKER", str(marker))
    (root / "train.py").write_text(text, encoding="utf-8")
    return root, marker


@pytest.mark.parametrize("name", sorted(PROBES))
def test_ckpt_diff_and_report_never_run_what_they_read(tmp_path: Path, name: str) -> None:
    root, marker = project(tmp_path, name, SOURCE)
    diff = tfm("ckpt", "diff", "models/iris", "--model", "train.py:6", cwd=root, timeout=300)
    report = tfm("report", ".", cwd=root, timeout=300)
    assert not marker.exists(), (diff.stderr, report.stdout)
    if name != "optimizer":  # an optimizer that cannot be read is refused too
        assert diff.returncode == 2, diff.stdout + diff.stderr
        (line,) = [ln for ln in diff.stderr.splitlines() if ln.strip()]
        assert "train.py:" in line and "cannot be evaluated statically" in line and "as a literal instead" in line
    assert "Traceback" not in diff.stderr + report.stdout + report.stderr


@pytest.mark.parametrize("name", ["popen", "constant", "lambda", "optimizer"])
def test_ckpt_convert_to_keras_never_runs_what_it_reads(tmp_path: Path, name: str) -> None:
    root, marker = project(tmp_path, name, KERAS_SOURCE)
    proc = tfm("ckpt", "convert", "models/iris", "out", "--to", "keras", "--model", "train.py:5", cwd=root, timeout=300)
    report = tfm("report", "--target", "keras", ".", cwd=root, timeout=300)
    assert not marker.exists(), (proc.stdout + proc.stderr, report.stdout)
    assert "Traceback" not in proc.stdout + proc.stderr + report.stdout + report.stderr


def read(code: str) -> object:
    """The plan of the last line's hidden_units= (static: no TensorFlow)."""
    (site,) = targets_static.find("import numpy as np\nimport tensorflow as tf\n" + textwrap.dedent(code), "m.py")
    if site.error:
        raise targets_static.StaticError(site.error)
    return site.plans["hidden_units"]


def test_what_is_read_is_computed_here_from_literals() -> None:
    assert read("c = tf.estimator.DNNRegressor(hidden_units=[2 * 5, 10 - 3, len([1, 2, 3])], feature_columns=[])") == \
        {"list": [10, 7, 3]}
    assert read("x = np.random.RandomState(0).rand(120, 4).astype(np.float32)\n"
                "c = tf.estimator.DNNRegressor(hidden_units=[x.shape[1], x.shape[1:][0] * 2], feature_columns=[])") == {"list": [4, 8]}
    (site,) = targets_static.find("import tensorflow as tf\nfc = tf.feature_column\nc = tf.estimator.DNNRegressor(hidden_units=[3], "
                                  "feature_columns=[fc.numeric_column('x', dtype=tf.float64)], optimizer=lambda: "
                                  "tf.keras.optimizers.legacy.SGD(0.1), config=tf.estimator.RunConfig(tf_random_seed=7))", "m.py")
    assert site.error is None
    assert site.plans["feature_columns"] == {"list": [{"call": "tensorflow.feature_column.numeric_column", "args": ["x"],
                                                       "kwargs": [["dtype", {"ref": "tensorflow.float64"}]]}]}
    assert site.plans["optimizer"] == {"factory": {"call": "tensorflow.keras.optimizers.legacy.SGD", "args": [0.1], "kwargs": []}}
    assert site.plans["config"] == {"call": "tensorflow.estimator.RunConfig", "args": [], "kwargs": [["tf_random_seed", 7]]}


@pytest.mark.parametrize("code", [
    "'x' * 10**9", "[1] * 10**7", "2 ** 10**6", "1 << 10**6", "'%*d' % (10**9, 1)", "list(range(10**9))",
])
def test_what_would_take_the_machine_is_refused(code: str) -> None:
    with pytest.raises(targets_static.StaticError, match="cannot be evaluated statically"):
        read(f"c = tf.estimator.DNNRegressor(hidden_units={code}, feature_columns=[])")


def test_plans_name_only_the_table_and_build_nothing_else() -> None:
    """materialize looks up only names of the table, along the table's own spelling."""
    class Fake:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"looked up {name}")

    with pytest.raises(ValueError, match="not one of the names tfmigrate builds"):
        static_values.materialize({"call": "numpy.testing._private.utils.os.popen", "args": ["touch x"]}, {"numpy": Fake()})
    with pytest.raises(ValueError, match="not a plan"):
        static_values.materialize({"call": "x", "ref": "y"}, {})
    reader = static_values.Reader(lambda n: None, lambda n: False, lambda n: None)
    with pytest.raises(static_values.Refused):
        reader.read(ast.parse("().__class__.__base__", mode="eval").body)
