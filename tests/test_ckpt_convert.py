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

from tfmigrate.checkpoint import api, values
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


RESUME_OPTIMIZERS = ("Adagrad", "Adam")
RESUME_STEPS = 3
MIGRATED = """import tensorflow as tf
est = tf.estimator.DNNClassifier(
    feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
    hidden_units=[10, 10], n_classes=3, model_dir="models/iris"{optimizer})
"""
LINEAR_STEPS_AT = 150  # the contrib.learn 1.x LinearClassifier checkpoint's global_step (ckpt_factory "contrib1x_linear")
MIGRATED_LINEAR = {  # the migrated models of the contrib.learn 1.x linear checkpoints (ckpt_factory "contrib1x_<kind>")
    "linear": """import tensorflow as tf
est = tf.estimator.LinearClassifier(
    feature_columns=[tf.feature_column.numeric_column("x", shape=[4])], n_classes=3, model_dir="models/iris")
""",
    "combined": """import tensorflow as tf
x = tf.feature_column.numeric_column("x", shape=[4])
est = tf.estimator.DNNLinearCombinedClassifier(
    linear_feature_columns=[x], dnn_feature_columns=[x], dnn_hidden_units=[10, 10], n_classes=3, model_dir="models/iris")
"""}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("convert")
    models = {}
    for opt in RESUME_OPTIMIZERS:  # the migrated models of the resumable conversions below
        models[opt] = out / f"migrated_{opt.lower()}.py"
        models[opt].write_text(MIGRATED.format(optimizer=f", optimizer={opt!r}" if opt != "Adagrad" else ""))
    for kind, text in MIGRATED_LINEAR.items():
        models[kind] = out / f"migrated_{kind}.py"
        models[kind].write_text(text)
    run_python([str(ROOT / "tests" / "ckpt_factory.py"), str(out / "ck"), "skflow", "skflow_binary", "contrib09", "skflow_resume",
                *(f"contrib1x_{k}" for k in MIGRATED_LINEAR), "--variables",
                *(str(models[o]) for o in (*RESUME_OPTIMIZERS, *MIGRATED_LINEAR))],
               check=True, env=ENV, timeout=600)
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
    # resumable conversions (issue 30): the skflow checkpoint at step 200, with trained Adagrad accumulators, converted
    # --model for the same optimizer (slots renamed) and for another (its slots as it initialises them); the factory child
    # lists both models' variables (the factory's, with tfmigrate's own child code), then train(steps=RESUME_STEPS) runs from
    # each converted model_dir in the predict child
    model_results = dict(zip(RESUME_OPTIMIZERS, manifest["variables"]))
    resumed_conv, legacy_diff = {}, {}
    for opt in RESUME_OPTIMIZERS:
        legacy_diff[opt] = api.diff(manifest["skflow_resume"]["dir"], str(models[opt]), model_result=model_results[opt])
        resumed_conv[opt] = api.convert(manifest["skflow_resume"]["dir"], out / f"resume_{opt}", model=str(models[opt]),
                                        model_result=model_results[opt])
        requests.append({"model": str(models[opt]), "model_dir": str(out / f"resume_{opt}"), "steps": RESUME_STEPS})
    # contrib.learn 1.x LinearClassifier / DNNLinearCombinedClassifier checkpoints (linear/x/weight, linear/bias_weight, Ftrl
    # slots; the combined one's DNN with Adagrad slots) converted --model for their migrated models, resumed in the same child
    linear = {}
    for i, kind in enumerate(MIGRATED_LINEAR, start=len(RESUME_OPTIMIZERS)):
        conv = api.convert(manifest[f"contrib1x_{kind}"]["dir"], out / f"resume_{kind}", model=str(models[kind]),
                           model_result=manifest["variables"][i])
        linear[kind] = {"converted": conv, "model": manifest["variables"][i], "answer": len(requests) - 3,
                        "legacy_diff": api.diff(manifest[f"contrib1x_{kind}"]["dir"], str(models[kind]), model_result=manifest["variables"][i])}
        requests.append({"model": str(models[kind]), "model_dir": str(out / f"resume_{kind}"), "steps": RESUME_STEPS})
    (out / "requests.json").write_text(json.dumps(requests))
    proc = run_python([str(ROOT / "tests" / "ckpt_factory.py"), "--predict", str(out / "requests.json")], check=True, env=ENV, timeout=600)
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"manifest": manifest, "converted": converted, "x": x, "probs": answer["probabilities"], "dir": out,
            "resume": {"converted": resumed_conv, "legacy_diff": legacy_diff, "models": model_results,
                       "trained": dict(zip(RESUME_OPTIMIZERS, answer["resumed"]))},
            "linear": {k: {**v, "trained": answer["resumed"][v["answer"]]} for k, v in linear.items()}}


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


