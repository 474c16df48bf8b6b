"""Name maps across eras: find the dense-layer structure under each era's names and pair layers by
order and shape.

A *structure* is the ordered list of dense layers (hidden layers, then the logits layer), each a
kernel and a bias, plus extras (``centered_bias_weight``, ``global_step``). Two structures with the
same number of layers map onto each other layer by layer; a layer whose shapes differ is not carried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tfmigrate.checkpoint import classify

# era -> (hidden kernel, hidden bias, logits kernel, logits bias) regexes; group "i" = layer index
ERAS: dict[str, tuple[str, str, str, str]] = {
    "skflow-0.8": (r"^dnn/layer(?P<i>\d+)/Linear/Matrix$", r"^dnn/layer(?P<i>\d+)/Linear/Bias$",
                   r"^(?:logistic|linear)_regression/weights$", r"^(?:logistic|linear)_regression/bias$"),
    "contrib.learn-0.9": (r"^hiddenlayer_(?P<i>\d+)/weights$", r"^hiddenlayer_(?P<i>\d+)/bias(?:es)?$",
                          r"^dnn_logits?/weights$", r"^dnn_logits?/bias(?:es)?$"),
    "contrib.learn-1.x": (r"^dnn/hiddenlayer_(?P<i>\d+)/weights$", r"^dnn/hiddenlayer_(?P<i>\d+)/biases$",
                          r"^dnn/logits/weights$", r"^dnn/logits/biases$"),
    "estimator": (r"^dnn/hiddenlayer_(?P<i>\d+)/kernel$", r"^dnn/hiddenlayer_(?P<i>\d+)/bias$",
                  r"^dnn/logits/kernel$", r"^dnn/logits/bias$"),
    "keras": (r"^layer_with_weights-(?P<i>\d+)/kernel/\.ATTRIBUTES/VARIABLE_VALUE$",
              r"^layer_with_weights-(?P<i>\d+)/bias/\.ATTRIBUTES/VARIABLE_VALUE$", r"(?!)", r"(?!)"),
}


@dataclass
class Layer:
    kernel: str
    kernel_shape: list[int]
    bias: str | None
    bias_shape: list[int] | None
    role: str  # "hidden" | "logits"


@dataclass
class Structure:
    era: str
    layers: list[Layer] = field(default_factory=list)
    extras: dict[str, list[int]] = field(default_factory=dict)  # model tensors outside the layers

    @property
    def feature_width(self) -> int | None:
        return self.layers[0].kernel_shape[0] if self.layers and len(self.layers[0].kernel_shape) == 2 else None

    @property
    def logits_width(self) -> int | None:
        return self.layers[-1].kernel_shape[-1] if self.layers and self.layers[-1].role == "logits" else None


def structure(variables: dict[str, list[int]]) -> Structure | None:
    """The dense-layer structure of ``{name: shape}`` (model tensors only), or None if no era fits."""
    best: Structure | None = None
    for era, (hk, hb, lk, lb) in ERAS.items():
        kernels: dict[int, str] = {}
        biases: dict[int, str] = {}
        lkn = lbn = None
        for name in variables:
            if m := re.match(hk, name):
                kernels[int(m.group("i"))] = name
            elif m := re.match(hb, name):
                biases[int(m.group("i"))] = name
            elif re.match(lk, name):
                lkn = name
            elif re.match(lb, name):
                lbn = name
        if not kernels and not lkn:
            continue
        s = Structure(era)
        for i in sorted(kernels):
            b = biases.get(i)
            s.layers.append(Layer(kernels[i], variables[kernels[i]], b, variables[b] if b else None, "hidden"))
        if lkn:
            s.layers.append(Layer(lkn, variables[lkn], lbn, variables[lbn] if lbn else None, "logits"))
        elif era == "keras" and s.layers:
            s.layers[-1].role = "logits"
        used = {n for layer in s.layers for n in (layer.kernel, layer.bias) if n}
        s.extras = {n: shp for n, shp in variables.items() if n not in used}
        if best is None or len(s.layers) > len(best.layers):
            best = s
    return best


V2_NAMES = {"hidden": ("dnn/hiddenlayer_{i}/kernel", "dnn/hiddenlayer_{i}/bias"), "logits": ("dnn/logits/kernel", "dnn/logits/bias")}


def default_target(src: Structure) -> Structure:
    """The structure a ``tf.estimator.DNNClassifier`` with the same layers would have (V2 names)."""
    out = Structure("estimator")
    hidden = 0
    for layer in src.layers:
        if layer.role == "hidden":
            k, b = (x.format(i=hidden) for x in V2_NAMES["hidden"])
            hidden += 1
        else:
            k, b = V2_NAMES["logits"]
        width = layer.kernel_shape[-1]
        if layer.role == "logits" and width == 2 and src.era == "skflow-0.8":
            width = 1  # a 2-class softmax is a sigmoid of the difference (see plan())
        out.layers.append(Layer(k, [*layer.kernel_shape[:-1], width], b, [width], layer.role))
    return out


@dataclass
class Plan:
    """How to carry a checkpoint's tensors onto a target's names."""

    name_map: dict[str, str] = field(default_factory=dict)  # old -> new
    ops: list[dict[str, Any]] = field(default_factory=list)  # {"new", "op", "src": [...]} for convert
    not_carried: dict[str, str] = field(default_factory=dict)  # old -> why
    notes: list[str] = field(default_factory=list)


def plan(ckpt_vars: dict[str, list[int]], target_vars: dict[str, list[int]] | None, drop_optimizer: bool = True) -> Plan:
    """Map checkpoint tensors onto ``target_vars`` (``{name: shape}``; None: V2 canned DNN names)."""
    p = Plan()
    model = {n: s for n, s in ckpt_vars.items() if classify.kind(n) == "model"}
    src = structure(model)
    if src is None:
        p.notes.append("no dense-layer structure recognised in the checkpoint: no name map proposed")
        dst_names: set[str] = set()
    else:
        if target_vars is None:
            dst = default_target(src)
            target_vars = {n: sh for layer in dst.layers for n, sh in ((layer.kernel, layer.kernel_shape), (layer.bias, layer.bias_shape)) if n}
            target_vars["global_step"] = []
        else:
            dst = structure({n: s for n, s in target_vars.items() if classify.kind(n) == "model"}) or Structure("none")
        dst_names = set(target_vars)
        if len(src.layers) != len(dst.layers):
            p.notes.append(f"the checkpoint has {len(src.layers)} dense layers, the model {len(dst.layers)}: layers cannot be paired by order")
            for layer in src.layers:
                for n in (layer.kernel, layer.bias):
                    if n:
                        p.not_carried[n] = "no layer at that position in the model"
        else:
            for i, (a, b) in enumerate(zip(src.layers, dst.layers)):
                binary = (a.role == "logits" and a.kernel_shape[-1] == 2 and b.kernel_shape[-1] == 1
                          and a.kernel_shape[:-1] == b.kernel_shape[:-1])
                if binary:
                    p.name_map[a.kernel] = b.kernel
                    p.ops.append({"new": b.kernel, "op": "diff_last", "src": [a.kernel]})
                    if a.bias and b.bias:
                        p.name_map[a.bias] = b.bias
                        p.ops.append({"new": b.bias, "op": "diff_last", "src": [a.bias]})
                    p.notes.append(f"{a.kernel}: 2-class softmax logits become 1 sigmoid logit (column 1 - column 0): same predictions")
                    continue
                for old, oshape, new, nshape in ((a.kernel, a.kernel_shape, b.kernel, b.kernel_shape), (a.bias, a.bias_shape, b.bias, b.bias_shape)):
                    if not old:
                        continue
                    if not new:
                        p.not_carried[old] = f"layer {i} of the model has no bias"
                    elif list(oshape or []) != list(nshape or []):
                        p.not_carried[old] = f"shape {oshape} but the model's {new} is {nshape}"
                    else:
                        p.name_map[old] = new
                        p.ops.append({"new": new, "op": "copy", "src": [old]})
        for name, shape in src.extras.items():
            if name in dst_names:
                p.name_map[name] = name
                p.ops.append({"new": name, "op": "copy", "src": [name]})
            elif name == "centered_bias_weight" and src.layers and src.layers[-1].bias in p.name_map:
                new_bias = p.name_map[src.layers[-1].bias]
                op = next(o for o in p.ops if o["new"] == new_bias)
                if op["op"] == "copy":
                    op["op"] = "add"
                    op["src"].append(name)
                    p.notes.append(f"centered_bias_weight has no counterpart in tf.estimator: it is folded into {new_bias} (same logits)")
                else:
                    p.not_carried[name] = "tf.estimator has no centered bias"
            else:
                p.not_carried[name] = "the model has no such variable"
    for name in ckpt_vars:
        k = classify.kind(name)
        if name in p.name_map or name in p.not_carried:
            continue
        if k == "bookkeeping":
            if name in dst_names:
                p.name_map[name] = name
                p.ops.append({"new": name, "op": "copy", "src": [name]})
            elif name == "global_step":
                p.name_map[name] = name
                p.ops.append({"new": name, "op": "copy", "src": [name]})
            else:
                p.not_carried[name] = "bookkeeping the model does not use"
        elif k == "optimizer":
            if name in dst_names and not drop_optimizer:
                p.name_map[name] = name
                p.ops.append({"new": name, "op": "copy", "src": [name]})
            else:
                p.not_carried[name] = "optimizer state: slots of another optimizer/era cannot be carried (warm-start instead)"
    return p
