"""TFM116, TFM118: what legacy model functions call from ``tf.contrib.learn`` / skflow, in TF 2.15.

TFM116 writes ``learn.models.linear_regression`` / ``logistic_regression`` (and their ``_zero_init``
forms), ``learn.ops.categorical_variable``, the ``learn.ops`` array helpers and ``learn.tf.<name>``
with TF 2.15 names, keeping the legacy initializers, losses and variable scopes; TFM118 reports
``TensorFlowDNNAutoencoder``, which TF 2.15 has no equivalent of with the same behaviour (the
``learn.preprocessing`` processors, once TFM117's findings, are written into the module by TFM180).
Planned on the TFM1 transform (``estimators.py``), like the custom-model estimators of ``model_fn.py`` whose model functions usually hold these calls.

Legacy sources read: tensorflow/contrib/learn/python/learn/models.py, ops/losses_ops.py,
ops/embeddings_ops.py, ops/array_ops.py (TF 0.8-1.x),
skflow's estimators/autoencoder.py and ops/autoencoder_ops.py.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM116, TFM118, TFM709
from tfmigrate.transforms.common.builders import bind_args, code_of, is_none, layout_call
from tfmigrate.transforms.estimators import learn_ops
from tfmigrate.transforms.estimators.model_fn.contract import _reads

MODEL_ORDERS = {
    "linear_regression": ("x", "y", "init_mean", "init_stddev"),
    "logistic_regression": ("x", "y", "class_weight", "init_mean", "init_stddev"),
    "linear_regression_zero_init": ("x", "y"),
    "logistic_regression_zero_init": ("x", "y"),
}
CATEGORICAL_ORDER = ("tensor_in", "n_classes", "embedding_size", "name")
# learn.ops array helpers (ops/array_ops.py): legacy order, TF 2.15 expression (names are the arguments),
# what to say. DIM is read twice, so it must be a literal or a name.
ARRAY_OPS = {
    "split_squeeze": (
        ("dim", "num_split", "tensor_in"),
        "[tf.squeeze(legacy_part, [dim]) for legacy_part in tf.split(tensor_in, num_split, axis=dim)]",
        "split_squeeze(dim, num_split, x) is [tf.squeeze(t, [dim]) for t in tf.split(x, num_split, axis=dim)] "
        "(the legacy tf.split took dim first)",
    ),
    "expand_concat": (
        ("dim", "inputs"),
        "tf.concat([tf.expand_dims(legacy_part, dim) for legacy_part in inputs], dim)",
        "expand_concat(dim, inputs) is tf.concat([tf.expand_dims(t, dim) for t in inputs], dim) (the legacy "
        "tf.concat took dim first)",
    ),
    "one_hot_matrix": (
        ("tensor_in", "num_classes", "on_value", "off_value"),
        "tf.one_hot(tf.cast(tensor_in, tf.int64), num_classes, on_value, off_value)",
        "one_hot_matrix(x, n) is tf.one_hot(tf.cast(x, tf.int64), n, 1.0, 0.0) (the legacy defaults written "
        "out; an id outside [0, n) raised in the legacy sparse_to_dense, tf.one_hot gives a row of off_value)",
    ),
}
ARRAY_DEFAULTS = {"on_value": "1.0", "off_value": "0.0"}
AUTOENCODER = (  # what the legacy model was (layers, defaults) is TFM118's why, in the catalog
    "learn.TensorFlowDNNAutoencoder has no TF 2.15 equivalent: write its model_fn for tf.estimator.Estimator "
    "(dense encoder over hidden_units, decoder over them reversed, linear_regression back to X; TFM115's train_op) "
    "and read transform(X) as np.array(list(estimator.predict(input_fn=...)))"
)


def _members() -> frozenset[str]:
    return frozenset({*MODEL_ORDERS, "categorical_variable", "conv2d", *ARRAY_OPS, "TensorFlowDNNAutoencoder"})


def _legacy_member(name: str) -> tuple[str, str] | None:
    """``tensorflow.contrib.learn.python.learn.models.linear_regression`` -> ("models", "linear_regression")."""
    for root in ("tensorflow.contrib.learn.", "tensorflow.contrib.skflow.", "skflow."):
        if name.startswith(root):
            parts = [p for p in name[len(root):].split(".") if p not in ("python", "learn")]
            if len(parts) >= 2 and parts[0] in ("models", "ops"):
                return parts[0], parts[-1]
            if parts and parts[-1] == "TensorFlowDNNAutoencoder":
                return "estimators", parts[-1]
            return None
    return None


def _simple(node: cst.BaseExpression) -> bool:
    """Evaluating ``node`` twice reads the same thing and builds nothing."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


_MEMBERS = _members()  # the last names of the calls TFM116-TFM118 look at


