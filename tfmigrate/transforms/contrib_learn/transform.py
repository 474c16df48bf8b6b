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
from tfmigrate.codemod.tree import expression, join_args, keyword_arg
from tfmigrate.rule_ids import TFM150, TFM151, TFM152, TFM153, TFM154, TFM155, TFM156, TFM157, TFM158, TFM159
from tfmigrate.transforms.contrib_learn import experiment_extras as extras
from tfmigrate.transforms.contrib_learn import run_config_reads
from tfmigrate.transforms.common.builders import code_of, is_none
from tfmigrate.transforms.common.learn_names import (
    ESTIMATOR_METHODS, ESTIMATOR_ORDER, EXPERIMENT_ORDER, FLAG_ONLY_COLUMNS, MODEL_FN_OPS_KEEP,
    MODEL_FN_OPS_ORDER, MODE_KEYS, RUN_CONFIG_DEFAULTS, RUN_CONFIG_KEEP, RUN_CONFIG_ORDER, RUN_CONFIG_SESSION, SKCOMPAT_MESSAGE,
    VALID_MODEL_FN_ARGS, Unsupported, bind, legacy_name,
)
from tfmigrate.transforms.contrib_learn.columns import FeatureColumns
from tfmigrate.transforms.contrib_learn.experiment import ExperimentRunner


