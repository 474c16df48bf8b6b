"""``ckpt convert --to keras``: legacy canned-estimator checkpoints as the weights of the Keras model
``--target keras`` generates, verified by equal predictions.

The fast tests read real checkpoints' values without TensorFlow and check the static side. The
slow ones convert the samples' legacy checkpoints (skflow, contrib.learn 1.x, the iris trap's
models/iris) and checkpoints TensorFlow 2.15 trains here (DNNClassifier, LinearClassifier,
DNNRegressor with an embedding, a partitioned embedding, a 2-class skflow head) with ONE
TensorFlow 2.21 child, then check the results three ways: the child's own Keras predict against
the numpy forward pass, the numpy forward pass against a real TF 2.15 Estimator's predictions,
and a separate TF 2.21 program that builds canned_keras_model(model_dir=OUT) and predicts.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tests.ckpt_factory import _weights
from tests.keras_env import keras_python, run_keras
from tests.tfchildren import run_python
from tfmigrate.checkpoint import index, keras, values
from tfmigrate.checkpoint.index import CheckpointError
from tfmigrate.checkpoint.keras import KerasConversion
from tfmigrate.cli.ckpt import ckpt

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
ENV = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")

ESTIMATORS = '''\
import tensorflow as tf

fc = tf.feature_column
COLOR = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
X = fc.numeric_column("x", shape=[4])


def iris(model_dir):
    return tf.estimator.DNNClassifier(feature_columns=[X], hidden_units=[10, 10], n_classes=3, model_dir=model_dir,
                                      optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05))


def binary(model_dir):
    return tf.estimator.DNNClassifier(feature_columns=[X], hidden_units=[10, 10], model_dir=model_dir)


def linear(model_dir):
    return tf.estimator.LinearClassifier(
        feature_columns=[X, fc.bucketized_column(fc.numeric_column("z"), boundaries=[-0.5, 0.0, 0.5]), COLOR],
        n_classes=3, model_dir=model_dir)


def embedding(model_dir):
    return tf.estimator.DNNRegressor(feature_columns=[X, fc.embedding_column(COLOR, dimension=2)], hidden_units=[8],
                                     activation_fn=tf.nn.tanh, model_dir=model_dir)


def normalized(model_dir):
    return tf.estimator.DNNClassifier(feature_columns=[fc.numeric_column("x", shape=[4], normalizer_fn=lambda v: v * 2.0)],
                                      hidden_units=[10, 10], n_classes=3, model_dir=model_dir)


def small(model_dir):
    return tf.estimator.DNNClassifier(feature_columns=[X], hidden_units=[8], n_classes=3, model_dir=model_dir)


def partitioned(model_dir):
    return tf.estimator.DNNClassifier(feature_columns=[X, fc.embedding_column(COLOR, dimension=2)], hidden_units=[8],
                                      n_classes=3, model_dir=model_dir)
'''
LINES = {"iris": 9, "binary": 14, "linear": 18, "embedding": 24, "normalized": 29, "small": 34, "partitioned": 38}

KERAS_FORM = '''\
import tensorflow as tf


def canned_keras_model(*args, **kwargs):
    """Stands in for the helper `rewrite --target keras` writes (only the call below is read)."""


model = canned_keras_model(
    "DNNClassifier",
    feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
    optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
    hidden_units=[10, 10],
    n_classes=3,
    loss_reduction="sum",
    model_dir="models/iris",
    config=dict(save_checkpoints_steps=10, keep_checkpoint_max=5),
)
'''


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("specs")
    (d / "estimators.py").write_text(ESTIMATORS)
    (d / "migrated_keras.py").write_text(KERAS_FORM)
    out = {name: f"{d / 'estimators.py'}:{line}" for name, line in LINES.items()}
    out["keras"] = f"{d / 'migrated_keras.py'}:8"
    return out


# ------------------------------------------------------------------------------------ no TensorFlow


def test_values_are_the_weights_the_factory_wrote() -> None:
    """The samples' values, read without TF, are the seeded weights tests/ckpt_factory.py saved (V1 and V2)."""
    w = _weights(1, [4, 10, 10, 3])
    skflow = values.read_arrays(SAMPLES / "checkpoints" / "skflow")
    np.testing.assert_array_equal(skflow["dnn/layer1/Linear/Matrix"], w[1][0])
    np.testing.assert_array_equal(skflow["logistic_regression/bias"], w[2][1])
    assert skflow["global_step"].dtype == np.int32 and int(skflow["global_step"]) == 200
    np.testing.assert_array_equal(skflow["dnn/layer0/Linear/Matrix/Adagrad"], np.full((4, 10), 0.1, "float32"))
    contrib = values.read_arrays(SAMPLES / "checkpoints" / "contrib1x")
    np.testing.assert_array_equal(contrib["dnn/logits/weights"], w[2][0])
    assert int(contrib["global_step"]) == 100 and contrib["global_step"].dtype == np.int64
    parts = values.read_arrays(SAMPLES / "checkpoints" / "partitioned")  # 3 slices put together by their extents
    np.testing.assert_array_equal(parts["dnn/input_from_feature_columns/words_embedding/weights"],
                                  np.arange(120, dtype="float32").reshape(30, 4))


