"""Name maps across eras, tensor kinds and verdict selection, on variable tables (no TensorFlow).

The tables use the names the legacy sources create (see tfmigrate/checkpoint/classify.py) and the
names TF 2.15 creates (FACTS.md); the end-to-end tests with real checkpoints are in
test_ckpt_diff.py and test_ckpt_convert.py.
"""

from __future__ import annotations

import pytest

from tfmigrate.checkpoint import classify, compare, names

V2 = {
    "dnn/hiddenlayer_0/kernel": [4, 10], "dnn/hiddenlayer_0/bias": [10],
    "dnn/hiddenlayer_1/kernel": [10, 10], "dnn/hiddenlayer_1/bias": [10],
    "dnn/logits/kernel": [10, 3], "dnn/logits/bias": [3], "global_step": [],
    "training/Adagrad/dnn/logits/kernel/accumulator": [10, 3], "training/Adagrad/learning_rate": [],
}
ERAS = {
    "skflow-0.8": {"dnn/layer0/Linear/Matrix": [4, 10], "dnn/layer0/Linear/Bias": [10],
                   "dnn/layer1/Linear/Matrix": [10, 10], "dnn/layer1/Linear/Bias": [10],
                   "logistic_regression/weights": [10, 3], "logistic_regression/bias": [3],
                   "dnn/layer0/Linear/Matrix/Adagrad": [4, 10], "global_step": [], "learning_rate": []},
    "contrib.learn-0.9": {"hiddenlayer_0/weights": [4, 10], "hiddenlayer_0/bias": [10],
                          "hiddenlayer_1/weights": [10, 10], "hiddenlayer_1/bias": [10],
                          "dnn_logit/weights": [10, 3], "dnn_logit/bias": [3], "centered_bias_weight": [3],
                          "centered_bias_weight/Adagrad": [3], "global_step": []},
    "contrib.learn-1.x": {"dnn/hiddenlayer_0/weights": [4, 10], "dnn/hiddenlayer_0/biases": [10],
                          "dnn/hiddenlayer_1/weights": [10, 10], "dnn/hiddenlayer_1/biases": [10],
                          "dnn/logits/weights": [10, 3], "dnn/logits/biases": [3],
                          "dnn/logits/weights/Adagrad": [10, 3], "global_step": []},
    "estimator-v1": {"dnn/hiddenlayer_0/kernel": [4, 10], "dnn/hiddenlayer_0/bias": [10],
                     "dnn/hiddenlayer_1/kernel": [10, 10], "dnn/hiddenlayer_1/bias": [10],
                     "dnn/logits/kernel": [10, 3], "dnn/logits/bias": [3],
                     "dnn/logits/kernel/t_0/Adagrad": [10, 3], "global_step": []},
    "object-based": {f"layer_with_weights-{i}/{w}/.ATTRIBUTES/VARIABLE_VALUE": s
                     for i, (k, b) in enumerate([([4, 10], [10]), ([10, 10], [10]), ([10, 3], [3])])
                     for w, s in (("kernel", k), ("bias", b))} | {"_CHECKPOINTABLE_OBJECT_GRAPH": []},
}


@pytest.mark.parametrize("era", list(ERAS))
def test_every_era_maps_onto_v2_by_layer_order(era: str) -> None:
    assert classify.writer(ERAS[era]) == era
    plan = names.plan(ERAS[era], V2)
    model_map = {o: n for o, n in plan.name_map.items() if classify.kind(o) == "model"}
    assert sorted(model_map.values()) == sorted(n for n in V2 if classify.kind(n) == "model")
    for old, why in plan.not_carried.items():
        assert classify.kind(old) != "model" or old == "centered_bias_weight", (old, why)


def test_optimizer_slots_of_another_era_are_not_carried() -> None:
    plan = names.plan(ERAS["estimator-v1"], V2)
    assert "dnn/logits/kernel/t_0/Adagrad" in plan.not_carried
    assert "cannot be carried" in plan.not_carried["dnn/logits/kernel/t_0/Adagrad"]
    assert plan.name_map["global_step"] == "global_step"


def test_layer_count_mismatch_is_said() -> None:
    three = dict(V2, **{"dnn/hiddenlayer_2/kernel": [10, 10], "dnn/hiddenlayer_2/bias": [10]})
    plan = names.plan(ERAS["skflow-0.8"], three)
    assert any("cannot be paired" in n for n in plan.notes)
    assert "dnn/layer0/Linear/Matrix" in plan.not_carried


def test_default_target_is_v2_canned_dnn() -> None:
    plan = names.plan(ERAS["skflow-0.8"], None)
    assert plan.name_map["dnn/layer1/Linear/Matrix"] == "dnn/hiddenlayer_1/kernel"
    assert plan.name_map["logistic_regression/bias"] == "dnn/logits/bias"


