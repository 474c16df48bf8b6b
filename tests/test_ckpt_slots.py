"""Optimizer state across eras (issue 30), on variable tables (no TensorFlow): which legacy slot
becomes which TF 2.15 canned-estimator slot, and which model variables are written as the model's
optimizer initialises them. The end-to-end proof (train() resumes at the legacy step on TF 2.15) is
in test_ckpt_convert.py.

Legacy slot names: ``<var>/<Slot>`` (skflow, contrib.learn), ``<var>/t_0/<Slot>``,
``<var>/part_0/<Slot>`` (Estimator V1); the target names are the ones TF 2.15's DNNClassifier
creates (listed by its TF child: ``training/<Opt>/<var>/<slot>`` and hyperparameters).
"""

from __future__ import annotations

import pytest

from tfmigrate.checkpoint import compare, names, slots

LAYERS = [("hiddenlayer_0", [4, 10]), ("hiddenlayer_1", [10, 10]), ("logits", [10, 3])]
WEIGHTS = {f"dnn/{layer}/{w}": (shape if w == "kernel" else shape[-1:]) for layer, shape in LAYERS for w in ("kernel", "bias")}
# legacy name of each V2 weight, by era
LEGACY = {
    "skflow": {"dnn/hiddenlayer_0/kernel": "dnn/layer0/Linear/Matrix", "dnn/hiddenlayer_0/bias": "dnn/layer0/Linear/Bias",
               "dnn/hiddenlayer_1/kernel": "dnn/layer1/Linear/Matrix", "dnn/hiddenlayer_1/bias": "dnn/layer1/Linear/Bias",
               "dnn/logits/kernel": "logistic_regression/weights", "dnn/logits/bias": "logistic_regression/bias"},
    "contrib.learn-1.x": {n: n.replace("/kernel", "/weights").replace("/bias", "/biases") for n in WEIGHTS},
    "estimator-v1": {n: n for n in WEIGHTS},
}
SLOT_FORM = {"skflow": "{}/{}", "contrib.learn-1.x": "{}/{}", "estimator-v1": "{}/t_0/{}", "estimator-v1-partitioned": "{}/part_0/{}"}
HYPER = {"Adagrad": {"learning_rate": 0.001, "decay": 0.0}, "Adam": {"learning_rate": 0.001, "decay": 0.0, "beta_1": 0.9, "beta_2": 0.999},
         "SGD": {"learning_rate": 0.01, "decay": 0.0, "momentum": 0.9}, "Ftrl": {"learning_rate": 0.2, "learning_rate_power": -0.5}}
TARGET_SLOTS = {"Adagrad": {"accumulator": 0.1}, "Adam": {"m": 0.0, "v": 0.0}, "SGD": {"momentum": 0.0},
                "Ftrl": {"accumulator": 0.1, "linear": 0.0}}
# legacy optimizer -> its slot suffixes, in the order of the Keras optimizer's slots
LEGACY_SLOTS = {"Adagrad": ["Adagrad"], "Adam": ["Adam", "Adam_1"], "SGD": ["Momentum"], "Ftrl": ["Ftrl", "Ftrl_1"]}


def target(opt: str) -> tuple[dict[str, list[int]], dict[str, dict[str, float]]]:
    """The variables (and initial values) of a TF 2.15 DNNClassifier with optimizer ``opt``."""
    shapes: dict[str, list[int]] = {**WEIGHTS, "global_step": []}
    init: dict[str, dict[str, float]] = {}
    for name, value in HYPER[opt].items():
        shapes[f"training/{opt}/{name}"] = []
        init[f"training/{opt}/{name}"] = {"fill": value}
    for w, shape in WEIGHTS.items():
        for slot, value in TARGET_SLOTS[opt].items():
            shapes[f"training/{opt}/{w}/{slot}"] = shape
            init[f"training/{opt}/{w}/{slot}"] = {"fill": value}
    return shapes, init


def legacy(era: str, opt: str) -> dict[str, list[int]]:
    names_ = LEGACY["estimator-v1" if era.startswith("estimator-v1") else era]
    out: dict[str, list[int]] = {"global_step": []}
    for new, old in names_.items():
        out[old] = WEIGHTS[new]
        for suffix in LEGACY_SLOTS[opt]:
            out[SLOT_FORM[era].format(old, suffix)] = WEIGHTS[new]
    if opt == "Adam":
        out |= {"beta1_power": [], "beta2_power": []}
    return out


def run(era: str, legacy_opt: str, target_opt: str) -> tuple[names.Plan, dict[str, list[int]]]:
    shapes, init = target(target_opt)
    return names.plan(legacy(era, legacy_opt), shapes, drop_optimizer=False, target_init=init), shapes


CASES = [(era, opt) for era in SLOT_FORM for opt in LEGACY_SLOTS]