def test_checkpoint_model_of_each_era() -> None:
    skflow = keras.read_checkpoint_model(index.read(SAMPLES / "checkpoints" / "skflow"))
    assert skflow.era == "skflow-0.8" and skflow.step == 200
    assert skflow.hidden == [("dnn/layer0/Linear/Matrix", "dnn/layer0/Linear/Bias"), ("dnn/layer1/Linear/Matrix", "dnn/layer1/Linear/Bias")]
    assert skflow.logits == ("logistic_regression/weights", "logistic_regression/bias")
    contrib = keras.read_checkpoint_model(index.read(SAMPLES / "checkpoints" / "contrib1x"))
    assert contrib.centered_bias == "centered_bias_weight" and contrib.logits == ("dnn/logits/weights", "dnn/logits/biases")
    _arrays, rows, notes = keras.plan_layers(contrib, "DNNClassifier")
    assert [(r.keras_layer, r.op) for r in rows] == [("hiddenlayer_0", "copy"), ("hiddenlayer_1", "copy"), ("logits", "add centered_bias_weight")]
    assert "centered_bias_weight" in notes[0]
    iris = keras.read_checkpoint_model(index.read(SAMPLES / "iris_checkpoint_trap" / "models" / "iris"))
    assert iris.era == "estimator" and iris.step == 20 and len(iris.hidden) == 2
    with pytest.raises(CheckpointError, match="1 hidden layers but no logits layer"):
        keras.plan_layers(keras.read_checkpoint_model(index.read(SAMPLES / "checkpoints" / "partitioned")), "DNNClassifier")


def test_model_spec_forms(specs: dict[str, str]) -> None:
    trap = keras.parse_model(f"{SAMPLES / 'iris_checkpoint_trap' / 'expected.py'}:23")  # a line inside the construction
    assert (trap.form, trap.estimator, trap.line) == ("estimator", "DNNClassifier", 21)
    assert trap.kwargs["hidden_units"] == {"list": [20, 20]} and trap.kwargs["n_classes"] == 3  # plans (static_values)
    assert trap.kwargs["optimizer"] == {"call": "tensorflow.keras.optimizers.Adagrad", "args": [],  # the Keras 3 spelling
                                        "kwargs": [["learning_rate", 0.05]]}
    assert "model_dir" not in trap.kwargs
    k = keras.parse_model(specs["keras"])
    assert (k.form, k.estimator) == ("keras", "DNNClassifier")
    assert set(k.kwargs) == {"feature_columns", "optimizer", "hidden_units", "n_classes"}
    assert keras.parse_model(specs["linear"].rsplit(":", 1)[0] + ":embedding").estimator == "DNNRegressor"  # file.py:function
    lin = keras.parse_model(specs["linear"])
    assert lin.estimator == "LinearClassifier"
    columns = lin.kwargs["feature_columns"]["list"]  # fc = tf.feature_column; X, COLOR: module constants, read through
    assert [c["call"] for c in columns] == ["tensorflow.feature_column.numeric_column", "tensorflow.feature_column.bucketized_column",
                                            "tensorflow.feature_column.categorical_column_with_vocabulary_list"]


def test_model_spec_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import tensorflow as tf\n\n\ndef cols():\n    return []\n\n\n"
                   "a = tf.estimator.DNNClassifier(feature_columns=cols(), hidden_units=[4])\n"
                   "b = tf.estimator.BaselineClassifier(n_classes=3)\n")
    with pytest.raises(CheckpointError, match=r"bad.py:8: .*`cols\(\.\.\.\)` is the program's own code"):
        keras.parse_model(f"{bad}:8")
    with pytest.raises(CheckpointError, match="BaselineClassifier: --to keras converts DNNClassifier"):
        keras.parse_model(f"{bad}:9")
    with pytest.raises(CheckpointError, match="bad.py:3: no canned_keras_model"):
        keras.parse_model(f"{bad}:3")
    with pytest.raises(CheckpointError, match="file.py:LINE"):
        keras.parse_model("model.ckpt")
    with pytest.raises(CheckpointError, match="bad.py: no function 'build'"):
        keras.parse_model(f"{bad}:build")
    with pytest.raises(CheckpointError, match="bad.py:cols: no canned_keras_model"):
        keras.parse_model(f"{bad}:cols")


