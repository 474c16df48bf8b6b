"""Planning the constructors of the TFM1 family: which tf.estimator class a legacy estimator becomes,
with which arguments (the legacy defaults written out, the optimizer as a tf.keras.optimizers.legacy
callable, the feature columns, model_dir from save()), or why it is left with a finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.codemod.transform import is_suppressed
from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM101, TFM102, TFM103, TFM107, TFM108, TFM110, TFM112, TFM113, TFM136
from tfmigrate.transforms.estimators import flow, inputs
from tfmigrate.transforms.common.builders import (
    append_args, bind_args, build_call, code_of, int_value, kwarg, layout_call, str_value,
)
from tfmigrate.transforms.estimators.flow import combined_optimizers
from tfmigrate.transforms.estimators.defaults import (
    FEATURE_KEY, LEARN_DNN_RATE, LOST, MEAN_LOSS, OPTIMIZER_NAMES, SUM_LOSS, TF1_OPTIMIZERS,
)
from tfmigrate.transforms.estimators.model_fn.planner import ModelFnPlanner

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Est


class EstimatorConstructors:
    """The constructor planning of :class:`~tfmigrate.transforms.estimators.transform.EstimatorTransform` (a
    mixin of it: the libcst hooks and the plan stay there)."""

    # --- constructors ----------------------------------------------------------------------------
    def _optimizer(self, est: Est, value: cst.BaseExpression | None, rate: cst.BaseExpression | None,
                   clip: cst.BaseExpression | None, default_rate: str) -> cst.BaseExpression | None:
        """A callable that builds the Keras legacy optimizer; None when it cannot be shown equivalent."""
        extra: list[cst.Arg] = []
        if clip is not None and not (isinstance(clip, cst.Name) and clip.value == "None"):
            extra.append(kwarg("global_clipnorm", clip))
        lr = rate if rate is not None else expression(default_rate)
        if not self._is_number(lr):  # e.g. a decay function of global_step (skflow accepted one)
            lr = inputs.decay_schedule(self, lr)  # def f(global_step): return tf.train.exponential_decay(...)
            if lr is None:
                return None
        if value is None or str_value(value) is not None:
            name = str_value(value) if value is not None else None
            spec = OPTIMIZER_NAMES.get(name or "")
            if spec is None:
                return None
            args = [kwarg("learning_rate", lr)] + [kwarg(k, expression(v)) for k, v in spec[1]] + extra
            return expression(f"lambda: tf.keras.optimizers.legacy.{spec[0]}()").with_changes(
                body=build_call(f"tf.keras.optimizers.legacy.{spec[0]}", args)
            )
        node = value
        assign_stmt = None
        if isinstance(value, cst.Name):
            found = self._single_assignment(value)
            if found is None:
                return None
            assignment, assign = found
            if not isinstance(assign.value, cst.Call):
                return None
            node = assign.value
            if all(self._is_optimizer_arg(ref.node) for ref in assignment.references):
                assign_stmt = self._parent(assign)
        qn = self.qualified_name(node.func if isinstance(node, cst.Call) else node) or ""
        module, _, last = qn.rpartition(".")
        if module not in ("tensorflow.train", "tensorflow.compat.v1.train") or last not in TF1_OPTIMIZERS:
            return None
        spec = TF1_OPTIMIZERS[last]
        if isinstance(node, cst.Call):  # an instance: its own arguments (the estimator's rate is ignored)
            bound, problems = bind_args(node, spec.params)
            if problems:
                return None
            args = [kwarg(spec.rename[k], v) for k, v in bound.items() if k in spec.rename]
            if "learning_rate" in bound and not self._is_number(bound["learning_rate"]):
                return None  # a TF1 decay tensor cannot drive a Keras optimizer
        else:  # a class: skflow / optimize_loss call it with the learning rate
            args = [kwarg("learning_rate", lr)]
        have = {a.keyword.value for a in args if a.keyword}
        args += [kwarg(k, expression(v)) for k, v in spec.defaults if k not in have]
        if "learning_rate" not in {a.keyword.value for a in args if a.keyword}:
            return None
        args += extra
        if assign_stmt is not None and isinstance(assign_stmt, cst.SimpleStatementLine) and len(assign_stmt.body) == 1:
            self.pending.append((assign_stmt, None))
        return expression("lambda: x").with_changes(body=build_call(f"tf.keras.optimizers.legacy.{spec.target}", args))

    def _is_number(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """A number, or arithmetic on numbers and names assigned a number (never a schedule or tensor)."""
        if isinstance(node, (cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.UnaryOperation):
            return self._is_number(node.expression, depth)
        if isinstance(node, cst.BinaryOperation):
            return self._is_number(node.left, depth) and self._is_number(node.right, depth)
        if isinstance(node, cst.Name) and depth < 5:
            found = self._single_assignment(node)
            return found is not None and self._is_number(found[1].value, depth + 1)
        return False

    def _is_optimizer_arg(self, node: cst.CSTNode) -> bool:
        parent = self._parent(node)
        if not isinstance(parent, cst.Arg):
            return False
        call = self._parent(parent)
        return isinstance(call, cst.Call) and call in self.by_call and (
            (parent.keyword is not None and parent.keyword.value in ("optimizer", "dnn_optimizer", "linear_optimizer"))
            or parent.keyword is None
        )

    def _known_at_construction(self, est: Est, path: cst.BaseExpression) -> bool:
        if str_value(path) is not None:
            return True
        if isinstance(path, cst.Name):
            scope = self.scopes.scope_of(path)
            assignments = list(scope[path.value]) if scope is not None else []
            if len(assignments) == 1 and isinstance(getattr(assignments[0], "node", None), cst.Param):
                return assignments[0].scope is self.scopes.scope_of(est.call)
            found = self._single_assignment(path)
            if found is not None:
                scope = self.scopes.scope_of(found[1])
                same_scope = scope is self.scopes.scope_of(est.call) or getattr(scope, "is_global", False)
                return same_scope and self._line(found[1]) < self._line(est.call)
        return False

    def _plan_constructor(self, est: Est) -> None:
        self.pending: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []
        cls, call = est.cls, est.call
        if cls.target is None and ModelFnPlanner(self).plan(est):  # TFM114/TFM115 (transforms/model_fn.py)
            return
        if cls.target is None and cls.era == "learn" and cls.name == "Estimator":
            est.ok = False  # TFM153 (contrib_learn) reports it
            return
        if cls.target is None:
            what = "TensorFlowEstimator(model_fn=...)" if cls.era != "learn" else "tf.contrib.learn.Estimator(model_fn=...)"
            self.flag(call, TFM110, f"{what} with a custom model_fn: rewrite model_fn(features, labels, mode, params) "
                      "to return tf.estimator.EstimatorSpec(mode, predictions=..., loss=..., train_op=...) "
                      "(train_op from a tf.keras.optimizers.legacy optimizer's get_updates or "
                      "tf.compat.v1.train optimizer minimize with global_step), build "
                      "tf.estimator.Estimator(model_fn=model_fn, model_dir=..., config=tf.estimator.RunConfig(...)), "
                      "and feed fit/predict data through tf.compat.v1.estimator.inputs.numpy_input_fn")
            est.ok = False
            return
        if not est.ok:
            return
        if cls.era == "learn":
            self._plan_learn(est)
        else:
            self._plan_tensorflow_x(est)

    def _plan_tf1_canned(self, call: cst.Call, name: str, tf1: bool) -> None:
        """TFM113: a TF 1.x tf.estimator canned estimator keeps its TF 1.x loss and optimizer in TF 2.15."""
        keywords = {a.keyword.value: a for a in call.args if a.keyword}
        if "loss_reduction" in keywords or any(a.star for a in call.args):
            return
        if not tf1:
            return
        self.pending = []
        args = list(call.args)
        extra: list[cst.Arg] = []
        notes = ["loss_reduction=SUM (TF 1.x summed the loss over the batch; TF 2 averages it)"]
        positional = sum(1 for a in call.args if a.keyword is None)
        if positional >= 5:  # the optimizer may be among them
            self.flag(call, TFM113, f"tf.estimator.{name}: TF 2.15 averages the loss (TF 1.x summed it) and builds "
                      "a string/default optimizer at the Keras rate; pass loss_reduction=tf.keras.losses.Reduction.SUM "
                      "and optimizer=lambda: tf.keras.optimizers.legacy.<Name>(learning_rate=...) by hand")
            return
        dnn = name in ("DNNClassifier", "DNNRegressor")
        given: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        for key in ("optimizer", "dnn_optimizer", "linear_optimizer"):
            value = keywords[key].value if key in keywords else None
            if value is not None and (self._is_keras_callable(value) or (str_value(value) is not None and not dnn)):
                continue
            if value is None and not (dnn and key == "optimizer"):
                continue
            optimizer = self._optimizer(None, value if value is not None else expression('"Adagrad"'), None, None,
                                        LEARN_DNN_RATE)
            if optimizer is None:
                self.flag(call, TFM103, f"tf.estimator.{name}: {key}={code_of(value)} must become a callable "
                          "returning a tf.keras.optimizers.legacy optimizer with the same learning rate")
                return
            if value is None:
                extra.append(kwarg("optimizer", optimizer))
                notes.append(f"the TF 1.x default optimizer (Adagrad at {LEARN_DNN_RATE}; TF 2 uses 0.001)")
            else:
                if not self._allowed(value, TFM103):
                    return
                given.append((value, optimizer))
                args = [a.with_changes(value=optimizer) if a is keywords[key] else a for a in args]
                notes.append(f"{key} as a tf.keras.optimizers.legacy callable with the TF 1.x rate")
        extra.append(kwarg("loss_reduction", expression(SUM_LOSS)))
        if self.fix(call, TFM113, f"TF 1.x tf.estimator.{name} in TF 2.15: " + "; ".join(notes)):
            self._apply(call, append_args(call, args, extra) if args else build_call(code_of(call.func), extra))
            self._commit()
            self._report_optimizers(given)
        self.pending = []

    def _allowed(self, node: cst.CSTNode, rule_id: str) -> bool:
        """``rule_id`` is enabled and not suppressed at ``node`` (checked before a combined fix)."""
        return self.enabled(rule_id) and not is_suppressed(rule_id, self._lines(node)[2], self._suppressed)

    def _report_optimizers(self, given: list[tuple[cst.BaseExpression, cst.BaseExpression]]) -> None:
        for old, new in given:
            self.fix(old, TFM103, f"optimizer={code_of(old)} -> optimizer={code_of(new)} (a tf.keras.optimizers.legacy "
                     "optimizer built afresh for every train(), with the legacy rate)")

    def _label_dimension(self, est: Est) -> str | None:
        """A skflow / TF Learn 0.x TensorFlow*Regressor took its number of outputs from fit's y (y of shape (n, k):
        k outputs, a 1-D y one); tf.estimator's regressors take it as label_dimension. Written where fit's y is
        readable where the estimator is built (as the feature width is): a literal 2-D array's k, else computed from
        the data; None where y cannot be seen there (the default, one output)."""
        y = None
        for fit in est.fits:
            bound, _ = bind_args(fit, ("x", "y", "monitor", "logdir"))
            for arg in fit.args:
                if arg.keyword and arg.keyword.value == "Y":
                    bound["y"] = arg.value
            if "y" in bound:
                y = bound["y"]
                break
        if y is None:
            return None
        saved = est.width, est.width_note
        est.width = None
        try:
            self._width(est, y)
            found = est.width
        finally:
            est.width, est.width_note = saved
        if found is None:
            return None
        if found.endswith(".shape[1:]"):
            data = found[: -len(".shape[1:]")]
            self.need_np = True
            return f"np.shape({data})[1] if np.ndim({data}) > 1 else 1"
        return found.strip("[]")  # a literal 2-D array: its number of columns

    def _is_keras_callable(self, value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Lambda) or "keras" in code_of(value)

    def _lost(self, est: Est) -> list[str]:
        lost = []
        for name in ("continue_training", "verbose", "class_weight", "early_stopping_rounds", "num_cores", "tf_master",
                     "config_addon", "feature_engineering_fn", "embedding_lr_multipliers", "input_layer_min_slice_size",
                     "_joint_weight", "_joint_weights", "_joint_linear_weights", "fix_global_step_increment_bug"):
            if name in est.args:
                lost.append(name)
        value = est.args.get("enable_centered_bias")
        if value is not None and not (isinstance(value, cst.Name) and value.value in ("False", "None")):
            lost.append("enable_centered_bias")
        return lost

    def _plan_tensorflow_x(self, est: Est) -> None:
        cls, a = est.cls, est.args
        x = None
        for fit in est.fits:
            bound, _ = bind_args(fit, ("x", "y", "monitor", "logdir"))
            if "x" not in bound:
                bound = {k.replace("X", "x"): v for k, v in bound.items()}
            for arg in fit.args:
                if arg.keyword and arg.keyword.value == "X":
                    bound["x"] = arg.value
            if "x" in bound:
                x = bound["x"]
                break
        if x is not None:
            self._width(est, x)
        if est.width is None:
            est.ok = False
            self.flag(est.call, TFM101, f"{cls.name}: the number of input features cannot be seen here (no fit(x, y) "
                      "on data whose width is known when the estimator is built); build "
                      f"tf.estimator.{cls.target}(feature_columns=[tf.feature_column.numeric_column(\"x\", shape=[WIDTH])], ...) "
                      "by hand and feed {\"x\": data} through numpy_input_fn")
            return
        optimizer = self._optimizer(est, a.get("optimizer", expression(cls.defaults["optimizer"])), a.get("learning_rate"),
                                    a.get("clip_gradients", expression(cls.defaults["clip_gradients"]) if "clip_gradients" in cls.defaults else None),
                                    cls.defaults["learning_rate"])
        if optimizer is None:
            est.ok = False
            given = ", ".join(f"{k}={code_of(a[k])}" for k in ("optimizer", "learning_rate") if k in a)
            self.flag(est.call, TFM103, f"{cls.name}: {given or 'the optimizer'} has no provable "
                      "tf.keras.optimizers.legacy equivalent (a learning-rate schedule must become a "
                      "tf.keras.optimizers.schedules schedule); pass optimizer=lambda: tf.keras.optimizers.legacy.<Name>("
                      f"learning_rate=...) to tf.estimator.{cls.target} by hand")
            return
        given = [(a["optimizer"], optimizer)] if "optimizer" in a else []
        if given and not self._allowed(a["optimizer"], TFM103):
            est.ok = False
            self.flag(est.call, TFM101, f"{cls.name} left as it is: its optimizer must change too (TFM103), "
                      "which is disabled or suppressed here")
            return
        # model_dir: the path given to save()
        for save in est.saves:
            path = save.args[0].value if save.args else None
            if (path is not None and est.model_dir is None and self._statement(save) is not None
                    and (self._known_at_construction(est, path) or flow.path_known(self, est, path))):
                cleared = flow.path_cleared(self, est, save, path)
                if cleared is not None and flow.cleared_before_training(self, est, cleared):
                    cleared = None  # cleaned before train() writes anything there: path can be model_dir
                if cleared is not None and len(est.saves) == 1 and self.enabled(TFM136):
                    self.copied_saves.add(save)  # save(path) copies the checkpoint of a model_dir of its own there
                    continue
                if cleared is not None:  # shutil.rmtree(path) before save(path) would delete model_dir's checkpoints
                    self.flag(save, TFM107, f"save({code_of(path)}): the program deletes or recreates this path on "
                              f"line {self._line(cleared)} before saving, so it cannot become model_dir (train() writes "
                              "its checkpoints there); export after that line by hand: copy the checkpoint files of "
                              "the estimator's model_dir to the path, or use a model_dir of its own and export_saved_model")
                    self.reported_saves.add(save)
                    continue
                est.model_dir = path
        args: list[cst.Arg] = []
        if cls.dnn:
            args.append(kwarg("hidden_units", a["hidden_units"]))
        args.append(kwarg("feature_columns", expression(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", shape={est.width})]')))
        if cls.classifier:
            args.append(kwarg("n_classes", a.get("n_classes", expression("2"))))
        else:
            est.label_dimension = self._label_dimension(est)
            if est.label_dimension is not None:
                args.append(kwarg("label_dimension", expression(est.label_dimension)))
        args.append(kwarg("optimizer", optimizer))
        if cls.dnn and "dropout" in a:
            args.append(kwarg("dropout", a["dropout"]))
        if est.model_dir is not None:
            args.append(kwarg("model_dir", est.model_dir))
        config = self._config(est)
        if config is not None:
            args.append(kwarg("config", config))
        args.append(kwarg("loss_reduction", expression(MEAN_LOSS)))
        new = layout_call(build_call(f"tf.estimator.{cls.target}", args))
        lost = self._lost(est)
        given_object = "optimizer" in a and str_value(a["optimizer"]) is None
        default_notes = [f"{k}={v}" for k, v in cls.defaults.items()
                         if k not in a and k != "optimizer" and not (given_object and k == "learning_rate")]
        message = (f"{cls.name} -> tf.estimator.{cls.target}; legacy defaults written out"
                   + (f" ({', '.join(default_notes)})" if default_notes else "")
                   + (f"; {est.width_note}" if est.width_note else ""))
        if self.fix(est.call, TFM101, message):
            self._apply(est.call, new)
            self._commit()
            self._report_optimizers(given)
            est.new = new
            for name in lost:
                self.flag(est.call, TFM112, f"{cls.name}({name}=...) has no tf.estimator equivalent: {LOST[name]}")
            if len(est.fits) > 1 and "continue_training" not in a:
                self.flag(est.fits[1], TFM112, f"{cls.name} is fit more than once: the legacy estimator (continue_training"
                          "=False) started from scratch on every fit(), tf.estimator continues from the checkpoint in "
                          "model_dir; use a new model_dir per fit to keep the old behaviour")
        else:
            est.ok = False

    def _config(self, est: Est) -> cst.BaseExpression | None:
        a = est.args
        settings: list[cst.Arg] = []
        if est.cls.era == "skflow":
            settings.append(kwarg("tf_random_seed", a.get("tf_random_seed", expression(est.cls.defaults["tf_random_seed"]))))
            if "max_to_keep" in a:
                settings.append(kwarg("keep_checkpoint_max", a["max_to_keep"]))
            if "keep_checkpoint_every_n_hours" in a:
                settings.append(kwarg("keep_checkpoint_every_n_hours", a["keep_checkpoint_every_n_hours"]))
            return build_call("tf.estimator.RunConfig", settings)
        if est.cls.era == "learn08" and "config" not in a:  # 0.8 RunConfig() seeded with tf_random_seed=42
            return build_call("tf.estimator.RunConfig", [kwarg("tf_random_seed", expression("42"))])
        return a.get("config")

    def _plan_learn(self, est: Est) -> None:
        cls, a = est.cls, est.args
        lost = [n for n in self._lost(est) if n in ("feature_engineering_fn", "embedding_lr_multipliers")]
        if lost:
            est.ok = False
            self.flag(est.call, TFM112, f"{cls.name}({lost[0]}=...) has no tf.estimator equivalent: {LOST[lost[0]]}; "
                      "the constructor is left as it is")
            return
        args: list[cst.Arg] = []
        given: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        if cls.name.startswith("DNNLinearCombined"):
            for name in ("model_dir", "n_classes", "linear_feature_columns", "linear_optimizer", "dnn_feature_columns",
                         "dnn_optimizer", "dnn_hidden_units", "dnn_activation_fn", "dnn_dropout", "config"):
                if name in a:
                    args.append(kwarg(name, a[name]))
            if "linear_optimizer" in a or "dnn_optimizer" in a or "gradient_clip_norm" in a:
                est.ok = False
                self.flag(est.call, TFM103, f"{cls.name}: convert linear_optimizer/dnn_optimizer/gradient_clip_norm "
                          "by hand to callables returning tf.keras.optimizers.legacy optimizers with the same rates")
                return
            # TF 2.15 trains the two parts at Adagrad 0.001 / Ftrl min(0.005, 1/sqrt(n)); contrib.learn at 0.05 / 0.2
            defaults = combined_optimizers(a, code_of)
            if defaults is None:
                est.ok = False
                self.flag(est.call, TFM103, f"{cls.name}: the legacy Ftrl rate of the linear part is min(0.2, "
                          "1/sqrt(number of linear_feature_columns)) and that number is not visible here; pass "
                          "linear_optimizer=lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate=...) and "
                          "dnn_optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05) by hand")
                return
            position = next((i for i, arg in enumerate(args) if arg.keyword and arg.keyword.value == "config"), len(args))
            args[position:position] = [kwarg(k, expression(v)) for k, v in defaults]
        else:
            if cls.dnn and "hidden_units" not in a:  # required by every legacy DNN estimator: a TypeError there too
                est.ok = False
                self.flag(est.call, TFM102, f"tf.contrib.learn.{cls.name}(...) without hidden_units (a required "
                          "argument, TypeError in TF 1.x too): pass hidden_units=[...], then tfmigrate rewrites it")
                return
            if cls.dnn:
                args.append(kwarg("hidden_units", a["hidden_units"]))
            columns = a.get("feature_columns")
            if columns is None or (isinstance(columns, cst.Name) and columns.value == "None"):
                # contrib.learn 0.10/0.11 inferred real-valued columns from the features fit() got: the width
                # of fit's x, as the skflow rewrite (TFM101) reads it
                x = flow.fit_data(est)
                if x is not None:
                    self._width(est, x)
                if est.width is None:
                    est.ok = False
                    self.flag(est.call, TFM102, f"{cls.name} without feature_columns (the legacy estimator inferred "
                              "them from fit's x): the width of x cannot be seen here; pass feature_columns="
                              '[tf.feature_column.numeric_column("x", shape=[WIDTH])] by hand')
                    return
                est.empty_key = True
                args.append(kwarg("feature_columns", expression(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", '
                                                         f'shape={est.width})]')))
            else:
                args.append(kwarg("feature_columns", self._columns(est, columns)))
            if "model_dir" in a:
                args.append(kwarg("model_dir", a["model_dir"]))
            if cls.classifier and "n_classes" in a:
                args.append(kwarg("n_classes", a["n_classes"]))
            if "label_dimension" in a:
                args.append(kwarg("label_dimension", a["label_dimension"]))
            if "weight_column_name" in a:
                args.append(kwarg("weight_column", a["weight_column_name"]))
            if "label_keys" in a:
                args.append(kwarg("label_vocabulary", a["label_keys"]))
            value = a.get("optimizer")
            if not cls.dnn and value is None and "gradient_clip_norm" not in a:
                # legacy Ftrl at min(0.2, 1/sqrt(n columns)); TF 2.15's default "Ftrl" trains at 0.2 whatever n
                rate = inputs.linear_default_rate(self, est, a.get("feature_columns"), code_of)
                if rate == "unknown":
                    est.ok = False
                    self.flag(est.call, TFM103, f"{cls.name}: the legacy default Ftrl rate is min(0.2, 1/sqrt(number "
                              "of feature columns)) and the number is not visible here; pass optimizer=lambda: "
                              "tf.keras.optimizers.legacy.Ftrl(learning_rate=...) by hand")
                    return
                if rate is not None:
                    args.append(kwarg("optimizer", expression(f"lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate={rate})")))
            if cls.dnn or value is not None or "gradient_clip_norm" in a:
                if not cls.dnn and (value is None or str_value(value) is not None):
                    est.ok = False
                    self.flag(est.call, TFM103, f"{cls.name}: the legacy Ftrl rate depends on the feature count; "
                              "pass optimizer=lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate=min(0.2, 1 / "
                              "len(feature_columns) ** 0.5), global_clipnorm=...) by hand")
                    return
                optimizer = self._optimizer(est, value if value is not None else expression('"Adagrad"'), None,
                                            a.get("gradient_clip_norm"), LEARN_DNN_RATE)
                if optimizer is None:
                    est.ok = False
                    self.flag(est.call, TFM103, f"{cls.name}: optimizer {code_of(value) if value is not None else ''} "
                              "has no provable tf.keras.optimizers.legacy equivalent; pass optimizer=lambda: "
                              "tf.keras.optimizers.legacy.<Name>(learning_rate=...) by hand")
                    return
                args.append(kwarg("optimizer", optimizer))
                if value is not None:
                    if not self._allowed(value, TFM103):
                        est.ok = False
                        self.flag(est.call, TFM102, f"{cls.name} left as it is: its optimizer must change too "
                                  "(TFM103), which is disabled or suppressed here")
                        return
                    given.append((value, optimizer))
            for name in ("activation_fn", "dropout", "config"):
                if name in a:
                    args.append(kwarg(name, a[name]))
        args.append(kwarg("loss_reduction", expression(MEAN_LOSS)))
        new = layout_call(build_call(f"tf.estimator.{cls.target}", args))
        default = "" if not cls.dnn or "optimizer" in a else f"; the legacy default optimizer (Adagrad at {LEARN_DNN_RATE}) is written out"
        if self.fix(est.call, TFM102, f"tf.contrib.learn.{cls.name} -> tf.estimator.{cls.target}{default}"):
            self._apply(est.call, new)
            self._commit()
            self._report_optimizers(given)
            est.new = new
            for name in self._lost(est):
                self.flag(est.call, TFM112, f"{cls.name}({name}=...) has no tf.estimator equivalent: {LOST[name]}")
        else:
            est.ok = False

    def _columns(self, est: Est, columns: cst.BaseExpression) -> cst.BaseExpression:
        """feature_columns; inferred columns read the "x" key that numpy_input_fn feeds."""
        target = columns
        if isinstance(columns, cst.Name):
            found = self._single_assignment(columns)
            if found is not None and isinstance(found[1].value, (cst.Call, cst.List)):
                target = found[1].value  # feature_columns = [real_valued_column("", dimension=4)] (TF's iris tutorial)
        if isinstance(target, cst.List) and len(target.elements) == 1 and isinstance(target.elements[0].value, cst.Call):
            column = target.elements[0].value
            name = self.qualified_name(column.func) or ""
            bound, problems = bind_args(column, ("column_name", "dimension", "default_value", "dtype", "normalizer"))
            dimension = bound.get("dimension")
            width = int_value(dimension) if dimension is not None else 1
            if width is None and isinstance(dimension, (cst.Name, cst.Attribute)):
                width = code_of(dimension)  # dimension=n_features: the same value, read where the column is built
            if (name.endswith("layers.real_valued_column") and str_value(bound.get("column_name")) == ""
                    and not problems and set(bound) <= {"column_name", "dimension"} and width is not None):
                # the legacy fit(x) fed x under the key "", which only a column named "" reads
                est.empty_key = True
                new = expression(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", shape=[{width}])]')
                if target is columns:
                    return new
                self.pending.append((column, new.elements[0].value))  # the column in its own assignment
                return columns
        if isinstance(target, cst.Call):
            name = self.qualified_name(target.func) or ""
            if name.endswith("infer_real_valued_columns_from_input") and target.args:
                est.empty_key = True
                data = target.args[0].value
                new = expression(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", shape={code_of(data)}.shape[1:])]')
                if target is columns:
                    return new
                self.pending.append((target, new))
                return columns
        est.key_matches = False
        return columns

    def _plan_restore(self, est: Est) -> None:
        source = est.source
        if source is None or not source.ok or source.new is None:
            est.ok = False
            if source is not None:
                self.flag(est.call, TFM108, f"{est.cls.name}.restore(path): build tf.estimator.{est.cls.target}(...) "
                          "with the saved model's hyperparameters and model_dir=path by hand")
            return
        args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in source.new.args
                if not (a.keyword and a.keyword.value == "model_dir")]
        position = next((i for i, a in enumerate(args) if a.keyword and a.keyword.value in ("config", "loss_reduction")),
                        len(args))
        args.insert(position, kwarg("model_dir", est.restore_path))
        new = layout_call(build_call(f"tf.estimator.{est.cls.target}", args))
        if self.fix(est.call, TFM108, f"{est.cls.name}.restore(path) -> a new tf.estimator.{est.cls.target} with the "
                    "same hyperparameters and model_dir=path (it restores the latest checkpoint there; a directory saved by "
                    "the legacy program holds other variable names: retrain, or rename them with `tfmigrate ckpt convert`)"):
            self._apply(est.call, new)
            est.new = new
            est.width, est.key_matches = source.width, source.key_matches
        else:
            est.ok = False
