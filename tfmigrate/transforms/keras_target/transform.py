"""TFM70x (``--target keras``): canned tf.estimator code lowered to Keras 3 models.

Runs after every other family (order 95), on the ``tf.estimator`` code they wrote and on the TF 2
``tf.estimator`` code users already had. The Keras code is the design of issue 20: a canned
estimator is ``canned_keras_model("DNNClassifier", ...)`` (its own arguments, the optimizer as a Keras
3 instance at the rate TF 2.15 used, the loss reduction as a string, the ``RunConfig`` as a ``dict``),
``train`` is ``fit`` on ``input_dataset(input_fn)`` with the checkpoint callback of ``model_dir``,
``evaluate`` returns the dict ``Estimator.evaluate`` returned, ``predict`` is ``estimator_predictions``
(the Estimator's dicts). The helpers are written into the module once, after its imports, from
:mod:`tfmigrate.keras_runtime` (only those used, with what they call and import).

- TFM701 (fix, unsafe): a canned ``DNNClassifier``/``DNNRegressor``/``LinearClassifier``/
  ``LinearRegressor`` construction (``canned_keras_model``) and a TF 2 ``DNNLinearCombinedClassifier``/
  ``Regressor`` (``combined_keras_model``: two optimizers); an argument the Keras model cannot honour
  leaves it as it is, with a manual finding that names it (no hyperparameter is dropped silently).
- TFM702 (fix, unsafe): ``train`` on a lowered estimator -> ``fit``.
- TFM703 (fix, unsafe): ``evaluate`` / ``predict`` on a lowered estimator.
- TFM704 (fix, safe): ``numpy_input_fn`` (TensorFlow 2.16+ has no ``tf.compat.v1.estimator``) -> the helper.
- TFM705 (manual): ``tf.estimator.Estimator(model_fn=...)``: the model_fn's pieces, named.
- TFM706 (manual): the rest of the Estimator API (``train_and_evaluate``, ``TrainSpec``, ``EvalSpec``,
  ``add_metrics``, ``pandas_input_fn``, tf.compat.v1 DNNLinearCombined estimators, estimator methods with no Keras
  form, a lowered model tfmigrate cannot follow), each with what to write instead. TFM132's
  ``LegacyEstimatorAdapter`` is rewritten to train and predict the Keras model (TFM702/TFM703) where
  the module's estimators were lowered, and reported here otherwise.

Methods are rewritten only on a name bound once to a construction this family lowered (``clf =
DNNClassifier(...)``, also ``clf = DNNClassifier(...).train(...)``, split in two statements, and ``clf
= build()`` where every return of the module-level ``build`` is such a construction); an unrelated
``.train()`` is never touched. Keras 3 needs eager execution: a lowered module never gets
``tf.compat.v1.disable_eager_execution()`` (:func:`lowers_to_keras`, which TFM502 asks).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from tfmigrate import keras_runtime
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import dotted, is_docstring, is_import_block
from tfmigrate.codemod.walk import iter_nodes, transform
from tfmigrate.rule_ids import TFM701, TFM702, TFM703, TFM704, TFM705, TFM706, TFM707
from tfmigrate.transforms.common.builders import ReplaceById, append_args, code_of, kwarg, str_value
from tfmigrate.transforms.keras_target.autoencoder import plan_autoencoders, references
from tfmigrate.transforms.keras_target.model_fn_estimator import ModelFnEstimators, plan_model_fn
from tfmigrate.transforms.keras_target.one_shot_inputs import one_shot_returns

ESTIMATOR_MODULES = ("tensorflow.estimator.", "tensorflow.compat.v1.estimator.", "tensorflow_estimator.estimator.")
CANNED = ("DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor")
COMBINED = ("DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor")
# what canned_keras_model takes of a canned estimator's arguments
TAKEN = ("feature_columns", "optimizer", "hidden_units", "n_classes", "label_dimension", "activation_fn", "dropout",
         "loss_reduction", "model_dir", "config")
# what combined_keras_model takes of a DNNLinearCombined estimator's arguments
COMBINED_TAKEN = ("linear_feature_columns", "linear_optimizer", "dnn_feature_columns", "dnn_optimizer", "dnn_hidden_units",
                  "dnn_activation_fn", "dnn_dropout", "n_classes", "label_dimension", "loss_reduction", "model_dir", "config")
DNN_STRING_RATE = "0.001"  # dnn_linear_combined.py: _DNN_LEARNING_RATE (linear: min(0.005, 1/sqrt(columns)), in the helper)
BUILDERS = ("canned_keras_model", "combined_keras_model")
RUN_CONFIG_TAKEN = ("model_dir", "tf_random_seed", "save_checkpoints_steps", "save_checkpoints_secs", "keep_checkpoint_max")
RUN_CONFIG_HARMLESS = ("save_summary_steps", "log_step_count_steps")  # logging only: no effect on the model
# TF 2.15's optimizer strings (canned/optimizers.py) -> the Keras 3 class; the rate a string trains at
KERAS_OPTIMIZERS = {"Adagrad": "Adagrad", "Adam": "Adam", "Ftrl": "Ftrl", "RMSProp": "RMSprop", "SGD": "SGD"}
KERAS_DEFAULT_RATE = {"Adagrad": "0.001", "Adam": "0.001", "Ftrl": "0.001", "RMSProp": "0.001", "SGD": "0.01"}
LINEAR_STRING_RATE = "0.2"  # linear.py: get_optimizer_instance_v2(optimizer, learning_rate=_LEARNING_RATE)
LEGACY_CLASSES = ("Adadelta", "Adagrad", "Adam", "Adamax", "Ftrl", "Nadam", "RMSprop", "SGD")
REDUCTIONS = {"SUM": "sum", "SUM_OVER_BATCH_SIZE": "sum_over_batch_size"}
NUMPY_INPUT_FNS = ("tensorflow.compat.v1.estimator.inputs.numpy_input_fn", "tensorflow.estimator.inputs.numpy_input_fn")
PANDAS_INPUT_FNS = ("tensorflow.compat.v1.estimator.inputs.pandas_input_fn", "tensorflow.estimator.inputs.pandas_input_fn")
ADAPTER = "LegacyEstimatorAdapter"
# the experimental hooks TFM721 (keras_loops) makes Keras callbacks of the helpers module, by their names there
HOOK_NAMES = ("InMemoryEvaluatorHook", "stop_if_no_decrease_hook", "stop_if_no_increase_hook", "stop_if_higher_hook",
              "stop_if_lower_hook")
LOOPS = ("train_and_evaluate", "TrainSpec", "EvalSpec")  # the keras_loops family (TFM720) makes them helpers
MANUAL_API = {  # what is left of them (a spec with exporters or saving listeners, the rule disabled) is reported
    "train_and_evaluate": "tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec) has no Keras form here: "
    "its specs must be the TrainSpec/EvalSpec helpers (no exporters, no saving_listeners; TFM720), or call "
    "model.fit(input_dataset(train_spec.input_fn), epochs=1, steps_per_epoch=<max_steps - steps done>, "
    "callbacks=checkpoints(model)) and then model.evaluate(input_dataset(eval_spec.input_fn), steps=eval_spec.steps, "
    "return_dict=True)",
    "TrainSpec": "tf.estimator.TrainSpec(saving_listeners=...) has no Keras form: write the listener as a "
    "tf.keras.callbacks.Callback in hooks=, then tfmigrate rewrite --target keras makes it the TrainSpec helper (TFM720)",
    "EvalSpec": "tf.estimator.EvalSpec has no Keras form here: enable TFM720 (the EvalSpec helper, which runs TFM723's "
    "exporters after each evaluation), or export the trained model with model.export(path) after train_and_evaluate",
    "add_metrics": "tf.estimator.add_metrics has no Keras form here: enable TFM722 (the add_metrics helper), or add the "
    "metrics to the model's compile(metrics=[...]) (model.compile(optimizer=model.optimizer, loss=model.loss, metrics=[...]))",
}


def estimator_class(name: str | None) -> tuple[str, bool] | None:
    """``("DNNClassifier", v1)`` for a qualified tf.estimator name, else None."""
    if not name:
        return None
    for module in ESTIMATOR_MODULES:
        if name.startswith(module):
            return name[len(module):], module == "tensorflow.compat.v1.estimator."
    return None


_RUNS_KERAS: dict[frozenset[str], bool] = {}  # run_rules -> does it hold a TFM70x rule?


def _runs_keras_rules(run_rules: frozenset[str]) -> bool:
    """Any TFM70x among the enabled rules: asked in every pass of every module (seven hundred ids
    read each time), answered once per selection."""
    if type(run_rules) is not frozenset:  # unhashable (a set): asked as it is
        return any(r.startswith("TFM70") for r in run_rules)
    found = _RUNS_KERAS.get(run_rules)
    if found is None:
        if len(_RUNS_KERAS) > 64:
            _RUNS_KERAS.clear()
        found = _RUNS_KERAS[run_rules] = any(r.startswith("TFM70") for r in run_rules)
    return found


def lowers_to_keras(t: FamilyTransform) -> bool:
    """Does this module build a canned estimator that the keras family lowers (when it runs)? Asked by
    TFM502, which runs before it: a module lowered to Keras 3 must stay in eager mode."""
    if not _runs_keras_rules(t.context.run_rules):
        return False
    if "keras_program" in t.context.facts:
        return True
    if references(t):  # TFM709: TensorFlowDNNAutoencoder is a Keras model
        return True
    for call in t.index.nodes(cst.Call):
        if isinstance(call.func, cst.Name) and call.func.value in BUILDERS:  # lowered by an earlier run
            return True
        found = estimator_class(t.qualified_name(call.func))
        if found is not None and (found[0] in CANNED or (found[0] in COMBINED and not found[1])):
            return True
        if found is not None and (found[0] in LOOPS or found[0].startswith("experimental.")):
            return True  # the training loops (TFM72x) run the Keras model's fit
        if found is not None and found[0] == "Estimator" and not found[1] and TFM707 in t.context.run_rules \
                and plan_model_fn(t, call)[0] is not None:
            return True  # a custom model_fn that TFM707 lowers
    return False


def _keyword_args(call: cst.Call) -> dict[str, cst.Arg] | None:
    """The call's arguments by keyword; None when one is positional or starred."""
    out = {}
    for arg in call.args:
        if arg.keyword is None or arg.star:
            return None
        out[arg.keyword.value] = arg
    return out