def test_cli_errors_are_one_line(tmp_path: Path, specs: dict[str, str]) -> None:
    runner = CliRunner()
    skflow = str(SAMPLES / "checkpoints" / "skflow")
    r = runner.invoke(ckpt, ["convert", skflow, str(tmp_path / "a"), "--to", "keras"])
    assert r.exit_code == 2 and "--to keras needs --model" in r.output
    r = runner.invoke(ckpt, ["convert", skflow, str(tmp_path / "a"), "--to", "keras", "--model", specs["iris"], "--python", str(tmp_path / "nope")])
    assert r.exit_code == 2 and "make keras" in r.output and len(r.output.strip().splitlines()) == 1
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "model.ckpt-1.index").write_bytes(b"\x00" * 100)
    r = runner.invoke(ckpt, ["convert", str(corrupt), str(tmp_path / "b"), "--to", "keras", "--model", specs["iris"]])
    assert r.exit_code == 2 and r.output.startswith("error: ") and len(r.output.strip().splitlines()) == 1
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("x")
    r = runner.invoke(ckpt, ["convert", skflow, str(full), "--to", "keras", "--model", specs["iris"], "--python", sys.executable])
    assert r.exit_code == 2 and "never writes over anything" in r.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_conversion_round_trips_through_json() -> None:
    data = {"schema": 1, "to": "keras", "checkpoint": "c", "model": {"target": "m.py:3 DNNClassifier", "kind": "keras", "cls": "DNNClassifier"},
            "out": None, "compatible": False, "verdict": "v", "layers": [
                {"keras_layer": "hiddenlayer_0", "checkpoint_names": ["k"], "checkpoint_shapes": [[4, 10]], "op": "copy",
                 "keras_shapes": [[4, 20]], "status": "shape_mismatch"}], "max_abs_diff": None, "rows": 0, "step": 20}
    conv = keras.conversion_from_json(data)
    assert isinstance(conv, KerasConversion) and conv.layers[0].status == "shape_mismatch" and conv.model.cls == "DNNClassifier"
    assert keras.conversion_json(conv)["layers"][0]["keras_shapes"] == [[4, 20]]
    assert conv.report_fields(model="train.py:9") == {"checkpoint": "c", "model": "train.py:9", "passed": False, "verdict": "v",
                                                       "out": None, "max_difference": None, "notes": []}


# ------------------------------------------------------------------------------------ TensorFlow 2.15 + 2.21

TRAINED = ("estimator_v2", "skflow_binary", "estimator_linear", "estimator_embedding", "estimator_partitioned", "estimator_batchnorm")


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory, specs: dict[str, str]) -> dict:
    python = keras_python()
    d = tmp_path_factory.mktemp("keras_convert")
    run_python([str(ROOT / "tests" / "ckpt_factory.py"), str(d / "ck"), *TRAINED], check=True, env=ENV, timeout=600)
    manifest = json.loads((d / "ck" / "manifest.json").read_text())
    jobs = {
        "skflow": (SAMPLES / "checkpoints" / "skflow", specs["keras"], d / "skflow"),
        "contrib1x": (SAMPLES / "checkpoints" / "contrib1x", specs["iris"], d / "contrib1x.weights.h5"),
        "trap": (SAMPLES / "iris_checkpoint_trap" / "models" / "iris", f"{SAMPLES / 'iris_checkpoint_trap' / 'expected.py'}:21", d / "trap"),
        "iris": (SAMPLES / "iris_checkpoint_trap" / "models" / "iris", specs["iris"], d / "iris"),
        "estimator_v2": (manifest["estimator_v2"]["dir"], specs["keras"], d / "estimator_v2"),
        "skflow_binary": (manifest["skflow_binary"]["dir"], specs["binary"], d / "skflow_binary"),
        "linear": (manifest["estimator_linear"]["dir"], specs["linear"], d / "linear"),
        "embedding": (manifest["estimator_embedding"]["dir"], specs["embedding"], d / "embedding"),
        "partitioned": (manifest["estimator_partitioned"]["dir"], specs["partitioned"], d / "partitioned"),
        "batchnorm": (manifest["estimator_batchnorm"]["dir"], specs["small"], d / "batchnorm"),
        "normalized": (SAMPLES / "checkpoints" / "skflow", specs["normalized"], d / "normalized"),
    }
    results = keras.convert_many([(str(c), s, str(o)) for c, s, o in jobs.values()], python=python)
    return {"dir": d, "manifest": manifest, "jobs": jobs, "results": dict(zip(jobs, results)), "python": python}


