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


# object-based keys of a layer's weights: ``model/conv1/kernel/.ATTRIBUTES/VARIABLE_VALUE``
_OBJECT_RE = re.compile(r"^(?P<path>(?:[^/]+/)*?[^/]+)/(?P<w>kernel|bias)/\.ATTRIBUTES/VARIABLE_VALUE$")


def _natural(text: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _grouped_structure(era: str, variables: dict[str, list[int]], regex: re.Pattern[str], order: Any) -> Structure | None:
    """Layers from weights named ``<layer path>/kernel|bias`` (``regex`` groups ``w`` and the path),
    ordered by ``order(match)``; the last dense (2-D kernel) layer is the logits layer."""
    found: dict[str, dict[str, Any]] = {}
    for name in variables:
        if m := regex.match(name):
            path = name[: m.start("w")]
            entry = found.setdefault(path, {"key": order(m)})
            entry[m.group("w")] = name
    layers = [e for e in found.values() if "kernel" in e]
    if not layers:
        return None
    s = Structure(era)
    for e in sorted(layers, key=lambda e: e["key"]):
        b = e.get("bias")
        s.layers.append(Layer(e["kernel"], variables[e["kernel"]], b, variables[b] if b else None, "hidden"))
    dense = [layer for layer in s.layers if len(layer.kernel_shape) == 2]
    if dense:
        dense[-1].role = "logits"
    used = {n for layer in s.layers for n in (layer.kernel, layer.bias) if n}
    s.extras = {n: shp for n, shp in variables.items() if n not in used}
    return s


def _tf_layers_order(m: re.Match[str]) -> tuple[Any, ...]:
    # within a network, conv layers feed dense layers in every tfe.Network/tf.layers model we pair;
    # the suffix (none, _1, _2...) is the creation order of that layer type
    return (m.group("prefix"), 1 if m.group("type") == "dense" else 0, m.group("type"), int(m.group("i") or 0))


def _object_order(m: re.Match[str]) -> list[Any]:
    return _natural(m.group("path"))


def structure(variables: dict[str, list[int]]) -> Structure | None:
    """The dense-layer structure of ``{name: shape}`` (model tensors only), or None if no era fits."""
    best: Structure | None = None
    for era, regex, order in (("tfe-network", classify.TF_LAYERS_RE, _tf_layers_order), ("object-based", _OBJECT_RE, _object_order)):
        s = _grouped_structure(era, variables, regex, order)
        if s is not None and (best is None or len(s.layers) > len(best.layers)):
            best = s
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
        if best is None or len(s.layers) > len(best.layers) or (len(s.layers) == len(best.layers) and best.era in ("tfe-network", "object-based")):
            best = s
    return best


def _align(src: Structure, dst: Structure, notes: list[str]) -> Structure:
    """``dst`` with its layers reordered to pair with ``src`` layer by layer: layers pair only with
    layers of the same kind (kernel rank: conv2d with conv2d, dense with dense), in order within a
    kind; where order gives a shape mismatch and shapes pair the layers one way only, by shape."""
    kinds = lambda s: sorted(len(layer.kernel_shape) for layer in s.layers)  # noqa: E731
    if kinds(src) != kinds(dst):
        return dst
    out = Structure(dst.era, [], dst.extras)
    for rank in sorted({len(layer.kernel_shape) for layer in src.layers}):
        a = [layer for layer in src.layers if len(layer.kernel_shape) == rank]
        b = [layer for layer in dst.layers if len(layer.kernel_shape) == rank]
        if any(x.kernel_shape != y.kernel_shape for x, y in zip(a, b)):
            by_shape = [[y for y in b if y.kernel_shape == x.kernel_shape] for x in a]
            if all(len(c) == 1 for c in by_shape) and len({id(c[0]) for c in by_shape}) == len(b):
                notes.append(f"{rank}-D kernels paired by shape, not by order: " + ", ".join(f"{x.kernel} -> {c[0].kernel}" for x, c in zip(a, by_shape)))
                b = [c[0] for c in by_shape]
        for x, y in zip(a, b):
            out.layers.append((src.layers.index(x), y))  # type: ignore[arg-type]
    out.layers = [y for _, y in sorted(out.layers, key=lambda t: t[0])]  # type: ignore[index, misc]
    return out


# the linear part of a contrib.learn (0.x-1.x) LinearClassifier/Regressor or DNNLinearCombined*:
# ``linear/<column>/weight`` (a dense column), ``linear/<column>/weights`` (a sparse one), ``linear/bias_weight``
# (layers.weighted_sum_from_feature_columns under the "linear" scope); TF 2.15's canned estimators name them
# ``linear/linear_model/<column>/weights`` and ``linear/linear_model/bias_weights`` (column names are the same)
_LEGACY_LINEAR_W = re.compile(r"^linear/(?!linear_model/)(?P<col>[^/]+)/weights?$")
_LEGACY_LINEAR_B = "linear/bias_weight"
V2_LINEAR = ("linear/linear_model/{col}/weights", "linear/linear_model/bias_weights")


def legacy_linear(name: str) -> str | None:
    """TF 2.15's name of a legacy linear-model weight (``linear/x/weight`` -> ``linear/linear_model/x/weights``), else None."""
    if name == _LEGACY_LINEAR_B:
        return V2_LINEAR[1]
    m = _LEGACY_LINEAR_W.match(name)
    return V2_LINEAR[0].format(col=m.group("col")) if m else None


def _map_linear(p: Plan, model: dict[str, list[int]], target_vars: dict[str, list[int]]) -> None:
    """Legacy linear weights onto the model's TF 2.15 names, where it has them with the same shape."""
    found = 0
    for name, shape in model.items():
        new = legacy_linear(name)
        if new is None or new in model:
            continue
        if new not in target_vars:
            p.not_carried[name] = f"the model has no {new} (a column it does not have?)"
        elif list(target_vars[new]) != list(shape):
            p.not_carried[name] = f"shape {shape} but the model's {new} is {target_vars[new]}"
        else:
            p.name_map[name] = new
            p.ops.append({"new": new, "op": "copy", "src": [name]})
            found += 1
    if found:
        p.notes.append(f"{found} legacy linear weight(s) (linear/<column>/weight, linear/bias_weight) renamed to TF 2.15's "
                       "linear/linear_model/<column>/weights, linear/linear_model/bias_weights")


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


def plan(ckpt_vars: dict[str, list[int]], target_vars: dict[str, list[int]] | None, drop_optimizer: bool = True,
         target_init: dict[str, dict[str, Any]] | None = None, target_dtypes: dict[str, str] | None = None) -> Plan:
    """Map checkpoint tensors onto ``target_vars`` (``{name: shape}``; None: V2 canned DNN names).
    With ``target_init`` (``{name: {"fill": value}}``, what the model's own initializers give) and
    not ``drop_optimizer``, the model's optimizer state is written too (:mod:`tfmigrate.checkpoint.slots`)."""
    p = Plan()
    model = {n: s for n, s in ckpt_vars.items() if classify.kind(n) == "model"}
    src = structure(model)
    no_model = target_vars is None  # no model to map onto: what no era map renames keeps its name
    if target_vars is not None:
        _map_linear(p, model, target_vars)
    if no_model and src is not None and src.era in ("tfe-network", "object-based"):
        # names a program chose (tf.layers in graph code or a custom model_fn, Keras): the migrated code
        # creates the same ones, so a canned DNNClassifier's names would break its restore
        p.notes.append(f"{classify.WRITERS[src.era]}: names kept (pass --model to map them onto a model's)")
        src = None
    if src is None:
        if not p.name_map and not p.notes:
            p.notes.append("no dense-layer structure recognised in the checkpoint: no name map proposed"
                           + ("; the model's tensors are copied under their own names" if no_model and model else ""))
        dst_names: set[str] = set()
        if no_model:  # no era map and no model: the names stay, only the format changes (slots too: same code, same slots)
            for name in ckpt_vars:
                if drop_optimizer and classify.kind(name) == "optimizer":
                    continue
                p.name_map[name] = name
                p.ops.append({"new": name, "op": "copy", "src": [name]})
    else:
        if target_vars is None:
            dst = default_target(src)
            target_vars = {n: sh for layer in dst.layers for n, sh in ((layer.kernel, layer.kernel_shape), (layer.bias, layer.bias_shape)) if n}
            target_vars["global_step"] = []
        else:
            dst = structure({n: s for n, s in target_vars.items() if classify.kind(n) == "model"}) or Structure("none")
        dst_names = set(target_vars)
        if src.era in ("tfe-network", "object-based") or dst.era in ("tfe-network", "object-based"):
            dst = _align(src, dst, p.notes)
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
            if name in p.name_map or name in p.not_carried:  # a legacy linear weight, mapped above
                continue
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
            elif no_model:  # e.g. the linear part of a DNNLinearCombined model: no era map renames it
                p.name_map[name] = name
                p.ops.append({"new": name, "op": "copy", "src": [name]})
            else:
                p.not_carried[name] = "the model has no such variable"
    object_target = any(n.endswith("/.ATTRIBUTES/VARIABLE_VALUE") for n in dst_names)
    for name in ckpt_vars:
        k = classify.kind(name)
        if name in p.name_map or name in p.not_carried:
            continue
        if object_target and k == "bookkeeping" and name not in dst_names:
            p.not_carried[name] = "the object-based model has no such variable (tf.train.Checkpoint counts saves in save_counter)"
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
    if target_init is not None and target_vars is not None and not drop_optimizer:
        from tfmigrate.checkpoint import slots

        slots.carry(p, ckpt_vars, target_vars, target_init, target_dtypes)
    carried = [o for o in p.ops if o["new"].endswith("/.ATTRIBUTES/VARIABLE_VALUE")]
    if carried and "_CHECKPOINTABLE_OBJECT_GRAPH" in dst_names and "_CHECKPOINTABLE_OBJECT_GRAPH" not in ckpt_vars:
        # tf.train.Checkpoint.restore finds values through the object graph: write one for the carried
        # keys (first, so that a report's {src: new} map keeps the weight's own pairing)
        counter = "save_counter/.ATTRIBUTES/VARIABLE_VALUE"
        if counter in dst_names and counter not in ckpt_vars:  # else assert_existing_objects_matched() fails on it
            p.ops.insert(0, {"new": counter, "op": "const", "value": 0, "dtype": "int64", "src": [carried[0]["src"][0]]})
        p.ops.insert(0, {"new": "_CHECKPOINTABLE_OBJECT_GRAPH", "op": "object_graph", "src": [carried[0]["src"][0]]})
        p.notes.append("an object graph (_CHECKPOINTABLE_OBJECT_GRAPH) and save_counter = 0 are written for the carried keys, "
                       "so tf.train.Checkpoint(model=...).restore finds them")
    return p