@pytest.mark.parametrize("name,kind", [
    ("global_step", "bookkeeping"), ("learning_rate", "bookkeeping"), ("_CHECKPOINTABLE_OBJECT_GRAPH", "bookkeeping"),
    ("dnn/logits/kernel/t_0/Adagrad", "optimizer"), ("dnn/hiddenlayer_0/weights/Adagrad", "optimizer"),
    ("training/Adagrad/dnn/logits/bias/accumulator", "optimizer"), ("training/SGD/learning_rate", "optimizer"),
    ("dnn/hiddenlayer_0/kernel/part_0/Adam_1", "optimizer"),
    ("optimizer/layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE", "optimizer"),
    ("dnn/logits/kernel", "model"), ("centered_bias_weight", "model"), ("logistic_regression/weights", "model"),
])
def test_kinds(name: str, kind: str) -> None:
    assert classify.kind(name) == kind


def table(shapes: dict, partitioned: bool = False) -> list[dict]:
    return [{"name": n, "dtype": "int64" if n == "global_step" else "float32", "shape": s, "partitioned": partitioned}
            for n, s in shapes.items()]


def test_verdict_depends_on_how_tf_restores() -> None:
    wider = {n: [20 if d == 10 else d for d in s] for n, s in V2.items()}
    silent = compare.diff(table(V2), table(wider), {"api": "custom"}, "ck")
    assert "SILENTLY KEEPS" in silent["verdict"]
    raised = compare.diff(table(V2), table(wider, partitioned=True), {"api": "custom"}, "ck")
    assert "raises InvalidArgumentError" in raised["verdict"]
    keras = compare.diff(table(V2), table(wider), {"api": "keras"}, "ck")
    assert "load_weights raises" in keras["verdict"]


def test_fewer_classes_is_a_silent_wrong_prediction() -> None:
    two = dict(V2, **{"dnn/logits/kernel": [10, 2], "dnn/logits/bias": [2], "training/Adagrad/dnn/logits/kernel/accumulator": [10, 2]})
    data = compare.diff(table(V2), table(two), {"api": "v2"}, "ck")
    assert data["verdict"].startswith("n_classes changed") and "silently keep 3 logits" in data["verdict"]


def test_dtype_and_missing_verdicts() -> None:
    ck = table(V2)
    model = table(V2)
    model[0]["dtype"] = "float64"
    assert "raises at restore" in compare.diff(ck, model, {"api": "v2"}, "ck")["verdict"]
    extra = table(dict(V2, **{"dnn/hiddenlayer_2/kernel": [10, 10]}))
    data = compare.diff(ck, extra, {"api": "v2"}, "ck")
    assert "NotFoundError" in data["verdict"] and "dnn/hiddenlayer_2/kernel" in data["verdict"]
    assert "WarmStartSettings" in data["verdict"]


def test_without_a_model_what_no_era_map_renames_keeps_its_name() -> None:
    """Real checkpoints (issue 30): graph code's ``Variable``, ``Variable_1`` and a DNNLinearCombined
    model's linear part were dropped by ``convert --map auto`` without ``--model`` ("nothing to write")."""
    graph = {"Variable": [784, 10], "Variable_1": [10], "Variable/Adam": [784, 10], "beta1_power": [], "global_step": []}
    plan = names.plan(graph, None, drop_optimizer=False)  # as convert calls it: the same code restores its optimizer's slots
    assert plan.name_map == {n: n for n in graph} and not plan.not_carried
    assert "Variable/Adam" not in names.plan(graph, None, drop_optimizer=True).name_map
    wide_deep = {"dnn/hiddenlayer_0/kernel": [4, 10], "dnn/hiddenlayer_0/bias": [10], "dnn/logits/kernel": [10, 1],
                 "dnn/logits/bias": [1], "linear/linear_model/x/weights": [4, 1], "linear/linear_model/bias_weights": [1]}
    plan = names.plan(wide_deep, None)
    assert plan.name_map["linear/linear_model/x/weights"] == "linear/linear_model/x/weights"
    assert plan.name_map["linear/linear_model/bias_weights"] == "linear/linear_model/bias_weights"
    assert plan.name_map["dnn/hiddenlayer_0/kernel"] == "dnn/hiddenlayer_0/kernel" and not plan.not_carried
    # with a model, a tensor it lacks is still not carried, and said
    plan = names.plan(wide_deep, {k: v for k, v in wide_deep.items() if k.startswith("dnn/")})
    assert plan.not_carried["linear/linear_model/x/weights"] == "the model has no such variable"


def test_without_a_model_tf_layers_names_are_kept() -> None:
    """tf.layers names (graph code, a custom model_fn): the migrated code creates the same names, so
    without --model they are not renamed to a canned DNNClassifier's (found on tensorflow/models'
    reference checkpoints and an MNIST model_fn model_dir)."""
    layers = {"dense/kernel": [4, 8], "dense/bias": [8], "dense_1/kernel": [8, 2], "dense_1/bias": [2], "global_step": []}
    plan = names.plan({**layers, "dense/kernel/Adagrad": [4, 8]}, None, drop_optimizer=False)
    assert plan.name_map == {n: n for n in [*layers, "dense/kernel/Adagrad"]}
    assert any("names kept" in n for n in plan.notes)
    onto = names.plan(layers, {"dnn/hiddenlayer_0/kernel": [4, 8], "dnn/hiddenlayer_0/bias": [8],
                               "dnn/logits/kernel": [8, 2], "dnn/logits/bias": [2]})
    assert onto.name_map["dense/kernel"] == "dnn/hiddenlayer_0/kernel"  # with a model: mapped onto its names