@pytest.mark.slow
def test_converted_checkpoints_predict_the_same(converted: dict) -> None:
    diffs = {}
    for name, conv in converted["results"].items():
        if name in ("trap", "batchnorm", "normalized"):
            continue
        assert isinstance(conv, KerasConversion), f"{name}: {conv}"
        assert conv.compatible, f"{name}: {conv.verdict}"
        assert conv.max_abs_diff is not None and conv.max_abs_diff < 1e-4 and conv.rows == keras.ROWS
        assert all(r.status == "match" for r in conv.layers) and Path(conv.out).is_file() and not conv.not_carried
        diffs[name] = conv.max_abs_diff
    print("max abs prediction difference (numpy vs Keras):", json.dumps(diffs))
    r = converted["results"]
    for name in ("skflow", "iris", "estimator_v2"):  # TF1 and TF2 Adagrad slots into the Keras Adagrad, read back equal
        assert any(n.startswith("the legacy Adagrad accumulators are carried (6 tensors; restored with max abs difference 0)")
                   for n in r[name].notes), (name, r[name].notes)
    assert any("not carried" in n for n in r["contrib1x"].notes)  # a centered bias: no accumulator of the sum
    assert Path(r["skflow"].out).name == "model.ckpt-200.weights.h5" and "training goes on from step 200" in r["skflow"].verdict
    assert r["contrib1x"].out.endswith("contrib1x.weights.h5") and r["contrib1x"].layers[-1].op == "add centered_bias_weight"
    assert r["skflow_binary"].layers[-1].op.startswith("2-class softmax") and r["skflow_binary"].layers[-1].keras_shapes == [[10, 1], [1]]
    assert [x.op for x in r["linear"].layers] == ["stack columns"] and r["linear"].layers[0].keras_shapes == [[11, 3], [3]]
    assert {x.keras_layer for x in r["embedding"].layers} == {"hiddenlayer_0", "logits", "color_embedding"}
    assert {x.keras_layer for x in r["partitioned"].layers} == {"hiddenlayer_0", "logits", "color_embedding"}


@pytest.mark.slow
def test_shape_mismatch_is_a_verdict(converted: dict) -> None:
    """The seed-001 trap: the [10, 10] checkpoint against the [20, 20] model: INCOMPATIBLE, each layer
    named with both shapes, nothing written, no model_dir left behind."""
    conv = converted["results"]["trap"]
    assert isinstance(conv, KerasConversion) and not conv.compatible and conv.out is None
    assert "layer hiddenlayer_0: checkpoint [4, 10] + [10]" in conv.verdict and "the Keras model's is [4, 20] + [20]" in conv.verdict
    assert [x.status for x in conv.layers] == ["shape_mismatch"] * 3
    assert not (converted["dir"] / "trap").exists()


@pytest.mark.slow
def test_what_the_keras_model_does_not_compute_is_not_passed(converted: dict) -> None:
    """Batch normalisation's weights have no place in canned_keras_model: INCOMPATIBLE, naming them.
    A normalizer_fn it does not apply: one line, nothing written."""
    conv = converted["results"]["batchnorm"]
    assert isinstance(conv, KerasConversion) and not conv.compatible
    assert "batchnorm" in conv.verdict and any("batchnorm" in n for n in conv.not_carried)
    err = converted["results"]["normalized"]
    assert isinstance(err, CheckpointError) and "normalizer_fn" in str(err)
    assert not (converted["dir"] / "normalized").exists()