# ------------------------------------------------------------------ resumable conversions (issue 30)

LEGACY_WEIGHTS = {"dnn/layer0/Linear/Matrix": "dnn/hiddenlayer_0/kernel", "dnn/layer0/Linear/Bias": "dnn/hiddenlayer_0/bias",
                  "dnn/layer1/Linear/Matrix": "dnn/hiddenlayer_1/kernel", "dnn/layer1/Linear/Bias": "dnn/hiddenlayer_1/bias",
                  "logistic_regression/weights": "dnn/logits/kernel", "logistic_regression/bias": "dnn/logits/bias"}


@pytest.mark.parametrize("opt", RESUME_OPTIMIZERS)
def test_converted_for_the_model_train_resumes_at_the_legacy_step(made: dict, opt: str) -> None:
    conv = made["resume"]["converted"][opt]
    # the old verdict was INCOMPATIBLE (exit 1: "optimizer state: 8 missing ... train() raises NotFoundError"): the bug
    assert conv["diff"]["compatible"], conv["diff"]["verdict"]
    assert Path(conv["out"]).name == "model.ckpt-200"
    trained = made["resume"]["trained"][opt]
    assert trained["error"] is None, trained
    assert trained["global_step"] == 200 + RESUME_STEPS
    legacy = values.read_arrays(made["manifest"]["skflow_resume"]["prefix"])
    restored = {k: np.array(v) for k, v in trained["restored"].items()}
    assert restored["global_step"] == 200
    for old, new in LEGACY_WEIGHTS.items():
        np.testing.assert_array_equal(restored[new], legacy[old])
        if opt == "Adagrad":  # the same optimizer: the legacy accumulators, renamed across eras
            np.testing.assert_array_equal(restored[f"training/Adagrad/{new}/accumulator"], legacy[old + "/Adagrad"])
            assert not np.allclose(legacy[old + "/Adagrad"], 0.1)  # trained accumulators, not Adagrad's initial value
        else:  # another optimizer: its slots as it initialises them, the legacy Adagrad slots said not carried
            np.testing.assert_array_equal(restored[f"training/Adam/{new}/m"], np.zeros_like(legacy[old]))
            np.testing.assert_array_equal(restored[f"training/Adam/{new}/v"], np.zeros_like(legacy[old]))
            assert "the model's optimizer is Adam" in conv["not_carried"][old + "/Adagrad"]
    # hyperparameters are the model's own (TF 2.15's canned Adagrad and Adam both default to 0.001), not skflow's 0.1
    np.testing.assert_allclose(restored[f"training/{opt}/learning_rate"], 0.001, rtol=1e-6)
    assert "learning rate" in conv["not_carried"]["learning_rate"]


def test_another_optimizers_state_is_said_in_one_line_per_kind(made: dict) -> None:
    adam = made["resume"]["converted"]["Adam"]["notes"]
    lines = [n for n in adam if "as Adam initialises" in n]
    assert sorted(n.split(":")[0] for n in lines) == ["Adam hyperparameter beta_1 = 0.9", "Adam hyperparameter beta_2 = 0.999",
                                                       "Adam hyperparameter decay = 0", "Adam hyperparameter learning_rate = 0.001",
                                                       "Adam slot m = 0", "Adam slot v = 0"]
    assert any(n.startswith("Adam slot m = 0: 6 variable(s)") for n in lines)
    adagrad = made["resume"]["converted"]["Adagrad"]
    assert any(n.startswith("6 Adagrad slot(s) renamed") for n in adagrad["notes"])
    assert adagrad["name_map"]["dnn/layer0/Linear/Matrix/Adagrad"] == "training/Adagrad/dnn/hiddenlayer_0/kernel/accumulator"


