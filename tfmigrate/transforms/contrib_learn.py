"""TFM15x: the rest of the ``tf.contrib.learn`` Estimator world -> ``tf.estimator`` / ``tf.feature_column``.

RunConfig, ModeKeys, ModelFnOps, the custom-``model_fn`` ``Estimator``, ``Experiment`` run by
``learn_runner.run``, ``SKCompat``, ``infer_real_valued_columns_from_input`` and the
``tf.contrib.layers`` feature columns. Names are matched by qualified name (every import form);
legacy defaults that differ in TF 2.15 are written out; what cannot be proven is flagged.
Legacy signatures were read from tensorflow/contrib/{learn,layers} (TF 1.x).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import attribute_or_keyword, expression, join_args, keyword_arg
from tfmigrate.rule_ids import TFM150, TFM151, TFM152, TFM153, TFM154, TFM155, TFM156, TFM157, TFM158, TFM159
from tfmigrate.transforms import experiment_extras as extras
from tfmigrate.transforms.builders import code_of

_LEARN = "tensorflow.contrib.learn"
_LAYERS = "tensorflow.contrib.layers"
# module path segments between the package and the public name (tf.contrib.learn.python.learn.estimators...)
_LEARN_MIDDLE = {"python", "learn", "estimators", "run_config", "model_fn", "experiment", "estimator"}
_LAYERS_MIDDLE = {"python", "layers", "feature_column"}


def legacy_name(qualified: str | None) -> str | None:
    """``tensorflow.contrib.learn.python.learn.experiment.Experiment`` -> ``learn.Experiment``."""
    if not qualified:
        return None
    for root, middle, tag in ((_LEARN, _LEARN_MIDDLE, "learn"), (_LAYERS, _LAYERS_MIDDLE, "layers")):
        if qualified.startswith(root + "."):
            parts = qualified[len(root) + 1 :].split(".")
            i = 0
            while i < len(parts) - 1 and parts[i] in middle:
                i += 1
            return tag + "." + ".".join(parts[i:])
    return None


# --- legacy positional orders (TF 1.x) ----------------------------------------------------------
RUN_CONFIG_ORDER = (
    "master", "num_cores", "log_device_placement", "gpu_memory_fraction", "tf_random_seed",
    "save_summary_steps", "save_checkpoints_secs", "save_checkpoints_steps", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
)
RUN_CONFIG_KEEP = {
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_secs", "save_checkpoints_steps",
    "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps",
    "protocol", "session_creation_timeout_secs", "train_distribute", "device_fn", "eval_distribute",
}
# legacy-only arguments that may be dropped when they hold the legacy default
RUN_CONFIG_DEFAULTS = {
    "master": {"None", "''", '""'},
    "evaluation_master": {"None", "''", '""'},
    "num_cores": {"0"},
    "log_device_placement": {"False"},
    "gpu_memory_fraction": {"1", "1.0"},
}
MODEL_FN_OPS_ORDER = ("mode", "predictions", "loss", "train_op", "eval_metric_ops")
MODEL_FN_OPS_KEEP = set(MODEL_FN_OPS_ORDER) | {"training_chief_hooks", "training_hooks", "scaffold"}
ESTIMATOR_ORDER = ("model_fn", "model_dir", "config", "params", "feature_engineering_fn")
VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "config", "self"}
EXPERIMENT_ORDER = (
    "estimator", "train_input_fn", "eval_input_fn", "eval_metrics", "train_steps", "eval_steps",
    "train_monitors", "eval_hooks",
)
# methods of a converted contrib Estimator (legacy signatures, TF 1.x): keyword arguments kept (renamed), legacy
# defaults that may be dropped, and what to do by hand otherwise
ESTIMATOR_METHODS = {
    "fit": {
        "new": "train",
        "keep": {"input_fn": "input_fn", "steps": "steps", "max_steps": "max_steps"},
        "drop": {"x": {"None"}, "y": {"None"}, "batch_size": {"None"}, "monitors": {"None"}},
        "manual": "x/y/batch_size become input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn({'x': x}, y, "
        "batch_size=..., shuffle=True, num_epochs=None); monitors become hooks=[...] of tf.estimator.SessionRunHook",
    },
    "partial_fit": {
        "new": "train",
        "keep": {"input_fn": "input_fn", "steps": "steps"},
        "drop": {"x": {"None"}, "y": {"None"}, "batch_size": {"None"}, "monitors": {"None"}},
        "manual": "partial_fit(input_fn=, steps=) is train(input_fn=, steps=); data goes through an input_fn",
    },
    "evaluate": {
        "new": "evaluate",
        "keep": {"input_fn": "input_fn", "steps": "steps", "name": "name", "checkpoint_path": "checkpoint_path",
                 "hooks": "hooks"},
        "drop": {"x": {"None"}, "y": {"None"}, "batch_size": {"None"}, "metrics": {"None"}, "feed_fn": {"None"},
                 "log_progress": {"True"}},
        "manual": "x/y become input_fn=numpy_input_fn(..., num_epochs=1, shuffle=False); metrics become "
        "tf.estimator.add_metrics(estimator, metric_fn); feed_fn has no equivalent",
    },
    "predict": {
        "new": "predict",
        "keep": {"input_fn": "input_fn", "outputs": "predict_keys"},
        "drop": {"x": {"None"}, "batch_size": {"None"}, "as_iterable": {"True"}, "iterate_batches": {"False"}},
        "manual": "x becomes input_fn=numpy_input_fn({'x': x}, num_epochs=1, shuffle=False); as_iterable=False "
        "returned arrays, predict() is always a generator (np.array(list(...))); iterate_batches=True is "
        "yield_single_examples=False",
    },
}
# Experiment arguments that move into TrainSpec/EvalSpec, and those its local train_and_evaluate never used
EXPERIMENT_MAPPED = {"estimator", "train_input_fn", "eval_input_fn", "train_steps", "eval_steps", "eval_hooks",
                     "eval_delay_secs", "saving_listeners"}
EXPERIMENT_LOCAL_UNUSED = {"continuous_eval_throttle_secs", "min_eval_frequency"}
RUNNER_ORDER = ("experiment_fn", "output_dir", "schedule", "run_config", "hparams")
MODE_KEYS = {"TRAIN": "TRAIN", "EVAL": "EVAL", "INFER": "PREDICT"}
FLAG_ONLY_COLUMNS = {
    "crossed_column": "tf.feature_column.crossed_column hashes crosses differently (sparse_cross_hashed on keys, "
    "not the legacy sparse_feature_cross fingerprints) and takes keys or categorical columns, not hashed "
    "sparse columns: rewrite it as tf.feature_column.crossed_column([...keys...], hash_bucket_size=...) and "
    "retrain; checkpoints of the legacy column cannot be reused",
    "shared_embedding_columns": "use tf.feature_column.shared_embeddings(categorical_columns, dimension, "
    "combiner='mean', initializer=...) (TF 2 default stddev is 1/sqrt(dimension), legacy 1/sqrt(vocab size))",
    "weighted_sparse_column": "use tf.feature_column.weighted_categorical_column(categorical_column, "
    "weight_feature_key, dtype=...) and feed the weights under that key",
    "scattered_embedding_column": "no TF 2 equivalent: use tf.feature_column.embedding_column over a "
    "categorical_column_with_hash_bucket and retrain",
    "sparse_column_with_vocabulary_file": "use tf.feature_column.categorical_column_with_vocabulary_file("
    "key, vocabulary_file, vocabulary_size=..., num_oov_buckets=...) (a legacy combiner other than 'sum' "
    "becomes sparse_combiner on a linear estimator)",
    "real_valued_column": "dimension=None made a variable-length column: use "
    "tf.feature_column.sequence_numeric_column or densify the feature and use numeric_column(shape=...)",
}
SKCOMPAT_MESSAGE = (
    "SKCompat has no TF 2 equivalent: use the wrapped estimator directly; fit(x, y, batch_size, steps) becomes "
    "train(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn({'x': x}, y, batch_size=..., shuffle=True, "
    "num_epochs=None), steps=...), score(x, y) becomes evaluate(input_fn=... num_epochs=1, shuffle=False), and "
    "predict(x) returns a generator of dicts from predict(input_fn=...), not an array"
)


def _is_none(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _str_value(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None


class Unsupported(Exception):
    """The call has a form this rule does not rewrite (the message says what to do by hand)."""


def bind(call: cst.Call, order: tuple[str, ...]) -> list[tuple[str, cst.Arg]]:
    """(legacy parameter name, arg) in call order; raises Unsupported for *args/**kwargs or long positionals."""
    bound = []
    for index, arg in enumerate(call.args):
        if arg.star:
            raise Unsupported("the call uses *args/**kwargs; spell the arguments out and run tfmigrate again")
        if arg.keyword is None:
            if index >= len(order):
                raise Unsupported(
                    f"positional argument {index + 1} is ambiguous across TF 1.x versions; pass it by keyword"
                )
            bound.append((order[index], arg))
        else:
            bound.append((arg.keyword.value, arg))
    return bound


_kw = keyword_arg


def _new_arg(name: str | None, value: cst.BaseExpression) -> cst.Arg:
    if name is None:
        return cst.Arg(value=value)
    return _kw(cst.Arg(value=value), name)


class ContribLearnTransform(FamilyTransform):
    FAMILY = "TFM15"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tf = "tf"
        self._need_tf_import = False
        self._module: cst.Module | None = None
        self._functions: dict[str, list[cst.FunctionDef]] = {}
        self._source_lines: list[str] | None = None
        self._target_values: dict[cst.Name, cst.BaseExpression] = {}  # `name = value` (single Name target)
        self._experiment_calls: dict[cst.Call, cst.Return] = {}
        self._runner_calls: set[cst.Call] = set()
        self._estimator_targets: dict[cst.Name, cst.Call] = {}  # `est = tf.contrib.learn.Estimator(...)`: target -> call
        self._converted_estimators: set[cst.Call] = set()

    # --- helpers ---------------------------------------------------------------------------
    def tf(self, dotted: str) -> cst.BaseExpression:
        self._need_tf_import = True  # a no-op when the module already imports it that way
        return expression(f"{self._tf}.{dotted}")

    def legacy(self, node: cst.CSTNode) -> str | None:
        return legacy_name(self.qualified_name(node))

    def drop_import_of(self, node: cst.CSTNode) -> None:
        self.remove_imports_of(node)

    def visit_Module(self, node: cst.Module) -> bool:
        self._module = node
        self._tf = self._tensorflow_alias(node)
        index = self.index
        for found in index.nodes(cst.FunctionDef):
            self._functions.setdefault(found.name.value, []).append(found)
        for found in index.nodes(cst.Assign):
            if len(found.targets) == 1 and isinstance(found.targets[0].target, cst.Name):
                self._target_values[found.targets[0].target] = found.value
                if isinstance(found.value, cst.Call) and self.legacy(found.value.func) == "learn.Estimator":
                    self._estimator_targets[found.targets[0].target] = found.value
        for call in index.nodes(cst.Call):
            if self.legacy(call.func) == "learn.learn_runner.run":
                self._plan_runner(call)
        extras.exported_experiment_fns(self)  # def experiment_fn(output_dir): return Experiment(...), run elsewhere
        return True

    def _tensorflow_alias(self, module: cst.Module) -> str:
        """The name new code spells TensorFlow with: an existing ``import tensorflow as X`` at module level,
        else ``tf`` (added), else ``tensorflow`` when ``tf`` is bound to something else (e.g.
        ``import tensorflow.compat.v1 as tf``)."""
        aliases = []
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Import):
                for alias in stmt.body[0].names:
                    if code_of(alias.name) == "tensorflow":
                        aliases.append(alias.asname.name.value if alias.asname else "tensorflow")
        if aliases:
            name = aliases[0]
            if name == "tensorflow" or self._module_assignments(module, name) in (1, None):
                return name
        if self._module_assignments(module, "tf"):
            return "tensorflow"
        return "tf"

    def _module_assignments(self, module: cst.Module, name: str) -> int | None:
        """How many times the module's top level binds ``name`` (from the index when it knows)."""
        known = self.index.module_binding_count(name)
        if known is not None:
            return known
        scope = self.scopes.scope_of(module)
        return None if scope is None else len(list(scope.assignments[name]))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self._need_tf_import:
            if self._tf == "tensorflow":
                self.imports.add("tensorflow")
            else:
                self.imports.add("tensorflow", asname="tf")
        return updated

    def function(self, expr: cst.BaseExpression) -> cst.FunctionDef | None:
        if isinstance(expr, cst.Name):
            defs = self._functions.get(expr.value, [])
            if len(defs) == 1:
                return defs[0]
        return None

    @staticmethod
    def returns(fn: cst.FunctionDef) -> list[cst.Return]:
        """Return statements of ``fn`` itself (not of nested functions, lambdas or classes)."""
        inside = lambda node: node is fn or not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))  # noqa: E731
        return [node for node in iter_nodes(fn, inside, trivia=False) if isinstance(node, cst.Return)]

    # --- dispatch ------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = self.legacy(original.func)
        if name is None:
            if (
                isinstance(original.func, cst.Attribute)
                and original.func.attr.value in ESTIMATOR_METHODS
                and isinstance(original.func.value, cst.Name)
                and self._converted_estimator(original.func.value)
            ):
                return self._estimator_method(original, updated)
            return updated
        handler = {
            "learn.RunConfig": self._run_config,
            "learn.ModelFnOps": self._model_fn_ops,
            "learn.Estimator": self._estimator,
            "learn.Experiment": self._experiment,
            "learn.learn_runner.run": self._runner,
            "learn.SKCompat": self._skcompat,
            "learn.infer_real_valued_columns_from_input": self._infer_columns,
            "layers.real_valued_column": self._real_valued,
            "layers.sparse_column_with_keys": self._sparse_keys,
            "layers.sparse_column_with_hash_bucket": self._sparse_hash,
            "layers.sparse_column_with_integerized_feature": self._sparse_integerized,
            "layers.bucketized_column": self._bucketized,
            "layers.one_hot_column": self._one_hot,
            "layers.embedding_column": self._embedding,
            "layers.input_from_feature_columns": self._input_layer,
        }.get(name)
        if handler is None:
            short = name.split(".", 1)[1]
            if name.startswith("layers.") and short in FLAG_ONLY_COLUMNS and short != "real_valued_column":
                self.flag(original, TFM159, f"tf.contrib.layers.{short}: {FLAG_ONLY_COLUMNS[short]}")
            return updated
        try:
            return handler(original, updated)
        except Unsupported as exc:
            rule, what = exc.args if len(exc.args) == 2 else (self._rule_of(name), exc.args[0])
            self.flag(original, rule, f"tf.contrib.{name}: {what}")
            return updated

    @staticmethod
    def _rule_of(name: str) -> str:
        return {
            "learn.RunConfig": TFM150,
            "learn.ModelFnOps": TFM152,
            "learn.Estimator": TFM153,
            "learn.Experiment": TFM154,
            "learn.learn_runner.run": TFM154,
            "learn.SKCompat": TFM155,
            "learn.infer_real_valued_columns_from_input": TFM156,
            "layers.embedding_column": TFM158,
        }.get(name, TFM157)

    def _rewrite(self, rule: str, original: cst.Call, updated: cst.Call, target: str, args: list[cst.Arg], message: str) -> cst.Call:
        if not self.fix(original, rule, message):
            return updated
        self.drop_import_of(original.func)
        trailing = bool(updated.args) and isinstance(updated.args[-1].comma, cst.Comma)
        return self._layout(original, updated.with_changes(func=self.tf(target), args=join_args(args, trailing)))

    def _layout(self, original: cst.Call, call: cst.Call, width: int = 100) -> cst.Call:
        """A one-line call that grew past ``width`` gets one argument a line (unless it is itself an
        argument of a legacy call, which is laid out instead)."""
        text = code_of(call)
        line, col, lines = self._lines(original)
        if "\n" in text or len(lines) > 1 or not call.args or col - 1 + len(text) <= width:
            return call
        if len(text) <= len(self._module.code_for_node(original)):  # it did not grow: keep the user's layout
            return call
        parent = self.get_metadata(ParentNodeProvider, original, None)
        grand = self.get_metadata(ParentNodeProvider, parent, None) if isinstance(parent, cst.Arg) else None
        if isinstance(grand, cst.Call) and self.legacy(grand.func) is not None:
            return call
        if self._source_lines is None:
            self._source_lines = (self.source or self._module.code).splitlines()
        source = self._source_lines[line - 1]
        base = len(source) - len(source.lstrip())

        def newline(indent: int) -> cst.ParenthesizedWhitespace:
            return cst.ParenthesizedWhitespace(
                first_line=cst.TrailingWhitespace(), indent=False, last_line=cst.SimpleWhitespace(" " * indent)
            )

        args = [
            a.with_changes(comma=cst.Comma(whitespace_after=newline(base + 4 if i < len(call.args) - 1 else base)))
            for i, a in enumerate(call.args)
        ]
        return call.with_changes(whitespace_before_args=newline(base + 4), args=args)

    # --- TFM150 RunConfig ----------------------------------------------------------------------
    def _run_config(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, RUN_CONFIG_ORDER)
        values = {k: code_of(a.value) for k, a in bound}
        hard = [k for k, _ in bound if k not in RUN_CONFIG_KEEP and values[k] not in RUN_CONFIG_DEFAULTS.get(k, ())]
        if hard:
            steps = []
            if {"num_cores", "log_device_placement", "gpu_memory_fraction"} & set(hard):
                steps.append(
                    "pass session_config=tf.compat.v1.ConfigProto(inter_op_parallelism_threads=<num_cores>, "
                    "intra_op_parallelism_threads=<num_cores>, log_device_placement=<...>, "
                    "gpu_options=tf.compat.v1.GPUOptions(per_process_gpu_memory_fraction=<...>))"
                )
            if {"master", "evaluation_master"} & set(hard):
                steps.append("describe the cluster in the TF_CONFIG environment variable (tf.estimator.RunConfig reads master from it)")
            other = [k for k in hard if k not in {"num_cores", "log_device_placement", "gpu_memory_fraction", "master", "evaluation_master"}]
            if other:
                steps.append(f"{', '.join(other)} has no tf.estimator.RunConfig equivalent")
            raise Unsupported(
                f"{', '.join(hard)} cannot move to tf.estimator.RunConfig as is: " + "; ".join(steps)
            )
        args = [_kw(a, k) if a.keyword is None else a for k, a in bound if k in RUN_CONFIG_KEEP]
        dropped = [k for k, _ in bound if k not in RUN_CONFIG_KEEP]
        note = f" (dropped {', '.join(dropped)}: legacy default values)" if dropped else ""
        return self._rewrite(
            TFM150, original, updated, "estimator.RunConfig", args,
            "tf.contrib.learn.RunConfig is tf.estimator.RunConfig; arguments passed by keyword" + note,
        )

    # --- TFM151 ModeKeys -----------------------------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = self.legacy(original)
        if name is None or not name.startswith("learn.ModeKeys"):
            return updated
        key = name[len("learn.ModeKeys") :].lstrip(".")
        if key == "":
            parent = self.get_metadata(ParentNodeProvider, original, None)
            if isinstance(parent, cst.Attribute) and parent.value is original:
                return updated  # handled at the parent (ModeKeys.TRAIN)
            self.flag(original, TFM151, "tf.contrib.learn.ModeKeys used as a value: use tf.estimator.ModeKeys, "
                      "whose INFER attribute is named PREDICT (value 'infer'); Modes.INFER would raise AttributeError")
            return updated
        if key not in MODE_KEYS:
            self.flag(original, TFM151, f"tf.contrib.learn.ModeKeys.{key} has no tf.estimator.ModeKeys equivalent")
            return updated
        message = f"tf.contrib.learn.ModeKeys.{key} is tf.estimator.ModeKeys.{MODE_KEYS[key]}"
        if key == "INFER":
            message += " (the same string 'infer'; only the attribute name changed)"
        if not self.fix(original, TFM151, message):
            return updated
        self.drop_import_of(original)
        return self.tf(f"estimator.ModeKeys.{MODE_KEYS[key]}")

    # --- TFM152 ModelFnOps ---------------------------------------------------------------------
    def _model_fn_ops_problem(self, call: cst.Call) -> str | None:
        try:
            bound = bind(call, MODEL_FN_OPS_ORDER)
        except Unsupported as exc:
            return exc.args[0]
        bad = [k for k, a in bound if k not in MODEL_FN_OPS_KEEP and not _is_none(a.value)]
        if bad:
            return (
                f"{', '.join(bad)} has no EstimatorSpec equivalent: output_alternatives becomes "
                "export_outputs={name: tf.estimator.export.PredictOutput(...)/ClassificationOutput(...)} "
                "(signature_fn is gone: export with tf.estimator.Estimator.export_saved_model)"
            )
        return None

    def _model_fn_ops(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        problem = self._model_fn_ops_problem(updated)
        if problem:
            raise Unsupported(problem)
        bound = bind(updated, MODEL_FN_OPS_ORDER)
        args = [a for k, a in bound if k in MODEL_FN_OPS_KEEP]
        return self._rewrite(
            TFM152, original, updated, "estimator.EstimatorSpec", args,
            "tf.contrib.learn.ModelFnOps is tf.estimator.EstimatorSpec (same mode/predictions/loss/train_op/"
            "eval_metric_ops)",
        )

    # --- TFM153 Estimator(model_fn=...) ------------------------------------------------------------
    def _estimator(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = dict(bind(updated, ESTIMATOR_ORDER))
        if "feature_engineering_fn" in bound and not _is_none(bound["feature_engineering_fn"].value):
            raise Unsupported("feature_engineering_fn is gone: call it at the top of model_fn "
                              "(features, labels = feature_engineering_fn(features, labels)) and drop the argument")
        if "model_fn" not in bound:
            raise Unsupported("no model_fn argument")
        fn = self.function(dict(bind(original, ESTIMATOR_ORDER))["model_fn"].value)
        if fn is None:
            raise Unsupported(
                "model_fn is not a function defined once in this module, so its signature cannot be checked: "
                "make it take (features, labels, mode, params, config) by those names, return "
                "tf.estimator.EstimatorSpec, then use tf.estimator.Estimator(model_fn=..., model_dir=..., "
                "config=tf.estimator.RunConfig(...), params=...)"
            )
        params = [p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)]
        if isinstance(fn.params.star_arg, cst.Param) or fn.params.star_kwarg is not None or fn.params.posonly_params:
            raise Unsupported(f"model_fn {fn.name.value} takes *args/**kwargs: tf.estimator passes "
                              "features, labels, mode, params, config by name; spell them out")
        unknown = [p for p in params if p not in VALID_MODEL_FN_ARGS]
        if unknown or "features" not in params:
            raise Unsupported(
                f"model_fn {fn.name.value}({', '.join(params)}): tf.estimator passes arguments by name, so rename "
                "its parameters to features, labels, mode, params, config (legacy passed features and labels "
                "by position; model_dir is config.model_dir)"
            )
        has_params = "params" in bound and not _is_none(bound["params"].value)
        if has_params and "params" not in params:
            raise Unsupported(f"params is passed but model_fn {fn.name.value} has no params parameter: "
                              "tf.estimator.Estimator raises ValueError; add a params parameter")
        for ret in self.returns(fn):
            value = ret.value
            ok = isinstance(value, cst.Call) and (
                (self.legacy(value.func) == "learn.ModelFnOps" and self._model_fn_ops_problem(value) is None)
                or self.qualified_name(value.func) == "tensorflow.estimator.EstimatorSpec"
            )
            if not ok:
                raise Unsupported(
                    f"model_fn {fn.name.value} must return tf.estimator.EstimatorSpec(mode=..., predictions=..., "
                    "loss=..., train_op=..., eval_metric_ops=...) on every path (a legacy (predictions, loss, "
                    "train_op) tuple or a ModelFnOps with output_alternatives is not converted)"
                )
        args = [a for k, a in bind(updated, ESTIMATOR_ORDER) if k != "feature_engineering_fn"]
        if self.enabled(TFM153):
            self._converted_estimators.add(original)
        return self._rewrite(
            TFM153, original, updated, "estimator.Estimator", args,
            f"tf.contrib.learn.Estimator is tf.estimator.Estimator; model_fn {fn.name.value} has a compatible "
            "signature and returns EstimatorSpec (fit(input_fn=, steps=, max_steps=) is train(...); "
            "evaluate(metrics=...) needs tf.estimator.add_metrics)",
        )

    def _converted_estimator(self, name: cst.Name) -> bool:
        """``name`` is bound once, in this scope or the module, to a contrib Estimator this pass converted."""
        if not self._converted_estimators or name.value not in {t.value for t in self._estimator_targets}:
            return False  # nothing it could be bound to: no scope analysis needed
        scope = self.scopes.scope_of(name)
        if scope is None:
            return False
        assignments = list(scope[name.value])
        if len(assignments) != 1:
            return False
        target = getattr(assignments[0], "node", None)
        call = self._estimator_targets.get(target)
        return call is not None and call in self._converted_estimators

    def _estimator_method(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        method = original.func.attr.value
        spec = ESTIMATOR_METHODS[method]
        where = f"{code_of(original.func.value)}.{method}"
        if any(a.keyword is None or a.star for a in original.args):
            if method == "fit" or method == "partial_fit":
                hint = ("fit(x, y) takes data, train() an input_fn: train(input_fn=tf.compat.v1.estimator.inputs."
                        "numpy_input_fn({'x': x}, y, batch_size=<legacy batch_size>, shuffle=True, num_epochs=None), "
                        "steps=...)")
            else:
                hint = "pass input_fn by keyword: the legacy first positional argument was x (data)"
            self.flag(original, TFM153, f"{where}(...) on a tf.estimator.Estimator: {hint}")
            return updated
        new_args = []
        for arg in updated.args:
            key = arg.keyword.value
            if key in spec["drop"] and code_of(arg.value) in spec["drop"][key]:
                continue
            if key not in spec["keep"]:
                self.flag(original, TFM153, f"{where}({key}=...) has no tf.estimator equivalent: {spec['manual']}")
                return updated
            new_args.append(_kw(arg, spec["keep"][key]))
        if not self.fix(original, TFM153, f"{where}(...) is {spec['new']}(...) on tf.estimator.Estimator"):
            return updated
        trailing = bool(updated.args) and isinstance(updated.args[-1].comma, cst.Comma)
        return updated.with_changes(
            func=updated.func.with_changes(attr=cst.Name(spec["new"])), args=join_args(new_args, trailing)
        )

    # --- TFM154 Experiment + learn_runner.run -------------------------------------------------------
    def _experiment_problem(self, call: cst.Call) -> str | None:
        call, _ = extras.split_kwargs(call)  # Experiment(..., **experiment_args): experiment_extras.py
        try:
            bound = bind(call, EXPERIMENT_ORDER)
        except Unsupported as exc:
            return exc.args[0]
        names = {k for k, _ in bound}
        if not {"estimator", "train_input_fn", "eval_input_fn"} <= names:
            return "estimator, train_input_fn and eval_input_fn are required"
        for k, a in bound:
            if k in EXPERIMENT_MAPPED or k in EXPERIMENT_LOCAL_UNUSED or _is_none(a.value):
                continue
            if k in ("eval_metrics", "export_strategies") and extras.problem(self, k, a) is None:
                continue
            if k == "eval_metrics":
                return ("eval_metrics has no TrainSpec/EvalSpec place: wrap the estimator with "
                        "tf.estimator.add_metrics(estimator, metric_fn) and drop eval_metrics")
            if k == "train_monitors":
                return ("train_monitors are legacy monitors: turn them into tf.estimator.SessionRunHook objects "
                        "and pass them as TrainSpec(hooks=[...])")
            if k == "export_strategies":
                return ("export_strategies become EvalSpec(exporters=[tf.estimator.LatestExporter(name, "
                        "serving_input_receiver_fn)]); rewrite them by hand")
            if k == "local_eval_frequency":
                return "local_eval_frequency: evaluation now follows checkpoints; set EvalSpec(throttle_secs=...)"
            return f"{k} has no tf.estimator.train_and_evaluate equivalent; remove it or express it by hand"
        return None

    def _plan_runner(self, call: cst.Call) -> None:
        try:
            bound = dict(bind(call, RUNNER_ORDER))
        except Unsupported:
            return
        schedule = bound.get("schedule")
        if schedule is not None and not _is_none(schedule.value) and _str_value(schedule.value) != "train_and_evaluate":
            return
        fn_arg = bound.get("experiment_fn")
        if fn_arg is not None and extras.imported_experiment_fn(self, fn_arg.value):
            self._runner_calls.add(call)  # run(model.experiment_fn, ...): rewritten in its own module
            return
        if fn_arg is not None and isinstance(fn_arg.value, cst.Call):
            fn = extras.closure(self, fn_arg.value)  # run(make_experiment_fn(**args), output_dir)
            if fn is None:
                return
        else:
            fn = self.function(fn_arg.value) if fn_arg else None
            if fn is None or not isinstance(fn_arg.value, cst.Name):
                return
            if not self._only_use(fn, fn_arg.value):
                return
        rets = self.returns(fn)
        if len(rets) != 1 or not isinstance(rets[0].value, cst.Call):
            return
        exp = rets[0].value
        if self.legacy(exp.func) != "learn.Experiment" or self._experiment_problem(exp):
            return
        self._experiment_calls[exp] = rets[0]
        self._runner_calls.add(call)

    def _only_use(self, fn: cst.FunctionDef, use: cst.Name) -> bool:
        """``fn`` is bound once in its scope and read only by ``use`` (the runner's argument).

        Answered from the index when the name is bound by this def alone and read once, by
        ``use``, after the def; otherwise by libcst's references."""
        name = fn.name.value
        scopes = self.scopes
        if scopes.plain(name) and scopes.bindings(name) == [fn]:
            reads = [
                n for n in self.index.nodes(cst.Name)
                if n.value == name and n is not fn.name and not attribute_or_keyword(n, self.index.parents.get(n))
            ]
            if reads == [use] and any(a.node is fn for a in scopes.scope_of(use)[name]):
                same_scope = scopes.scope_of(use) is scopes.scope_of(fn)
                if not same_scope or self.index.positions[fn].start.line < self.index.positions[use].start.line:
                    return True
        scope = self.scopes.scope_of(fn)
        if scope is None:
            return False
        references = [r for a in scope.assignments[name] for r in a.references]
        return len(scope.assignments[name]) == 1 and len(references) == 1  # used by this call only

    def _experiment(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if original in self._experiment_calls:
            return updated  # rewritten with its Return statement
        problem = self._experiment_problem(original)
        raise Unsupported(
            (problem + "; then: " if problem else "")
            + "replace the Experiment with tf.estimator.train_and_evaluate(estimator, "
            "tf.estimator.TrainSpec(train_input_fn, max_steps=train_steps), "
            "tf.estimator.EvalSpec(eval_input_fn, steps=eval_steps)) where the experiment is run "
            "(only `learn_runner.run(experiment_fn, ...)` with a module-level experiment_fn that returns the "
            "Experiment is rewritten automatically)"
        )

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        exp = original.value
        if not isinstance(exp, cst.Call) or exp not in self._experiment_calls:
            return updated
        if not self.fix(
            exp, TFM154,
            "Experiment becomes (estimator, tf.estimator.TrainSpec(...), tf.estimator.EvalSpec(...)) for "
            "tf.estimator.train_and_evaluate: train_steps is TrainSpec max_steps, eval_steps EvalSpec steps "
            "(None: until the input ends), eval_hooks EvalSpec hooks; evaluation now runs at checkpoint saves "
            "at most every EvalSpec throttle_secs (600 s) and once at the end (min_eval_frequency and "
            "continuous_eval_throttle_secs are not used by it)",
        ):
            return updated
        self.drop_import_of(exp.func)
        new_call, kwargs = extras.split_kwargs(updated.value)
        assert isinstance(new_call, cst.Call)
        bound = dict(bind(new_call, EXPERIMENT_ORDER))
        code = lambda k: code_of(bound[k].value)  # noqa: E731
        train = [code("train_input_fn")]
        if "train_steps" in bound:
            train.append(f"max_steps={code('train_steps')}")
        if "saving_listeners" in bound:
            train.append(f"saving_listeners={code('saving_listeners')}")
        evals = [code("eval_input_fn")]
        for legacy_kw, new_kw in (("eval_steps", "steps"), ("eval_hooks", "hooks"), ("eval_delay_secs", "start_delay_secs")):
            if legacy_kw in bound:
                evals.append(f"{new_kw}={code(legacy_kw)}")
        estimator = extras.augment(self, bound, kwargs, train, evals, code("estimator"))  # metrics, exporters, **kwargs
        inner = "    "  # continuation lines are indented relative to the block (libcst adds the block's indent)
        self._need_tf_import = True
        items = [
            estimator,
            f"{self._tf}.estimator.TrainSpec({', '.join(train)})",
            f"{self._tf}.estimator.EvalSpec({', '.join(evals)})",
        ]
        text = "(\n" + ",\n".join(inner + item for item in items) + ",\n)"
        return updated.with_changes(
            value=expression(text),
            whitespace_after_return=cst.SimpleWhitespace(" "),
        )

    def _runner(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if original not in self._runner_calls:
            raise Unsupported(
                "not rewritten automatically (schedule other than 'train_and_evaluate', an experiment_fn that is "
                "not a module-level function returning Experiment(...) and used only here, or an Experiment with "
                "arguments that need manual work): build estimator, TrainSpec and EvalSpec and call "
                "tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)"
            )
        bound = dict(bind(updated, RUNNER_ORDER))
        fn = bound["experiment_fn"].value
        if "run_config" in bound and not _is_none(bound["run_config"].value):
            hparams = bound["hparams"].value if "hparams" in bound else cst.Name("None")
            call_args = [_new_arg("run_config", bound["run_config"].value), _new_arg("hparams", hparams)]
        elif "output_dir" in bound:
            call_args = [_new_arg("output_dir", bound["output_dir"].value)]
        else:
            raise Unsupported("neither output_dir nor run_config is passed (legacy raised ValueError)")
        if not self.fix(
            original, TFM154,
            "learn_runner.run(experiment_fn, ...) is tf.estimator.train_and_evaluate(*experiment_fn(...)); it "
            "calls experiment_fn with the same keyword arguments and returns (eval_result, export_results)",
        ):
            return updated
        self.drop_import_of(original.func)
        inner = cst.Call(func=fn, args=join_args(call_args))
        return updated.with_changes(
            func=self.tf("estimator.train_and_evaluate"),
            args=[cst.Arg(value=inner, star="*")],
        )

    # --- TFM155 SKCompat ------------------------------------------------------------------------
    def _skcompat(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        raise Unsupported(TFM155, SKCOMPAT_MESSAGE)

    # --- TFM156 infer_real_valued_columns_from_input -----------------------------------------------
    def _infer_columns(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("x",))
        if len(bound) != 1 or bound[0][0] != "x":
            raise Unsupported("expected one argument x")
        x = bound[0][1].value
        if isinstance(x, (cst.Dict, cst.DictComp)):
            raise Unsupported("a dict of features gives one column per key: write "
                              "[tf.feature_column.numeric_column(key, shape=value.shape[1:]) for key, value in ...]")
        if not self.fix(
            original, TFM156,
            "infer_real_valued_columns_from_input(x) becomes [tf.feature_column.numeric_column('x', "
            "shape=x.shape[1:])]: the legacy column had the empty key '', the new one reads the feature 'x', so "
            "feed features as {'x': x} (numpy_input_fn(x={'x': x}, ...)); x must be an array with .shape",
        ):
            return updated
        self.drop_import_of(original.func)
        xcode = code_of(x)
        if not isinstance(x, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
            xcode = f"({xcode})"
        column = self.tf("feature_column.numeric_column")
        return expression(f'[{code_of(column)}("x", shape={xcode}.shape[1:])]')

    # --- TFM157 feature columns -------------------------------------------------------------------
    @staticmethod
    def remap(bound: list[tuple[str, cst.Arg]], positional: tuple[str, ...], renames: dict[str, str]) -> list[cst.Arg]:
        """Keep positional args among the leading ``positional`` parameters (same place in the new API);
        every other argument is passed by keyword, renamed through ``renames``."""
        out = []
        for index, (k, a) in enumerate(bound):
            if a.keyword is None and index < len(positional) and positional[index] == k:
                out.append(a)
            else:
                out.append(_kw(a, renames.get(k, k)))
        return out

    def _combiner_check(self, bound: dict[str, cst.Arg]) -> None:
        if "combiner" in bound and _str_value(bound["combiner"].value) != "sum":
            raise Unsupported(
                "combiner other than 'sum': categorical columns carry no combiner in TF 2; set "
                "sparse_combiner=<that value> on the linear estimator (LinearClassifier/LinearRegressor) and drop "
                "combiner"
            )

    def _real_valued(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "dimension", "default_value", "dtype", "normalizer"))
        d = dict(bound)
        if "dimension" in d and _is_none(d["dimension"].value):
            raise Unsupported(TFM159, FLAG_ONLY_COLUMNS["real_valued_column"])
        if "dimension" in d:
            shape = expression(f"({code_of(d['dimension'].value)},)")
            bound = [(k, a.with_changes(value=shape) if k == "dimension" else a) for k, a in bound]
        note = ""
        if "column_name" in d and _str_value(d["column_name"].value) == "":
            key = cst.SimpleString('"x"')
            bound = [(k, a.with_changes(value=key) if k == "column_name" else a) for k, a in bound]
            note = ("; the empty key '' (the unnamed feature tensor of fit(x=...)) becomes 'x': TF 2 reads "
                    "features from a dict, feed {'x': x} (numpy_input_fn(x={'x': x}) as the TFM1 rules write it)")
        args = self.remap(bound, ("column_name", "dimension", "default_value", "dtype", "normalizer"),
                          {"column_name": "key", "dimension": "shape", "normalizer": "normalizer_fn"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.numeric_column", args,
            "tf.contrib.layers.real_valued_column is tf.feature_column.numeric_column (dimension=n is shape=(n,), "
            "normalizer is normalizer_fn)" + note,
        )

    def _sparse_keys(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "keys", "default_value", "combiner", "dtype"))
        d = dict(bound)
        self._combiner_check(d)
        bound = [(k, a) for k, a in bound if k != "combiner"]
        args = self.remap(bound, ("column_name", "keys"),
                          {"column_name": "key", "keys": "vocabulary_list"})
        keys = d.get("keys")
        all_str = (
            keys is not None
            and isinstance(keys.value, (cst.List, cst.Tuple))
            and bool(keys.value.elements)
            and all(isinstance(e, cst.Element) and _str_value(e.value) is not None for e in keys.value.elements)
        )
        note = ""
        if "dtype" not in d and not all_str:
            args.append(_new_arg("dtype", self.tf("string")))
            note = "; the legacy dtype tf.string is written out (TF 2 infers it from the vocabulary)"
        return self._rewrite(
            TFM157, original, updated, "feature_column.categorical_column_with_vocabulary_list", args,
            "tf.contrib.layers.sparse_column_with_keys is tf.feature_column.categorical_column_with_vocabulary_list "
            "(keys is vocabulary_list, out-of-vocabulary ids stay -1)" + note,
        )

    def _sparse_hash(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "hash_bucket_size", "combiner", "dtype", "hash_keys"))
        d = dict(bound)
        self._combiner_check(d)
        if "hash_keys" in d and not _is_none(d["hash_keys"].value):
            raise Unsupported("hash_keys (multi-hash) has no TF 2 equivalent: use one "
                              "tf.feature_column.categorical_column_with_hash_bucket per hash and retrain")
        bound = [(k, a) for k, a in bound if k not in {"combiner", "hash_keys"}]
        args = self.remap(bound, ("column_name", "hash_bucket_size"), {"column_name": "key"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.categorical_column_with_hash_bucket", args,
            "tf.contrib.layers.sparse_column_with_hash_bucket is tf.feature_column.categorical_column_with_hash_bucket "
            "(same string_to_hash_bucket_fast hashing, same default dtype tf.string)",
        )

    def _sparse_integerized(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "bucket_size", "combiner", "dtype"))
        d = dict(bound)
        self._combiner_check(d)
        if "dtype" in d and code_of(d["dtype"].value).split(".")[-1] != "int64":
            raise Unsupported("dtype other than int64: categorical_column_with_identity parses int64; cast the "
                              "feature to an integer tensor in the input_fn and drop dtype")
        bound = [(k, a) for k, a in bound if k not in {"combiner", "dtype"}]
        args = self.remap(bound, ("column_name", "bucket_size"), {"column_name": "key", "bucket_size": "num_buckets"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.categorical_column_with_identity", args,
            "tf.contrib.layers.sparse_column_with_integerized_feature is "
            "tf.feature_column.categorical_column_with_identity (bucket_size is num_buckets); the legacy column "
            "took ids modulo bucket_size, the new one raises on ids outside [0, num_buckets): check your ids",
        )

    def _bucketized(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("source_column", "boundaries"))
        return self._rewrite(
            TFM157, original, updated, "feature_column.bucketized_column", [a for _, a in bound],
            "tf.contrib.layers.bucketized_column is tf.feature_column.bucketized_column (same arguments)",
        )

    def _one_hot(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("sparse_id_column",))
        args = self.remap(bound, ("sparse_id_column",), {"sparse_id_column": "categorical_column"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.indicator_column", args,
            "tf.contrib.layers.one_hot_column is tf.feature_column.indicator_column",
        )

    def _input_layer(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("columns_to_tensors", "feature_columns", "weight_collections", "trainable", "scope"))
        d = dict(bound)
        if "scope" in d and not _is_none(d["scope"].value):
            raise Unsupported("scope has no input_layer equivalent: wrap the call in "
                              "tf.compat.v1.variable_scope(scope) and drop the argument")
        if "cols_to_outs" in d:
            raise Unsupported("cols_to_outs is cols_to_output_tensors in tf.compat.v1.feature_column.input_layer")
        bound = [(k, a) for k, a in bound if k != "scope"]
        args = self.remap(bound, ("columns_to_tensors", "feature_columns", "weight_collections", "trainable"),
                          {"columns_to_tensors": "features"})
        return self._rewrite(
            TFM157, original, updated, "compat.v1.feature_column.input_layer", args,
            "tf.contrib.layers.input_from_feature_columns is tf.compat.v1.feature_column.input_layer "
            "(columns_to_tensors is features; columns are concatenated in name order, variables are named "
            "input_layer/...: legacy checkpoints do not restore into it)",
        )

    # --- TFM158 embedding_column ------------------------------------------------------------------
    def _vocab_size(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """The legacy sparse column's ``length`` as code, from its (original) construction."""
        if isinstance(expr, cst.Name) and depth < 3:
            scope = self.scopes.scope_of(expr)
            assignments = list(scope[expr.value]) if scope is not None else []
            if len(assignments) != 1:
                return None
            value = self._target_values.get(getattr(assignments[0], "node", None))
            if value is None:  # a, b = [column_a, column_b]
                value = extras.unpacked_value(self, getattr(assignments[0], "node", None))
            return self._vocab_size(value, depth + 1) if value is not None else None
        if not isinstance(expr, cst.Call):
            return None
        name = self.legacy(expr.func)
        orders = {
            "layers.sparse_column_with_keys": (("column_name", "keys", "default_value", "combiner", "dtype"), "keys"),
            "layers.sparse_column_with_hash_bucket": (("column_name", "hash_bucket_size", "combiner", "dtype", "hash_keys"), "hash_bucket_size"),
            "layers.sparse_column_with_integerized_feature": (("column_name", "bucket_size", "combiner", "dtype"), "bucket_size"),
        }
        if name not in orders:
            return None
        order, key = orders[name]
        try:
            d = dict(bind(expr, order))
        except Unsupported:
            return None
        if key not in d:
            return None
        value = d[key].value
        if key != "keys":
            return code_of(value)
        if isinstance(value, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in value.elements):
            return str(len(value.elements))
        return f"len({code_of(value)})"

    def _embedding(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        order = ("sparse_id_column", "dimension", "combiner")
        bound = bind(updated, order)
        d = dict(bound)
        if "sparse_id_column" not in d or "dimension" not in d:
            raise Unsupported("sparse_id_column and dimension are required")
        if "stddev" in d:
            raise Unsupported("stddev (TF 0.x) is initializer=tf.compat.v1.truncated_normal_initializer(mean=0.0, "
                              "stddev=...) in tf.feature_column.embedding_column")
        args = self.remap(bound, order, {"sparse_id_column": "categorical_column"})
        message = ("tf.contrib.layers.embedding_column is tf.feature_column.embedding_column (sparse_id_column is "
                   "categorical_column, combiner default 'mean' in both")
        if "initializer" not in d:
            column = dict(bind(original, order))["sparse_id_column"].value
            size = self._vocab_size(column)
            if size is None:
                raise Unsupported(
                    TFM158,
                    "the legacy default initializer was truncated_normal(stddev=1/sqrt(vocabulary size)), TF 2's is "
                    "1/sqrt(dimension), and the vocabulary size is not visible here: pass initializer="
                    "tf.compat.v1.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(<vocabulary size>)) "
                    "and run tfmigrate again",
                )
            self.imports.add("math")
            args.append(_new_arg("initializer", self.tf(
                f"compat.v1.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt({size}))")))
            message += ("; the legacy initializer truncated_normal(stddev=1/sqrt(vocabulary size)) is written out: "
                        "TF 2 defaults to 1/sqrt(dimension)")
        return self._rewrite(TFM158, original, updated, "feature_column.embedding_column", args, message + ")")