class ContribLearnTransform(ExperimentRunner, FeatureColumns, FamilyTransform):
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
        self._config_reads: dict[cst.Attribute, cst.Call | None] = {}  # `.tf_config` read -> its RunConfig (TFM150)
        self._session_written: set[cst.Call] = set()  # RunConfig calls rewritten with a session_config=

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
        self._config_reads = run_config_reads.plan(self)
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

        def spread(inner: cst.Call, indent: int) -> cst.Call:  # a long argument call: one argument a line too
            if len(code_of(inner)) + indent <= width or not inner.args:
                return inner
            last = len(inner.args) - 1
            return inner.with_changes(whitespace_before_args=newline(indent + 4), args=[
                a.with_changes(comma=cst.Comma(whitespace_after=newline(indent + 4 if i < last else indent)))
                for i, a in enumerate(inner.args)
            ])

        args = [
            a.with_changes(
                value=spread(a.value, base + 4) if isinstance(a.value, cst.Call) and a.keyword is not None
                and a.keyword.value == "session_config" else a.value,
                comma=cst.Comma(whitespace_after=newline(base + 4 if i < len(call.args) - 1 else base)),
            )
            for i, a in enumerate(call.args)
        ]
        return call.with_changes(whitespace_before_args=newline(base + 4), args=args)

    # --- TFM150 RunConfig ----------------------------------------------------------------------
    def _run_config(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, RUN_CONFIG_ORDER)
        values = {k: code_of(a.value) for k, a in bound}
        given = [k for k, _ in bound if k not in RUN_CONFIG_KEEP and values[k] not in RUN_CONFIG_DEFAULTS.get(k, ())]
        session = [k for k in given if k in RUN_CONFIG_SESSION]
        hard = [k for k in given if k not in RUN_CONFIG_SESSION]
        if hard:
            steps = []
            if {"master", "evaluation_master"} & set(hard):
                steps.append("describe the cluster in the TF_CONFIG environment variable (tf.estimator.RunConfig reads master from it)")
            other = [k for k in hard if k not in {"master", "evaluation_master"}]
            if other:
                steps.append(f"{', '.join(other)} has no tf.estimator.RunConfig equivalent")
            raise Unsupported(
                f"{', '.join(hard)} cannot move to tf.estimator.RunConfig as is: " + "; ".join(steps)
            )
        explicit = dict(bound).get("session_config")
        read = original in self._config_reads.values()  # a `.tf_config` read follows: it becomes .session_config
        # save_checkpoints_secs=0 was the legacy RunConfig's _USE_DEFAULT (TF 1.3+: 600 s, or none beside
        # save_checkpoints_steps); TF 2.15 takes 0 as "no checkpoint saver" (and raises beside steps)
        zero = [k for k, a in bound if k == "save_checkpoints_secs" and values[k] == "0"]
        args = [keyword_arg(a, k) if a.keyword is None else a for k, a in bound if k in RUN_CONFIG_KEEP and k not in zero]
        dropped = [k for k, _ in bound if k not in RUN_CONFIG_KEEP and k not in session]
        note = f" (dropped {', '.join(dropped)}: legacy default values)" if dropped else ""
        if zero:
            note += ("; save_checkpoints_secs=0 dropped: the legacy RunConfig read 0 as its default (600 s, or no "
                     "time-based saves beside save_checkpoints_steps), TF 2.15 as no checkpoints at all")
        if session and explicit is not None and not is_none(explicit.value):
            note += (f"; {', '.join(session)} dropped: given session_config=, the legacy Estimator (TF 1.2+, where "
                     "session_config exists) ran every session with session_config alone and never read them")
        elif session or (read and explicit is None):
            config = self._session_config({k: a for k, a in bound if k in session})
            args = [a for a in args if a.keyword is None or a.keyword.value != "session_config"]
            args.append(cst.Arg(keyword=cst.Name("session_config"), value=config, equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
            if session:
                note += (f"; {', '.join(session)} become session_config=ConfigProto(...) with the fields the legacy "
                         "RunConfig built from them (tf_config: inter/intra op threads = num_cores, GPUOptions("
                         "per_process_gpu_memory_fraction=...), log_device_placement) and allow_soft_placement=True, "
                         "as the legacy Estimator's and TF 2.15's default session config")
        if read and explicit is None:
            note += ("; its tf_config (the legacy session ConfigProto) is read below, and becomes session_config, "
                     "the ConfigProto tf.estimator.RunConfig's estimator runs with")
        rewritten = self._rewrite(
            TFM150, original, updated, "estimator.RunConfig", args,
            "tf.contrib.learn.RunConfig is tf.estimator.RunConfig; arguments passed by keyword" + note,
        )
        if rewritten is not updated and (session or read) and explicit is None:
            self._session_written.add(original)
        return rewritten

    def _session_config(self, given: dict[str, cst.Arg]) -> cst.BaseExpression:
        """``tf.compat.v1.ConfigProto(...)`` with the fields the legacy RunConfig's ``tf_config`` set from
        ``num_cores``, ``log_device_placement`` and ``gpu_memory_fraction`` (those left at their legacy
        default are the proto's defaults too, but gpu_memory_fraction, whose legacy default 1 is left to
        TensorFlow's own allocation)."""
        fields = ["allow_soft_placement=True"]
        if "log_device_placement" in given:
            fields.append(f"log_device_placement={code_of(given['log_device_placement'].value)}")
        if "num_cores" in given:
            cores = code_of(given["num_cores"].value)
            if not isinstance(given["num_cores"].value, (cst.Name, cst.Attribute, cst.Integer, cst.Subscript)):
                cores = f"({cores})"
            fields += [f"inter_op_parallelism_threads={cores}", f"intra_op_parallelism_threads={cores}"]
        if "gpu_memory_fraction" in given:
            fraction = code_of(given["gpu_memory_fraction"].value)
            fields.append(f"gpu_options={self._tf}.compat.v1.GPUOptions(per_process_gpu_memory_fraction={fraction})")
        self._need_tf_import = True
        return expression(f"{self._tf}.compat.v1.ConfigProto({', '.join(fields)})")

    def _config_read(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        """``config.tf_config`` on a RunConfig this family rewrote with a ``session_config=``: the same
        ConfigProto; anything else is flagged on its line (run_config_reads.py)."""
        call = self._config_reads[original]
        attr = original.attr.value
        if call is not None and call in self._session_written:
            if self.fix(original, TFM150, "the legacy RunConfig's tf_config (its session ConfigProto) is tf.estimator."
                        "RunConfig's session_config, written by the rewrite of the RunConfig it reads; the estimator "
                        "copies it when it is built, so a change made after that is not used"):
                return updated.with_changes(attr=cst.Name("session_config"))
            return updated
        if attr == "environment":
            why = "tf.estimator.RunConfig has no environment (the legacy one's task environment): read task_type/is_chief"
        else:
            why = ("tf.estimator.RunConfig has no tf_config: the session ConfigProto is session_config (None unless "
                   "given; pass session_config=tf.compat.v1.ConfigProto(...) to the RunConfig and read that), and "
                   "tfmigrate could not follow this value to a RunConfig it rewrote with one")
        self.flag(original, TFM150, f"{attr} read on a RunConfig: " + why)
        return updated

    # --- TFM151 ModeKeys -----------------------------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if original in self._config_reads:
            return self._config_read(original, updated)
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
        bad = [k for k, a in bound if k not in MODEL_FN_OPS_KEEP and not is_none(a.value)]
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
        if "feature_engineering_fn" in bound and not is_none(bound["feature_engineering_fn"].value):
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
        has_params = "params" in bound and not is_none(bound["params"].value)
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
            new_args.append(keyword_arg(arg, spec["keep"][key]))
        if not self.fix(original, TFM153, f"{where}(...) is {spec['new']}(...) on tf.estimator.Estimator"):
            return updated
        trailing = bool(updated.args) and isinstance(updated.args[-1].comma, cst.Comma)
        return updated.with_changes(
            func=updated.func.with_changes(attr=cst.Name(spec["new"])), args=join_args(new_args, trailing)
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

    # --- TFM155 SKCompat ------------------------------------------------------------------------
    def _skcompat(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        raise Unsupported(TFM155, SKCOMPAT_MESSAGE)

