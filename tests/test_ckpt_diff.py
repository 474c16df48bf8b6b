"""``ckpt diff``: real TF 2.15 checkpoints against new model definitions, with TF 2.15's verdicts.

One TF child writes the checkpoints (tests/ckpt_factory.py); one TF child derives the variables of
every model definition in this module (targets.model_variables_many); the CLI test runs its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfmigrate.checkpoint import api, targets
from tfmigrate.cli.ckpt import ckpt
from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

COLS = 'FEATURES = [tf.feature_column.numeric_column("x", shape=[{width}])]\n'


def source(hidden: str = "[10, 10]", n_classes: int = 3, width: int = 4, cls: str = "tf.estimator.DNNClassifier",
           optimizer: str = "") -> str:
    return "import tensorflow as tf\n\n" + COLS.format(width=width) + textwrap.dedent(f"""
        def main():
            classifier = {cls}(
                feature_columns=FEATURES,
                hidden_units={hidden},
                n_classes={n_classes},{optimizer}
                model_dir="models/iris")
            return classifier
        """)


MODELS = {
    "seed001": source(hidden="[20, 20]"),
    "v1_wider": source(hidden="[20, 20]", cls="tf.compat.v1.estimator.DNNClassifier"),
    "n_classes": source(n_classes=5),
    "width": source(width=5),
    "same": source(),
    "adam": source(optimizer='\n        optimizer="Adam",'),
    # what rewrite writes (a lambda optimizer, a Reduction constant) and string labels: a V2 head keeps label_vocabulary
    "vocab": source(optimizer='\n        label_vocabulary=["a", "b", "c"],'
                              '\n        optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05),'
                              '\n        loss_reduction=tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE,'),
}
FUNCTIONS = textwrap.dedent("""
    import tensorflow as tf

    def make_estimator():
        cols = [tf.feature_column.numeric_column("x", shape=[4])]
        return tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=cols, n_classes=3, model_dir="elsewhere")

    def my_model_fn(features, labels, mode, params):
        net = tf.compat.v1.feature_column.input_layer(features, params["feature_columns"])
        net = tf.compat.v1.layers.dense(net, 7, activation=tf.nn.relu, name="hidden")
        logits = tf.compat.v1.layers.dense(net, 3, name="out")
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def custom():
        return my_model_fn, {"feature_columns": [tf.feature_column.numeric_column("x", shape=[4])]}

    def keras_model():
        return tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(10), tf.keras.layers.Dense(3)])
    """)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("diff")
    proc_env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    run_python([str(ROOT / "tests" / "ckpt_factory.py"), str(out / "ck"), "v2_iris_10x10", "estimator_v1", "contrib1x"], check=True, env=proc_env, timeout=600)
    manifest = json.loads((out / "ck" / "manifest.json").read_text())
    specs = {}
    for name, text in MODELS.items():
        (out / f"{name}.py").write_text(text)
        specs[name] = str(out / f"{name}.py")
    (out / "functions.py").write_text(FUNCTIONS)
    for fn in ("make_estimator", "custom", "keras_model"):
        specs[fn] = f"{out / 'functions.py'}:{fn}"
    names = list(specs)
    results = targets.model_variables_many([specs[n] for n in names])
    return {"manifest": manifest, "specs": specs, "models": dict(zip(names, results)), "dir": out}


def run_diff(env: dict, ck_kind: str, model: str) -> dict:
    result = env["models"][model]
    assert result["ok"], result
    return api.diff(env["manifest"][ck_kind]["dir"], env["specs"][model], model_result=result)


def pair(data: dict, model_name: str) -> dict:
    return next(p for p in data["pairs"] if p["model_name"] == model_name)


def test_seed_001_wider_layers_silently_keep_old_shapes(env: dict) -> None:
    data = run_diff(env, "v2_iris_10x10", "seed001")
    assert data["compatible"] is False
    assert "SILENTLY KEEPS" in data["verdict"] and "WITHOUT ERROR" in data["verdict"]
    assert "layer sizes changed" in data["verdict"]
    assert "NEW model_dir" in data["verdict"] and "WarmStartSettings" in data["verdict"]  # the remedy
    p = pair(data, "dnn/hiddenlayer_0/kernel")
    assert p == {"checkpoint_name": "dnn/hiddenlayer_0/kernel", "model_name": "dnn/hiddenlayer_0/kernel",
                 "status": "shape_mismatch", "checkpoint_shape": [4, 10], "model_shape": [4, 20],
                 "checkpoint_dtype": "float32", "model_dtype": "float32", "kind": "model"}
    assert pair(data, "global_step")["status"] == "match"
    assert {"schema", "compatible", "verdict", "pairs", "name_map", "checkpoint"} <= set(data)
    assert data["schema"] == 1 and data["name_map"] == {}


def test_v1_estimator_raises_at_restore(env: dict) -> None:
    data = run_diff(env, "v2_iris_10x10", "v1_wider")
    assert not data["compatible"]
    assert "raises InvalidArgumentError at restore" in data["verdict"]
    assert "[4, 20]" in data["verdict"] and "[4, 10]" in data["verdict"]


def test_n_classes_change_fails_later_on_labels(env: dict) -> None:
    data = run_diff(env, "v2_iris_10x10", "n_classes")
    assert not data["compatible"]
    assert data["verdict"].startswith("n_classes changed")
    assert "label value 3" in data["verdict"]
    assert pair(data, "dnn/logits/kernel")["status"] == "shape_mismatch"
    assert pair(data, "dnn/hiddenlayer_0/kernel")["status"] == "match"


def test_feature_width_change_fails_with_matrix_size_incompatible(env: dict) -> None:
    data = run_diff(env, "v2_iris_10x10", "width")
    assert not data["compatible"]
    assert data["verdict"].startswith("feature width changed")
    assert "Matrix size-incompatible" in data["verdict"]
    assert pair(data, "dnn/hiddenlayer_0/kernel")["model_shape"] == [5, 10]


def test_same_model_restores_cleanly(env: dict) -> None:
    data = run_diff(env, "v2_iris_10x10", "same")
    assert data["compatible"] is True, data["verdict"]
    assert all(p["status"] == "match" for p in data["pairs"])


def test_other_optimizer_is_reported_apart(env: dict) -> None:
    data = run_diff(env, "v2_iris_10x10", "adam")
    assert not data["compatible"]
    assert "model weights restore" in data["verdict"] and "train() raises NotFoundError" in data["verdict"]
    assert all(p["status"] == "match" for p in data["pairs"] if p["kind"] == "model")
    assert any(p["model_name"].startswith("training/Adam/") and p["status"] == "missing_from_checkpoint" for p in data["pairs"])


def test_legacy_names_get_a_name_map(env: dict) -> None:
    data = run_diff(env, "contrib1x", "same")
    assert not data["compatible"]
    assert "NotFoundError" in data["verdict"] and "ckpt convert" in data["verdict"]
    assert data["name_map"]["dnn/hiddenlayer_0/weights"] == "dnn/hiddenlayer_0/kernel"
    assert data["name_map"]["dnn/hiddenlayer_1/biases"] == "dnn/hiddenlayer_1/bias"
    assert data["name_map"]["dnn/logits/weights"] == "dnn/logits/kernel"
    p = pair(data, "dnn/hiddenlayer_0/kernel")
    assert p["checkpoint_name"] == "dnn/hiddenlayer_0/weights" and p["status"] == "match"
    assert any("centered_bias_weight" in n for n in data["notes"])


def test_function_targets(env: dict) -> None:
    est = env["models"]["make_estimator"]
    assert est["ok"] and est["model"]["api"] == "v2" and est["model"]["model_dir"] == "elsewhere"
    assert run_diff(env, "v2_iris_10x10", "make_estimator")["compatible"] is True
    custom = env["models"]["custom"]
    assert custom["ok"], custom
    names = {v["name"]: v["shape"] for v in custom["variables"]}
    assert names["hidden/kernel"] == [4, 7] and names["out/kernel"] == [7, 3] and "hidden/kernel/Adagrad" in names
    keras = env["models"]["keras_model"]
    assert keras["ok"] and keras["model"]["api"] == "keras"
    assert any(v["name"].startswith("layer_with_weights-1/kernel") and v["shape"] == [10, 3] for v in keras["variables"])


def test_label_vocabulary_classifier_variables_are_derived(env: dict) -> None:
    vocab = env["models"]["vocab"]
    assert vocab["ok"], vocab  # string labels for the head, not int64
    assert vocab["model"]["class"] == "DNNClassifier" and vocab["model"]["api"] == "v2"
    shapes = {v["name"]: v["shape"] for v in vocab["variables"]}
    assert shapes["dnn/logits/kernel"] == [10, 3] and shapes["dnn/hiddenlayer_0/kernel"] == [4, 10]
    assert "training/Adagrad/dnn/logits/kernel/accumulator" in shapes
    data = run_diff(env, "v2_iris_10x10", "vocab")
    assert pair(data, "dnn/logits/kernel")["status"] == "match"


def test_unevaluable_argument_is_one_line_naming_the_line(tmp_path: Path) -> None:
    f = tmp_path / "train.py"
    f.write_text(textwrap.dedent("""
        import tensorflow as tf
        cols = []
        for key in ["a", "b"]:
            cols.append(tf.feature_column.numeric_column(key))
        est = tf.estimator.DNNClassifier(
            hidden_units=[10, 10],
            feature_columns=make_columns(),
            n_classes=3)
        """))
    with pytest.raises(targets.TargetError) as info:
        targets.model_variables(str(f))  # static: fails before any TF process
    msg = str(info.value)
    assert f"{f}:8:" in msg and "make_columns" in msg and "\n" not in msg
    result = CliRunner().invoke(ckpt, ["diff", str(ROOT / "samples" / "checkpoints" / "contrib1x"), "--model", str(f)])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "Traceback" not in result.output


def test_cli_diff_end_to_end(env: dict) -> None:
    result = CliRunner().invoke(ckpt, ["diff", env["manifest"]["v2_iris_10x10"]["dir"], "--model", env["specs"]["seed001"],
                                       "--format", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert not data["compatible"] and "SILENTLY" in data["verdict"]
    text = CliRunner().invoke(ckpt, ["diff", env["manifest"]["v2_iris_10x10"]["dir"], "--model", env["manifest"]["v2_iris_10x10"]["dir"]])
    assert text.exit_code == 0 and "compatible" in text.output
    # piped: plain, no width limit; the verdict is one line, never wrapped
    lines = text.output.splitlines()
    assert lines[1].startswith("restores cleanly") and lines[1].endswith(".") and "\x1b" not in text.output


@pytest.fixture(scope="module")
def behaviour(env: dict) -> dict:
    """What TF 2.15 actually does with each pair (one TF child trains one step per scenario)."""
    v2 = env["manifest"]["v2_iris_10x10"]["dir"]
    v1 = env["manifest"]["estimator_v1"]["dir"]
    scenarios = {  # name: (model, checkpoint dir, width, labels, kernel to look at afterwards)
        "seed001": ("seed001", v2, 4, 3, "dnn/hiddenlayer_0/kernel"),
        "v1_wider": ("v1_wider", v1, 4, 3, "dnn/hiddenlayer_0/kernel"),
        "v1_on_v2": ("v1_wider", v2, 4, 3, "dnn/hiddenlayer_0/kernel"),
        "n_classes": ("n_classes", v2, 4, 5, "dnn/logits/kernel"),
        "width": ("width", v2, 5, 3, "dnn/hiddenlayer_0/kernel"),
    }
    requests = [{"model": env["specs"][m], "ckpt_dir": d, "width": w, "labels": n, "kernel": k}
                for m, d, w, n, k in scenarios.values()]
    path = env["dir"] / "behave.json"
    path.write_text(json.dumps(requests))
    proc = run_python([str(ROOT / "tests" / "ckpt_factory.py"), "--behave", str(path)], check=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), timeout=600)
    return dict(zip(scenarios, json.loads(proc.stdout.strip().splitlines()[-1])["results"]))


def test_verdicts_match_what_tensorflow_does(env: dict, behaviour: dict) -> None:
    # seed 001: no error at all, and the [20, 20] model still has the checkpoint's [4, 10] kernel
    assert behaviour["seed001"] == {"error": None, "kernel": [4, 10]}
    assert "SILENTLY KEEPS" in run_diff(env, "v2_iris_10x10", "seed001")["verdict"]
    # V1 estimator on a V1 checkpoint (the seed's own TF 1.x setting): raises at restore
    assert behaviour["v1_wider"]["error"] == "InvalidArgumentError", behaviour["v1_wider"]
    assert "shape_and_slice" in behaviour["v1_wider"]["message"]
    assert "raises InvalidArgumentError at restore" in run_diff(env, "estimator_v1", "v1_wider")["verdict"]
    # ... on a V2 checkpoint the missing t_0/Adagrad slots fail first
    assert behaviour["v1_on_v2"]["error"] == "NotFoundError", behaviour["v1_on_v2"]
    assert run_diff(env, "v2_iris_10x10", "v1_wider")["verdict"].startswith("train() raises NotFoundError")
    # n_classes 3 -> 5: fails on a label >= 3, without naming the checkpoint
    assert behaviour["n_classes"]["error"] == "InvalidArgumentError", behaviour["n_classes"]
    assert "label value" in behaviour["n_classes"]["message"] and "checkpoint" not in behaviour["n_classes"]["message"].lower()
    # feature width 4 -> 5: Matrix size-incompatible
    assert behaviour["width"]["error"] == "InvalidArgumentError", behaviour["width"]
    assert "Matrix size-incompatible" in behaviour["width"]["message"]


def test_parent_process_never_imports_tensorflow(env: dict) -> None:
    """Only the child derives the model's variables; the parent reads the checkpoint index itself."""
    code = ("import sys\nfrom tfmigrate.checkpoint import api\n"
            f"r = api.diff({env['manifest']['v2_iris_10x10']['dir']!r}, {env['specs']['seed001']!r})\n"
            "assert not r['compatible']\nassert 'tensorflow' not in sys.modules, 'tensorflow imported'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert proc.returncode == 0, proc.stderr[-2000:]
