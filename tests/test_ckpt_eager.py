"""``ckpt diff`` / ``ckpt convert`` for a 2017 ``tfe.Network`` checkpoint (issue 7, checkpoint side).

The legacy eager MNIST model (samples/eager_mnist/legacy.py) saved by ``tfe.Saver`` has name-based
keys (``mnist_model/conv2d/kernel``, ``mnist_model/dense_1/bias``...); its migration
(samples/eager_mnist/expected.py) is a ``tf.keras.Model`` saved with ``tf.train.Checkpoint``
(``model/conv1/kernel/.ATTRIBUTES/VARIABLE_VALUE``). The proof is numerical: after ``convert --map
auto --model NEW_CKPT``, the migrated model restored with ``tf.train.Checkpoint(model=model)``
computes what a numpy forward pass of the OLD weights computes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tfmigrate.checkpoint import api, classify, names
from tfmigrate.cli.ckpt import ckpt
from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
ENV = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")

RESTORE = r"""
import importlib.util, json, sys
import numpy as np
import tensorflow as tf
spec = importlib.util.spec_from_file_location("expected", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
model = mod.MNISTModel("channels_last")
x = np.load(sys.argv[3])
model(tf.zeros([1, 784]), training=False)
status = tf.train.Checkpoint(model=model).restore(sys.argv[2])
status.assert_existing_objects_matched()
print(json.dumps({"logits": model(x, training=False).numpy().tolist()}))
"""


def conv_valid(x: np.ndarray, k: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NHWC x HWIO, stride 1, 'valid' (tf.layers.Conv2D's default)."""
    kh, kw = k.shape[:2]
    n, h, w, _ = x.shape
    oh, ow = h - kh + 1, w - kw + 1
    cols = np.stack([x[:, i:i + oh, j:j + ow, :] for i in range(kh) for j in range(kw)], axis=3)  # n,oh,ow,kh*kw,c
    return cols.reshape(n, oh, ow, -1) @ k.reshape(-1, k.shape[-1]) + b


def pool2(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape  # even sizes here: 'SAME' pads nothing
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def forward(w: dict, x: np.ndarray) -> np.ndarray:
    """The legacy MNISTModel.call(training=False), channels_last, in float64 numpy."""
    g = lambda layer, part: w[f"mnist_model__{layer}__{part}"].astype("float64")  # noqa: E731
    h = x.astype("float64").reshape(-1, 28, 28, 1)
    h = pool2(np.maximum(conv_valid(h, g("conv2d", "kernel"), g("conv2d", "bias")), 0))
    h = pool2(np.maximum(conv_valid(h, g("conv2d_1", "kernel"), g("conv2d_1", "bias")), 0))
    h = h.reshape(len(h), -1)
    h = np.maximum(h @ g("dense", "kernel") + g("dense", "bias"), 0)
    return h @ g("dense_1", "kernel") + g("dense_1", "bias")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("eager")
    run_python([str(ROOT / "tests" / "ckpt_factory.py"), str(out / "ck"), "tfe_network"], check=True, env=ENV, timeout=600)
    m = json.loads((out / "ck" / "manifest.json").read_text())["tfe_network"]
    diff = api.diff(m["prefix"], m["keras_new"])
    result = CliRunner().invoke(ckpt, ["convert", m["dir"], str(out / "converted"), "--map", "auto",
                                       "--model", m["keras_new"], "--format", "json"])
    assert result.exit_code == 0, result.output
    converted = json.loads(result.output)
    x = np.random.RandomState(7).rand(3, 784).astype("float32")
    np.save(out / "x.npy", x)
    proc = run_python(["-c", RESTORE, str(ROOT / "samples" / "eager_mnist" / "expected.py"), converted["out"], str(out / "x.npy")], env=ENV, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    logits = np.array(json.loads(proc.stdout.strip().splitlines()[-1])["logits"])
    return {"m": m, "diff": diff, "converted": converted, "x": x, "logits": logits,
            "weights": dict(np.load(m["weights_npz"]))}


EXPECTED_MAP = {
    "mnist_model/conv2d/kernel": "model/conv1/kernel/.ATTRIBUTES/VARIABLE_VALUE",
    "mnist_model/conv2d/bias": "model/conv1/bias/.ATTRIBUTES/VARIABLE_VALUE",
    "mnist_model/conv2d_1/kernel": "model/conv2/kernel/.ATTRIBUTES/VARIABLE_VALUE",
    "mnist_model/conv2d_1/bias": "model/conv2/bias/.ATTRIBUTES/VARIABLE_VALUE",
    "mnist_model/dense/kernel": "model/fc1/kernel/.ATTRIBUTES/VARIABLE_VALUE",
    "mnist_model/dense/bias": "model/fc1/bias/.ATTRIBUTES/VARIABLE_VALUE",
    "mnist_model/dense_1/kernel": "model/fc2/kernel/.ATTRIBUTES/VARIABLE_VALUE",
    "mnist_model/dense_1/bias": "model/fc2/bias/.ATTRIBUTES/VARIABLE_VALUE",
}


def test_diff_recognises_tfe_writer_and_proposes_the_layer_map(made: dict) -> None:
    d = made["diff"]
    assert d["writer"] == "tfe-network"
    assert "tfe.Network" in classify.WRITERS[d["writer"]]
    assert not d["compatible"]
    assert d["name_map"] == EXPECTED_MAP
    assert "mnist_model/conv2d/kernel" in d["verdict"]
    assert "do not fit" not in d["verdict"], "bookkeeping keys are not model weights"
    statuses = {p["model_name"]: p["status"] for p in d["pairs"] if p["model_name"] in EXPECTED_MAP.values()}
    assert set(statuses.values()) == {"match"} and len(statuses) == 8


def test_convert_writes_an_object_based_checkpoint(made: dict) -> None:
    conv = made["converted"]
    assert conv["name_map"] == EXPECTED_MAP
    assert "mnist_model/dense/kernel/Momentum" in conv["not_carried"]
    assert "global_step" in conv["not_carried"]
    data = api.inspect(conv["out"])
    assert data["writer"] == "object-based"
    got = {v["name"]: v["shape"] for v in data["variables"]}
    assert got["model/fc1/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [1024, 1024]
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in got and got["save_counter/.ATTRIBUTES/VARIABLE_VALUE"] == []
    assert conv["diff"]["compatible"] is True, conv["diff"]["verdict"]


def test_restored_keras_model_computes_the_legacy_forward_pass(made: dict) -> None:
    expected = forward(made["weights"], made["x"])
    assert np.abs(expected).max() > 1e-3  # a real signal, not zeros
    np.testing.assert_allclose(made["logits"], expected, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ name tables (no TensorFlow)

def test_network_save_names_without_scope_and_shape_pairing() -> None:
    # Network.save strips the network scope: conv2d/kernel...; the Keras attributes sort differently
    # from creation order (b_conv before a_conv would pair wrong by order): shapes decide
    old = {"conv2d/kernel": [3, 3, 1, 4], "conv2d/bias": [4], "conv2d_1/kernel": [3, 3, 4, 8], "conv2d_1/bias": [8],
           "dense/kernel": [32, 5], "dense/bias": [5]}
    new = {"model/b_conv/kernel/.ATTRIBUTES/VARIABLE_VALUE": [3, 3, 1, 4], "model/b_conv/bias/.ATTRIBUTES/VARIABLE_VALUE": [4],
           "model/a_conv/kernel/.ATTRIBUTES/VARIABLE_VALUE": [3, 3, 4, 8], "model/a_conv/bias/.ATTRIBUTES/VARIABLE_VALUE": [8],
           "model/out/kernel/.ATTRIBUTES/VARIABLE_VALUE": [32, 5], "model/out/bias/.ATTRIBUTES/VARIABLE_VALUE": [5],
           "_CHECKPOINTABLE_OBJECT_GRAPH": [], "save_counter/.ATTRIBUTES/VARIABLE_VALUE": []}
    assert classify.writer(old) == "tfe-network"
    p = names.plan(old, new)
    assert p.name_map["conv2d/kernel"] == "model/b_conv/kernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert p.name_map["conv2d_1/bias"] == "model/a_conv/bias/.ATTRIBUTES/VARIABLE_VALUE"
    assert p.name_map["dense/kernel"] == "model/out/kernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert any("paired by shape" in n for n in p.notes)
    assert p.ops[0]["op"] == "object_graph"


def test_layer_suffixes_order_numerically_and_kinds_do_not_cross() -> None:
    old = {f"net/dense{'' if i == 0 else f'_{i}'}/kernel": [10 + i, 11 + i] for i in range(11)}
    new = {f"layer_with_weights-{i}/kernel/.ATTRIBUTES/VARIABLE_VALUE": [10 + i, 11 + i] for i in range(11)}
    p = names.plan(old, new)
    assert p.name_map["net/dense_10/kernel"] == "layer_with_weights-10/kernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert p.name_map["net/dense_2/kernel"] == "layer_with_weights-2/kernel/.ATTRIBUTES/VARIABLE_VALUE"
    # a conv layer never pairs with a dense one: counts per kind differ -> nothing is mapped by order
    bad = names.plan({"conv2d/kernel": [3, 3, 1, 4], "dense/kernel": [4, 2]},
                     {"model/d1/kernel/.ATTRIBUTES/VARIABLE_VALUE": [4, 4], "model/d2/kernel/.ATTRIBUTES/VARIABLE_VALUE": [4, 2]})
    assert "conv2d/kernel" in bad.not_carried


def test_estimator_names_are_not_taken_for_tf_layers() -> None:
    assert classify.writer({"dnn/hiddenlayer_0/kernel": [4, 10], "dnn/logits/kernel": [10, 3], "global_step": []}) == "estimator-v2"