@pytest.mark.slow
def test_numpy_forward_pass_is_the_estimators(converted: dict) -> None:
    """The numpy forward pass the verdict trusts gives what TF 2.15's own DNNClassifier predicts from the checkpoint."""
    d = converted["dir"]
    x = np.random.RandomState(7).normal(size=(12, 4)).astype("float32")
    requests = [{"model_dir": converted["manifest"]["estimator_v2"]["dir"], "hidden_units": [10, 10], "n_classes": 3, "x": x.tolist()},
                {"model_dir": str(SAMPLES / "iris_checkpoint_trap" / "models" / "iris"), "hidden_units": [10, 10], "n_classes": 3, "x": x.tolist()}]
    (d / "requests.json").write_text(json.dumps(requests))
    proc = run_python([str(ROOT / "tests" / "ckpt_factory.py"), "--predict", str(d / "requests.json")], check=True, env=ENV, timeout=600)
    probs = json.loads(proc.stdout.strip().splitlines()[-1])["probabilities"]
    info = {"estimator": "DNNClassifier", "activation": "relu", "width": 3,
            "columns": [{"name": "x", "kind": "NumericColumn", "key": "x", "shape": [4]}]}
    for request, p in zip(requests, probs):
        logits = keras.numpy_logits(keras.read_checkpoint_model(index.read(request["model_dir"])), info, {"x": x})
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        np.testing.assert_allclose(e / e.sum(axis=1, keepdims=True), np.asarray(p), atol=1e-5)


KERAS_CHECK = '''\
import json, os, sys
import numpy as np
from tfmigrate import keras_runtime
ns = {}
exec(keras_runtime.program_text(), ns)
tf = ns["tf"]
x = np.random.RandomState(7).normal(size=(12, 4)).astype("float32")
cols = [tf.feature_column.numeric_column("x", shape=[4])]
out = {}
migrated = ns["canned_keras_model"]("DNNClassifier", feature_columns=cols, optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
                                    hidden_units=[10, 10], n_classes=3, model_dir=sys.argv[1])
out["model_dir"] = {"iterations": int(migrated.optimizer.iterations), "logits": migrated.predict({"x": x}, verbose=0).tolist()}
y = np.arange(12) % 3
migrated.fit({"x": x}, y, batch_size=4, epochs=1, steps_per_epoch=3, verbose=0, callbacks=ns["checkpoints"](migrated))
out["trained_on"] = {"iterations": int(migrated.optimizer.iterations), "files": sorted(os.listdir(sys.argv[1]))}
fresh = ns["canned_keras_model"]("DNNClassifier", feature_columns=cols, optimizer=tf.keras.optimizers.Adam(), hidden_units=[10, 10], n_classes=3)
fresh.load_weights(sys.argv[2])
out["file"] = {"logits": fresh.predict({"x": x}, verbose=0).tolist()}
print(json.dumps(out))
'''


@pytest.mark.slow
def test_weights_load_into_the_generated_model(converted: dict) -> None:
    """A TF 2.21 program of its own: canned_keras_model(model_dir=OUT) restores the converted skflow
    weights and step, and trains on from them (checkpoints(model) saves step 203 beside 200); a
    .weights.h5 file loads with load_weights; both predict the legacy logits."""
    d = converted["dir"]
    script = d / "keras_check.py"
    script.write_text(KERAS_CHECK)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = run_keras([str(script), str(d / "skflow"), str(d / "contrib1x.weights.h5")], cwd=d, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["model_dir"]["iterations"] == 200
    assert got["trained_on"] == {"iterations": 203, "files": ["model.ckpt-200.weights.h5", "model.ckpt-203.weights.h5"]}  # it trains on
    x = np.random.RandomState(7).normal(size=(12, 4)).astype("float32")
    w = _weights(1, [4, 10, 10, 3])  # the samples' weights (skflow and contrib1x, whose centered bias is 0)
    h = x.astype("float64")
    for k, b in w[:-1]:
        h = np.maximum(h @ k + b, 0.0)
    logits = h @ w[-1][0] + w[-1][1]
    np.testing.assert_allclose(got["model_dir"]["logits"], logits, atol=1e-4)
    np.testing.assert_allclose(got["file"]["logits"], logits, atol=1e-4)


@pytest.mark.slow
def test_cli_shape_mismatch(converted: dict, tmp_path: Path) -> None:
    """`ckpt convert --to keras` on the seed-001 trap: exit 1, a table naming each layer with both shapes."""
    r = CliRunner().invoke(ckpt, ["convert", str(SAMPLES / "iris_checkpoint_trap" / "models" / "iris"), str(tmp_path / "trap"),
                                  "--to", "keras", "--model", f"{SAMPLES / 'iris_checkpoint_trap' / 'expected.py'}:21",
                                  "--python", converted["python"]])
    assert r.exit_code == 1, r.output
    assert r.output.startswith("INCOMPATIBLE") and "nothing written" in r.output
    assert "SHAPE" in r.output and "dnn/hiddenlayer_1/kernel" in r.output and "[10, 10] + [10]" in r.output and "[20, 20] + [20]" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "trap").exists()