def _statement_of(t: FamilyTransform, node: cst.CSTNode) -> cst.CSTNode | None:
    parent = t.index.parents.get(node)
    while parent is not None and not isinstance(parent, cst.SimpleStatementLine):
        if isinstance(parent, (cst.BaseCompoundStatement, cst.Lambda)):
            return None
        parent = t.index.parents.get(parent)
    return parent


class KerasTargetTransform(ModelFnEstimators, FamilyTransform):
    FAMILY = "TFM70"

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.table: dict[int, object] = {}
        self.used: set[str] = set()
        self.bound: set[cst.CSTNode] = set()  # the Name targets bound to a lowered construction
        self.lowered: set[int] = set()  # id of each lowered construction call
        self.factories: dict[cst.FunctionDef, list[cst.Return]] = {}
        self.custom: list[cst.Call] = []
        self.flagged: list[cst.CSTNode] = []  # what a manual finding of this family already covers
        self.manual_constructions = 0  # canned constructions left as they are (TFM701 manual)
        self.model_fn_bound: set[cst.CSTNode] = set()  # TFM707: the names bound to a lowered model_fn's model
        self.model_fn_blocked: dict[int, str] = {}  # TFM705: why a model_fn is not lowered
        self.model_fn_plans: dict[int, object] = {}

    # --- the plan ----------------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> bool:
        calls = self.index.nodes(cst.Call)
        written = self._written_helpers(node)
        adapters: list[cst.Call] = []
        rewritten_inputs: set[cst.CSTNode] = set()
        for call in calls:
            name = self.qualified_name(call.func)
            found = estimator_class(name) if name not in NUMPY_INPUT_FNS + PANDAS_INPUT_FNS else None
            if found is not None:
                cls, v1 = found
                if cls in CANNED:
                    self._construction(call, cls, v1)
                elif cls in COMBINED and not v1:
                    self._combined(call, cls)
                elif cls in COMBINED:
                    self.flag(call, TFM706, f"tf.compat.v1.estimator.{cls} has no Keras form tfmigrate writes (its "
                              "tf.compat.v1.train optimizers and SUM loss reduction): use tf.estimator.{cls} (TF 2.x) "
                              "and run tfmigrate rewrite --target keras again, or write combined_keras_model(...) by hand")
                elif cls == "Estimator" and not v1 and self._model_fn_estimator(call):
                    pass  # TFM707: the model_fn is a Keras model
                elif cls == "Estimator":
                    self.custom.append(call)  # reported in leave_Module: the model_fn's line in the new code
                elif cls in MANUAL_API:
                    self.flag(call, TFM706, MANUAL_API[cls])
            elif name in NUMPY_INPUT_FNS:
                if self.fix(call, TFM704, "numpy_input_fn is not in TensorFlow 2.16+ (tf.estimator is gone): it is "
                            f"numpy_input_fn, {_helper_note()} (the same keywords and defaults, a tf.data input_fn)"):
                    self.table[id(call.func)] = cst.Name("numpy_input_fn")
                    self.used.add("numpy_input_fn")
                    rewritten_inputs.add(call.func)
            elif name in PANDAS_INPUT_FNS:
                self.flag(call, TFM706, "pandas_input_fn is not in TensorFlow 2.16+: build the tf.data.Dataset with "
                          "tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(batch_size) instead")
            elif isinstance(call.func, cst.Name) and call.func.value == ADAPTER and ADAPTER in written:
                adapters.append(call)
        if adapters and self._adapter_calls(node) and not self._adapter(node):
            for call in adapters:
                self.flag(call, TFM706, "LegacyEstimatorAdapter (TFM132) calls the Estimator's train/predict: in its "
                          "fit write self.estimator.fit(input_dataset(numpy_input_fn(x={'x': x}, y=y, batch_size=..., "
                          "shuffle=True, num_epochs=None)), epochs=1, steps_per_epoch=steps, callbacks=checkpoints(self.estimator)) "
                          "and in predict/predict_proba estimator_predictions(self.estimator, numpy_input_fn(...))")
        if rewritten_inputs:
            self._drop_input_imports(rewritten_inputs)
        self.autoencoders = {id(n) for n in plan_autoencoders(self, self.table, self.used, _helper_note())}  # TFM709
        self._follow_factories(node)
        self._follow_add_metrics(calls)
        for call in calls:
            self._method(call)
        if self.lowered:  # TFM708: input_fns returning one batch of a one-shot iterator return the dataset
            one_shot_returns(self, self.table)
        self._leftovers(calls)
        return False  # every change is planned: the walk does not enter the module

    def flag(self, node: cst.CSTNode, rule_id: str, message: str) -> bool:
        self.flagged.append(node)
        return super().flag(node, rule_id, message)

    def _leftovers(self, calls: list[cst.Call]) -> None:
        """TFM706: every other tf.estimator name (ModeKeys, export, exporters, experimental hooks, a
        RunConfig that is not a lowered model's config): TensorFlow 2.16+ fails on it. Once a line; not
        inside a custom model_fn (TFM705 names it) nor on a line another TFM70 finding already covers."""
        covered = {f.line for f in self._sink}
        model_fns = set()
        for call in self.custom:
            for arg in call.args:
                if (arg.keyword is None or arg.keyword.value == "model_fn") and isinstance(arg.value, cst.Name):
                    model_fns.add(arg.value.value)
                    break
        skip = [f for f in self.index.nodes(cst.FunctionDef) if f.name.value in model_fns] + self.flagged
        skip += [plan.fn for plan in self.model_fn_plans.values()] + [f for plan in self.model_fn_plans.values()
                                                                      for f in plan.networks]  # TFM707 lowered them
        # the arguments of train/evaluate/predict: TFM702/TFM703 named them (in the pass that saw the estimator)
        skip += [c for c in calls if isinstance(c.func, cst.Attribute) and c.func.attr.value in ("train", "evaluate", "predict")]
        handled = {id(c.func) for c in calls if estimator_class(self.qualified_name(c.func)) is not None
                   and (c.func.attr.value if isinstance(c.func, cst.Attribute) else "") in (*CANNED, *COMBINED, "Estimator", *MANUAL_API)}
        handled |= {key for key in self.table}
        for node in self.index.nodes(cst.Attribute):
            parent = self.index.parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                continue  # the outermost attribute of a chain only
            name = self.qualified_name(node)
            if name in ("tensorflow.estimator", "tensorflow.compat.v1.estimator") and not isinstance(parent, cst.ImportAlias) \
                    and not any(self.index.is_within(node, fn) for fn in skip):
                found = ("", False)  # the module itself (an alias, est = tf.estimator): TF 2.16+ has none
            else:
                found = estimator_class(name)
            if found is None or id(node) in handled or name in NUMPY_INPUT_FNS + PANDAS_INPUT_FNS:
                continue
            if any(self.index.is_within(node, fn) for fn in skip):
                continue
            line = self.get_metadata(PositionProvider, node).start.line
            if line in covered:
                continue
            covered.add(line)
            rel = found[0]
            if not rel:
                hint = "remove this alias once nothing reads it (the code tfmigrate lowers does not)"
            elif rel.startswith("ModeKeys."):
                value = {"TRAIN": "train", "EVAL": "eval", "PREDICT": "infer"}.get(rel.split(".")[1], rel)
                hint = f"it is the string {value!r}"
            elif rel.startswith(("export", "LatestExporter", "BestExporter", "FinalExporter", "Exporter")):
                hint = "export the Keras model with model.export(path) (a SavedModel for serving) instead"
            elif rel.startswith("experimental"):
                hint = ("write a tf.keras.callbacks.Callback for model.fit(callbacks=[...]) (InMemoryEvaluatorHook and the "
                        "stop_if_* hooks called in train(hooks=[...]) are Keras callbacks of the helpers module: TFM721)")
            elif "Hook" in rel:
                hint = "write a tf.keras.callbacks.Callback for model.fit(callbacks=[...])"
            elif rel == "RunConfig":
                hint = "pass dict(...) of its checkpoint settings as config= to canned_keras_model"
            else:
                hint = "port it to Keras by hand"
            shown = "tf." + name.split(".", 1)[1] if name.startswith("tensorflow.") else name
            self.flag(node, TFM706, f"{shown} is tf.estimator API, which TensorFlow 2.16+ does not have: {hint}")

    def _drop_input_imports(self, rewritten: set[cst.CSTNode]) -> None:
        """``from tensorflow.compat.v1.estimator.inputs import numpy_input_fn [as f]``: TensorFlow 2.16+
        cannot import it, and the helper takes its name; the import goes once every use is rewritten."""
        for binding in self.index.imports:
            if binding.target not in NUMPY_INPUT_FNS or not isinstance(binding.statement, cst.ImportFrom):
                continue
            reads = [n for n in self.index.nodes(cst.Name) if n.value == binding.name
                     and not self.index.is_within(n, binding.statement)]
            if not all(n in rewritten for n in reads):
                continue
            statement = binding.statement
            names = statement.names if isinstance(statement.names, (list, tuple)) else []
            kept = [a for a in names if a is not binding.alias]
            if kept:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                self.table[id(statement)] = statement.with_changes(names=kept)
            else:
                line = self.index.parents.get(statement)
                if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                    self.table[id(line)] = lambda updated: cst.RemovalSentinel.REMOVE

    @staticmethod
    def _adapter_calls(module: cst.Module) -> bool:
        """Does the module's LegacyEstimatorAdapter still call the Estimator's train/predict?"""
        adapter = next((s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == ADAPTER), None)
        return adapter is not None and any(
            isinstance(n, cst.Call) and dotted(n.func) in ("self.estimator.train", "self.estimator.predict")
            for n in iter_nodes(adapter, trivia=False)
        )

    def _adapter(self, module: cst.Module) -> bool:
        """TFM132's LegacyEstimatorAdapter on the Keras model: its ``self.estimator.train(...)`` becomes fit
        (``steps``, or what is left up to ``max_steps``, never 0 steps) and ``self.estimator.predict(...)``
        estimator_predictions. Only where this module's estimators were lowered (the adapter wraps them)."""
        if not self.lowered or self.manual_constructions:
            return False
        adapter = next((s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == ADAPTER), None)
        if adapter is None:
            return False
        planned: dict[int, object] = {}
        for call in iter_nodes(adapter, trivia=False):
            if not isinstance(call, cst.Call) or dotted(call.func) not in ("self.estimator.train", "self.estimator.predict"):
                continue
            args = self._bind_method(call, ("input_fn", "steps", "max_steps"))
            if args is None or "input_fn" not in args:
                return False
            if call.func.attr.value == "predict":  # type: ignore[attr-defined]
                def predict(updated: cst.CSTNode) -> cst.CSTNode:
                    return cst.parse_expression(f"estimator_predictions(self.estimator, {code_of(updated.args[0].value)})")  # type: ignore[attr-defined]

                planned[id(call)] = (call, TFM703, predict)
                continue
            expr = self.index.parents.get(call)
            line = self.index.parents.get(expr)
            if not (isinstance(expr, cst.Expr) and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
                return False
            if [k for k in args if k != "input_fn"] != ["steps", "max_steps"] or code_of(args["steps"]) != "steps" \
                    or code_of(args["max_steps"]) != "max_steps":
                return False

            def train(updated: cst.CSTNode) -> cst.CSTNode:
                source = code_of(updated.body[0].value.args[0].value)  # type: ignore[attr-defined]
                text = (
                    "steps = steps if max_steps is None else max_steps - int(self.estimator.optimizer.iterations)\n"
                    "if steps is None or steps > 0:  # the Estimator trained no step past max_steps; Keras refuses 0 steps\n"
                    f"    self.estimator.fit(input_dataset({source}), epochs=1, steps_per_epoch=steps, "
                    "shuffle=False, callbacks=checkpoints(self.estimator))\n"
                )
                first, second = cst.parse_module(text).body
                return cst.FlattenSentinel([first.with_changes(leading_lines=updated.leading_lines), second])

            planned[id(line)] = (call, TFM702, train)
        if not planned:
            return False
        for key, (call, rule, build) in planned.items():
            message = ("LegacyEstimatorAdapter.fit trains the Keras model: fit(input_dataset(input_fn), epochs=1, "
                       "steps_per_epoch=steps (or what is left up to max_steps), callbacks=checkpoints(model))"
                       if rule == TFM702 else "LegacyEstimatorAdapter.predict reads the Keras model: "
                       "estimator_predictions(self.estimator, input_fn), the Estimator's dicts")
            if self.fix(call, rule, message):
                self.table[key] = build
        self.used.update(("input_dataset", "checkpoints", "estimator_predictions"))
        if [code_of(b.value) for b in adapter.bases] == ["object"]:
            # scikit-learn 1.6+ (what installs beside TensorFlow 2.16+) takes a pipeline step's tags from
            # BaseEstimator; its get_params reads the adapter's own (estimator, classifier) attributes
            # and asks __sklearn_is_fitted__ before predict (a legacy estimator predicted from its model_dir)
            method = cst.parse_statement(
                "def __sklearn_is_fitted__(self):\n    return True  # the model predicts from its weights, trained or restored\n"
            ).with_changes(leading_lines=[cst.EmptyLine(indent=False)])

            def based(updated: cst.CSTNode) -> cst.CSTNode:
                assert isinstance(updated, cst.ClassDef)
                body = updated.body.with_changes(body=[*updated.body.body, method])  # type: ignore[attr-defined]
                return updated.with_changes(bases=[cst.Arg(value=cst.parse_expression("sklearn.base.BaseEstimator"))], body=body)

            self.table[id(adapter)] = based
            self.imports.add("sklearn.base")
        return True

    @staticmethod
    def _written_helpers(module: cst.Module) -> set[str]:
        """The names of helpers tfmigrate already wrote into this module (a docstring with the marker)."""
        out = set()
        for statement in module.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.body.body:
                first = statement.body.body[0]
                if is_docstring(first) and (keras_runtime.WRITTEN_BY in code_of(first) or "written by tfmigrate" in code_of(first)):
                    out.add(statement.name.value)
        return out

    # --- constructions (TFM701) ------------------------------------------------------------------
    def _construction(self, call: cst.Call, cls: str, v1: bool) -> None:
        args = _keyword_args(call)
        if args is None:
            self.flag(call, TFM701, f"tf.estimator.{cls} with positional arguments: write them as keywords and run "
                      "tfmigrate rewrite --target keras again")
            return
        unsupported = [k for k in args if k not in TAKEN and not (k == "sparse_combiner" and str_value(args[k].value) == "sum")]
        linear = cls.startswith("Linear")
        optimizer, why = self._optimizer(args.get("optimizer"), linear, v1)
        reduction, why_reduction = self._reduction(args.get("loss_reduction"), v1)
        config = args.get("config")
        config_plan, why_config = self._config(config.value) if config is not None else ({}, None)
        problems = [f"{k}=" for k in unsupported] + [w for w in (why, why_reduction, why_config) if w]
        if problems:
            self.manual_constructions += 1
            self.flag(call, TFM701, f"tf.estimator.{cls} -> canned_keras_model: it cannot honour "
                      f"{', '.join(problems)}; build the Keras model by hand (tf.keras.Model with these) or drop them knowingly")
            return
        if not self.fix(call, TFM701, f"tf.estimator.{cls} is a Keras model: canned_keras_model({cls!r}, ...), "
                        f"{_helper_note()} (the same layers, head, optimizer and rate, loss reduction, model_dir checkpoints)"):
            return
        self.lowered.add(id(call))
        self.used.add("canned_keras_model")
        self.context.facts.add("keras_program")
        self.table.update(config_plan)

        self.table[id(call)] = self._lowered(cls, "canned_keras_model", args, {"optimizer": optimizer, "loss_reduction": reduction})
        self._bind(call)

    def _combined(self, call: cst.Call, cls: str) -> None:
        """``tf.estimator.DNNLinearCombined*(...)`` -> ``combined_keras_model("DNNLinearCombined*", ...)``."""
        args = _keyword_args(call)
        if args is None:
            self.flag(call, TFM701, f"tf.estimator.{cls} with positional arguments: write them as keywords and run "
                      "tfmigrate rewrite --target keras again")
            return
        unsupported = [k for k in args if k not in COMBINED_TAKEN
                       and not (k == "linear_sparse_combiner" and str_value(args[k].value) == "sum")]
        linear, why_linear = self._combined_optimizer(args.get("linear_optimizer"), linear=True)
        dnn, why_dnn = self._combined_optimizer(args.get("dnn_optimizer"), linear=False)
        reduction, why_reduction = self._reduction(args.get("loss_reduction"), False)
        config = args.get("config")
        config_plan, why_config = self._config(config.value) if config is not None else ({}, None)
        problems = [f"{k}=" for k in unsupported] + [w for w in (why_linear, why_dnn, why_reduction, why_config) if w]
        if problems:
            self.manual_constructions += 1
            self.flag(call, TFM701, f"tf.estimator.{cls} -> combined_keras_model: it cannot honour "
                      f"{', '.join(problems)}; build the Keras model by hand (tf.keras.Model with these) or drop them knowingly")
            return
        if not self.fix(call, TFM701, f"tf.estimator.{cls} is a Keras model: combined_keras_model({cls!r}, ...), "
                        f"{_helper_note()} (the DNN and linear logits summed, linear_optimizer training the linear "
                        "weights and dnn_optimizer the others at TF 2.15's rates, loss reduction, model_dir checkpoints)"):
            return
        self.lowered.add(id(call))
        self.used.add("combined_keras_model")
        self.context.facts.add("keras_program")
        self.table.update(config_plan)
        values = {"linear_optimizer": linear, "dnn_optimizer": dnn, "loss_reduction": reduction}
        self.table[id(call)] = self._lowered(cls, "combined_keras_model", args, values)
        self._bind(call)

    def _combined_optimizer(self, arg: cst.Arg | None, linear: bool) -> tuple[cst.BaseExpression | None, str | None]:
        """A DNNLinearCombined optimizer: a string (or none) at TF 2.15's rate (the linear one's, which depends on
        the number of linear columns, computed by the helper from the name), else what :meth:`_optimizer` reads."""
        text = "Ftrl" if linear and arg is None else "Adagrad" if arg is None else str_value(arg.value)
        if text is None:
            return self._optimizer(arg, linear, False)
        if text not in KERAS_OPTIMIZERS:
            return None, f"{'linear' if linear else 'dnn'}_optimizer={text!r}"
        if linear:
            return cst.SimpleString(f'"{KERAS_OPTIMIZERS[text]}"'), None
        return cst.parse_expression(f"tf.keras.optimizers.{KERAS_OPTIMIZERS[text]}(learning_rate={DNN_STRING_RATE})"), None

    @staticmethod
    def _lowered(cls: str, builder: str, args: dict[str, cst.Arg], values: dict[str, cst.BaseExpression | None]):  # type: ignore[no-untyped-def]
        """The replacement of a construction: ``builder("cls", ...)`` with ``values`` replacing or appended to its arguments."""

        def lowered(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            replaced = []
            for arg in updated.args:
                key = arg.keyword.value  # type: ignore[union-attr]
                if key in values:
                    arg = arg.with_changes(value=values[key])
                replaced.append(arg)
            extra = [kwarg(key, value) for key, value in values.items() if key not in args]
            if updated.args and not extra:
                new = updated.with_changes(args=replaced)
            elif updated.args:
                new = append_args(updated, replaced, extra)
            else:
                space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                new = updated.with_changes(args=[e.with_changes(comma=space) for e in extra[:-1]] + [extra[-1]])
            comma = new.args[0].comma
            if not isinstance(comma, cst.Comma):
                comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            head = cst.Arg(value=cst.SimpleString(f'"{cls}"'), comma=comma)
            return new.with_changes(func=cst.Name(builder), args=[head, *new.args])

        return lowered

    def _optimizer(self, arg: cst.Arg | None, linear: bool, v1: bool) -> tuple[cst.BaseExpression | None, str | None]:
        """The Keras 3 optimizer instance of the estimator's ``optimizer`` argument, or why not."""
        if arg is None:
            if v1:  # TF 1.x canned estimators: Adagrad at 0.05, Ftrl at min(0.2, 1/sqrt(columns))
                return (None, "the default optimizer of a tf.compat.v1.estimator linear model (its rate depends on the "
                        "number of feature columns)") if linear else (cst.parse_expression("tf.keras.optimizers.Adagrad(learning_rate=0.05)"), None)
            if linear:  # LinearClassifierV2(optimizer="Ftrl") -> get_optimizer_instance_v2("Ftrl", learning_rate=0.2)
                return cst.parse_expression(f"tf.keras.optimizers.Ftrl(learning_rate={LINEAR_STRING_RATE})"), None
            return cst.parse_expression(f"tf.keras.optimizers.Adagrad(learning_rate={KERAS_DEFAULT_RATE['Adagrad']})"), None
        value = arg.value
        text = str_value(value)
        if text is not None:
            if text not in KERAS_OPTIMIZERS:
                return None, f"optimizer={text!r}"
            rate = "0.05" if v1 and not linear else LINEAR_STRING_RATE if linear else KERAS_DEFAULT_RATE[text]
            if v1 and linear:
                return None, f"optimizer={text!r} (tf.compat.v1.estimator: the rate depends on the number of feature columns)"
            return cst.parse_expression(f"tf.keras.optimizers.{KERAS_OPTIMIZERS[text]}(learning_rate={rate})"), None
        body = value.body if isinstance(value, cst.Lambda) and not value.params.params else value
        if isinstance(body, cst.Call):
            name = self.qualified_name(body.func) or ""
            head, _, cls = name.rpartition(".")
            if head in ("tensorflow.keras.optimizers.legacy", "keras.optimizers.legacy") and cls in LEGACY_CLASSES:
                keywords = [a.keyword.value for a in body.args if a.keyword is not None]
                if "decay" in keywords or any(a.star for a in body.args):
                    return None, f"optimizer={code_of(value)} (Keras 3 optimizers have no 'decay': use a learning-rate schedule)"
                args = [a.with_changes(keyword=cst.Name("learning_rate")) if a.keyword is not None and a.keyword.value == "lr" else a
                        for a in body.args]
                return body.with_changes(func=cst.parse_expression(f"tf.keras.optimizers.{cls}"), args=args), None
        return None, f"optimizer={code_of(value)} (not a string or a tf.keras.optimizers.legacy optimizer tfmigrate can read)"

    def _reduction(self, arg: cst.Arg | None, v1: bool) -> tuple[cst.BaseExpression | None, str | None]:
        if arg is None:  # TF 2.15: SUM_OVER_BATCH_SIZE; tf.compat.v1.estimator: SUM
            return cst.SimpleString('"sum"' if v1 else '"sum_over_batch_size"'), None
        name = self.qualified_name(arg.value) or dotted(arg.value) or ""
        key = name.rpartition(".")[2]
        if key in REDUCTIONS and ("Reduction" in name):
            return cst.SimpleString(f'"{REDUCTIONS[key]}"'), None
        if str_value(arg.value) in REDUCTIONS.values():
            return arg.value, None
        return None, f"loss_reduction={code_of(arg.value)}"

    def _config(self, value: cst.BaseExpression) -> tuple[dict[int, object], str | None]:
        """The RunConfig as ``dict(...)``: inline, or the one call a name is bound to."""
        call = value
        if isinstance(value, cst.Name):
            call = self._bound_run_config(value)
            if call is None:
                return {}, f"config={value.value} (not a RunConfig(...) bound once in this scope and used only as config=)"
        if not isinstance(call, cst.Call) or (self.qualified_name(call.func) or "").rpartition(".")[2] != "RunConfig" \
                or estimator_class(self.qualified_name(call.func)) is None:
            return {}, f"config={code_of(value)}"
        args = _keyword_args(call)
        if args is None:
            return {}, "config=RunConfig(<positional arguments>)"
        others = [k for k in args if k not in RUN_CONFIG_TAKEN + RUN_CONFIG_HARMLESS]
        if others:
            return {}, f"config=RunConfig({', '.join(k + '=' for k in others)})"
        return {id(call.func): cst.Name("dict")}, None

    def _bound_run_config(self, name: cst.Name) -> cst.Call | None:
        scope = self.scopes.scope_of(name)
        seen = scope[name.value] if scope is not None else []
        if len(seen) != 1 or not isinstance(seen[0].node, cst.Name):
            return None
        target = seen[0].node
        assign = self.index.parents.get(target)
        if not isinstance(assign, cst.AssignTarget):
            return None
        assign = self.index.parents.get(assign)
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or not isinstance(assign.value, cst.Call):
            return None
        for access in seen[0].references:  # every read is the config= of a canned construction
            arg = self.index.parents.get(access.node)
            call = self.index.parents.get(arg) if isinstance(arg, cst.Arg) else None
            if not (isinstance(arg, cst.Arg) and arg.keyword is not None and arg.keyword.value == "config" and isinstance(call, cst.Call)):
                return None
            found = estimator_class(self.qualified_name(call.func))
            if found is None or found[0] not in (*CANNED, "Estimator"):  # Estimator: TFM707's lowered model_fns
                return None
        return assign.value

    # --- the name a construction is bound to ----------------------------------------------------------
    def _bind(self, call: cst.Call) -> None:
        parent = self.index.parents.get(call)
        if isinstance(parent, cst.Arg) and not parent.star and (parent.keyword is None or parent.keyword.value == "estimator"):
            outer = self.index.parents.get(parent)  # add_metrics(<model>, metric_fn) (TFM722) returns the model it is given
            if isinstance(outer, cst.Call) and isinstance(outer.func, cst.Name) and outer.func.value == "add_metrics" \
                    and outer.args and outer.args[0] is parent:
                self._bind(outer)
                return
        if isinstance(parent, cst.Element) and _train_and_evaluate_triple(self.index.parents.get(parent), parent):
            return  # (model, TrainSpec(...), EvalSpec(...)): train_and_evaluate's arguments (TFM154's Experiment)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            self.bound.add(parent.targets[0].target)
            return
        if isinstance(parent, cst.Attribute) and parent.attr.value == "train":
            chained = self.index.parents.get(parent)
            statement = self.index.parents.get(chained)
            line = self.index.parents.get(statement)
            if isinstance(chained, cst.Call) and isinstance(statement, cst.Assign) and statement.value is chained \
                    and len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name) \
                    and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                self.bound.add(statement.targets[0].target)
                self._split(line, statement, chained, call)
                return
            self.flag(call, TFM702, "Estimator.train returned the estimator; Keras fit returns a History: bind the model "
                      "to a name first (model = canned_keras_model(...)), then call model.fit(...) on it")
            return
        if isinstance(parent, cst.Return):
            fn = parent
            while fn is not None and not isinstance(fn, cst.FunctionDef):
                fn = self.index.parents.get(fn)
            if fn is not None and self.index.parents.get(fn) is self.index.module:
                self.factories.setdefault(fn, []).append(parent)  # followed through the function's calls
                return
        self.flag(call, TFM706, "the Keras model built here is used where tfmigrate cannot follow it: its "
                  "train/evaluate/predict calls must become model.fit(input_dataset(input_fn), epochs=1, "
                  "steps_per_epoch=steps, callbacks=checkpoints(model)), model.evaluate(input_dataset(input_fn), "
                  "return_dict=True) and estimator_predictions(model, input_fn) by hand")

    def _split(self, line: cst.SimpleStatementLine, assign: cst.Assign, chained: cst.Call, ctor: cst.Call) -> None:
        """``x = Ctor(...).train(...)`` -> ``x = canned_keras_model(...)`` and ``x.fit(...)``."""
        name = assign.targets[0].target.value  # type: ignore[attr-defined]
        fit = self._fit(chained, name)
        if fit is None:
            return
        self.used.update(("input_dataset", "checkpoints"))

        def split(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.SimpleStatementLine)
            new_assign = updated.body[0]
            ctor_new = new_assign.value.func.value  # type: ignore[attr-defined]
            first = updated.with_changes(body=[new_assign.with_changes(value=ctor_new)])
            second = cst.SimpleStatementLine(body=[cst.Expr(fit(new_assign.value))])
            return cst.FlattenSentinel([first, second])

        self.table[id(line)] = split

    def _fit(self, call: cst.Call, name: str, guarded: bool = False):  # type: ignore[no-untyped-def]
        """``name.fit(input_dataset(E), epochs=1, steps_per_epoch=S, callbacks=checkpoints(name))``; with
        ``max_steps=M`` (only where the call is a statement line of its own, ``guarded``) the fit runs
        ``M - steps done`` steps, and only when that is positive (Keras refuses 0 steps; the Estimator
        trained none once its global step had reached M)."""
        args = self._bind_method(call, ("input_fn", "hooks", "steps", "max_steps", "saving_listeners"))
        if args is None or "input_fn" not in args:
            self.flag(call, TFM702, "train(...) with arguments tfmigrate cannot read: write "
                      f"{name}.fit(input_dataset(input_fn), epochs=1, steps_per_epoch=steps, callbacks=checkpoints({name}))")
            return None
        given = {k for k in args if code_of(args[k]) != "None"}
        # hooks=[...] of the hooks TFM721 lowers: Keras callbacks, run before the checkpoints as the Estimator ran them
        callbacks = "hooks" in given and self._hooks_as_callbacks(args["hooks"])
        extra = [k for k in ("hooks", "saving_listeners") if k in given and not (k == "hooks" and callbacks)
                 and not (k == "hooks" and name in self.model_fn_names and self._logging_hooks_only(args[k]))]
        if "max_steps" in given and ("steps" in given or not guarded):
            extra.append("max_steps")
        if extra:
            self.flag(call, TFM702, f"train(..., {', '.join(k + '=' for k in extra)}) has no fit form tfmigrate writes: "
                      f"hooks become tf.keras.callbacks.Callback subclasses passed to {name}.fit(callbacks=[...]); max_steps=M "
                      f"is steps_per_epoch=M - int({name}.optimizer.iterations), run only when that is positive")
            return None
        dropped = " (its LoggingTensorHook hooks only printed graph tensors: fit logs the loss)" if "hooks" in given else ""
        if not self.fix(call, TFM702, "Estimator.train is Keras fit: fit(input_dataset(input_fn), epochs=1, "
                        "steps_per_epoch=steps, callbacks=checkpoints(model)) takes exactly those steps and checkpoints "
                        "model_dir as the RunConfig did" + dropped):
            return None
        params = ("input_fn", "hooks", "steps", "max_steps", "saving_listeners")

        def fit(updated: cst.Call) -> cst.Call:
            now = self._bind_method(updated, params) or args
            parts = [f"input_dataset({code_of(now['input_fn'])})", "epochs=1"]
            if "steps" in now and code_of(now["steps"]) != "None":
                parts.append(f"steps_per_epoch={code_of(now['steps'])}")
            if "max_steps" in given:
                parts.append(f"steps_per_epoch={code_of(now['max_steps'])} - int({name}.optimizer.iterations)")
            # the dataset is the input_fn's, shuffled or not as it was; Keras would warn that shuffle=True is ignored
            multiline = "\n" in code_of(updated)
            hooks = ""
            if callbacks and isinstance(now.get("hooks"), cst.Name):
                hooks = f"{code_of(now['hooks'])} + "
            elif callbacks and isinstance(now.get("hooks"), cst.List):
                elements = [code_of(e.value) for e in now["hooks"].elements]  # type: ignore[attr-defined]
                hooks = ("[\n" + "".join(f"        {e},\n" for e in elements) + "    ]" if multiline
                         else f"[{', '.join(elements)}]") + " + "
            parts += ["shuffle=False", f"callbacks={hooks}checkpoints({name})"]
            return _call(f"{name}.fit", parts, multiline=multiline)

        if "max_steps" not in given:
            return fit
        limit = code_of(args["max_steps"])

        def guard(updated: cst.CSTNode) -> cst.CSTNode:  # the statement line -> if <steps left>: <fit>
            assert isinstance(updated, cst.SimpleStatementLine)
            inner = updated.with_changes(body=[cst.Expr(fit(updated.body[0].value))], leading_lines=[])  # its comment kept
            body = cst.IndentedBlock(body=[inner])
            test = cst.parse_expression(f"int({name}.optimizer.iterations) < {limit}")
            return cst.If(test=test, body=body, leading_lines=updated.leading_lines)

        return guard

    def _bind_method(self, call: cst.Call, params: tuple[str, ...]) -> dict[str, cst.BaseExpression] | None:
        out: dict[str, cst.BaseExpression] = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                return None
            key = arg.keyword.value if arg.keyword is not None else params[position] if position < len(params) else None
            if key not in params:
                return None
            out[key] = arg.value
        return out

    def _follow_factories(self, module: cst.Module) -> None:
        """``m = build()``: ``build`` a module-level def (bound once) whose every return is a lowered
        construction; ``m`` is then bound to one as well."""
        for fn, returns in self.factories.items():
            lowered = [r for r in returns if isinstance(r.value, cst.Call) and id(r.value) in self.lowered]
            every = [n for n in iter_nodes(fn, trivia=False) if isinstance(n, cst.Return)]
            if len(lowered) != len(every) or sum(1 for s in module.body if isinstance(s, cst.FunctionDef)
                                                 and s.name.value == fn.name.value) != 1:
                continue
            for call in self.index.nodes(cst.Call):
                if not (isinstance(call.func, cst.Name) and call.func.value == fn.name.value):
                    continue
                parent = self.index.parents.get(call)
                if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
                    self.bound.add(parent.targets[0].target)

    def _follow_add_metrics(self, calls: list[cst.Call]) -> None:
        """``m = add_metrics(<a lowered model's name>, metric_fn)`` (TFM722's helper returns the model it is given)
        binds ``m`` to that model, so ``model = add_metrics(model, fn)`` keeps ``model.train`` a fit."""
        changed = True
        while changed:
            changed = False
            for call in calls:
                if not (isinstance(call.func, cst.Name) and call.func.value == "add_metrics" and call.args):
                    continue
                first, parent = call.args[0], self.index.parents.get(call)
                if first.star or (first.keyword is not None and first.keyword.value != "estimator") \
                        or not isinstance(parent, cst.Assign) or len(parent.targets) != 1 \
                        or not isinstance(parent.targets[0].target, cst.Name) or parent.targets[0].target in self.bound:
                    continue
                target = parent.targets[0].target
                self.bound.add(target)  # tentatively: the model's name may be this very target (m = add_metrics(m, fn))
                if self._receiver(first.value):
                    changed = True
                else:
                    self.bound.discard(target)

    # --- methods (TFM702, TFM703, TFM706) ---------------------------------------------------------------
    def _receiver(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Name) or not self.bound:
            return False
        scope = self.scopes.scope_of(node)
        seen = scope[node.value] if scope is not None else []
        return bool(seen) and all(a.node in self.bound for a in seen)

    def _method(self, call: cst.Call) -> None:
        func = call.func
        if not isinstance(func, cst.Attribute) or not self._receiver(func.value):
            return
        name, method = func.value.value, func.attr.value  # type: ignore[attr-defined]
        if method == "train":
            statement = self.index.parents.get(call)
            if not isinstance(statement, cst.Expr):
                self.flag(call, TFM702, "the value of Estimator.train (the estimator) is used: Keras fit returns a History; "
                          f"call {name}.fit(...) as a statement and use {name} itself")
                return
            line = self.index.parents.get(statement)
            alone = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            fit = self._fit(call, name, guarded=alone)
            if fit is not None:
                guarded = fit.__name__ == "guard"
                self.table[id(line) if guarded else id(call)] = fit
                self.used.update(("input_dataset", "checkpoints"))
        elif method == "evaluate":
            args = self._bind_method(call, ("input_fn", "steps", "hooks", "checkpoint_path", "name"))
            extra = [k for k in ("hooks", "checkpoint_path", "name") if args and k in args and code_of(args[k]) != "None"]
            if args is None or "input_fn" not in args or extra:
                self.flag(call, TFM703, f"evaluate(...) with {', '.join(k + '=' for k in extra) or 'arguments tfmigrate cannot read'}: "
                          f"write {name}.evaluate(input_dataset(input_fn), steps=steps, return_dict=True, verbose=0)")
                return
            if self.fix(call, TFM703, "Estimator.evaluate is Keras evaluate(input_dataset(input_fn), steps=steps, "
                        "return_dict=True): the same dict of metrics ('accuracy', 'loss', ...; no 'global_step')"):
                params = ("input_fn", "steps", "hooks", "checkpoint_path", "name")

                def evaluate(updated: cst.Call) -> cst.BaseExpression:
                    now = self._bind_method(updated, params) or args
                    parts = [f"input_dataset({code_of(now['input_fn'])})"]
                    if "steps" in now and code_of(now["steps"]) != "None":
                        parts.append(f"steps={code_of(now['steps'])}")
                    parts += ["return_dict=True", "verbose=0"]
                    return _call(f"{name}.evaluate", parts, multiline="\n" in code_of(updated))

                self.table[id(call)] = evaluate
                self.used.add("input_dataset")
        elif method == "predict":
            args = self._bind_method(call, ("input_fn", "predict_keys", "hooks", "checkpoint_path", "yield_single_examples"))
            extra = [k for k in ("predict_keys", "hooks", "checkpoint_path", "yield_single_examples")
                     if args and k in args and code_of(args[k]) != "None"]
            if args is None or "input_fn" not in args or extra:
                self.flag(call, TFM703, f"predict(...) with {', '.join(k + '=' for k in extra) or 'arguments tfmigrate cannot read'}: "
                          f"write estimator_predictions({name}, input_fn) (one dict per example) and select the keys yourself")
                return
            helper = self._predictions_helper(func.value)
            if self.fix(call, TFM703, f"Estimator.predict is {helper}(model, input_fn), {_helper_note()}: the same dicts per "
                        "example (" + ("the model_fn's predictions" if helper != "estimator_predictions"
                                      else "class_ids, probabilities, logits, classes / predictions") + ")"):
                params = ("input_fn", "predict_keys", "hooks", "checkpoint_path", "yield_single_examples")

                def predict(updated: cst.Call) -> cst.BaseExpression:
                    now = self._bind_method(updated, params) or args
                    return cst.parse_expression(f"{helper}({name}, {code_of(now['input_fn'])})")

                self.table[id(call)] = predict
                self.used.add(helper)
        elif method not in ("fit", "model_dir"):
            self.flag(call, TFM706, f"Estimator.{method} has no form on the Keras model tfmigrate writes: use the Keras API "
                      f"({name}.save_weights / {name}.load_weights, {name}.get_layer(name).get_weights(), {name}.export(path) "
                      "for a SavedModel)")

    # --- custom model_fn (TFM705) ---------------------------------------------------------------------
    def _custom(self, call: cst.Call, module: cst.Module) -> None:
        model_fn = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "model_fn"),
                        call.args[0].value if call.args and call.args[0].keyword is None else None)
        pieces = []
        fn = None
        if isinstance(model_fn, cst.Name):  # the first def of that name
            fn = next((f for f in self.index.nodes(cst.FunctionDef) if f.name.value == model_fn.value), None)
        if fn is not None:
            pieces.append(f"the model_fn `def {fn.name.value}({code_of(fn.params)})`")
            pieces.extend(self._model_fn_pieces(fn))
        elif model_fn is not None:
            pieces.append(f"the model_fn `{code_of(model_fn)}`")
        if self.model_fn_blocked.get(id(call)):
            pieces.append(f"it is not lowered to a Keras model (TFM707) because of {self.model_fn_blocked[id(call)]}")
        self.flag(call, TFM705, "tf.estimator.Estimator with a custom model_fn has no Keras form tfmigrate writes: "
                  + "; ".join(pieces) + ". Write a tf.keras.Model (or a Model subclass with a train_step) with these layers, "
                  "compile it with that optimizer, loss and metrics, train it with model.fit(input_dataset(input_fn), epochs=1, "
                  "steps_per_epoch=steps, callbacks=checkpoints(model))")

    def _model_fn_pieces(self, fn: cst.FunctionDef) -> list[str]:
        layers, optimizers, loss, metrics = [], [], None, None
        assigned: dict[str, cst.BaseExpression] = {}
        for node in iter_nodes(fn, trivia=False):
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                assigned.setdefault(node.targets[0].target.value, node.value)
            if not isinstance(node, cst.Call):
                continue
            name = self.qualified_name(node.func) or dotted(node.func) or ""
            short = name.replace("tensorflow.", "tf.")
            if ".layers." in name:
                layers.append(" ".join(f"{short.rpartition('.')[2]}({', '.join(code_of(a).strip().rstrip(',') for a in node.args[1:] if not a.star)})"
                              .split()) if name.split(".")[-2] == "layers" and name.split(".")[-1].islower() else short.rpartition('.')[2])
            elif name.endswith("Optimizer") or ".optimizers." in name:
                optimizers.append(code_of(node).replace("tensorflow.", "tf."))
            elif name.endswith("EstimatorSpec"):
                for arg in node.args:
                    key = arg.keyword.value if arg.keyword is not None else None
                    value = assigned.get(arg.value.value, arg.value) if isinstance(arg.value, cst.Name) else arg.value
                    if key == "loss" and loss is None:
                        loss = code_of(value)
                    elif key == "eval_metric_ops" and metrics is None:
                        metrics = ", ".join(str_value(e.key) or code_of(e.key) for e in value.elements
                                            if isinstance(e, cst.DictElement)) if isinstance(value, cst.Dict) else code_of(value)
        out = []
        if layers:
            out.append("layers " + ", ".join(layers))
        if loss:
            out.append(f"loss {' '.join(loss.split())}")
        if optimizers:
            out.append("optimizer " + ", ".join(" ".join(o.split()) for o in optimizers))
        if metrics:
            out.append(f"metrics {metrics}")
        return out

    # --- writing ------------------------------------------------------------------------------------
    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        module = self._insert_helpers(transform(updated, ReplaceById(self.table))) if self.table else updated  # type: ignore[arg-type]
        for call in self.custom:
            self._custom(call, module)
        return module

    def _insert_helpers(self, module: cst.Module) -> cst.Module:
        """``from legacy_estimators import <the helpers used>`` (:func:`import_helpers`); the helpers module
        itself is written once beside this module by the runner (:mod:`tfmigrate.codemod.helpers_module`). A
        helper an earlier version wrote into this module is kept there and not imported."""
        if set(self.table) - getattr(self, "autoencoders", set()):  # (DNNAutoencoder alone names no tf)
            self.imports.add("tensorflow", asname="tf")  # the lowered code names tf.keras
        written = self._written_helpers(module)
        return import_helpers(module, sorted(n for n in self.used if n not in written))

    def _hooks_as_callbacks(self, hooks: cst.BaseExpression) -> bool:
        """Can ``train(hooks=HOOKS)`` be ``fit(callbacks=HOOKS + checkpoints(model))``? A list of calls of the
        hooks TFM721 made Keras callbacks (imported from the helpers module); any other hook (a
        SessionRunHook) has no Keras form."""
        if isinstance(hooks, cst.Name):  # a name bound once, to such a list
            scope = self.scopes.scope_of(hooks)
            seen = list(scope[hooks.value]) if scope is not None else []
            target = self.index.parents.get(seen[0].node) if len(seen) == 1 else None
            assign = self.index.parents.get(target) if isinstance(target, cst.AssignTarget) else None
            return isinstance(assign, cst.Assign) and len(assign.targets) == 1 and self._hooks_as_callbacks(assign.value)
        if not isinstance(hooks, cst.List) or not hooks.elements:
            return False
        imported = helpers_imported(self.index.module)
        return all(isinstance(e, cst.Element) and isinstance(e.value, cst.Call) and isinstance(e.value.func, cst.Name)
                   and e.value.func.value in HOOK_NAMES and e.value.func.value in imported for e in hooks.elements)


