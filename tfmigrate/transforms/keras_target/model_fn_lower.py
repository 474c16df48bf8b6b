"""TFM707: a custom ``model_fn`` of ``tf.estimator.Estimator(model_fn=...)`` becomes a Keras model.

The ``def`` of the model_fn becomes, in its place, a ``ModelFnModel`` subclass (the base class is a helper
written into the helpers module, :mod:`tfmigrate.keras_runtime`):

- ``__init__`` creates each layer the model_fn built (``tf.layers``/``tf.compat.v1.layers`` functions and
  classes, ``tf_slim``/``tf.contrib.layers``; :mod:`model_fn_layers`) once, as a Keras layer with the same
  arguments, each ``tf.metrics`` function of its ``eval_metric_ops`` as a Keras metric named as the key, and
  compiles the model with the optimizer the model_fn built (``tf.train.*Optimizer`` at the legacy rate and
  defaults, a decay schedule as a Keras schedule, ``clip_by_global_norm`` as ``global_clipnorm``);
- its method ``model_fn`` is the model_fn's body (comments kept) with each layer call reading the layer of
  ``__init__`` (``training=`` from the legacy argument, ``mode == "train"`` where it was ``mode == ModeKeys.TRAIN``),
  ``ModeKeys.X`` the Estimator's strings, the optimizer, ``minimize`` and summary statements gone, and
  ``EstimatorSpec(...)`` a ``dict`` of its ``predictions``, ``loss`` and ``eval_metric_ops``.

A network function the model_fn calls (a module-level ``def`` holding layers, called once) takes the model as
its first argument and reads its layers the same way. Everything else the model_fn does is kept as it was
(the loss functions of ``tf.compat.v1.losses`` run on TensorFlow 2.21 with their reductions). What cannot be
lowered with the same computation is returned as the pieces that stop it, for TFM705's message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.transforms.common.builders import code_of, str_value, unique
from tfmigrate.transforms.keras_target import model_fn_layers as tables
from tfmigrate.transforms.keras_target.model_fn_slim import SlimPieces, is_optimize_loss

ESTIMATOR_PARAMS = ("model_fn", "model_dir", "config", "params", "warm_start_from")
SPEC_PARAMS = ("mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
               "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks")
MODEL_FN_ARGS = ("features", "labels", "mode", "params")
MODES = {"TRAIN": "train", "EVAL": "eval", "PREDICT": "infer", "INFER": "infer"}
TF1_LOSSES = ("absolute_difference", "cosine_distance", "hinge_loss", "huber_loss", "log_loss", "mean_pairwise_squared_error",
              "mean_squared_error", "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy")
GLOBAL_STEP = ("get_global_step", "get_or_create_global_step")
# tf.contrib.layers.optimize_loss (and TFM608's copy of it, legacy_optimize_loss) in TF 1.15's parameter order
OPTIMIZE_LOSS_PARAMS = ("loss", "global_step", "learning_rate", "optimizer", "gradient_noise_scale", "gradient_multipliers",
                        "clip_gradients", "learning_rate_decay_fn", "update_ops", "variables", "name", "summaries",
                        "colocate_gradients_with_ops", "increment_global_step")
# its optimizer strings (TF 1.15 OPTIMIZER_CLS_NAMES) as the tf.train class and the arguments beside the rate
OPTIMIZE_LOSS_NAMES = {"Adagrad": ("AdagradOptimizer", ""), "Adam": ("AdamOptimizer", ""),
                       "Momentum": ("MomentumOptimizer", "momentum=0.9"), "SGD": ("GradientDescentOptimizer", "")}
EMBEDDING_LOOKUP = ("ids", "partition_strategy", "name", "validate_indices")  # after params: what keeps the rows read
SUMMARY_MODULES = ("tensorflow.summary.", "tensorflow.compat.v1.summary.", "tensorflow.contrib.summary.")
# get_variable's dtypes and TF 1.15's default initializer for each (variable_scope._get_default_initializer)
WEIGHT_DTYPES = {**dict.fromkeys(("float16", "bfloat16", "float32", "float64"), '"glorot_uniform"'),
                 **dict.fromkeys(("int8", "int16", "int32", "int64", "uint8", "bool"), '"zeros"')}
# tf.compat.v1 initializers, called by Keras's add_weight as initializer(shape, dtype=dtype)
WEIGHT_INITIALIZERS = ("constant_initializer", "zeros_initializer", "ones_initializer", "random_normal_initializer",
                       "random_uniform_initializer", "truncated_normal_initializer", "glorot_uniform_initializer",
                       "glorot_normal_initializer")
BLOCKED_CALLS = {
    "get_variable": "variables created with tf.compat.v1.get_variable (not a layer tfmigrate can create once)",
    "Variable": "tf.Variable created inside the model_fn",
    "get_total_loss": "the loss read from the graph's collections (get_total_loss)",
    "get_regularization_loss": "the loss read from the graph's collections (get_regularization_loss)",
    "get_regularization_losses": "the loss read from the graph's collections (get_regularization_losses)",
    "get_collection": "the graph's collections (tf.compat.v1.get_collection)",
    "optimize_loss": "custom train_op logic (optimize_loss)",
    "legacy_optimize_loss": "custom train_op logic (legacy_optimize_loss)",
    "control_dependencies": "custom train_op logic (control_dependencies)",
    "group": "custom train_op logic (tf.group)",
}


@dataclass(frozen=True)
class LayerRecord:
    """One layer the lowering creates in ``__init__``, in the order the model_fn created it, with what decides
    the legacy variables' names (``ckpt convert --to keras`` maps a model_dir's variables with it)."""
    attr: str  # the Keras model's attribute
    keras: str  # the tf.keras.layers class
    legacy: str  # the legacy function or class (dense, conv2d, fully_connected, Dense, ...)
    slim: bool  # tf_slim / tf.contrib.layers
    function: bool  # a function (tf.layers.dense(...)), else a class (tf.layers.Dense(...)(x))
    name: str | None  # name= (tf.layers) or scope= (slim), a literal; "?" where it is not one
    scopes: tuple[str, ...]  # the enclosing variable_scope names, outermost first; "?" where one is not a literal
    keywords: tuple[tuple[str, str], ...]  # the legacy keyword arguments, as written (use_bias, center, scale ...)
    inputs: str  # the code of the layer's inputs
    line: int = 0


@dataclass
class Plan:
    """What lowering one model_fn writes: the replacements (by node id) and the class."""
    fn: cst.FunctionDef
    class_name: str
    table: dict[int, object] = field(default_factory=dict)
    init: list[str] = field(default_factory=list)  # statements of __init__ after super().__init__
    optimizer: str | None = None
    reads_params: bool = False
    helpers: set[str] = field(default_factory=set)
    layers: list[str] = field(default_factory=list)
    networks: list[cst.FunctionDef] = field(default_factory=list)
    readers: list[cst.CSTNode] = field(default_factory=list)  # replaced names: their imports go when unused
    created: list[LayerRecord] = field(default_factory=list)  # the layers of __init__, in creation order
    dropped: set[str] = field(default_factory=set)  # what only logged and is dropped (TFM707's message says so)


class Blocked(Exception):
    """A piece of the model_fn that has no faithful Keras form."""


def _camel(name: str) -> str:
    out = "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)
    return out or "ModelFn"


def _ident(text: str) -> str:
    out = re.sub(r"\W", "_", text).strip("_").lower()
    return out if out and not out[0].isdigit() else f"m_{out}"


def _bind(call: cst.Call, params: tuple[str, ...]) -> dict[str, cst.Arg]:
    out: dict[str, cst.Arg] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            raise Blocked(f"a *args/**kwargs call ({' '.join(code_of(call).split())[:60]})")
        key = arg.keyword.value if arg.keyword is not None else params[position] if position < len(params) else None
        if key is None:
            raise Blocked(f"too many positional arguments in {' '.join(code_of(call).split())[:60]}")
        out[key] = arg
    return out


def _bound_names(fn: cst.FunctionDef) -> set[str]:
    """Every name the function binds (its parameters, assignment, loop and with targets)."""
    out = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params)}
    for node in iter_nodes(fn.body, trivia=False):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.AssignTarget):
            targets.append(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets.append(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets.append(node.target)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets.append(node.asname.name)
        for target in targets:
            for inner in iter_nodes(target, trivia=False):
                if isinstance(inner, cst.Name):
                    out.add(inner.value)
    return out


def _reads(expr: cst.CSTNode) -> set[str]:
    """The names an expression reads (not the attribute names after a dot, not keyword names)."""
    nodes = list(iter_nodes(expr, trivia=False))
    skip = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)}
    skip |= {id(n.keyword) for n in nodes if isinstance(n, cst.Arg) and n.keyword is not None}
    return {n.value for n in nodes if isinstance(n, cst.Name) and id(n) not in skip}


class ModelFnLowering(SlimPieces):
    """Plans the lowering of the model_fn of one ``tf.estimator.Estimator(...)`` call; ``plan()`` raises
    :class:`Blocked` with the piece that stops it."""

    blocked_ = Blocked  # what the model_fn_slim mixin raises and binds arguments with
    bind_args_ = staticmethod(_bind)

    def __init__(self, t: FamilyTransform, call: cst.Call, taken: set[str]) -> None:
        self.t, self.call, self.taken = t, call, taken  # taken: names the module already binds
        self.attrs: set[str] = set(tables.RESERVED)
        self.removed: list[cst.CSTNode] = []
        self.lazy = False  # _hoistable: a layer argument may read the model_fn's locals (the layer is made lazily)

    # --- finding the model_fn ------------------------------------------------------------------
    def model_fn(self) -> cst.FunctionDef:
        args = _bind(self.call, ESTIMATOR_PARAMS)
        if "model_fn" not in args:
            raise Blocked("no model_fn argument")
        value = args["model_fn"].value
        if isinstance(value, cst.Attribute):
            raise Blocked(f"the model_fn is a method ({code_of(value)}): its self is another object")
        if not isinstance(value, cst.Name):
            raise Blocked(f"the model_fn {code_of(value)} is not a function defined in this module")
        defs = [f for f in self.t.index.nodes(cst.FunctionDef) if f.name.value == value.value]
        if len(defs) != 1:
            raise Blocked(f"the model_fn {value.value} is not one def of this module")
        fn = defs[0]
        parent = self.t.index.parents.get(fn)
        if isinstance(self.t.index.parents.get(parent), cst.ClassDef):
            raise Blocked(f"the model_fn {value.value} is a method")
        if fn.decorators:
            raise Blocked(f"the model_fn {value.value} is decorated")
        names = [p.name.value for p in fn.params.params]
        if fn.params.star_arg is not cst.MaybeSentinel.DEFAULT or fn.params.star_kwarg is not None \
                or fn.params.kwonly_params or fn.params.posonly_params or any(n not in MODEL_FN_ARGS for n in names):
            raise Blocked(f"the model_fn's parameters ({code_of(fn.params)}): only features, labels, mode, params are lowered")
        # the def is read only by Estimator(model_fn=...) calls
        for name in self.t.index.nodes(cst.Name):
            if name.value != fn.name.value or name is fn.name:
                continue
            arg = self.t.index.parents.get(name)
            owner = self.t.index.parents.get(arg) if isinstance(arg, cst.Arg) else None
            if not (isinstance(owner, cst.Call) and (self.t.qualified_name(owner.func) or "").endswith(".Estimator")):
                raise Blocked(f"the model_fn {fn.name.value} is also used elsewhere than in Estimator(model_fn=...)")
        return fn

    # --- the plan -------------------------------------------------------------------------------
    def plan(self) -> Plan:
        fn = self.model_fn()
        name = _camel(fn.name.value)
        while name in self.taken or name in ("ModelFnModel",):
            name += "Keras"
        plan = Plan(fn, name)
        self.plan_ = plan
        self.locals = _bound_names(fn)
        self.networks: dict[str, cst.FunctionDef] = {}
        self.metrics: dict[int, cst.Call] = {}
        self.optimizers: list[cst.Call] = []
        self.optimize_losses: list[cst.Call] = []  # tf.contrib.layers.optimize_loss train_ops (model_fn_slim)
        self.specs: list[cst.Call] = []
        self.weights: set[tuple[str, ...]] = set()  # (scopes..., name) of the get_variable weights
        self.groups: dict[int, cst.Call] = {}  # tf.group(minimize, assign_add(global_step, 1)): its minimize
        self.scope_prefix: tuple[str, ...] = ()  # the variable scopes around the call of the network function scanned
        self._scan(fn, owner="self", top=True)
        self._specs(fn)
        self._optimizer(fn)
        self._finish_removals()
        plan.helpers |= {"ModelFnModel", "metric_op"} if self.metrics else {"ModelFnModel"}
        return plan

    # scanning the calls of the model_fn (and of the network functions it calls)
    def _scan(self, fn: cst.FunctionDef, owner: str, top: bool) -> None:
        fn_locals = _bound_names(fn)
        class_forms = set()
        for node in self._evaluation_order(fn):
            parent = self.t.index.parents.get(node)
            if isinstance(parent, cst.Call) and parent.func is node and isinstance(node, cst.Call):
                inner = self.t.qualified_name(node.func) or ""
                if inner.startswith(tables.LAYER_MODULES) and inner.rpartition(".")[2] in tables.LAYER_CLASSES:
                    continue  # tf.layers.Dense(...) of tf.layers.Dense(...)(x): the outer call is the layer's
            if isinstance(node, cst.Attribute):
                self._mode_key(node)
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and node is not fn:
                if any(isinstance(n, cst.Call) and self._is_layer(n) for n in iter_nodes(node, trivia=False)):
                    raise Blocked(f"a layer inside a nested function or lambda of {fn.name.value}")
            if not isinstance(node, cst.Call):
                continue
            if id(node) in class_forms:
                continue
            qn = self.t.qualified_name(node.func) or ""
            short = qn.rpartition(".")[2]
            if isinstance(node.func, cst.Call):  # tf.layers.Dense(...)(x)
                inner = self.t.qualified_name(node.func.func) or ""
                if inner.startswith(tables.LAYER_MODULES) and inner.rpartition(".")[2] in tables.LAYER_CLASSES:
                    class_forms.add(id(node.func))
                    self._layer_class(node, inner.rpartition(".")[2], owner, fn_locals)
                    continue
            if is_optimize_loss(self.t, node):
                if not top:
                    raise Blocked(f"optimize_loss called by {fn.name.value}, not by the model_fn")
                self.optimize_losses.append(node)
            elif isinstance(node.func, cst.Name) and node.func.value == "legacy_dense" and not qn:
                raise Blocked("legacy_dense (TFM712's get_variable layer of graph-mode code)")
            elif qn.startswith(tables.SLIM_MODULES) and short == "stack":
                self._slim_stack(node, owner, fn_locals, fn)
            elif qn.startswith(tables.LAYER_MODULES[:2]) and short in tables.LAYER_FUNCTIONS:
                self._layer_function(node, tables.LAYER_FUNCTIONS[short], owner, fn_locals, slim=False)
            elif qn.startswith(tables.SLIM_MODULES) and short in tables.SLIM_FUNCTIONS:
                self._layer_function(node, tables.SLIM_FUNCTIONS[short], owner, fn_locals, slim=True)
            elif qn.startswith(tables.LAYER_MODULES + tables.SLIM_MODULES):
                raise Blocked(f"{qn.replace('tensorflow.', 'tf.')} (no Keras layer tfmigrate writes for it)")
            elif qn.startswith(tables.METRIC_MODULES):
                if short not in tables.METRICS:
                    raise Blocked(f"the metric {qn.replace('tensorflow.', 'tf.')} (no Keras metric with the same values)")
                self.metrics[id(node)] = node
            elif qn.startswith(tables.OPTIMIZER_MODULES) and short.endswith("Optimizer") or qn.startswith("tensorflow.keras.optimizers."):
                self.optimizers.append(node)
            elif qn.startswith(tables.OPTIMIZER_MODULES) and short in GLOBAL_STEP:
                self.plan_.table[id(node)] = cst.parse_expression(f"{owner}.optimizer.iterations")
            elif qn.startswith("tensorflow.losses.") and short in TF1_LOSSES:
                # TF 1.x's tf.losses (a scalar, SUM_BY_NONZERO_WEIGHTS); TF 2's name is Keras' per-example function
                self.plan_.table[id(node.func)] = cst.parse_expression(f"tf.compat.v1.losses.{short}")
            elif short == "EstimatorSpec" and qn.startswith(("tensorflow.estimator.", "tensorflow.compat.v1.estimator.")):
                if not top:
                    raise Blocked(f"an EstimatorSpec returned by {fn.name.value}, not by the model_fn")
                self.specs.append(node)
            elif qn.startswith(SUMMARY_MODULES):
                self._remove_statement(node, "summary")
            elif short in ("input_layer", "linear_model") and qn.startswith(("tensorflow.feature_column.",
                                                                          "tensorflow.compat.v1.feature_column.")):
                self._input_layer(short)
            elif short == "get_variable" and qn.startswith("tensorflow.") and self._embedding(node, owner, fn_locals):
                continue
            elif short == "get_variable" and qn.startswith("tensorflow.") and self._weight(node, owner, fn_locals):
                continue
            elif short == "group" and qn.startswith("tensorflow.") and top and self._group(node):
                continue
            elif short == "placeholder" and qn.startswith("tensorflow.") and top and self._labels_placeholder(node, fn):
                continue
            elif short in BLOCKED_CALLS and (qn.startswith("tensorflow.") or short in ("legacy_optimize_loss",)):
                raise Blocked(BLOCKED_CALLS[short])
            elif short == "variable_scope" and any(a.keyword is not None and a.keyword.value == "reuse" for a in node.args):
                raise Blocked("a variable_scope with reuse (variables shared by scope)")
            elif isinstance(node.func, cst.Name) and top:
                self._network(node, fn)

    def _evaluation_order(self, fn: cst.FunctionDef) -> list[cst.CSTNode]:
        """The nodes of the body, each after the nodes it contains (an inner layer call is created first, as the
        legacy graph created its variables)."""
        pre = list(iter_nodes(fn.body, trivia=False))
        start = {id(n): i for i, n in enumerate(pre)}
        end = dict(start)
        for node in reversed(pre):
            parent = self.t.index.parents.get(node)
            if parent is not None and id(parent) in end:
                end[id(parent)] = max(end[id(parent)], end[id(node)])
        return sorted(pre, key=lambda n: (end[id(n)], -start[id(n)]))

    def _mode_key(self, node: cst.Attribute) -> None:
        qn = self.t.qualified_name(node) or ""
        head, _, key = qn.rpartition(".")
        if head.endswith(".ModeKeys") and key in MODES and qn.startswith("tensorflow."):
            self.plan_.table[id(node)] = cst.SimpleString(f'"{MODES[key]}"')
            self.plan_.readers.append(node)

    def _is_layer(self, node: cst.Call) -> bool:
        qn = self.t.qualified_name(node.func) or ""
        return qn.startswith(tables.LAYER_MODULES + tables.SLIM_MODULES)

    def _network(self, node: cst.Call, fn: cst.FunctionDef) -> None:
        """``net = network(features, ...)``: a module-level def holding layers, called once from the model_fn."""
        callee = node.func.value  # type: ignore[attr-defined]
        defs = [f for f in self.t.index.nodes(cst.FunctionDef) if f.name.value == callee]
        if len(defs) != 1 or self.t.index.parents.get(defs[0]) is not self.t.index.module:
            return
        net = defs[0]
        if not any(isinstance(n, cst.Call) and self._is_layer(n) for n in iter_nodes(net, trivia=False)):
            return
        if callee in self.networks:
            raise Blocked(f"the network function {callee} called twice (legacy layers made new variables each time "
                          "unless a variable_scope reused them)")
        reads = [n for n in self.t.index.nodes(cst.Name) if n.value == callee and n is not net.name]
        if len(reads) != 1:
            raise Blocked(f"the network function {callee} is also called outside the model_fn")
        if net.decorators or net.params.star_kwarg is not None or net.params.params and net.params.params[0].name.value == "model":
            raise Blocked(f"the network function {callee}'s signature")
        names = [p.name.value for p in net.params.params]
        if "params" in names:  # its params must be the model_fn's (what __init__ reads as self.params)
            position = names.index("params")
            given = [a for a in node.args if a.keyword is not None and a.keyword.value == "params"] or \
                [a for i, a in enumerate(node.args) if i == position and a.keyword is None]
            if not (given and isinstance(given[0].value, cst.Name) and given[0].value.value == "params"):
                raise Blocked(f"the network function {callee} called with other params than the model_fn's")
        self.networks[callee] = net
        self.plan_.networks.append(net)
        self.plan_.table[id(node)] = lambda updated: updated.with_changes(args=[cst.Arg(cst.Name("self")), *updated.args])

        def with_model(updated: cst.CSTNode) -> cst.CSTNode:
            params = updated.params  # type: ignore[attr-defined]
            return updated.with_changes(params=params.with_changes(params=[cst.Param(cst.Name("model")), *params.params]))

        self.plan_.table[id(net)] = with_model
        outer, self.scope_prefix = self.scope_prefix, self._variable_scopes(node)
        self._scan(net, owner="model", top=False)
        self.scope_prefix = outer

    # --- layers ---------------------------------------------------------------------------------
    def _hoistable(self, expr: cst.CSTNode, fn_locals: set[str], what: str) -> str:
        text = code_of(expr)
        reads = _reads(expr)
        local = {n for n in reads if n in fn_locals | self.locals and n != "params"}
        if local and self.lazy:
            return text  # a layer made on the model_fn's first run, where these are computed
        if local:
            raise Blocked(f"{what} reads {', '.join(sorted(local))}, computed in the model_fn (a layer is created once, before it runs)")
        if "params" in reads and "params" in fn_locals | self.locals:  # the model_fn's params (else a global of that name)
            self.plan_.reads_params = True
        return text

    def _attr(self, node: cst.Call, kind: str, name: str | None) -> str:
        base = _ident(name) if name else None
        if base is None:
            parent = self.t.index.parents.get(node)
            if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
                base = _ident(parent.targets[0].target.value)
            else:
                base = _ident(kind)
        if base in tables.RESERVED:
            base = f"{base}_layer"
        return unique(base, self.attrs)

    def _in_loop(self, node: cst.CSTNode) -> bool:
        parent = self.t.index.parents.get(node)
        while parent is not None and not isinstance(parent, cst.FunctionDef):
            if isinstance(parent, (cst.For, cst.While, cst.BaseComp)):
                return True
            parent = self.t.index.parents.get(parent)
        return False

    def _lazy_allowed(self, node: cst.CSTNode) -> bool:
        """May a layer whose arguments read the model_fn's locals be made on the model_fn's first run? Only
        where every run reaches it (not under an ``if``, a loop, a ``with`` or a ``try``), so the layer exists
        after the first batch (ModelFnModel.restore), before the optimizer and the checkpoint see the weights."""
        parent = self.t.index.parents.get(node)
        while parent is not None and not isinstance(parent, cst.FunctionDef):
            if isinstance(parent, (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.BaseComp, cst.IfExp, cst.Lambda)):
                return False
            parent = self.t.index.parents.get(parent)
        return True

    def _layer_function(self, node: cst.Call, form: tables.LayerForm, owner: str, fn_locals: set[str], slim: bool) -> None:
        try:
            self._layer_function_once(node, form, owner, fn_locals, slim)
        except Blocked as blocked:
            if "computed in the model_fn" not in str(blocked) or not self._lazy_allowed(node):
                raise
            self.lazy = True
            try:
                self._layer_function_once(node, form, owner, fn_locals, slim)
            finally:
                self.lazy = False

    def _layer_function_once(self, node: cst.Call, form: tables.LayerForm, owner: str, fn_locals: set[str], slim: bool) -> None:
        short = (self.t.qualified_name(node.func) or "").rpartition(".")[2]
        if self._in_loop(node):
            raise Blocked(f"{short} called in a loop (one layer per iteration)")
        args = _bind(node, ("inputs", *form.params))
        if "inputs" not in args:
            raise Blocked(f"{short} without inputs")
        keywords: list[str] = []
        training_key = form.training
        name = None
        for key, arg in args.items():
            if key in ("inputs", training_key) or key in form.dropped:
                continue
            if key == "reuse":
                raise Blocked(f"{short}(reuse=...) (variables shared by scope)")
            if key == "name":
                name = str_value(arg.value)
            if slim and key not in form.rename and key not in ("keep_prob",):
                raise Blocked(f"{short}({key}=...) (no Keras argument with the same effect)")
            if not slim and key not in form.params:
                raise Blocked(f"{short}({key}=...) (no Keras argument with the same effect)")
            if form.keep_prob and key == "keep_prob":
                keywords.append(f"rate=1 - {self._hoistable(arg.value, fn_locals, short)}")
                continue
            value = self._hoistable(arg.value, fn_locals, f"{short}({key}=...)")
            keras_key = form.rename.get(key, key)
            if keras_key == "padding" and str_value(arg.value) is not None:
                value = f'"{str_value(arg.value).lower()}"'
            keywords.append(f"{keras_key}={value}")
        written = {k.partition("=")[0] for k in keywords}
        if form.keep_prob and "rate" not in written:
            keywords.insert(0, "rate=0.5")
        for key, value in form.defaults.items():
            if key not in written:
                keywords.append(f"{key}={value}")
        attr = self._attr(node, short, name)
        made = f"tf.keras.layers.{form.keras}({', '.join(keywords)})"
        lazy = self.lazy
        if lazy:  # made on the first run of the model_fn, where the values it reads are computed
            self.plan_.init.append(f"self.{attr} = None")
        else:
            self.plan_.init.append(f"self.{attr} = {made}")
        self.plan_.layers.append(f"{short} -> {form.keras}")
        legacy_name = ("scope" if slim else "name")
        self._record(node, attr, form.keras, short, slim, True, args.get(legacy_name), args, code_of(args["inputs"].value))
        params = ("inputs", *form.params)

        def replace(updated: cst.CSTNode) -> cst.CSTNode:
            now = _bind(updated, params)  # type: ignore[arg-type]
            parts = [code_of(now["inputs"].value)]
            if training_key is not None:
                parts.append(f"training={code_of(now[training_key].value) if training_key in now else form.training_default}")
            layer = f'{owner}.layer_once("{attr}", lambda: {made})' if lazy else f"{owner}.{attr}"
            return cst.parse_expression(f"{layer}({', '.join(parts)})")

        self.plan_.table[id(node)] = replace
        self.plan_.readers.append(node.func)

    def _layer_class(self, node: cst.Call, cls: str, owner: str, fn_locals: set[str]) -> None:
        ctor = node.func
        assert isinstance(ctor, cst.Call)
        if self._in_loop(node):
            raise Blocked(f"tf.layers.{cls} created in a loop (one layer per iteration)")
        allowed = tables.CLASS_KEYWORDS[cls]
        parts, name = [], None
        for arg in ctor.args:
            if arg.star:
                raise Blocked(f"tf.layers.{cls}(*...)")
            if arg.keyword is not None and arg.keyword.value not in allowed:
                raise Blocked(f"tf.layers.{cls}({arg.keyword.value}=...) (no Keras argument with the same effect)")
            if arg.keyword is not None and arg.keyword.value == "name":
                name = str_value(arg.value)
            value = self._hoistable(arg.value, fn_locals, f"tf.layers.{cls}(...)")
            if arg.keyword is not None and arg.keyword.value == "padding" and str_value(arg.value) is not None:
                value = f'"{str_value(arg.value).lower()}"'
            parts.append(f"{arg.keyword.value}={value}" if arg.keyword is not None else value)
        attr = self._attr(node, cls.lower(), name)
        self.plan_.init.append(f"self.{attr} = tf.keras.layers.{tables.LAYER_CLASSES[cls]}({', '.join(parts)})")
        self.plan_.layers.append(f"tf.layers.{cls} -> {cls}")
        named = {a.keyword.value: a for a in ctor.args if a.keyword is not None}
        inputs = node.args[0].value if node.args else None
        self._record(node, attr, tables.LAYER_CLASSES[cls], cls, False, False, named.get("name"), named,
                     code_of(inputs) if inputs is not None else "")
        training = cls in ("Dropout", "BatchNormalization")

        def replace(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            args = list(updated.args)
            if training and not any(a.keyword is not None and a.keyword.value == "training" for a in args) and len(args) < 2:
                return cst.parse_expression(f"{owner}.{attr}({', '.join(code_of(a.value) for a in args)}, training=False)")
            return updated.with_changes(func=cst.parse_expression(f"{owner}.{attr}"))

        self.plan_.table[id(node)] = replace
        self.plan_.readers.append(ctor.func)

    def _record(self, node: cst.Call, attr: str, keras: str, legacy: str, slim: bool, function: bool, name: cst.Arg | None,
                args: dict[str, cst.Arg], inputs: str) -> None:
        qn = self.t.qualified_name(node.func.func if isinstance(node.func, cst.Call) else node.func) or ""
        if qn.startswith("tensorflow.keras."):
            legacy = "keras." + legacy  # a tf.keras layer in the graph: named by Keras, not by variable scopes
        literal = None if name is None else str_value(name.value) or "?"
        keywords = tuple((k, code_of(a.value)) for k, a in args.items() if k != "inputs")
        position = self.t.index.positions.get(node)
        line = position.start.line if position is not None else 0
        self.plan_.created.append(LayerRecord(attr, keras, legacy, slim, function, literal,
                                              self.scope_prefix + self._variable_scopes(node), keywords, inputs, line))

    def _variable_scopes(self, node: cst.CSTNode) -> tuple[str, ...]:
        """The ``with tf.compat.v1.variable_scope("NAME"):`` around ``node`` in its function, outermost first ("?": not
        a literal name, a default_name or a scope object). name_scope does not name variables: not listed."""
        out: list[str] = []
        parent = self.t.index.parents.get(node)
        while parent is not None and not isinstance(parent, cst.FunctionDef):
            if isinstance(parent, cst.With):
                for item in reversed(parent.items):
                    call = item.item
                    if not isinstance(call, cst.Call):
                        continue
                    short = (self.t.qualified_name(call.func) or "").rpartition(".")[2]
                    if short != "variable_scope":
                        continue
                    args = {a.keyword.value if a.keyword is not None else ("name_or_scope", "default_name")[min(i, 1)]: a
                            for i, a in enumerate(call.args) if not a.star}
                    first = args.get("name_or_scope")
                    text = str_value(first.value) if first is not None else None
                    out.append(text if text else "?")
            parent = self.t.index.parents.get(parent)
        return tuple(reversed(out))

    def _embedding(self, node: cst.Call, owner: str, fn_locals: set[str]) -> bool:
        """``tf.nn.embedding_lookup(tf.compat.v1.get_variable(NAME, [n, d]), ids)``: one table of n rows of d
        created once, read by ids: a Keras ``Embedding(n, d)`` with get_variable's default initializer (glorot
        uniform over [n, d]) or the one given. False (the caller blocks) for any other get_variable."""
        arg = self.t.index.parents.get(node)
        assigned = None
        if isinstance(arg, cst.Assign) and len(arg.targets) == 1 and isinstance(arg.targets[0].target, cst.Name):
            # table = tf.compat.v1.get_variable(...) read once, by embedding_lookup(table, ids)
            target = arg.targets[0].target
            reads = [n for n in iter_nodes(self.plan_.fn.body, trivia=False)
                     if isinstance(n, cst.Name) and n.value == target.value and n is not target]
            if len(reads) != 1 or self._assigned(target) is not node:
                return False
            assigned, arg = arg, self.t.index.parents.get(reads[0])
        lookup = self.t.index.parents.get(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(lookup, cst.Call) and isinstance(arg, cst.Arg)
                and (arg.keyword is None and lookup.args[0] is arg or arg.keyword is not None and arg.keyword.value == "params")
                and (self.t.qualified_name(lookup.func) or "") in ("tensorflow.nn.embedding_lookup",
                                                                   "tensorflow.compat.v1.nn.embedding_lookup")):
            return False
        if self._in_loop(node):
            raise Blocked("an embedding (get_variable) created in a loop")
        variable = _bind(node, ("name", "shape", "dtype", "initializer"))
        shape = variable.get("shape")
        if "name" not in variable or shape is None or not isinstance(shape.value, (cst.List, cst.Tuple)) \
                or len(shape.value.elements) != 2 or set(variable) - {"name", "shape", "dtype", "initializer"} \
                or "dtype" in variable and code_of(variable["dtype"].value) not in ("None", "tf.float32"):
            raise Blocked("a get_variable embedding table that is not get_variable(name, [rows, width], initializer=...) "
                          "of floats")
        lookup_args = _bind(lookup, ("params", *EMBEDDING_LOOKUP, "max_norm"))
        if "ids" not in lookup_args or set(lookup_args) - {"params", *EMBEDDING_LOOKUP}:
            raise Blocked("embedding_lookup(max_norm=...) (no Keras argument with the same effect)")
        rows, width = (self._hoistable(e.value, fn_locals, "the embedding's shape") for e in shape.value.elements)
        initializer = variable.get("initializer")
        init = self._hoistable(initializer.value, fn_locals, "the embedding's initializer") \
            if initializer is not None and code_of(initializer.value) != "None" else '"glorot_uniform"'
        name = str_value(variable["name"].value)
        attr = self._attr(node, "embedding", name.replace("/", "_") if name else None)
        self.plan_.init.append(f"self.{attr} = tf.keras.layers.Embedding({rows}, {width}, embeddings_initializer={init})")
        self.plan_.layers.append("embedding_lookup(get_variable(...)) -> Embedding")

        def replace(updated: cst.CSTNode) -> cst.CSTNode:
            now = _bind(updated, ("params", *EMBEDDING_LOOKUP))  # type: ignore[arg-type]
            return cst.parse_expression(f"{owner}.{attr}({code_of(now['ids'].value)})")

        self.plan_.table[id(lookup)] = replace
        self.plan_.readers.append(lookup.func)
        if assigned is not None:
            self._remove_statement(node, "get_variable")
        return True

    def _weight(self, node: cst.Call, owner: str, fn_locals: set[str]) -> bool:
        """``W = tf.compat.v1.get_variable(NAME, SHAPE, dtype=..., initializer=...)`` read as a weight (the
        getting-started guide's ``W*features["x"] + b``): a weight created once in ``__init__`` by ``add_weight``
        with the same name, shape and dtype, and get_variable's default initializer where none is given (TF 1.15
        ``_get_default_initializer``: glorot uniform for floats, zeros for integers and bools); the call reads
        the attribute. False (the caller blocks) for any other argument or dtype."""
        if self._read_by_lookup(node):
            return False  # an embedding table _embedding did not lower stays TFM705
        if self._in_loop(node):
            raise Blocked("a variable (get_variable) created in a loop")
        try:
            variable = _bind(node, ("name", "shape", "dtype", "initializer"))
        except Blocked:
            return False
        name = str_value(variable["name"].value) if "name" in variable else None
        if not name or set(variable) - {"name", "shape", "dtype", "initializer"} or "shape" not in variable:
            return False
        dtype = variable.get("dtype")
        dtype_qn = (self.t.qualified_name(dtype.value) or "") if dtype is not None and code_of(dtype.value) != "None" \
            else "tensorflow.float32"
        kind = dtype_qn.rpartition(".")[2]
        if not dtype_qn.startswith("tensorflow.") or kind not in WEIGHT_DTYPES:
            return False
        key = (*self._variable_scopes(node), name)
        if key in self.weights:
            raise Blocked(f"get_variable({name!r}) created twice (variables shared by name)")
        self.weights.add(key)
        shape = self._hoistable(variable["shape"].value, fn_locals, "the variable's shape")
        initializer = variable.get("initializer")
        if initializer is not None and code_of(initializer.value) != "None":
            value = initializer.value
            qn = (self.t.qualified_name(value.func) or "") if isinstance(value, cst.Call) else ""
            short = qn.rpartition(".")[2]
            if not (qn.startswith(("tensorflow.", "tensorflow.compat.v1.")) and short in WEIGHT_INITIALIZERS):
                raise Blocked(f"get_variable(initializer={' '.join(code_of(value).split())[:40]}) (not a "
                              "tf.compat.v1 initializer tfmigrate writes)")
            args = ", ".join(code_of(a).strip().rstrip(",") for a in value.args)
            init = self._hoistable(cst.parse_expression(f"tf.compat.v1.{short}({args})"), fn_locals, "the variable's initializer")
        else:
            init = WEIGHT_DTYPES[kind]
        dtype_text = f"tf.{kind}"
        attr = self._attr(node, "weight", name.replace("/", "_"))
        self.plan_.init.append(f"self.{attr} = self.add_weight(name={name!r}, shape={shape}, dtype={dtype_text}, "
                               f"initializer={init})".replace("'", '"'))
        self.plan_.layers.append("get_variable(...) -> add_weight")
        self.plan_.table[id(node)] = cst.parse_expression(f"{owner}.{attr}")
        self.plan_.readers.append(node.func)
        if dtype is not None:
            self.plan_.readers.append(dtype.value)  # from tensorflow import float64: written tf.float64
        return True

    def _read_by_lookup(self, node: cst.Call) -> bool:
        """Is the variable (the call, or the name it is assigned to) an argument of an embedding_lookup?"""
        uses: list[cst.CSTNode] = [node]
        parent = self.t.index.parents.get(node)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            target = parent.targets[0].target
            uses += [n for n in iter_nodes(self.plan_.fn.body, trivia=False)
                     if isinstance(n, cst.Name) and n.value == target.value and n is not target]
        for use in uses:
            arg = self.t.index.parents.get(use)
            call = self.t.index.parents.get(arg) if isinstance(arg, cst.Arg) else None
            if isinstance(call, cst.Call) and (self.t.qualified_name(call.func) or "").endswith(".embedding_lookup"):
                return True
        return False

    def _group(self, node: cst.Call) -> bool:
        """``train_op = tf.group(opt.minimize(loss), tf.compat.v1.assign_add(global_step, 1))`` (the getting-started
        guide's train_op): one step of the optimizer and one count of the global step, which Keras's
        ``optimizer.iterations`` counts. Anything else in the group stays TFM705 (custom train_op logic)."""
        custom = Blocked(BLOCKED_CALLS["group"])
        if any(a.star or a.keyword is not None and a.keyword.value != "name" for a in node.args):
            raise custom
        inputs = [a.value for a in node.args if a.keyword is None]
        steps = [v for v in inputs if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "minimize"]
        counts = [v for v in inputs if v not in steps]
        if len(steps) != 1 or len(counts) != 1 or not self._counts_step(counts[0]):
            raise custom
        self.groups[id(node)] = steps[0]
        self.plan_.readers.append(counts[0].func)  # from tensorflow import assign_add: gone once unread
        return True

    def _counts_step(self, value: cst.BaseExpression) -> bool:
        """``tf.compat.v1.assign_add(global_step, 1)`` or ``global_step.assign_add(1)`` of the global step."""
        if not isinstance(value, cst.Call):
            return False
        qn = self.t.qualified_name(value.func) or ""
        if qn.startswith("tensorflow.") and qn.rpartition(".")[2] == "assign_add":
            try:
                args = _bind(value, ("ref", "value", "use_locking", "name"))
            except Blocked:
                return False
            ref, amount = args.get("ref"), args.get("value")
            ref = ref.value if ref is not None else None
        elif isinstance(value.func, cst.Attribute) and value.func.attr.value == "assign_add" and not qn:
            try:
                args = _bind(value, ("delta", "use_locking", "name", "read_value"))
            except Blocked:
                return False
            ref, amount = value.func.value, args.get("delta")
        else:
            return False
        if set(args) - {"ref", "value", "delta", "name"} or amount is None or code_of(amount.value).strip() != "1":
            return False
        if isinstance(ref, cst.Name):
            ref = self._assigned(ref)
        return isinstance(ref, cst.Call) and (self.t.qualified_name(ref.func) or "").rpartition(".")[2] in GLOBAL_STEP

    def _input_layer(self, short: str) -> None:
        """``tf.compat.v1.feature_column.input_layer(features, columns)`` runs on TensorFlow 2.21 as it is, in the
        Keras model's steps, where its columns make no variables (numeric, bucketized, indicator columns); an
        embedding column's table (get_variable on each call) would not be the model's weight. Lowered only where
        the module builds its feature columns and none of them has a table; otherwise TFM705 names it."""
        if short == "linear_model":
            raise Blocked("tf.feature_column.linear_model (its weights are get_variable tables, not the model's)")
        made = set()
        for call in self.t.index.nodes(cst.Call):
            qn = self.t.qualified_name(call.func) or ""
            if qn.startswith(("tensorflow.feature_column.", "tensorflow.compat.v1.feature_column.",
                              "tensorflow.contrib.layers.")) and qn.rpartition(".")[2].endswith(("_column", "_columns")):
                made.add(qn.rpartition(".")[2])
        tables_ = {m for m in made if "embedding" in m or m.startswith("sequence_") or m == "weighted_categorical_column"}
        if not made or tables_:
            raise Blocked(f"input_layer of {', '.join(sorted(tables_)) if tables_ else 'feature columns built elsewhere'} "
                          "(an embedding table made by get_variable on each call is not a weight of the Keras model)")

    def _labels_placeholder(self, node: cst.Call, fn: cst.FunctionDef) -> bool:
        """TFM114/TFM115's ``if labels is None: labels = tf.compat.v1.placeholder(DTYPE, (None,) + REST)`` (TFM114:
        ``params["fit_labels"].dtype`` and ``.shape[1:]``): the legacy predict built the model with labels it never
        fed, so its predictions cannot read them; in mode "infer" the Keras model gets zeros of that dtype and
        shape, one row per example of the batch. False (the caller blocks it) for any other placeholder."""
        line = self._statement(node)
        block = self.t.index.parents.get(self.t.index.parents.get(line)) if line is not None else None
        params = [p.name.value for p in fn.params.params]
        if not ("labels" in params and "features" in params and isinstance(block, cst.If)
                and code_of(block.test).strip() == "labels is None" and isinstance(line.body[0], cst.Assign)
                and code_of(line.body[0].targets[0].target).strip() == "labels" and line.body[0].value is node):
            return False
        args = _bind(node, ("dtype", "shape", "name"))
        shape = args.get("shape")
        if "dtype" not in args or shape is None or not (isinstance(shape.value, cst.BinaryOperation)
                                                          and code_of(shape.value.left).replace(" ", "") == "(None,)"):
            return False
        self.plan_.table[id(node)] = cst.parse_expression(
            f"tf.zeros((tf.shape(tf.nest.flatten(features)[0])[0],) + tuple({code_of(shape.value.right)}), "
            f"{code_of(args['dtype'].value)})")
        return True
        self.plan_.table[id(node)] = cst.parse_expression(
            'tf.zeros((tf.shape(tf.nest.flatten(features)[0])[0],) + params["fit_labels"].shape[1:], params["fit_labels"].dtype)')
        return True

    # --- statements removed ----------------------------------------------------------------------
    def _statement(self, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
        parent = self.t.index.parents.get(node)
        while parent is not None and not isinstance(parent, cst.SimpleStatementLine):
            if isinstance(parent, (cst.BaseCompoundStatement, cst.Lambda, cst.FunctionDef)):
                return None
            parent = self.t.index.parents.get(parent)
        return parent if isinstance(parent, cst.SimpleStatementLine) and len(parent.body) == 1 else None

    def _remove_statement(self, node: cst.CSTNode, what: str) -> None:
        line = self._statement(node)
        if line is None or not (isinstance(line.body[0], cst.Expr) and line.body[0].value is node
                                or isinstance(line.body[0], cst.Assign)):
            raise Blocked(f"a {what} call inside an expression")
        if line not in self.removed:
            self.removed.append(line)

    def _finish_removals(self) -> None:
        """Removed statements (a block left empty keeps a ``pass``). Their comments go above the next statement
        kept: the engine's comment keeper (codemod/comments.py) puts back every comment a replaced node dropped,
        so carrying them here too wrote each twice."""
        removed = {id(s) for s in self.removed}
        for line in self.removed:
            block = self.t.index.parents.get(line)
            body = list(getattr(block, "body", ()))
            comments = [e for e in line.leading_lines if e.comment is not None]
            after = body[body.index(line) + 1:] if line in body else []
            kept = next((s for s in after if id(s) not in removed), None)
            if kept is None and not any(id(s) not in removed for s in body[:body.index(line)] if line in body):
                self.plan_.table[id(line)] = cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=line.leading_lines)
            elif kept is None and comments:
                self.plan_.table[id(line)] = cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=line.leading_lines)
            else:
                self.plan_.table[id(line)] = lambda updated: cst.RemovalSentinel.REMOVE

    # --- EstimatorSpec and metrics -----------------------------------------------------------------
    def _assigned(self, name: cst.Name) -> cst.BaseExpression | None:
        """The one value the model_fn assigns to ``name`` (``x = value``), else None."""
        values = []
        for node in iter_nodes(self.plan_.fn.body, trivia=False):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Name) and target.target.value == name.value:
                        values.append(node.value)
                    elif name.value in {n.value for n in iter_nodes(target.target, trivia=False) if isinstance(n, cst.Name)}:
                        return None
        return values[0] if len(values) == 1 else None

    def _logging_hooks(self, hooks: cst.BaseExpression) -> bool:
        """``training_hooks=[tf.train.LoggingTensorHook(...)]`` (a list or tuple of them, each inline or a name
        bound once to one): they only log tensors (Keras's progress bar logs the loss); dropped, their
        statements removed, the drop said in TFM707's message. Any other hook: False (the caller blocks)."""
        if isinstance(hooks, cst.Name):
            hooks = self._assigned(hooks) or hooks
        if not isinstance(hooks, (cst.List, cst.Tuple)) or not hooks.elements:
            return False
        calls = []
        for element in hooks.elements:
            value = element.value
            if isinstance(value, cst.Name):
                value = self._assigned(value)
            qn = (self.t.qualified_name(value.func) or "") if isinstance(value, cst.Call) else ""
            if not (qn.rpartition(".")[2] == "LoggingTensorHook" and qn.startswith(
                    ("tensorflow.train.", "tensorflow.compat.v1.train.", "tensorflow.estimator.", "tensorflow.compat.v1.estimator."))):
                return False
            calls.append((element.value, value))
        for named, call in calls:
            if named is not call:  # hook = LoggingTensorHook(...): the statement goes with it
                self._remove_statement(call, "logging hook")
        self.plan_.dropped.add("logging hooks")
        return True

    def _specs(self, fn: cst.FunctionDef) -> None:
        if not self.specs:
            raise Blocked("no tf.estimator.EstimatorSpec returned")
        named: dict[int, str] = {}
        self.train_ops: list[cst.BaseExpression] = []
        self.losses: list[cst.BaseExpression] = []
        for spec in self.specs:
            args = _bind(spec, SPEC_PARAMS)
            for key in ("training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"):
                if key in args and code_of(args[key].value) != "None" and not self._logging_hooks(args[key].value):
                    raise Blocked(f"EstimatorSpec({key}=...) (hooks and scaffolds have no Keras model form)")
            if "train_op" in args:
                self.train_ops.append(args["train_op"].value)
            if "loss" in args:
                self.losses.append(args["loss"].value)
            if "eval_metric_ops" in args:
                ops = args["eval_metric_ops"].value
                if isinstance(ops, cst.Name):
                    ops = self._assigned(ops) or ops
                if not isinstance(ops, cst.Dict):
                    raise Blocked(f"eval_metric_ops={code_of(args['eval_metric_ops'].value)} (not a dict tfmigrate can read)")
                for element in ops.elements:
                    key = str_value(element.key) if isinstance(element, cst.DictElement) else None
                    value = element.value
                    if isinstance(value, cst.Name):
                        value = self._assigned(value) or value
                    if key is None or not (isinstance(value, cst.Call) and id(value) in self.metrics):
                        raise Blocked(f"eval_metric_ops entry {code_of(element).strip().rstrip(',')} (not a tf.metrics call tfmigrate lowers)")
                    named[id(value)] = key
            params = SPEC_PARAMS

            def replace(updated: cst.CSTNode) -> cst.CSTNode:
                now = _bind(updated, params)  # type: ignore[arg-type]
                parts = [f"{k}={code_of(a.value)}" for k, a in now.items() if k in ("mode", "predictions", "loss", "eval_metric_ops")]
                return cst.parse_expression(f"dict({', '.join(parts)})")

            self.plan_.table[id(spec)] = replace
        for key, metric in self.metrics.items():
            short = (self.t.qualified_name(metric.func) or "").rpartition(".")[2]
            cls, params_ = tables.METRICS[short]
            args = _bind(metric, (*params_, "metrics_collections", "updates_collections", "name"))
            label = named.get(key) or (str_value(args["name"].value) if "name" in args else None) or short
            attr = self._attr(metric, "metric", f"metric_{label}")
            self.plan_.init.append(f"self.{attr} = tf.keras.metrics.{cls}(name={label!r})".replace("'", '"'))

            def metric_replace(updated: cst.CSTNode, attr: str = attr, params_: tuple[str, ...] = params_) -> cst.CSTNode:
                now = _bind(updated, (*params_, "metrics_collections", "updates_collections", "name"))  # type: ignore[arg-type]
                parts = [f"self.{attr}"] + [code_of(now[p].value) for p in params_[:-1] if p in now]
                if params_[-1] in now:
                    parts.append(f"sample_weight={code_of(now[params_[-1]].value)}")
                return cst.parse_expression(f"metric_op({', '.join(parts)})")

            self.plan_.table[key] = metric_replace

    # --- the optimizer ------------------------------------------------------------------------------
    def _optimizer(self, fn: cst.FunctionDef) -> None:
        if not self.train_ops:
            raise Blocked("no EstimatorSpec with a train_op")
        if self.optimize_losses:
            self._optimize_loss()
            return
        if len(self.optimizers) != 1:
            raise Blocked("several optimizers" if self.optimizers else "no optimizer tfmigrate can read")
        optimizer = self.optimizers[0]
        qn = self.t.qualified_name(optimizer.func) or ""
        short = qn.rpartition(".")[2]
        fn_locals = self.locals
        # the train_op: train_op = <opt>.minimize(loss, global_step=...) or <opt>.apply_gradients(...)
        steps = []
        for op in self.train_ops:
            value = self._assigned(op) if isinstance(op, cst.Name) else op
            value = self.groups.get(id(value), value)
            if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                    and value.func.attr.value in ("minimize", "apply_gradients")):
                raise Blocked(f"custom train_op logic (train_op={code_of(op)})")
            steps.append(value)
        clip = None
        for step in steps:
            receiver = step.func.value  # type: ignore[attr-defined]
            if not (receiver is optimizer or isinstance(receiver, cst.Name) and self._assigned(receiver) is optimizer):
                raise Blocked(f"custom train_op logic ({' '.join(code_of(step).split())[:60]}: not the model_fn's optimizer)")
            method = step.func.attr.value  # type: ignore[attr-defined]
            args = _bind(step, ("loss", "global_step", "var_list") if method == "minimize" else ("grads_and_vars", "global_step", "name"))
            extra = [k for k in args if k not in ("loss", "global_step", "grads_and_vars", "name")]
            if extra:
                raise Blocked(f"custom train_op logic ({method}({', '.join(k + '=' for k in extra)}))")
            global_step = args.get("global_step")
            if any(step is grouped for grouped in self.groups.values()):  # counted by the group's assign_add
                if global_step is not None and code_of(global_step.value) != "None":
                    raise Blocked("custom train_op logic (the global step counted twice: minimize(global_step=...) "
                                  "and assign_add in tf.group)")
                global_step = None
            else:
                step_value = global_step.value if global_step is not None else None
                if isinstance(step_value, cst.Name):  # global_step = tf.train.get_or_create_global_step()
                    step_value = self._assigned(step_value)
                if step_value is None or not (isinstance(step_value, cst.Call)
                                              and (self.t.qualified_name(step_value.func) or "").rpartition(".")[2] in GLOBAL_STEP):
                    raise Blocked(f"{method} without global_step=get_global_step() (the Estimator's step count)")
                self.plan_.table.pop(id(global_step.value), None)
            if method == "minimize":
                loss = args["loss"].value
                if not any(code_of(loss) == code_of(spec_loss) for spec_loss in self.losses):
                    raise Blocked(f"custom train_op logic (minimize({code_of(loss)}) of another loss than the spec's)")
            else:
                clip = self._clipping(step, optimizer)
            if not any(self.t.index.is_within(step, op) for op in self.train_ops):
                self._remove_statement(step, "train_op")  # else written in the spec, which drops train_op=
        # the optimizer's Keras form
        if qn.startswith("tensorflow.keras.optimizers."):
            text = self._hoistable(optimizer, fn_locals, "the optimizer")
            self.plan_.optimizer = text if clip is None else text[:-1] + f", global_clipnorm={clip})"
        elif short in tables.OPTIMIZERS:
            keras, params, defaults = tables.OPTIMIZERS[short]
            args = _bind(optimizer, tuple(p for p, _ in params))
            parts = []
            for legacy, keras_key in params:
                if legacy in args and keras_key:
                    value = args[legacy].value
                    text = self._rate(value) if legacy == "learning_rate" else self._hoistable(value, fn_locals, f"{short}({legacy}=...)")
                    if short == "MomentumOptimizer" and legacy == "learning_rate" and text.startswith("tf.keras.optimizers.schedules."):
                        # TF 1.x scales the whole accumulated momentum by the current rate; Keras's SGD only the new gradient
                        raise Blocked("MomentumOptimizer with a decaying learning rate (Keras's SGD scales only the new "
                                      "gradient by the rate, TF 1.x the whole accumulated momentum)")
                    parts.append(f"{keras_key}={text}")
                elif legacy in args and legacy == "use_locking":
                    continue
            written = {p.partition("=")[0] for p in parts}
            parts += [f"{k}={v}" for k, v in defaults.items() if k not in written]
            if clip is not None:
                parts.append(f"global_clipnorm={clip}")
            self.plan_.optimizer = f"tf.keras.optimizers.{keras}({', '.join(parts)})"
        else:
            raise Blocked(f"the optimizer {qn.replace('tensorflow.', 'tf.')} (no Keras optimizer with the same update)")
        parent = self.t.index.parents.get(optimizer)
        if isinstance(parent, cst.Assign):
            target = parent.targets[0].target
            if isinstance(target, cst.Name):
                reads = [n for n in iter_nodes(fn.body, trivia=False) if isinstance(n, cst.Name) and n.value == target.value]
                used = [n for n in reads if not any(self.t.index.is_within(n, r) for r in (*self.removed, *self.train_ops))]
                if len(used) > 1:  # its target, and a read outside the removed statements
                    raise Blocked(f"the optimizer {target.value} used elsewhere than in the train_op")
            self._remove_statement(optimizer, "optimizer")

    def _optimize_loss(self) -> None:
        """``train_op = optimize_loss(loss, global_step, learning_rate, "Adam")`` (tf.contrib.layers, or TFM608's
        copy): the optimizer TF 1.15 made of the string or class (``OPTIMIZER_CLS_NAMES``: "Momentum" with
        momentum 0.9) at that rate, ``clip_gradients=C`` as ``global_clipnorm`` (optimize_loss clipped by the
        global norm); its summaries only log."""
        if self.optimizers or len(self.optimize_losses) != 1:
            raise Blocked("several optimizers" if self.optimizers else "several optimize_loss calls")
        call = self.optimize_losses[0]
        for op in self.train_ops:
            if (self._assigned(op) if isinstance(op, cst.Name) else op) is not call:
                raise Blocked(f"custom train_op logic (train_op={code_of(op)})")
        args = _bind(call, OPTIMIZE_LOSS_PARAMS)
        kept = {"loss", "global_step", "learning_rate", "optimizer", "clip_gradients", "name", "summaries",
                "colocate_gradients_with_ops"}
        for key, arg in args.items():
            if key not in kept and not (key == "increment_global_step" and code_of(arg.value) == "True"
                                        or key in ("update_ops", "variables") and code_of(arg.value) == "None"):
                raise Blocked(f"custom train_op logic (optimize_loss({key}=...))")
        if "loss" not in args or not any(code_of(args["loss"].value) == code_of(x) for x in self.losses):
            raise Blocked("custom train_op logic (optimize_loss of another loss than the spec's)")
        step = args.get("global_step")
        if step is not None and code_of(step.value) != "None":
            value = self._assigned(step.value) if isinstance(step.value, cst.Name) else step.value
            if not (isinstance(value, cst.Call) and (self.t.qualified_name(value.func) or "").rpartition(".")[2] in GLOBAL_STEP):
                raise Blocked("optimize_loss without global_step=get_global_step() (the Estimator's step count)")
        optimizer = args.get("optimizer")
        name = str_value(optimizer.value) if optimizer is not None else None
        qn = (self.t.qualified_name(optimizer.value) or "") if optimizer is not None else ""
        if name in OPTIMIZE_LOSS_NAMES:
            short, extra = OPTIMIZE_LOSS_NAMES[name]
        elif qn.startswith(tables.OPTIMIZER_MODULES) and qn.rpartition(".")[2] in tables.OPTIMIZERS:
            short, extra = qn.rpartition(".")[2], ""  # a class, which optimize_loss called with the rate
        else:
            raise Blocked(f"optimize_loss(optimizer={code_of(optimizer.value) if optimizer else None}) "
                          "(no Keras optimizer with the same update)")
        if "learning_rate" not in args:
            raise Blocked("optimize_loss without a learning_rate")
        keras, params, defaults = tables.OPTIMIZERS[short]
        parts = [f"learning_rate={self._rate(args['learning_rate'].value)}"]
        if extra and parts[0].startswith("learning_rate=tf.keras.optimizers.schedules."):
            raise Blocked("MomentumOptimizer with a decaying learning rate (Keras's SGD scales only the new "
                          "gradient by the rate, TF 1.x the whole accumulated momentum)")
        if extra:
            parts.append(extra)
        written = {p.partition("=")[0] for p in parts}
        parts += [f"{k}={v}" for k, v in defaults.items() if k not in written]
        clip = args.get("clip_gradients")
        if clip is not None and code_of(clip.value) != "None":
            if not isinstance(clip.value, (cst.Integer, cst.Float, cst.Name, cst.Subscript, cst.Attribute)):
                raise Blocked("optimize_loss(clip_gradients=<a function>) (custom train_op logic)")
            parts.append(f"global_clipnorm={self._hoistable(clip.value, self.locals, 'clip_gradients')}")
        self.plan_.optimizer = f"tf.keras.optimizers.{keras}({', '.join(parts)})"
        for node in iter_nodes(call, trivia=False):
            self.plan_.table.pop(id(node), None)
        self._remove_statement(call, "train_op")
        if isinstance(call.func, cst.Name):  # TFM608's legacy_optimize_loss: its def goes with its only call
            reads = [n for n in self.t.index.nodes(cst.Name) if n.value == call.func.value]
            defs = [f for f in self.t.index.nodes(cst.FunctionDef) if f.name.value == call.func.value]
            if len(reads) == 2 and len(defs) == 1 and self.t.index.parents.get(defs[0]) is self.t.index.module:
                self.plan_.table[id(defs[0])] = lambda updated: cst.RemovalSentinel.REMOVE

    def _rate(self, value: cst.BaseExpression) -> str:
        """The learning rate: a value, or a tf.train decay schedule of the global step (a Keras schedule)."""
        call = self._assigned(value) if isinstance(value, cst.Name) else value
        if isinstance(call, cst.Call):
            qn = self.t.qualified_name(call.func) or ""
            short = qn.rpartition(".")[2]
            if qn.startswith(tables.OPTIMIZER_MODULES) and short in tables.SCHEDULES:
                keras, legacy, keys = tables.SCHEDULES[short]
                args = _bind(call, (*legacy, "name"))
                parts = []
                for legacy_key, keras_key in zip(legacy, keys):
                    if legacy_key not in args:
                        continue
                    if not keras_key:  # the global step
                        step = args[legacy_key].value
                        if not (isinstance(step, cst.Call) and (self.t.qualified_name(step.func) or "").rpartition(".")[2] in GLOBAL_STEP):
                            raise Blocked(f"{short} of another step than the global step")
                        continue
                    parts.append(f"{keras_key}={self._hoistable(args[legacy_key].value, self.locals, short)}")
                if call is not value:
                    self._remove_statement(call, "learning-rate schedule")
                for node in iter_nodes(call, trivia=False):
                    self.plan_.table.pop(id(node), None)
                return f"tf.keras.optimizers.schedules.{keras}({', '.join(parts)})"
            if qn.startswith(tables.OPTIMIZER_MODULES) and short.endswith("_decay"):
                raise Blocked(f"the learning rate {short} (no Keras schedule tfmigrate writes for it)")
        return self._hoistable(value, self.locals, "the learning rate")

    def _clipping(self, step: cst.Call, optimizer: cst.Call) -> str | None:
        """``grads_and_vars = opt.compute_gradients(loss)`` ... ``tf.clip_by_global_norm(grads, C)`` ...
        ``opt.apply_gradients(zip(grads, variables), global_step=...)``: the statements between them only
        unpack, clip and zip: the Keras optimizer's ``global_clipnorm=C``."""
        body = self.plan_.fn.body
        statements = [s for s in iter_nodes(body, trivia=False) if isinstance(s, cst.SimpleStatementLine)]
        clip = None
        chain: list[cst.SimpleStatementLine] = []
        for line in statements:
            calls = [n for n in iter_nodes(line, trivia=False) if isinstance(n, cst.Call)]
            shorts = {(self.t.qualified_name(c.func) or code_of(c.func)).rpartition(".")[2] for c in calls}
            if "compute_gradients" in shorts or "clip_by_global_norm" in shorts or line is self._statement(step):
                chain.append(line)
                for c in calls:
                    if (self.t.qualified_name(c.func) or "").rpartition(".")[2] == "clip_by_global_norm":
                        args = _bind(c, ("t_list", "clip_norm", "use_norm", "name"))
                        if "clip_norm" not in args or "use_norm" in args:
                            raise Blocked("custom train_op logic (clip_by_global_norm)")
                        clip = self._hoistable(args["clip_norm"].value, self.locals, "clip_by_global_norm")
        if not any("compute_gradients" in code_of(line) for line in chain):
            raise Blocked("custom train_op logic (apply_gradients of gradients not from compute_gradients)")
        # the statements that only unpack/zip the gradients between them
        first, last = statements.index(chain[0]), statements.index(chain[-1])
        for line in statements[first:last + 1]:
            if line in self.removed:  # a summary between them
                continue
            calls = [n for n in iter_nodes(line, trivia=False) if isinstance(n, cst.Call)]
            allowed = {"compute_gradients", "clip_by_global_norm", "apply_gradients", "zip", "list", "get_global_step",
                       "get_or_create_global_step"}
            for c in calls:
                short = (self.t.qualified_name(c.func) or code_of(c.func)).rpartition(".")[2]
                if short not in allowed:
                    raise Blocked(f"custom train_op logic ({' '.join(code_of(line).split())[:60]})")
            if line not in self.removed and line is not self._statement(step):
                self.removed.append(line)
        return clip