def test_diff_of_the_legacy_checkpoint_says_convert_resumes(made: dict) -> None:
    for opt in RESUME_OPTIMIZERS:
        d = made["resume"]["legacy_diff"][opt]
        assert not d["compatible"]  # as it is, the legacy checkpoint's names are not the model's
        assert "train() goes on from the checkpoint's global_step" in d["verdict"] and f"model's {opt} state" in d["verdict"]



LEGACY_LINEAR = {"linear/x/weight": "linear/linear_model/x/weights", "linear/bias_weight": "linear/linear_model/bias_weights"}
LEGACY_DNN = {"dnn/hiddenlayer_0/weights": "dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_1/biases": "dnn/hiddenlayer_1/bias",
              "dnn/logits/weights": "dnn/logits/kernel", "dnn/logits/biases": "dnn/logits/bias"}


@pytest.mark.parametrize("kind", list(MIGRATED_LINEAR))
def test_a_legacy_linear_checkpoint_converts_and_train_resumes_with_its_ftrl_state(made: dict, kind: str) -> None:
    """contrib.learn 1.x LinearClassifier names (``linear/<col>/weight``, ``linear/bias_weight``, Ftrl slots
    ``/Ftrl``, ``/Ftrl_1``; a DNNLinearCombined's DNN part with Adagrad slots) onto TF 2.15's, which the
    real TF 2.15 models list (the factory child): convert is compatible, and train(steps=N) restores the
    legacy weights and both optimizers' state and goes on from step 150."""
    got = made["linear"][kind]
    conv = got["converted"]
    pairs = {**LEGACY_LINEAR, **(LEGACY_DNN if kind == "combined" else {})}
    slots = {old: [(f"training/Ftrl/{new}/accumulator", "/Ftrl"), (f"training/Ftrl/{new}/linear", "/Ftrl_1")]
             for old, new in LEGACY_LINEAR.items()}
    if kind == "combined":
        slots.update({old: [(f"training/Adagrad/{new}/accumulator", "/Adagrad")] for old, new in LEGACY_DNN.items()})
    target = {v["name"] for v in got["model"]["variables"]}  # what the real TF 2.15 estimator creates
    assert {*pairs.values(), *(n for pairs_ in slots.values() for n, _ in pairs_)} <= target
    assert conv["diff"]["compatible"], conv["diff"]["verdict"]
    assert Path(conv["out"]).name == f"model.ckpt-{LINEAR_STEPS_AT}"
    trained = got["trained"]
    assert trained["error"] is None, trained
    assert trained["global_step"] == LINEAR_STEPS_AT + RESUME_STEPS
    legacy = values.read_arrays(made["manifest"][f"contrib1x_{kind}"]["prefix"])
    restored = {k: np.array(v) for k, v in trained["restored"].items()}
    assert restored["global_step"] == LINEAR_STEPS_AT
    for old, new in pairs.items():
        assert conv["name_map"][old] == new
        np.testing.assert_array_equal(restored[new], legacy[old])
        for slot_new, suffix in slots[old]:
            np.testing.assert_array_equal(restored[slot_new], legacy[old + suffix])
            assert conv["name_map"][old + suffix] == slot_new
    assert any(n.startswith("4 Ftrl slot(s) renamed") for n in conv["notes"])
    assert not [n for n in conv["not_carried"] if n.startswith(("linear/", "dnn/"))], conv["not_carried"]
    legacy_diff = got["legacy_diff"]  # the checkpoint as it is: its names are not the model's, and convert resumes
    assert not legacy_diff["compatible"] and "train() goes on from the checkpoint's global_step" in legacy_diff["verdict"]
    assert "written by contrib.learn 1.x" in legacy_diff["verdict"] and "Ftrl" in legacy_diff["verdict"], legacy_diff["verdict"]
