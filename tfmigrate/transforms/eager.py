"""TFM4xx: ``tf.contrib.eager`` (tfe), ``tf.contrib.summary`` and eager-era ``tf.layers`` → TF 2.

The 2017/2018 eager programs (``import tensorflow.contrib.eager as tfe``; ``tfe.Network`` with
``track_layer``, ``tfe.Iterator``, ``tfe.implicit_gradients``, ``tf.contrib.summary``) have no
counterpart under those names in TensorFlow 2.15. This transform rewrites what has an exact TF 2
form and reports the rest with the exact code to write.

Most rules apply only in an *eager module*: one that references ``tf.contrib.eager`` or calls
``enable_eager_execution``. In graph-mode TF1 code the same names (``tf.layers.Dense``,
``tf.train.AdamOptimizer``) keep their TF1 meaning and are left to the renames family (TFM5),
which maps them onto ``tf.compat.v1`` without changing variable names or behaviour.

Concerns kept in their own modules: ``eager_calls.py`` (TFM418-TFM420, TFM425: ``tfe.run``, TF 1.x
``keep_prob``/keywords/``Dimension.value`` in eager modules), ``eager_helpers.py`` (TFM417, TFM421,
TFM422, TFM424: TF 2 code written into the module for tfe functions that have no TF 2 name) and
``eager_rnn.py`` (TFM423: cuDNN RNN layers).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.imports import READ_ELSEWHERE
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import (
    TFM401, TFM402, TFM403, TFM404, TFM405, TFM407, TFM408, TFM409, TFM410, TFM411, TFM412, TFM413,
    TFM414, TFM415, TFM416, TFM426,
)
from tfmigrate.transforms.builders import Substitute, kwarg
from tfmigrate.transforms.eager_calls import eager_call, enable_with_config, holds_variable, is_path, shape_value, tfe_call
from tfmigrate.transforms.eager_helpers import HELPER_SYMBOLS, EagerHelpers, helper_call

_TFE_PREFIXES = (
    "tensorflow.contrib.eager.python.tfe.",
    "tensorflow.contrib.eager.python.network.",
    "tensorflow.contrib.eager.python.datasets.",
    "tensorflow.contrib.eager.python.saver.",
    "tensorflow.contrib.eager.python.",
    "tensorflow.contrib.eager.",
)
_SUMMARY_PREFIXES = ("tensorflow.contrib.summary.summary_ops.", "tensorflow.contrib.summary.")
_EAGER_MODULES = ("tensorflow.contrib.eager", "tensorflow.contrib.summary")

# tfe names that are the same object under another TF 2 name: tfe symbol -> (rule, TF 2 path)
_RENAMES = {
    "GradientTape": (TFM416, "GradientTape"),
    "executing_eagerly": (TFM416, "executing_eagerly"),
    "in_eager_mode": (TFM416, "executing_eagerly"),
    "py_func": (TFM416, "py_function"),
    "custom_gradient": (TFM416, "custom_gradient"),
    "Checkpoint": (TFM414, "train.Checkpoint"),
    "make_template": (TFM426, "compat.v1.make_template"),  # shares variables in TF 2 eager code too
    "TensorSpec": (TFM426, "TensorSpec"),
}
# tfe names that have no mechanical TF 2 form: tfe symbol -> (rule, what to write instead)
_MANUAL = {
    "gradients_function": (
        TFM410,
        "tfe.gradients_function(f)(x, ...) is, in TF 2: `x = tf.convert_to_tensor(x)`; "
        "`with tf.GradientTape() as tape: tape.watch(x); y = f(x, ...)`; `grads = tape.gradient(y, [x, ...])`",
    ),
    "value_and_gradients_function": (
        TFM410,
        "tfe.value_and_gradients_function(f)(x, ...) is, in TF 2: `x = tf.convert_to_tensor(x)`; "
        "`with tf.GradientTape() as tape: tape.watch(x); y = f(x, ...)`; `value, grads = y, tape.gradient(y, [x, ...])`",
    ),
    "implicit_gradients": (
        TFM408,
        "tfe.implicit_gradients(f)(*args) is, in TF 2: `with tf.GradientTape() as tape: loss = f(*args)`; "
        "`variables = tape.watched_variables()`; `grads_and_vars = list(zip(tape.gradient(loss, variables), variables))` "
        "(tfmigrate rewrites it when it is the value of an assignment or the argument of apply_gradients, and "
        "`g = tfe.implicit_gradients(f)` when f is a lambda or a name bound once)",
    ),
    "implicit_value_and_gradients": (
        TFM408,
        "tfe.implicit_value_and_gradients(f)(*args) is, in TF 2: `with tf.GradientTape() as tape: value = f(*args)`; "
        "`variables = tape.watched_variables()`; `grads_and_vars = list(zip(tape.gradient(value, variables), variables))`",
    ),
    "Saver": (
        TFM414,
        "tfe.Saver saves a list of variables by name and does not exist in TF 2: write "
        "`ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=global_step)`, "
        "`manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=5)`, then `manager.save()` and "
        "`ckpt.restore(manager.latest_checkpoint)`",
    ),
    "restore_variables_on_create": (
        TFM414,
        "tfe.restore_variables_on_create does not exist in TF 2: build the model, then "
        "`tf.train.Checkpoint(model=model, optimizer=optimizer).restore(tf.train.latest_checkpoint(directory))` "
        "(restores are deferred until the variables are created)",
    ),
    "save_network_checkpoint": (
        TFM414,
        "tfe.save_network_checkpoint does not exist in TF 2: `tf.train.Checkpoint(model=network).save(prefix)`",
    ),
    "restore_network_checkpoint": (
        TFM414,
        "tfe.restore_network_checkpoint does not exist in TF 2: `tf.train.Checkpoint(model=network).restore(path)`",
    ),
    "Sequential": (
        TFM402,
        "tfe.Sequential(layers_funcs) is `tf.keras.Sequential(layers)` for Keras layers; plain functions need "
        "`tf.keras.layers.Lambda(fn)` wrappers and `training` is passed by Keras, not by position",
    ),
    "defun": (
        TFM416,
        "tfe.defun traced without AutoGraph: use `tf.function(f, autograph=False)` to keep Python control flow "
        "evaluated at trace time, or `tf.function(f)` after checking the function's control flow",
    ),
    "CheckpointableSaver": (
        TFM414,
        "tfe.CheckpointableSaver(root) is `tf.train.Checkpoint(root=root)` in TF 2 (the keys gain a `root/` prefix)",
    ),
}
# tfe names whose checkpoints have other keys than what TF 2 writes
_CKPT_KEYS = {"Saver", "restore_variables_on_create", "save_network_checkpoint", "restore_network_checkpoint"}

# tf.layers classes: legacy positional parameters; how many of them Keras takes in the same place;
# the legacy defaults that Keras does not share (written explicitly).
_LAYERS: dict[str, tuple[tuple[str, ...], int, dict[str, str]]] = {}


def _conv(params: str, keep: int, data_format: bool = True) -> tuple[tuple[str, ...], int, dict[str, str]]:
    return tuple(params.split()), keep, ({"data_format": '"channels_last"'} if data_format else {})


_CONV = (
    "filters kernel_size strides padding data_format dilation_rate activation use_bias kernel_initializer "
    "bias_initializer kernel_regularizer bias_regularizer activity_regularizer kernel_constraint bias_constraint "
    "trainable name"
)
_CONVT = (
    "filters kernel_size strides padding data_format activation use_bias kernel_initializer bias_initializer "
    "kernel_regularizer bias_regularizer activity_regularizer kernel_constraint bias_constraint trainable name"
)
_SEP = (
    "filters kernel_size strides padding data_format dilation_rate depth_multiplier activation use_bias "
    "depthwise_initializer pointwise_initializer bias_initializer depthwise_regularizer pointwise_regularizer "
    "bias_regularizer activity_regularizer depthwise_constraint pointwise_constraint bias_constraint trainable name"
)
_POOL = "pool_size strides padding data_format name"
_LAYERS.update(
    {
        "Dense": _conv(
            "units activation use_bias kernel_initializer bias_initializer kernel_regularizer bias_regularizer "
            "activity_regularizer kernel_constraint bias_constraint trainable name",
            10,
            False,
        ),
        "Dropout": (("rate", "noise_shape", "seed", "name"), 3, {"rate": "0.5"}),
        "Flatten": (("data_format", "name"), 1, {"data_format": '"channels_last"'}),
        "Conv1D": _conv(_CONV, 6, False),
        "Conv2D": _conv(_CONV, 6),
        "Conv3D": _conv(_CONV, 6),
        "Conv2DTranspose": _conv(_CONVT, 4),
        "Conv3DTranspose": _conv(_CONVT, 4),
        "SeparableConv1D": _conv(_SEP, 19),
        "SeparableConv2D": _conv(_SEP, 19),
        "MaxPooling1D": _conv(_POOL, 4, False),
        "AveragePooling1D": _conv(_POOL, 4, False),
        "MaxPooling2D": _conv(_POOL, 4),
        "AveragePooling2D": _conv(_POOL, 4),
        "MaxPooling3D": _conv(_POOL, 4),
        "AveragePooling3D": _conv(_POOL, 4),
        "BatchNormalization": (
            tuple(
                "axis momentum epsilon center scale beta_initializer gamma_initializer moving_mean_initializer "
                "moving_variance_initializer beta_regularizer gamma_regularizer beta_constraint gamma_constraint "
                "renorm renorm_clipping renorm_momentum fused trainable virtual_batch_size adjustment name".split()
            ),
            13,
            {},
        ),
    }
)
# legacy layers whose call defaulted to training=False (Keras inherits the model's training flag)
_TRAINING_LAYERS = {"Dropout", "BatchNormalization"}
_LAYER_FUNCTIONS = {
    "dense", "dropout", "conv1d", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "separable_conv1d",
    "separable_conv2d", "max_pooling1d", "max_pooling2d", "max_pooling3d", "average_pooling1d",
    "average_pooling2d", "average_pooling3d", "batch_normalization",
}

# legacy optimizers: class -> (Keras class, legacy parameters in order, legacy->keras renames,
# legacy defaults written explicitly where Keras differs, parameters Keras has no equivalent for)
_OPTIMIZERS: dict[str, tuple[str, tuple[str, ...], dict[str, str], dict[str, str], tuple[str, ...]]] = {
    "GradientDescentOptimizer": ("SGD", ("learning_rate", "use_locking", "name"), {}, {}, ("use_locking",)),
    "MomentumOptimizer": (
        "SGD",
        ("learning_rate", "momentum", "use_locking", "name", "use_nesterov"),
        {"use_nesterov": "nesterov"},
        {},
        ("use_locking",),
    ),
    "AdagradOptimizer": (
        "Adagrad",
        ("learning_rate", "initial_accumulator_value", "use_locking", "name"),
        {},
        {"epsilon": "0.0"},
        ("use_locking",),
    ),
    "AdamOptimizer": (
        "Adam",
        ("learning_rate", "beta1", "beta2", "epsilon", "use_locking", "name"),
        {"beta1": "beta_1", "beta2": "beta_2"},
        {"epsilon": "1e-08"},
        ("use_locking",),
    ),
}
_OPT_MANUAL = {
    "RMSPropOptimizer": "tf.keras.optimizers.RMSprop starts its mean-square accumulator at zeros (TF1: ones) and "
    "takes epsilon outside the square root (TF1: inside, 1e-10)",
    "AdadeltaOptimizer": "tf.keras.optimizers.Adadelta has other defaults (learning_rate 0.001, epsilon 1e-7)",
    "FtrlOptimizer": "tf.keras.optimizers.Ftrl has other parameter names (l2_shrinkage_regularization_strength, beta)",
    "ProximalAdagradOptimizer": "TF 2 has no proximal Adagrad; keep tf.compat.v1.train.ProximalAdagradOptimizer in graph code",
}

# tf.contrib.summary function -> (tf.summary function, legacy positional params, legacy->TF2 keyword renames,
# legacy params with no TF 2 equivalent)
_SUMMARY_OPS = {
    "scalar": ("scalar", ("name", "tensor", "family", "step"), {"tensor": "data"}, ("family",)),
    "histogram": ("histogram", ("name", "tensor", "family", "step"), {"tensor": "data"}, ("family",)),
    "image": (
        "image",
        ("name", "tensor", "bad_color", "max_images", "family", "step"),
        {"tensor": "data", "max_images": "max_outputs"},
        ("family", "bad_color"),
    ),
    "audio": (
        "audio",
        ("name", "tensor", "sample_rate", "max_outputs", "family", "step"),
        {"tensor": "data"},
        ("family",),
    ),
}
_SUMMARY_SAME = {"flush": "flush", "should_record_summaries": "should_record_summaries"}
_GLOBAL_STEP = "compat.v1.train.get_or_create_global_step()"  # contrib: _choose_step(None)


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _strip_comma(args: list[cst.Arg]) -> list[cst.Arg]:
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def _with_commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """Give every argument but the last a comma (keeping existing comma whitespace)."""
    out = []
    for i, arg in enumerate(args):
        if i < len(args) - 1 and arg.comma is cst.MaybeSentinel.DEFAULT:
            arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        out.append(arg)
    return _strip_comma(out)


def _callee(fn: cst.BaseExpression) -> cst.BaseExpression:
    """``fn`` ready to be called: parenthesized unless it is a name, attribute, call or subscript."""
    if isinstance(fn, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or fn.lpar:
        return fn
    return fn.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _no_params(fn: cst.Lambda) -> bool:
    p = fn.params
    return not p.params and not p.kwonly_params and not isinstance(p.star_arg, cst.Param) and p.star_kwarg is None


def _rekey(
    original: cst.Call,
    updated: cst.Call,
    params: tuple[str, ...],
    renames: dict[str, str],
    keep_positional: int,
    drop: tuple[str, ...] = (),
) -> list[cst.Arg]:
    """The call's arguments, the first ``keep_positional`` positional ones kept in place, the rest by
    (renamed) keyword; arguments named in ``drop`` left out. Each argument keeps its whitespace."""
    out = []
    for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
        key = orig.keyword.value if orig.keyword else params[i]
        if key in drop:
            continue
        new_key = renames.get(key, key)
        if orig.keyword is None and i < keep_positional:
            out.append(arg)
        elif orig.keyword is not None and new_key == key:
            out.append(arg)
        else:
            out.append(
                arg.with_changes(
                    keyword=cst.Name(new_key),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                )
            )
    return out


class EagerTransform(FamilyTransform):
    FAMILY = "TFM4"
    # leave_Name leaves a Name whose qualified name is None (no import, no module alias) as it is: the walk skips them
    UNIMPORTED_NAMES_UNCHANGED = True
    DESCRIPTION = "tf.contrib.eager, tf.contrib.summary and eager tf.layers -> TensorFlow 2"

    # --- module scan ---------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        index = self.index  # describes `node`: apply() indexes the module it visits
        names = index.nodes(cst.Name)
        self.names_in_use = {n.value for n in names if not _is_attribute_name(n, index.parents.get(n))}
        self.names_in_use |= READ_ELSEWHERE.get()  # and the names of a huge module's other chunks (fresh() avoids them)
        self.tf = None
        self.eager = False
        self.changed = False
        self.needs_tf = False
        self.add_tf_import = False
        self.network_classes: list[bool] = []
        self.for_iters: set[int] = set()  # ids of the iterables of for loops (directly or through enumerate)
        self.handled: set[int] = set()  # ids of original nodes a statement rewrite takes care of
        self.optimizer_names: set[str] = set()
        self.training_layers: set[str] = set()  # `self.<attr>` holding a legacy Dropout/BatchNormalization
        self.imports_to_drop: list[tuple[str, str | None, str | None]] = []
        self.helpers = EagerHelpers()  # TFM417/421/422: TF 2 code for tfe functions with no TF 2 name
        for imp in index.import_statements:
            self._scan_import(imp)
        self.eager = any(
            (module + "." + (name or "")).startswith("tensorflow.contrib.eager")
            or (module == "tensorflow.contrib" and name == "eager")
            for module, name, _ in self.imports_to_drop
        )
        for ref in [] if self.eager else [*names, *index.nodes(cst.Attribute)]:
            qname = self.qualified_name(ref)
            if qname and (
                qname.startswith("tensorflow.contrib.eager")
                or qname in ("tensorflow.enable_eager_execution", "tensorflow.contrib.eager.enable_eager_execution")
            ):
                self.eager = True
                break
        if self.eager and any(
            self.is_enable_eager(call.func) or self.tfe_symbol(call.func) == "run" for call in index.nodes(cst.Call)
        ):  # a TF1 eager program (TFM401 removes the call that said so): never switch it to graph mode
            self.context.facts.add("eager_program")
        for assign in index.nodes(cst.Assign):
            value = assign.value
            if (isinstance(value, cst.Call) and _is_method(value.func, "track_layer")) and value.args:
                value = value.args[0].value
            if not isinstance(value, cst.Call):
                continue
            qname = self.qualified_name(value.func) or ""
            for target in assign.targets:
                dotted = _dotted(target.target)
                if not dotted:
                    continue
                if qname.startswith("tensorflow.train.") and qname.endswith("Optimizer"):
                    self.optimizer_names.add(dotted)
                elif qname.startswith("tensorflow.keras.optimizers."):
                    self.optimizer_names.add(dotted)
                elif qname.removeprefix("tensorflow.layers.") in _TRAINING_LAYERS:
                    self.training_layers.add(dotted)

    def _scan_import(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _dotted(alias.name) or ""
                asname = _dotted(alias.asname.name) if alias.asname else None
                if full == "tensorflow" and asname and self.tf is None:
                    self.tf = asname
                if full.startswith(_EAGER_MODULES):
                    self.imports_to_drop.append((full, None, asname))
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
            module = _dotted(node.module) or ""
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                name = _dotted(alias.name) or ""
                asname = _dotted(alias.asname.name) if alias.asname else None
                if module.startswith(_EAGER_MODULES) or (module == "tensorflow.contrib" and name in ("eager", "summary")):
                    self.imports_to_drop.append((module, name, asname))
                if module == "tensorflow.layers" or (module == "tensorflow" and name == "layers"):
                    self.imports_to_drop.append((module, name, asname))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        updated = self.helpers.insert(self, updated)
        if self.changed:
            if self.add_tf_import:
                self.imports.add("tensorflow", asname=self.tf)
            for module, name, asname in self.imports_to_drop:
                self.imports.remove(module, name, asname)
        return updated

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    # --- helpers -------------------------------------------------------------------------------
    def _tfname(self) -> str:
        self.changed = True
        self.needs_tf = True
        if self.tf is None:
            self.tf = "tf2" if "tf" in self.names_in_use else "tf"
            self.add_tf_import = True
        return self.tf

    def _tf(self, path: str) -> cst.BaseExpression:
        return expression(f"{self._tfname()}.{path}")

    def tfe_symbol(self, node: cst.CSTNode) -> str | None:
        if type(node) is not cst.Name and type(node) is not cst.Attribute:
            return None
        qname = self.qualified_name(node)
        if not qname:
            return None
        for prefix in _TFE_PREFIXES:
            if qname.startswith(prefix):
                return qname[len(prefix) :]
        return None

    def summary_symbol(self, node: cst.CSTNode) -> str | None:
        if type(node) is not cst.Name and type(node) is not cst.Attribute:
            return None
        qname = self.qualified_name(node)
        if not qname:
            return None
        for prefix in _SUMMARY_PREFIXES:
            if qname.startswith(prefix):
                return qname[len(prefix) :]
        return None

    def layer_symbol(self, node: cst.CSTNode) -> str | None:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return None
        qname = self.qualified_name(node)
        if qname and qname.startswith("tensorflow.layers."):
            return qname[len("tensorflow.layers.") :]
        return None

    def is_enable_eager(self, node: cst.CSTNode) -> bool:
        return self.qualified_name(node) == "tensorflow.enable_eager_execution" or self.tfe_symbol(node) == (
            "enable_eager_execution"
        )

    def fresh(self, base: str) -> str:
        name, i = base, 1
        while name in self.names_in_use:
            name, i = f"{base}_{i}", i + 1
        self.names_in_use.add(name)
        return name

    def visit_For(self, node: cst.For) -> None:
        target = node.iter
        if (isinstance(target, cst.Call) and _is_name(target.func, "enumerate")) and target.args and not target.args[0].keyword:
            target = target.args[0].value
        self.for_iters.add(id(target))

    # --- classes: tfe.Network -> tf.keras.Model -------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.network_classes.append(any(self.tfe_symbol(b.value) == "Network" for b in node.bases))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.network_classes.pop()
        bases = list(updated.bases)
        for i, base in enumerate(original.bases):
            if self.tfe_symbol(base.value) == "Network":
                self.flag(
                    base,
                    TFM415,
                    f"checkpoints of {original.name.value} written as a tfe.Network (tfe.Saver, "
                    "save_network_checkpoint) are keyed by variable names such as `<network>/conv2d/kernel`; the "
                    "tf.keras.Model's object-based checkpoint uses `model/<attribute>/kernel/.ATTRIBUTES/VARIABLE_VALUE`: "
                    "compare with `tfmigrate ckpt diff OLD_CKPT --model NEW_CKPT` and rename with "
            "`tfmigrate ckpt convert OLD_CKPT OUT --map map.toml`",
                )
            if self.tfe_symbol(base.value) == "Network" and self.fix(
                base, TFM402, "tfe.Network is tf.keras.Model in TF 2 (layers are tracked on attribute assignment)"
            ):
                bases[i] = bases[i].with_changes(value=self._tf("keras.Model"))
        return updated.with_changes(bases=bases)

    def _in_network(self) -> bool:
        return bool(self.network_classes) and self.network_classes[-1]

    # --- expressions ----------------------------------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if self.eager and original.attr.value == "value":
            new = shape_value(self, original, updated)
            if new is not None:
                return new
        return self._rename(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._rename(original, updated)

    def _rename(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        symbol = self.tfe_symbol(original)
        if symbol in HELPER_SYMBOLS:  # named, not called (a decorator, an argument): the helper itself
            parent = self.get_metadata(ParentNodeProvider, original, None)
            if not (isinstance(parent, cst.Call) and parent.func is original) and not (
                isinstance(parent, cst.Attribute) and parent.attr is original
            ):
                return helper_call(self, symbol, original, updated) or updated
        if symbol in _RENAMES:
            rule, path = _RENAMES[symbol]
            if self.fix(original, rule, f"tfe.{symbol} is tf.{path} in TF 2"):
                return self._tf(path)
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        symbol = self.tfe_symbol(func)
        if symbol is not None:
            return self._tfe_call(symbol, original, updated)
        if self.is_enable_eager(func) and id(original) not in self.handled:
            new = enable_with_config(self, original, updated)
            if new is not None:
                return new
            self.flag(
                original,
                TFM401,
                "enable_eager_execution with arguments or inside an expression: TF 2 always executes eagerly; set "
                "device policy and execution mode with tf.config.experimental.set_device_policy / tf.config.* and "
                "delete the call",
            )
            return updated
        summary = self.summary_symbol(func)
        if summary is not None:
            return self._summary_call(summary, original, updated)
        if self.eager:
            new = eager_call(self, original, updated)
            if new is not None:
                return new
        layer = self.layer_symbol(func)
        if layer is not None and self.eager:
            return self._layer_call(layer, original, updated)
        qname = (self.qualified_name(func) if isinstance(func, (cst.Name, cst.Attribute)) else None) or ""
        if self.eager and qname.startswith("tensorflow.train.") and qname.endswith("Optimizer"):
            return self._optimizer_call(qname.removeprefix("tensorflow.train."), original, updated)
        if (_is_method(func, "track_layer") and _is_name(func.value, "self")) and len(original.args) == 1:
            in_class = self._in_network() or (self.eager and bool(self.network_classes))
            if in_class and not original.args[0].keyword and self.fix(
                original, TFM403, "track_layer is gone in TF 2: tf.keras.Model tracks layers assigned to attributes"
            ):
                self.changed = True
                return self._unwrapped(original, updated.args[0].value)
            return updated
        if self._in_network() and self._is_super_init(original):
            return self._super_init(original, updated)
        if self.eager and isinstance(func, cst.Attribute):
            dotted = _dotted(func)
            if dotted in self.training_layers and not any(
                a.keyword and a.keyword.value == "training" for a in original.args
            ) and len(original.args) == 1 and not original.args[0].star:
                if self.fix(
                    original,
                    TFM405,
                    f"{dotted}: a legacy tf.layers Dropout/BatchNormalization called without `training` ran in "
                    "inference mode; a Keras layer inherits the model's training flag, so training=False is written "
                    "(use training=training if the layer was meant to be active)",
                ):
                    args = [updated.args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
                    return updated.with_changes(args=[*args, kwarg("training", cst.Name("False"))])
        if self.eager and _is_method(func, "minimize") and id(original) not in self.handled:
            keywords = {a.keyword.value for a in original.args if a.keyword}
            positional = [a for a in original.args if not a.keyword]
            if len(positional) == 1 and not positional[0].star and keywords <= {"name"}:
                self.flag(
                    original,
                    TFM411,
                    "if this is an optimizer: a Keras optimizer's minimize needs var_list (TF1 eager used every "
                    "trainable variable the loss read); write `with tf.GradientTape() as tape: loss = loss_fn()`, "
                    "`variables = tape.watched_variables()`, "
                    "`optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))`",
                )
            elif "global_step" in keywords:
                self.flag(
                    original,
                    TFM411,
                    "optimizer.minimize(loss_fn, global_step=...) has no TF 2 form as an expression: write "
                    "`with tf.GradientTape() as tape: loss = loss_fn()`, "
                    "`optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))` and "
                    "`global_step.assign_add(1)`",
                )
        if self.eager and _is_method(func, "apply_gradients") and id(original) not in self.handled:
            if any(a.keyword and a.keyword.value == "global_step" for a in original.args):
                self.flag(
                    original,
                    TFM411,
                    "Keras optimizers' apply_gradients takes no global_step: call it without global_step and "
                    "write `global_step.assign_add(1)` after it",
                )
        return updated

    def _unwrapped(self, call: cst.Call, inner: cst.BaseExpression) -> cst.BaseExpression:
        """``inner`` moved out of ``call(...)``: its continuation lines keep their place relative to the statement.

        ``self.x = self.track_layer(\n    Layer(\n        a))`` indented ``Layer``'s arguments for the inner
        line; once ``Layer(`` starts on the statement's line they are shifted back by the same amount.
        """
        code = cst.Module(body=[]).code_for_node(inner)
        if "\n" not in code or '"""' in code or "'''" in code or "\\\n" in code:
            return inner  # one line, or text whose lines are not all code (string literals, continuations)
        statement = call
        while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
            statement = self.get_metadata(ParentNodeProvider, statement, None)
        if statement is None:
            return inner
        shift = self._lines_col(call.args[0].value) - self._lines_col(statement)
        if shift <= 0:
            return inner
        lines = code.split("\n")
        if not all(not line.strip() or line.startswith(" " * shift) for line in lines[1:]):
            return inner
        try:
            return expression("\n".join([lines[0], *(line[shift:] for line in lines[1:])]))
        except cst.ParserSyntaxError:  # pragma: no cover - the text came from a parsed expression
            return inner

    def _lines_col(self, node: cst.CSTNode) -> int:
        return self._lines(node)[1] - 1

    def _is_super_init(self, call: cst.Call) -> bool:
        return (_is_method(call.func, "__init__") and isinstance(call.func.value, cst.Call) and _is_name(call.func.value.func, "super"))

    def _super_init(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        # tfe.Network(name=None): an empty name made the network pick a unique one; Keras keeps '' verbatim
        args = list(updated.args)
        keep = []
        for i, (orig, arg) in enumerate(zip(original.args, args)):
            name_arg = (orig.keyword is None and not orig.star and i == 0) or (
                orig.keyword is not None and orig.keyword.value == "name"
            )
            empty = _is_name(orig.value, "None") or (
                isinstance(orig.value, cst.SimpleString) and orig.value.evaluated_value == ""
            )
            if name_arg and empty and self.fix(
                orig,
                TFM402,
                "tfe.Network(name='') chose a unique name; tf.keras.Model(name='') keeps an empty name: "
                "the argument is dropped so Keras picks one",
            ):
                self.changed = True
                continue
            keep.append(arg)
        if len(keep) == len(args):
            return updated
        return updated.with_changes(args=_strip_comma(keep))

    def _tfe_call(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if symbol == "Iterator":
            if len(original.args) == 1 and not original.args[0].keyword and not original.args[0].star:
                if id(original) in self.for_iters:
                    if self.fix(original, TFM407, "tfe.Iterator(ds) is not needed in TF 2: iterate the tf.data.Dataset"):
                        self.changed = True
                        return updated.args[0].value
                elif self.fix(original, TFM407, "tfe.Iterator(ds) is iter(ds) in TF 2 (a dataset is iterable in eager mode)"):
                    self.changed = True
                    return cst.Call(func=cst.Name("iter"), args=[updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
            return updated
        if symbol == "Variable":
            positional = [a for a in original.args if not a.keyword]
            bad = [a.keyword.value for a in original.args if a.keyword and a.keyword.value in ("collections",)]
            if len(positional) <= 2 and not bad and not any(a.star for a in original.args):
                if self.fix(original, TFM409, "tfe.Variable (a ResourceVariable) is tf.Variable in TF 2"):
                    return updated.with_changes(func=self._tf("Variable"))
            else:
                self.flag(
                    original,
                    TFM409,
                    "tfe.Variable: pass arguments after the second by keyword and drop `collections` "
                    "(TF 2 has no collections), then use tf.Variable",
                )
            return updated
        if symbol == "enable_eager_execution":
            new = enable_with_config(self, original, updated) if id(original) not in self.handled else None
            if new is not None:
                return new
            if id(original) not in self.handled:
                self.flag(
                    original,
                    TFM401,
                    "enable_eager_execution with arguments or inside an expression: TF 2 always executes eagerly; "
                    "configure devices with tf.config.* and delete the call",
                )
            return updated
        if symbol == "num_gpus" and not original.args:
            if self.fix(original, TFM416, "tfe.num_gpus() is len(tf.config.list_physical_devices('GPU')) in TF 2"):
                return expression(f"len({self._tfname()}.config.list_physical_devices(\"GPU\"))")
            return updated
        if symbol in ("metrics.Mean", "metrics.Accuracy"):
            return self._metric(symbol, original, updated)
        if symbol in ("implicit_gradients", "implicit_value_and_gradients") and id(original) in self.handled:
            return updated
        if symbol in HELPER_SYMBOLS:
            new = helper_call(self, symbol, original, updated)
            if new is not None:
                return new
        new = tfe_call(self, symbol, original, updated)
        if new is not None:
            return new
        if symbol in _MANUAL:
            rule, message = _MANUAL[symbol]
            self.flag(original, rule, message)
            if symbol in _CKPT_KEYS:
                self._ckpt_finding(original, f"tfe.{symbol}")
            return updated
        if symbol == "Checkpoint":
            return updated  # renamed by leave_Attribute
        return updated

    def _ckpt_finding(self, node: cst.CSTNode, what: str) -> None:
        self.flag(
            node,
            TFM415,
            f"{what} wrote name-based checkpoints (variable names such as `mnist_model/conv2d/kernel`); the TF 2 "
            "model's object-based checkpoint has other keys (`model/conv1/kernel/.ATTRIBUTES/VARIABLE_VALUE`): "
            "compare with `tfmigrate ckpt diff OLD_CKPT --model NEW_CKPT` and rename with "
            "`tfmigrate ckpt convert OLD_CKPT OUT --map map.toml`",
        )

    def _metric(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        params = ("name", "dtype")
        if any(a.star for a in original.args) or len(original.args) > 2:
            return updated
        given = {}
        for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
            key = orig.keyword.value if orig.keyword else params[i]
            given[key] = arg.value
        name = symbol.split(".")[1]
        if not self.fix(
            original,
            TFM416,
            f"tfe.metrics.{name} is tf.keras.metrics.{name} in TF 2; the legacy dtype float64 is written "
            "explicitly (Keras: float32); Keras metrics return the running result when called",
        ):
            return updated
        args = [kwarg(k, v) for k, v in given.items() if k == "name"]
        args.append(kwarg("dtype", given.get("dtype") or self._tf("float64")))
        return updated.with_changes(func=self._tf(f"keras.metrics.{name}"), args=_with_commas(args))

    # --- tf.layers ------------------------------------------------------------------------------
    def _layer_call(self, layer: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if layer == "flatten":
            return self._flatten(original, updated)
        if layer in _LAYER_FUNCTIONS:
            cls = "".join(p.capitalize() for p in layer.split("_")).replace("1d", "1D").replace("2d", "2D").replace(
                "3d", "3D"
            )
            self.flag(
                original,
                TFM404,
                f"tf.layers.{layer} creates new variables at every call in eager code: create "
                f"`tf.keras.layers.{cls}(...)` once (in __init__) and call it",
            )
            return updated
        if layer not in _LAYERS:
            return updated
        params, keep, defaults = _LAYERS[layer]
        if any(a.star for a in original.args) or len([a for a in original.args if not a.keyword]) > len(params):
            self.flag(original, TFM404, f"tf.layers.{layer}: rewrite it as tf.keras.layers.{layer} by hand")
            return updated
        given = {a.keyword.value if a.keyword else params[i] for i, a in enumerate(original.args)}
        args = _rekey(original, updated, params, {}, keep)
        added = [kwarg(k, expression(v)) for k, v in defaults.items() if k not in given]
        note = f" ({', '.join(f'{k}={v}' for k, v in defaults.items() if k not in given)} written: Keras default differs)" if added else ""
        if not self.fix(original, TFM404, f"tf.layers.{layer} is tf.keras.layers.{layer} in TF 2{note}"):
            return updated
        if added:
            args = _with_commas([*args, *added])
        return updated.with_changes(func=self._tf(f"keras.layers.{layer}"), args=args)

    def _flatten(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        params = ("inputs", "name", "data_format")
        if any(a.star for a in original.args) or len(original.args) > 3:
            return updated
        given = {}
        for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
            given[orig.keyword.value if orig.keyword else params[i]] = arg.value
        if "inputs" not in given:
            return updated
        if not self.fix(
            original,
            TFM404,
            "tf.layers.flatten(x) is tf.keras.layers.Flatten()(x) in TF 2 (data_format written: Keras default differs)",
        ):
            return updated
        ctor = [kwarg(k, v) for k, v in given.items() if k == "name"]
        ctor.append(kwarg("data_format", given.get("data_format") or cst.SimpleString('"channels_last"')))
        layer = cst.Call(func=self._tf("keras.layers.Flatten"), args=_with_commas(ctor))
        return cst.Call(func=layer, args=[cst.Arg(given["inputs"])])

    # --- optimizers -----------------------------------------------------------------------------
    def _optimizer_call(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if name in _OPT_MANUAL:
            self.flag(
                original,
                TFM412,
                f"tf.train.{name} in eager code: {_OPT_MANUAL[name]}; pick the Keras optimizer by hand or keep "
                f"tf.compat.v1.train.{name}",
            )
            return updated
        if name not in _OPTIMIZERS:
            return updated
        keras, params, renames, defaults, dropped = _OPTIMIZERS[name]
        if any(a.star for a in original.args) or len([a for a in original.args if not a.keyword]) > len(params):
            return updated
        given: dict[str, cst.BaseExpression] = {}
        for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
            given[orig.keyword.value if orig.keyword else params[i]] = arg.value
        if any(k in given and not _is_name(given[k], "False") for k in dropped):
            self.flag(original, TFM412, f"tf.train.{name}: Keras optimizers have no use_locking; drop it by hand")
            return updated
        # A hyperparameter held in a tf.Variable (`lr = tfe.Variable(20.0)`, later `lr.assign(lr / 4)`) was read at
        # every step by tf.train; the new Keras optimizers copy it once, tf.keras.optimizers.legacy reads it.
        variable = [a.value for a in original.args if holds_variable(self, a.value)]
        keras_path = f"keras.optimizers.legacy.{keras}" if variable else f"keras.optimizers.{keras}"
        if not self.fix(
            original,
            TFM412,
            f"tf.train.{name} in eager code is tf.{keras_path} in TF 2 (legacy defaults written where Keras "
            "differs; its slot variables have other checkpoint keys"
            + ("; the legacy Keras class because a hyperparameter is a tf.Variable, which it reads at every step "
               "as tf.train did, where the new class copies it once)" if variable else ")"),
        ):
            return updated
        args = _rekey(original, updated, params, renames, 0, drop=dropped)
        args += [kwarg(renames.get(k, k), expression(v)) for k, v in defaults.items() if k not in given]
        return updated.with_changes(func=self._tf(keras_path), args=_with_commas(args))

    # --- tf.contrib.summary ---------------------------------------------------------------------
    def _summary_call(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if symbol in ("create_file_writer", "create_summary_file_writer"):
            return self._writer(symbol, original, updated)
        if symbol in ("always_record_summaries", "never_record_summaries") and not original.args:
            value = "True" if symbol.startswith("always") else "False"
            if self.fix(original, TFM413, f"tf.contrib.summary.{symbol}() is tf.summary.record_if({value}) in TF 2"):
                return cst.Call(func=self._tf("summary.record_if"), args=[cst.Arg(cst.Name(value))])
            return updated
        if symbol == "record_summaries_every_n_global_steps":
            params = ("n", "global_step")
            if any(a.star for a in original.args) or len(original.args) > 2:
                return updated
            given = {}
            for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
                given[orig.keyword.value if orig.keyword else params[i]] = arg.value
            if "n" not in given:
                return updated
            if not self.fix(
                original,
                TFM413,
                "record_summaries_every_n_global_steps(n) is tf.summary.record_if(<global step % n == 0>) in TF 2",
            ):
                return updated
            tf = self._tfname()
            step = given.get("global_step") or expression(f"{tf}.compat.v1.train.get_or_create_global_step()")
            cond = expression(f"lambda: {tf}.math.equal(STEP % N, 0)")
            cond = cond.visit(Substitute({"STEP": step, "N": given["n"]}))
            self.changed = True
            return cst.Call(func=self._tf("summary.record_if"), args=[cst.Arg(cond)])
        if symbol in _SUMMARY_OPS:
            return self._summary_op(symbol, original, updated)
        if symbol in _SUMMARY_SAME:
            if self.fix(original, TFM413, f"tf.contrib.summary.{symbol} is tf.summary.{_SUMMARY_SAME[symbol]} in TF 2"):
                return updated.with_changes(func=self._tf(f"summary.{_SUMMARY_SAME[symbol]}"))
            return updated
        self.flag(
            original,
            TFM413,
            f"tf.contrib.summary.{symbol} has no TF 2 equivalent (graph-mode summary plumbing); with tf.summary, "
            "ops write directly to the default writer: delete the call or rewrite it by hand",
        )
        return updated

    def _writer(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if any(a.star for a in original.args) or not original.args:
            return updated
        first = original.args[0]
        if first.keyword is not None and first.keyword.value != "logdir":
            return updated
        logdir = first.value
        if isinstance(logdir, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or is_path(self, logdir):
            if self.fix(original, TFM413, f"tf.contrib.summary.{symbol} is tf.summary.create_file_writer in TF 2"):
                return updated.with_changes(func=self._tf("summary.create_file_writer"))
            return updated
        if isinstance(logdir, (cst.Name, cst.Attribute)):
            if self.fix(
                original,
                TFM413,
                f"tf.contrib.summary.{symbol}(None) gave a writer that does nothing; tf.summary.create_file_writer(None) "
                "raises: the None case is written as tf.summary.create_noop_writer()",
            ):
                new = updated.with_changes(func=self._tf("summary.create_file_writer"))
                tf = self._tfname()
                expr = expression(f"(NEW if LOGDIR is not None else {tf}.summary.create_noop_writer())")
                return expr.visit(Substitute({"NEW": new, "LOGDIR": updated.args[0].value.deep_clone()}))
            return updated
        self.flag(
            original,
            TFM413,
            f"tf.contrib.summary.{symbol}: use tf.summary.create_file_writer(logdir, ...) when logdir is a path and "
            "tf.summary.create_noop_writer() where it was None",
        )
        return updated

    def _summary_op(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        new_name, params, renames, unsupported = _SUMMARY_OPS[symbol]
        if any(a.star for a in original.args) or len(original.args) > len(params):
            return updated
        given: dict[str, cst.BaseExpression] = {}
        for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
            given[orig.keyword.value if orig.keyword else params[i]] = arg.value
        bad = [k for k in unsupported if k in given and not _is_name(given[k], "None")]
        if bad:
            self.flag(
                original,
                TFM413,
                f"tf.contrib.summary.{symbol}: tf.summary.{new_name} has no {', '.join(bad)}; "
                "(family) prefix the name as 'family/name' by hand",
            )
            return updated
        if not self.fix(
            original,
            TFM413,
            f"tf.contrib.summary.{symbol} is tf.summary.{new_name} in TF 2; the legacy step (the global step) is "
            "written explicitly",
        ):
            return updated
        args = _rekey(original, updated, params, renames, 2, drop=tuple(unsupported) + ("step",))
        step = given.get("step")
        if step is None or _is_name(step, "None"):
            step = expression(f"{self._tfname()}.{_GLOBAL_STEP}")
        args.append(kwarg("step", step))
        return updated.with_changes(func=self._tf(f"summary.{new_name}"), args=_with_commas(args))

    # --- statements -----------------------------------------------------------------------------
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1:
            return
        stmt = node.body[0]
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
            call = stmt.value
            if self.is_enable_eager(call.func) and not call.args:
                self.handled.add(id(call))
            if self.eager and self._minimize_shape(call):
                self.handled.add(id(call))
            if self.eager and self._apply_shape(call):
                self.handled.add(id(call))
                grads = call.args[0].value
                if self._implicit(grads):
                    self.handled.add(id(grads.func))
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and self._implicit(stmt.value):
            self.handled.add(id(stmt.value.func))
        if isinstance(stmt, cst.Assign) and self._implicit_def(stmt):
            self.handled.add(id(stmt.value))

    def _implicit_def(self, stmt: cst.Assign) -> str | None:
        """``name = tfe.implicit_gradients(f)``: the gradient function is bound to a plain name."""
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Name):
            return None
        call = stmt.value
        if not isinstance(call, cst.Call) or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return None
        symbol = self.tfe_symbol(call.func)
        if symbol not in ("implicit_gradients", "implicit_value_and_gradients"):
            return None
        fn = call.args[0].value
        if isinstance(fn, cst.Lambda):
            return symbol
        if isinstance(fn, cst.Name):  # the def looks the name up at call time: it must never be rebound
            scope = self.scopes.scope_of(fn)
            if scope is not None and len(scope[fn.value]) == 1:
                return symbol
        return None

    def _implicit(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Call) and len(node.func.args) == 1:
            symbol = self.tfe_symbol(node.func.func)
            if symbol in ("implicit_gradients", "implicit_value_and_gradients") and not node.func.args[0].keyword:
                if not any(a.keyword for a in node.args):
                    return symbol
        return None

    def _minimize_shape(self, call: cst.Call) -> bool:
        if not _is_method(call.func, "minimize") or not call.args:
            return False
        if call.args[0].keyword or call.args[0].star:
            return False
        keywords = {a.keyword.value for a in call.args[1:] if a.keyword}
        if len(keywords) != len(call.args) - 1 or not keywords <= {"global_step", "var_list", "name"}:
            return False
        receiver = _dotted(call.func.value)
        return "global_step" in keywords or receiver in self.optimizer_names

    def _apply_shape(self, call: cst.Call) -> bool:
        if not _is_method(call.func, "apply_gradients") or not call.args:
            return False
        if call.args[0].keyword or call.args[0].star:
            return False
        keywords = {a.keyword.value for a in call.args[1:] if a.keyword}
        if len(keywords) != len(call.args) - 1 or not keywords <= {"global_step", "name"}:
            return False
        return "global_step" in keywords or self._implicit(call.args[0].value) is not None

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel | cst.RemovalSentinel:
        if len(original.body) != 1:
            return updated
        stmt, new_stmt = original.body[0], updated.body[0]
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) and id(stmt.value) in self.handled:
            call = stmt.value
            if self.is_enable_eager(call.func):
                if self.fix(call, TFM401, "TF 2 executes eagerly by default: enable_eager_execution() is removed"):
                    self.changed = True
                    return self._remove(original)
                return updated
            if _is_method(call.func, "minimize"):
                return self._minimize(original, call, new_stmt.value) or updated
            if _is_method(call.func, "apply_gradients"):
                return self._apply(original, call, new_stmt.value) or updated
        if isinstance(stmt, cst.Assign) and id(stmt.value) in self.handled:
            symbol = self._implicit_def(stmt)
            if not self.fix(stmt.value, TFM408, f"tfe.{symbol}(f) is a function around tf.GradientTape in TF 2"):
                return updated
            tf = self._tfname()
            name = stmt.targets[0].target.value
            tape, value, variables = self.fresh("tape"), self.fresh("value"), self.fresh("variables")
            ret = f"{value}, " if symbol == "implicit_value_and_gradients" else ""
            func = cst.parse_statement(
                f"def {name}(*args, **kwargs):\n"
                f"    with {tf}.GradientTape() as {tape}:\n"
                f"        {value} = FN(*args, **kwargs)\n"
                f"    {variables} = {tape}.watched_variables()\n"
                f"    return {ret}list(zip({tape}.gradient({value}, {variables}), {variables}))\n"
            ).visit(Substitute({"FN": _callee(new_stmt.value.args[0].value)}))
            return func.with_changes(leading_lines=original.leading_lines)
        if isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Call) and id(stmt.value.func) in self.handled:
            symbol = self._implicit(stmt.value)
            if not self.fix(stmt.value, TFM408, f"tfe.{symbol} is tf.GradientTape in TF 2"):
                return updated
            target = new_stmt.targets[0].target
            value_and = symbol == "implicit_value_and_gradients"
            pre, names, grads = self._tape(new_stmt.value, target if value_and else None)
            if value_and and names is None:
                assign = new_stmt.with_changes(
                    value=cst.Tuple([cst.Element(cst.Name(self._last_loss)), cst.Element(grads)], lpar=[], rpar=[])
                )
            elif value_and:
                assign = cst.Assign(targets=[cst.AssignTarget(names[1])], value=grads)
            else:
                assign = new_stmt.with_changes(value=grads)
            pre[0] = pre[0].with_changes(leading_lines=original.leading_lines)
            return cst.FlattenSentinel([*pre, original.with_changes(body=[assign], leading_lines=[])])
        return updated

    def _remove(self, original: cst.SimpleStatementLine) -> cst.BaseStatement | cst.RemovalSentinel:
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementSuite)) and len(parent.body) == 1:
            return original.with_changes(body=[cst.Pass()])
        return cst.RemoveFromParent()

    def _tape(
        self, call: cst.Call, value_target: cst.BaseExpression | None
    ) -> tuple[list[cst.BaseStatement], tuple | None, cst.BaseExpression]:
        """Statements computing ``f(*args)`` under a tape; returns (statements, value names, grads_and_vars)."""
        tf = self._tfname()
        self.changed = True
        fn = call.func.args[0].value
        tape = self.fresh("tape")
        names = None
        if value_target is not None and _is_name_pair(value_target):
            loss = value_target.elements[0].value.value
            names = (loss, value_target.elements[1].value)
        else:
            loss = self.fresh("loss_value")
        self._last_loss = loss
        variables = self.fresh("variables")
        value = cst.Call(func=_callee(fn), args=_strip_comma(list(call.args)))
        body = cst.parse_statement(f"with {tf}.GradientTape() as {tape}:\n    {loss} = LOSS\n")
        body = body.visit(Substitute({"LOSS": value}))
        stmts = [body, cst.parse_statement(f"{variables} = {tape}.watched_variables()\n")]
        grads = expression(f"list(zip({tape}.gradient({loss}, {variables}), {variables}))")
        return stmts, names, grads

    def _minimize(self, original: cst.SimpleStatementLine, call: cst.Call, updated: cst.Call):
        if not self.fix(
            call,
            TFM411,
            "optimizer.minimize(loss_fn, global_step=...) is a GradientTape step in TF 2 (Keras optimizers need the "
            "variables; the global step is incremented explicitly)",
        ):
            return None
        tf = self._tfname()
        self.changed = True
        fn = updated.args[0].value
        kwargs = {a.keyword.value: a.value for a in updated.args[1:]}
        tape = self.fresh("tape")
        loss = self.fresh("loss_value")
        if isinstance(fn, cst.Lambda) and _no_params(fn):
            loss_expr = fn.body
        else:
            loss_expr = cst.Call(func=_callee(fn))
        with_stmt = cst.parse_statement(f"with {tf}.GradientTape() as {tape}:\n    {loss} = LOSS\n").visit(
            Substitute({"LOSS": loss_expr})
        )
        out: list[cst.BaseStatement] = [with_stmt.with_changes(leading_lines=original.leading_lines)]
        if "var_list" in kwargs:
            variables_expr = kwargs["var_list"]
        else:
            variables = self.fresh("variables")
            out.append(cst.parse_statement(f"{variables} = {tape}.watched_variables()\n"))
            variables_expr = cst.Name(variables)
        apply = expression(f"OPT.apply_gradients(zip({tape}.gradient({loss}, VARS), VARS))").visit(
            Substitute({"OPT": updated.func.value, "VARS": variables_expr})
        )
        out.append(original.with_changes(body=[cst.Expr(apply)], leading_lines=[]))
        step = kwargs.get("global_step")
        if step is not None and not _is_name(step, "None"):
            out.append(self._assign_add(step))
        return cst.FlattenSentinel(out)

    def _assign_add(self, step: cst.BaseExpression) -> cst.BaseStatement:
        return cst.SimpleStatementLine(
            [cst.Expr(cst.Call(func=cst.Attribute(value=step, attr=cst.Name("assign_add")), args=[cst.Arg(cst.Integer("1"))]))]
        )

    def _apply(self, original: cst.SimpleStatementLine, call: cst.Call, updated: cst.Call):
        grads_orig = call.args[0].value
        symbol = self._implicit(grads_orig)
        step = None
        args = list(updated.args)
        out: list[cst.BaseStatement] = []
        if any(a.keyword and a.keyword.value == "global_step" for a in call.args):
            if not self.fix(
                call,
                TFM411,
                "Keras optimizers' apply_gradients takes no global_step: the global step is incremented explicitly",
            ):
                return None
            step = next(a.value for a in args if a.keyword and a.keyword.value == "global_step")
            args = _strip_comma([a for a in args if not (a.keyword and a.keyword.value == "global_step")])
        if symbol == "implicit_gradients" and self.fix(grads_orig, TFM408, f"tfe.{symbol} is tf.GradientTape in TF 2"):
            pre, _, grads = self._tape(args[0].value, None)
            out.extend(pre)
            args[0] = args[0].with_changes(value=grads)
        elif symbol is not None:
            self.flag(grads_orig, TFM408, _MANUAL[symbol][1])
        self.changed = True
        out.append(original.with_changes(body=[cst.Expr(updated.with_changes(args=args))], leading_lines=[]))
        if step is not None and not _is_name(step, "None"):
            out.append(self._assign_add(step))
        out[0] = out[0].with_changes(leading_lines=original.leading_lines)
        return cst.FlattenSentinel(out)


def _is_name(node: cst.CSTNode | None, value: str | None = None) -> bool:
    return isinstance(node, cst.Name) and (value is None or node.value == value)


def _is_method(func: cst.CSTNode, attr: str) -> bool:
    """``<anything>.attr`` (what ``m.Attribute(attr=m.Name(attr))`` matched)."""
    return isinstance(func, cst.Attribute) and func.attr.value == attr


def _is_name_pair(node: cst.CSTNode) -> bool:
    """``(a, b)`` or ``[a, b]`` of two plain names."""
    return (
        isinstance(node, (cst.Tuple, cst.List))
        and len(node.elements) == 2
        and all(type(e) is cst.Element and isinstance(e.value, cst.Name) for e in node.elements)
    )


def _is_attribute_name(name: cst.Name, parent: cst.CSTNode | None) -> bool:
    return isinstance(parent, cst.Attribute) and parent.attr is name