def helpers_imported(module: cst.Module) -> set[str]:
    """The names the module imports from the Keras helpers module."""
    out: set[str] = set()
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for node in statement.body:
                if isinstance(node, cst.ImportFrom) and _from_module(node) == keras_runtime.helpers_import \
                        and isinstance(node.names, (list, tuple)):
                    out.update(a.name.value for a in node.names if isinstance(a.name, cst.Name))
    return out


def _train_and_evaluate_triple(node: cst.CSTNode | None, first: cst.Element) -> bool:
    """``(first, TrainSpec(...), EvalSpec(...))``: the TFM720 helpers' specs beside the model, the arguments of
    train_and_evaluate (what TFM154 makes of an Experiment), which takes the Keras model as it is."""
    if not isinstance(node, cst.Tuple) or len(node.elements) != 3 or node.elements[0] is not first:
        return False
    specs = [e.value for e in node.elements[1:]]
    return all(isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value == name
               for c, name in zip(specs, ("TrainSpec", "EvalSpec")))


def import_helpers(module: cst.Module, names: list[str]) -> cst.Module:
    """``from legacy_estimators import <names>`` after the module's imports (``.legacy_estimators`` in a
    package: :data:`keras_runtime.helpers_import`), merged into such an import already there."""
    if not names:
        return module
    source = keras_runtime.helpers_import
    body = list(module.body)
    for i, statement in enumerate(body):  # an import from the helpers module already there: the new names join it
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        node = statement.body[0]
        if isinstance(node, cst.ImportFrom) and _from_module(node) == source and isinstance(node.names, (list, tuple)):
            have = [a.name.value for a in node.names if isinstance(a.name, cst.Name)]
            missing = [n for n in names if n not in have]
            if not missing:
                return module
            aliases = [cst.ImportAlias(name=cst.Name(n)) for n in sorted({*have, *missing})]
            body[i] = statement.with_changes(body=[_helpers_import(source, aliases)])
            return module.with_changes(body=body)
    position = 0
    for i, statement in enumerate(body):
        if not (is_import_block(statement) or (i == 0 and is_docstring(statement))):
            break
        position = i + 1
    line = cst.SimpleStatementLine(body=[_helpers_import(source, [cst.ImportAlias(name=cst.Name(n)) for n in names])])
    return module.with_changes(body=body[:position] + [line] + body[position:])