def class_text(plan: Plan, indent: str, params: str) -> str:
    """The class that replaces the model_fn's def (its method body is the def's, put in by the caller)."""
    i1, i2 = indent, indent * 2
    lines = [
        f"class {plan.class_name}(ModelFnModel):",
        f'{i1}"""The tf.estimator model_fn {plan.fn.name.value} as a Keras model (tfmigrate, `tfmigrate rules TFM707`):',
        f"{i1}its layers, metrics and optimizer are created once here; model_fn is its body, which fit, evaluate",
        f'{i1}and predict run in the Estimator\'s modes "train", "eval" and "infer"."""',
        "",
        f"{i1}def __init__(self, params=None, model_dir=None, config=None):",
        f'{i2}super().__init__(params=params, model_dir=model_dir, config=config, name="{plan.fn.name.value}")',
    ]
    if plan.reads_params:
        lines.append(f"{i2}params = self.params")
    lines += [f"{i2}{s}" for s in plan.init]
    lines.append(f"{i2}self.compile(optimizer={plan.optimizer}, jit_compile=False)")
    lines += ["", f"{i1}def model_fn(self, {params}):", f"{i2}pass", ""]
    return "\n".join(lines)


def build_class(plan: Plan, updated_fn: cst.FunctionDef, indent: str) -> cst.ClassDef:
    cls = cst.parse_statement(class_text(plan, indent, "self"))
    assert isinstance(cls, cst.ClassDef)
    body = list(cls.body.body)  # type: ignore[attr-defined]
    method = body[-1]
    assert isinstance(method, cst.FunctionDef)
    params = updated_fn.params  # the model_fn's own parameters, their comments kept, after self
    first = cst.Param(cst.Name("self"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    method = method.with_changes(body=updated_fn.body, params=params.with_changes(params=[first, *params.params]),
                                 whitespace_before_params=updated_fn.whitespace_before_params)
    body[-1] = method
    return cls.with_changes(body=cls.body.with_changes(body=body), leading_lines=updated_fn.leading_lines)
