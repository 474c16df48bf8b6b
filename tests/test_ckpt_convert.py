"""``ckpt convert``: legacy checkpoints carried onto tf.estimator names, then used by the migrated model.

The proof is numerical: after ``convert --map auto``, a ``tf.estimator.DNNClassifier`` pointed at
the converted model_dir predicts exactly what a numpy forward pass of the OLD weights gives.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tfmigrate.checkpoint import api
from tfmigrate.cli.ckpt import ckpt
from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
ENV = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")


def forward(weights: list, x: np.ndarray, centered_bias: list | None = None) -> np.ndarray:
    """The legacy DNN classifier's forward pass: relu hidden layers, softmax logits."""
    h = x
    for k, b in weights[:-1]:
        h = np.maximum(h @ np.array(k) + np.array(b), 0.0)
    k, b = weights[-1]
    logits = h @ np.array(k) + np.array(b) + (np.array(centered_bias) if centered_bias is not None else 0.0)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("convert")
    run_python([str(ROOT / "tests" / "ckpt_factory.py"), str(out / "ck"), "skflow", "skflow_binary", "contrib09"], check=True, env=ENV, timeout=600)
    manifest = json.loads((out / "ck" / "manifest.json").read_text())
    converted = {}
    for kind in ("skflow", "skflow_binary", "contrib09"):
        result = CliRunner().invoke(ckpt, ["convert", manifest[kind]["dir"], str(out / f"{kind}_v2"), "--map", "auto", "--format", "json"])
        assert result.exit_code == 0, result.output
        converted[kind] = json.loads(result.output)
    x = np.random.RandomState(5).normal(size=(16, 4)).astype("float32")
    requests = [
        {"model_dir": str(out / "skflow_v2"), "hidden_units": [10, 10], "n_classes": 3, "x": x.tolist()},
        {"model_dir": str(out / "skflow_binary_v2"), "hidden_units": [10, 10], "n_classes": 2, "x": x.tolist()},
        {"model_dir": str(out / "contrib09_v2"), "hidden_units": [10, 10], "n_classes": 3, "x": x.tolist()},
    ]
    (out / "requests.json").write_text(json.dumps(requests))
    proc = run_python([str(ROOT / "tests" / "ckpt_factory.py"), "--predict", str(out / "requests.json")], check=True, env=ENV, timeout=600)
    probs = json.loads(proc.stdout.strip().splitlines()[-1])["probabilities"]
    return {"manifest": manifest, "converted": converted, "x": x, "probs": probs, "dir": out}


def test_skflow_checkpoint_converts_and_predicts_like_the_old_weights(made: dict) -> None:
    m = made["manifest"]["skflow"]
    conv = made["converted"]["skflow"]
    assert conv["name_map"]["dnn/layer0/Linear/Matrix"] == "dnn/hiddenlayer_0/kernel"
    assert conv["name_map"]["dnn/layer1/Linear/Bias"] == "dnn/hiddenlayer_1/bias"
    assert conv["name_map"]["logistic_regression/weights"] == "dnn/logits/kernel"
    assert "dnn/layer0/Linear/Matrix/Adagrad" in conv["not_carried"]
    assert "learning_rate" in conv["not_carried"]
    expected = forward(m["weights"], made["x"])
    np.testing.assert_allclose(np.array(made["probs"][0]), expected, rtol=1e-5, atol=1e-6)


def test_converted_checkpoint_is_estimator_v2_shaped(made: dict) -> None:
    data = api.inspect(made["converted"]["skflow"]["out"])
    names = {v["name"]: (v["dtype"], v["shape"]) for v in data["variables"]}
    assert names["global_step"] == ("int64", [])  # skflow wrote an int32 global_step
    assert names["dnn/logits/kernel"] == ("float32", [10, 3])
    assert data["writer"] == "estimator-v2"
    assert Path(made["converted"]["skflow"]["out"]).name == "model.ckpt-200"


def test_binary_softmax_becomes_one_sigmoid_logit(made: dict) -> None:
    m = made["manifest"]["skflow_binary"]
    conv = made["converted"]["skflow_binary"]
    assert any(op["op"] == "diff_last" and op["new"] == "dnn/logits/kernel" for op in conv["ops"])
    np.testing.assert_allclose(np.array(made["probs"][1]), forward(m["weights"], made["x"]), rtol=1e-5, atol=1e-6)


def test_contrib09_centered_bias_is_folded_into_the_logits_bias(made: dict) -> None:
    m = made["manifest"]["contrib09"]
    conv = made["converted"]["contrib09"]
    assert conv["name_map"]["hiddenlayer_0/weights"] == "dnn/hiddenlayer_0/kernel"
    assert conv["name_map"]["dnn_logit/weights"] == "dnn/logits/kernel"
    op = next(o for o in conv["ops"] if o["new"] == "dnn/logits/bias")
    assert op == {"new": "dnn/logits/bias", "op": "add", "src": ["dnn_logit/bias", "centered_bias_weight"]}
    expected = forward(m["weights"], made["x"], centered_bias=m["centered_bias"])
    np.testing.assert_allclose(np.array(made["probs"][2]), expected, rtol=1e-5, atol=1e-6)


def test_convert_with_map_file_and_model(made: dict, tmp_path: Path) -> None:
    model = tmp_path / "migrated.py"
    model.write_text(textwrap.dedent("""
        import tensorflow as tf
        est = tf.estimator.DNNClassifier(
            feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
            hidden_units=[10, 10], n_classes=3, model_dir="models/iris")
        """))
    toml = tmp_path / "map.toml"
    lines = ["[map]"]
    for i in range(2):
        lines += [f'"hiddenlayer_{i}/weights" = "dnn/hiddenlayer_{i}/kernel"', f'"hiddenlayer_{i}/bias" = "dnn/hiddenlayer_{i}/bias"']
    lines += ['"dnn_logit/weights" = "dnn/logits/kernel"', '"dnn_logit/bias" = "dnn/logits/bias"', "", 'drop = ["centered_bias_weight"]']
    toml.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(ckpt, ["convert", made["manifest"]["contrib09"]["dir"], str(tmp_path / "out"), "--map", str(toml),
                                       "--model", str(model), "--drop-optimizer", "--format", "json"])
    # written and verified, but incompatible for train() (no optimizer state): exit 1, as the verdict says
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert data["verified"] and "centered_bias_weight" in data["not_carried"] and data["diff"]["compatible"] is False
    assert all(p["status"] == "match" for p in data["diff"]["pairs"] if p["kind"] == "model")
    assert "train() raises NotFoundError" in data["diff"]["verdict"]  # optimizer state was dropped
    written = {v["name"] for v in api.inspect(tmp_path / "out")["variables"]}
    assert written == {"dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_1/kernel",
                       "dnn/hiddenlayer_1/bias", "dnn/logits/kernel", "dnn/logits/bias", "global_step"}