def _helper_note() -> str:
    """Where a helper the lowered code calls comes from, for a finding's message."""
    return f"a helper imported from {keras_runtime.helpers_import.lstrip('.')}.py (written once, beside this module)"


def _from_module(node: cst.ImportFrom) -> str:
    return "." * len(node.relative) + (dotted(node.module) or "" if node.module is not None else "")


def _helpers_import(source: str, aliases: list[cst.ImportAlias]) -> cst.ImportFrom:
    """``from source import a, b``; one name a line in parentheses when that is longer than 100 characters."""
    names = [a.name.value for a in aliases]  # type: ignore[attr-defined]
    text = f"from {source} import {', '.join(names)}"
    if len(text) > 100:
        text = f"from {source} import (\n" + "".join(f"    {n},\n" for n in names) + ")"
    statement = cst.parse_statement(text)
    assert isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.ImportFrom)
    return statement.body[0]


def _call(func: str, parts: list[str], multiline: bool) -> cst.Call:
    """``func(parts)``; one argument a line (and a trailing comma) when the legacy call was written so."""
    if not multiline:
        return cst.parse_expression(f"{func}({', '.join(parts)})")  # type: ignore[return-value]
    return cst.parse_expression(f"{func}(\n" + "".join(f"    {p},\n" for p in parts) + ")")  # type: ignore[return-value]