class ModelCalls:
    """Plans TFM116 on the TFM1 transform ``t``: the legacy ``learn.models`` / ``learn.ops`` subgraphs
    written with TF 2.15 names (``tf.compat.v1.layers.dense``, ``tf.compat.v1.losses``,
    ``tf.compat.v1.get_variable``), with the legacy initializers, losses and scope names."""

    def __init__(self, t) -> None:
        self.t = t

    def plan(self, calls: list[cst.Call], attrs: list[cst.Attribute]) -> None:
        aliases = {  # from ...ops.conv_ops import conv2d as conv: the local names of the members
            alias.asname.name.value for node in self.t.index.nodes(cst.ImportFrom)
            if not isinstance(node.names, cst.ImportStar) for alias in node.names
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name) and code_of(alias.name) in _MEMBERS
        }
        for call in calls:
            func = call.func
            last_name = func.attr.value if type(func) is cst.Attribute else (func.value if type(func) is cst.Name else "")
            if last_name not in _MEMBERS and last_name not in aliases:
                continue  # (cheap: most calls of a module are none of these)
            name = self.t.qualified_name(func) or ""
            member = _legacy_member(name)
            if member is None:
                continue
            kind, last = member
            if kind == "models" and last in MODEL_ORDERS:
                # tf.contrib.skflow existed in TF 0.9-0.11 only: TF 0.x, like the skflow package
                self._model(call, last, skflow=name.startswith(("skflow.", "tensorflow.contrib.skflow."))
                            or self._tf0_module())
            elif kind == "ops" and last == "conv2d":
                learn_ops.plan_conv2d(self.t, call)  # TFM120
            elif kind == "ops" and last == "categorical_variable":
                self._categorical(call)
            elif kind == "ops" and last in ARRAY_OPS:
                self._array_op(call, last)
            elif kind == "estimators" and TFM709 not in self.t.context.run_rules:  # --target keras lowers it (TFM709)
                self.t.flag(call, TFM118, AUTOENCODER)
        for attr in attrs:
            if not (type(attr.value) is cst.Attribute and attr.value.attr.value == "tf"):
                continue  # only learn.tf.<name> (cheap: most attributes are not)
            name = self.t.qualified_name(attr) or ""
            if name.startswith("tensorflow.contrib.learn.tf.") and name.count(".") == 4:
                parent = self.t._parent(attr)
                if isinstance(parent, cst.Attribute) and parent.value is attr:
                    continue
                new = expression(f"tf.{attr.attr.value}")
                if self.t.fix(attr, TFM116, f"tf.contrib.learn.tf is the tensorflow module: tf.{attr.attr.value}"):
                    self.t._apply(attr, new)

    def _tf0_module(self) -> bool:
        """The module uses skflow or a TF Learn 0.8-0.10 TensorFlow* estimator: it ran on TF 0.x."""
        return any(e.cls.era in ("skflow", "learn08") for e in getattr(self.t, "ests", []))

    def _model(self, call: cst.Call, last: str, skflow: bool = False) -> None:
        t = self.t
        bound, problems = bind_args(call, MODEL_ORDERS[last])
        what = f"learn.models.{last}"
        if problems or "x" not in bound or "y" not in bound:
            t.flag(call, TFM116, f"{what}: cannot map {', '.join(problems) or 'the arguments'}; rewrite it with "
                   "tf.compat.v1.layers.dense and tf.compat.v1.losses by hand")
            return
        if "class_weight" in bound and not is_none(bound["class_weight"]):
            t.flag(call, TFM116, f"{what}(class_weight=...): multiply the logits by the class weights and use "
                   "tf.compat.v1.losses.softmax_cross_entropy by hand")
            return
        x, y = "LEGACYX", bound["y"]
        if not _simple(y):
            t.flag(call, TFM116, f"{what}: assign y ({code_of(y)}) to a name first and run tfmigrate again (the "
                   "rewrite reads it twice)")
            return
        y = code_of(y)
        mean = "0.0" if last.endswith("_zero_init") else (
            code_of(bound["init_mean"]) if "init_mean" in bound and not is_none(bound["init_mean"]) else None)
        std = "0.0" if last.endswith("_zero_init") else code_of(bound.get("init_stddev", expression("1.0")))
        if mean is None and skflow:  # skflow / TF Learn 0.8-0.10 ran on TF 0.x: get_variable's default was uniform_unit_scaling
            unit = "tf.compat.v1.uniform_unit_scaling_initializer()"
            init = f"kernel_initializer={unit}, bias_initializer={unit}"
            init_note = ("the TF 0.x get_variable default initializer (uniform_unit_scaling: skflow / TensorFlow* "
                         "estimators ran on TF 0.x) for weights and bias")
        elif mean is None:
            init = "bias_initializer=tf.compat.v1.glorot_uniform_initializer()"
            init_note = ("the legacy get_variable default initializer for weights and bias (glorot_uniform since "
                         "TF 1.0; TF 0.x used uniform_unit_scaling)")
        else:
            normal = f"tf.compat.v1.random_normal_initializer({mean}, {std})"
            init = f"kernel_initializer={normal}, bias_initializer={normal}"
            init_note = f"weights and bias drawn from random_normal({mean}, {std}) as before"
        scope = "logistic_regression" if last.startswith("logistic") else "linear_regression"
        if scope == "logistic_regression":
            code = (f"(lambda logits: (tf.nn.softmax(logits), tf.compat.v1.losses.softmax_cross_entropy({y}, logits)))"
                    f"(tf.compat.v1.layers.dense({x}, {y}.shape[-1], {init}, name=\"{scope}\"))")
            loss_note = "softmax cross entropy averaged over the batch"
        else:
            code = (f"(lambda predictions: (predictions, tf.compat.v1.losses.mean_squared_error({y}, predictions)))"
                    f"((lambda outputs: tf.squeeze(outputs, [1]) if len({y}.shape) == 1 else outputs)"
                    f"(tf.compat.v1.layers.dense({x}, 1 if len({y}.shape) == 1 else {y}.shape[1], {init}, "
                    f"name=\"{scope}\")))")
            loss_note = "mean squared error averaged over all values, a 1-D y squeezes the predictions"
        new = layout_call(expression(code))
        if t.fix(call, TFM116, f"{what} -> (predictions, loss) from tf.compat.v1.layers.dense (scope "
                 f"'{scope}'; {init_note}) and tf.compat.v1.losses ({loss_note}); the legacy variables were "
                 f"{scope}/weights and {scope}/bias, now {scope}/kernel and {scope}/bias"):
            t._apply(call, _put(new, "LEGACYX", bound["x"]))

    def _array_op(self, call: cst.Call, last: str) -> None:
        t = self.t
        order, template, note = ARRAY_OPS[last]
        bound, problems = bind_args(call, order)
        for name, default in ARRAY_DEFAULTS.items():
            if name in order and name not in bound:
                bound[name] = expression(default)
        dim = bound.get("dim")
        if problems or set(bound) != set(order) or (dim is not None and not (
                isinstance(dim, (cst.Integer, cst.UnaryOperation)) or _simple(dim))) or \
                "legacy_part" in _reads(call):
            t.flag(call, TFM116, f"learn.ops.{last}: pass every argument ({', '.join(order)}) plainly (dim a literal "
                   f"or a name) and run tfmigrate again; {note}")
            return
        new = expression(template)
        for name in order:
            new = _put_all(new, name, bound[name])
        if t.fix(call, TFM116, f"learn.ops.{note}"):
            t._apply(call, new)

    def _categorical(self, call: cst.Call) -> None:
        t = self.t
        bound, problems = bind_args(call, CATEGORICAL_ORDER)
        if problems or set(bound) != set(CATEGORICAL_ORDER) or not isinstance(bound["name"], cst.SimpleString):
            t.flag(call, TFM116, "learn.ops.categorical_variable: pass tensor_in, n_classes, embedding_size and a "
                   "literal name; it is tf.nn.embedding_lookup(tf.compat.v1.get_variable('<name>/<name>_embeddings', "
                   "[n_classes, embedding_size]), tensor_in)")
            return
        name = bound["name"].evaluated_value
        code = (f"tf.nn.embedding_lookup(tf.compat.v1.get_variable(\"{name}/{name}_embeddings\", "
                f"[{code_of(bound['n_classes'])}, {code_of(bound['embedding_size'])}]), LEGACYX)")
        if t.fix(call, TFM116, "learn.ops.categorical_variable -> tf.nn.embedding_lookup over "
                 f"tf.compat.v1.get_variable('{name}/{name}_embeddings', [n_classes, embedding_size]) (the legacy "
                 "variable name and default initializer)"):
            new = expression(code)
            t._apply(call, _put(layout_call(new), "LEGACYX", bound["tensor_in"]))


def _put_all(tree: cst.BaseExpression, name: str, node: cst.BaseExpression) -> cst.BaseExpression:
    """``tree`` with ``node`` wherever the placeholder ``name`` is read (a copy after the first place)."""
    return tree.visit(_NamesOnly(name, node, []))


class _NamesOnly(cst.CSTTransformer):
    """Replaces reads of a placeholder name (not attribute names or keywords) with the user's node."""

    def __init__(self, name: str, node: cst.BaseExpression, used: list) -> None:
        super().__init__()
        self.name, self.node, self.used = name, node, used
        self.skip: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        if original.value != self.name or id(original) in self.skip:
            return updated
        self.used.append(1)
        return self.node if len(self.used) == 1 else self.node.deep_clone()


def _put(tree: cst.BaseExpression, name: str, node: cst.BaseExpression) -> cst.BaseExpression:
    """``tree`` with the original node ``node`` where the placeholder ``name`` was written (once), so
    plans made for the user's argument (and its own legacy calls) still apply to it."""

    class Swap(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return node if original.value == name else updated

    return tree.visit(Swap())