@pytest.mark.parametrize(("era", "opt"), CASES)
def test_the_same_optimizers_slots_are_renamed_across_eras(era: str, opt: str) -> None:
    plan, shapes = run(era, opt, opt)
    by_new = {o["new"]: o for o in plan.ops}
    assert set(by_new) == set(shapes)  # every variable the model creates is written, once
    assert len(plan.ops) == len(shapes)
    old_of = LEGACY["estimator-v1" if era.startswith("estimator-v1") else era]
    for w in WEIGHTS:
        for suffix, slot in zip(LEGACY_SLOTS[opt], TARGET_SLOTS[opt]):
            op = by_new[f"training/{opt}/{w}/{slot}"]
            assert op == {"new": f"training/{opt}/{w}/{slot}", "op": "copy", "src": [SLOT_FORM[era].format(old_of[w], suffix)]}
    for name, value in HYPER[opt].items():  # hyperparameters: the model's own values
        assert by_new[f"training/{opt}/{name}"]["op"] == "fill" and by_new[f"training/{opt}/{name}"]["value"] == value
    assert by_new["global_step"] == {"new": "global_step", "op": "copy", "src": ["global_step"]}
    assert any(n.startswith(f"{len(WEIGHTS) * len(TARGET_SLOTS[opt])} {opt} slot(s) renamed") for n in plan.notes)
    if opt == "Adam":
        assert "iterations" in plan.not_carried["beta1_power"] and "iterations" in plan.not_carried["beta2_power"]


@pytest.mark.parametrize(("era", "legacy_opt", "target_opt"), [(era, a, b) for era in SLOT_FORM for a in LEGACY_SLOTS for b in LEGACY_SLOTS if a != b])
def test_another_optimizers_slots_are_initialised_as_it_does(era: str, legacy_opt: str, target_opt: str) -> None:
    plan, shapes = run(era, legacy_opt, target_opt)
    by_new = {o["new"]: o for o in plan.ops}
    assert set(by_new) == set(shapes)
    for w, shape in WEIGHTS.items():
        for slot, value in TARGET_SLOTS[target_opt].items():
            op = by_new[f"training/{target_opt}/{w}/{slot}"]
            assert (op["op"], op["value"], op["shape"], op["src"]) == ("fill", value, shape, [])
    slot_names = [n for n in legacy(era, legacy_opt) if n.rsplit("/", 1)[-1] in LEGACY_SLOTS[legacy_opt]]
    for n in slot_names:
        assert f"the model's optimizer is {target_opt}" in plan.not_carried[n], (n, plan.not_carried.get(n))
    # one line per kind: each slot and each hyperparameter value
    lines = [n for n in plan.notes if f"as {target_opt} initialises" in n]
    assert len(lines) == len(TARGET_SLOTS[target_opt]) + len(HYPER[target_opt])
    for slot, value in TARGET_SLOTS[target_opt].items():
        assert any(n.startswith(f"{target_opt} slot {slot} = {slots._number(value)}: {len(WEIGHTS)} variable(s)") for n in lines), lines


def test_a_slot_of_a_computed_weight_is_not_renamed_but_initialised() -> None:
    """contrib.learn 0.9: the logits bias is dnn_logit/bias + centered_bias_weight; no accumulator of a sum exists."""
    ck = {"hiddenlayer_0/weights": [4, 10], "hiddenlayer_0/bias": [10], "hiddenlayer_1/weights": [10, 10], "hiddenlayer_1/bias": [10],
          "dnn_logit/weights": [10, 3], "dnn_logit/bias": [3], "centered_bias_weight": [3], "global_step": []}
    ck |= {f"{n}/Adagrad": s for n, s in list(ck.items()) if n != "global_step"}
    shapes, init = target("Adagrad")
    plan = names.plan(ck, shapes, drop_optimizer=False, target_init=init)
    by_new = {o["new"]: o for o in plan.ops}
    assert by_new["dnn/logits/bias"]["op"] == "add"
    assert by_new["training/Adagrad/dnn/logits/bias/accumulator"]["op"] == "fill"
    assert "not carried as a plain copy" in plan.not_carried["dnn_logit/bias/Adagrad"]
    assert by_new["training/Adagrad/dnn/logits/kernel/accumulator"]["src"] == ["dnn_logit/weights/Adagrad"]


def test_without_initial_values_or_with_drop_optimizer_nothing_is_invented() -> None:
    shapes, init = target("Adam")
    ck = legacy("skflow", "Adagrad")
    for plan in (names.plan(ck, shapes, drop_optimizer=False), names.plan(ck, shapes, drop_optimizer=True, target_init=init)):
        assert not any(o["new"].startswith("training/") for o in plan.ops)
    # the model's variables are then missing: the verdict still says train() fails
    plan = names.plan(ck, shapes, drop_optimizer=True, target_init=init)
    written = [{"name": o["new"], "dtype": "float32", "shape": shapes[o["new"]]} for o in plan.ops]
    model = [{"name": n, "dtype": "float32", "shape": s} for n, s in shapes.items()]
    d = compare.diff(written, model, {"api": "v2"}, "out/model.ckpt-0")
    assert not d["compatible"] and "train() raises NotFoundError" in d["verdict"] and "ckpt convert" in d["verdict"]


def test_a_slot_whose_shape_differs_is_not_renamed() -> None:
    shapes, init = target("Adagrad")
    ck = legacy("skflow", "Adagrad")
    ck["dnn/layer0/Linear/Bias/Adagrad"] = [11]
    plan = names.plan(ck, shapes, drop_optimizer=False, target_init=init)
    assert "shape [11]" in plan.not_carried["dnn/layer0/Linear/Bias/Adagrad"]
    assert next(o for o in plan.ops if o["new"] == "training/Adagrad/dnn/hiddenlayer_0/bias/accumulator")["op"] == "fill"


def test_numbers_are_written_as_in_code() -> None:
    assert [slots._number(v) for v in (0.10000000149011612, 0.0010000000474974513, 0.0, -0.5, 0.9990000128746033)] == \
        ["0.1", "0.001", "0", "-0.5", "0.999"]
