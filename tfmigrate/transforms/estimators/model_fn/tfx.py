"""TFM115: skflow / TF Learn 0.8 TensorFlowEstimator(model_fn, n_classes, ...) -> tf.estimator.Estimator:
f(X, y) returning (predictions, loss) gets the tf.estimator signature and returns an EstimatorSpec
whose train_op is the legacy optimize_loss (optimizer, learning rate, gradient clipping, update ops).
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM115
from tfmigrate.transforms.common.builders import build_call, code_of, is_none, kwarg, layout_call
from tfmigrate.transforms.estimators.model_fn.contract import (
    OPTIMIZER_CLASSES, PAIR_MODELS, TFX_LOST, _TFX_LOCALS, Custom, _paren, _reads, _statement,
    _target_names,
)


class TfxModelFn:
    """A mixin of :class:`~tfmigrate.transforms.estimators.model_fn.planner.ModelFnPlanner`."""

    # --- TFM115: skflow / TF Learn 0.8 TensorFlowEstimator(model_fn, n_classes, ...) -----------------
    def _plan_tfx(self, est) -> bool:
        t, a, cls = self.t, est.args, est.cls
        what = f"{cls.name}(model_fn=...)"
        fn = self.function(a.get("model_fn"))
        if fn is None:
            return False
        p = fn.params
        names = [param.name.value for param in p.params]
        if names[:3] == ["features", "labels", "mode"]:
            return self._refuse(est, TFM115, f"{what}: model_fn {fn.name.value} already has the tf.estimator "
                                "signature (rewritten for another estimator that shares it): give this estimator a "
                                "function of its own, or convert it by hand")
        extra = list(p.params[2:])  # TensorFlowEstimator called model_fn(X, y): the rest keep their defaults
        if (len(names) < 2 or p.star_arg is not cst.MaybeSentinel.DEFAULT or p.star_kwarg is not None
                or p.posonly_params or p.kwonly_params or any(param.default is not None for param in p.params[:2])
                or any(param.default is None for param in extra)
                or {"features", "labels", "mode", "params"} & {param.name.value for param in extra}):
            return self._refuse(est, TFM115, f"{what}: model_fn {fn.name.value} must take (X, y) to be converted")
        names = names[:2]
        rets = self.returns(fn)
        if not self._own_lines(rets):
            return self._refuse(est, TFM115, f"{what}: a return statement of model_fn {fn.name.value} shares its "
                                "line with other statements (a; return ...): put it on its own line and run tfmigrate "
                                "again")
        for ret in rets:
            value = ret.value
            pair = isinstance(value, cst.Tuple) and len(value.elements) == 2 and not any(
                isinstance(e, cst.StarredElement) for e in value.elements)
            model = isinstance(value, cst.Call) and self._legacy_name(value.func).startswith("models.") and \
                self._legacy_name(value.func)[len("models."):] in PAIR_MODELS
            if not (pair or model):
                return self._refuse(est, TFM115, f"{what}: model_fn {fn.name.value} must return (predictions, "
                                    "loss) or learn.models.<linear|logistic>_regression(...) in every return "
                                    "statement to be converted")
        if not rets:
            return self._refuse(est, TFM115, f"{what}: model_fn {fn.name.value} returns nothing")
        n = a.get("n_classes")
        n_classes = int(n.value) if isinstance(n, cst.Integer) else (0 if is_none(n) else None)
        if n_classes is None:
            return self._refuse(est, TFM115, f"{what}: n_classes must be a literal number (it decides whether "
                                "y was fed one-hot)")
        lost = [k for k in TFX_LOST if k in a and not is_none(a[k])]
        if "tf_master" in a and not (isinstance(a["tf_master"], cst.SimpleString) and a["tf_master"].evaluated_value == ""):
            lost.append("tf_master")
        continuing = "continue_training" in a and isinstance(a["continue_training"], cst.Name) and \
            a["continue_training"].value == "True"
        if "continue_training" in a and not continuing and not (
                isinstance(a["continue_training"], cst.Name) and a["continue_training"].value == "False"):
            lost.append("continue_training")
        if lost:
            return self._refuse(est, TFM115, f"{what}: {', '.join(lost)} has no automatic tf.estimator "
                                "equivalent here; convert the estimator by hand")
        defaults = cls.defaults
        optimizer = a.get("optimizer", expression(defaults["optimizer"]))
        name = optimizer.evaluated_value if isinstance(optimizer, cst.SimpleString) else None
        rate = a.get("learning_rate", expression(defaults["learning_rate"]))
        # TF Learn 0.8 _setup_training: a callable learning_rate is called with the global step, a callable
        # optimizer (a class or a function) with the learning rate; optimize_loss then takes the instance
        rate_code = code_of(rate) if t._is_number(rate) else None
        if rate_code is None and cls.era == "learn08" and self._callable(rate):
            rate_code = f"{_paren(rate)}(tf.compat.v1.train.get_global_step())"
        optimizer_code = None
        if name in OPTIMIZER_CLASSES and rate_code is not None:
            optimizer_code = f"tf.compat.v1.train.{OPTIMIZER_CLASSES[name]}(learning_rate={rate_code})"
        elif name is None and cls.era == "learn08" and rate_code is not None and self._callable(optimizer):
            optimizer_code = f"{_paren(optimizer)}({rate_code})"
        if optimizer_code is None:
            return self._refuse(est, TFM115, f"{what}: optimizer={code_of(optimizer)}, learning_rate={code_of(rate)}: "
                                "only an optimizer name (SGD, Adagrad, Adam, Ftrl, RMSProp) and a constant rate "
                                "(TF Learn 0.8: also a function or optimizer class, and a function of the global step) "
                                "are converted; build the train_op with a tf.compat.v1.train optimizer by hand")
        # TF 0.8 passed clip_gradients=5.0 to optimize_loss; skflow's TensorFlowTrainer(loss, global_step, optimizer,
        # learning_rate, clip_gradients=5.0) clipped the global norm at 5.0 too (skflow/trainer.py)
        clip = a.get("clip_gradients", expression(defaults.get("clip_gradients", "5.0")))
        if clip is not None and not (is_none(clip) or t._is_number(clip)):
            return self._refuse(est, TFM115, f"{what}: clip_gradients={code_of(clip)} is not a number")
        if not continuing and (len(est.fits) > 1 or any(self._repeated(fit, est.call) for fit in est.fits)):
            return self._refuse(est, TFM115, f"{what} is fit more than once (continue_training=False): the legacy "
                                "estimator started from scratch on every fit(), tf.estimator continues from "
                                "model_dir; use a new estimator (or model_dir) per fit, or convert by hand")
        shadowed = self._shadowed(fn, names, ["features", "labels", "mode", "params"])
        if shadowed:
            return self._refuse(est, TFM115, f"{what}: model_fn {fn.name.value} reads {', '.join(shadowed)} from "
                                "outside; tf.estimator passes arguments by those names, so rename that variable first")
        bound_names = self._names_bound(fn)
        clash = [n for n in _TFX_LOCALS if n in bound_names]
        if clash:
            return self._refuse(est, TFM115, f"{what}: model_fn {fn.name.value} already uses {', '.join(clash)}")
        spec, why = self._fit_labels(est)
        if spec is None:
            return self._refuse(est, TFM115, f"{what}: tf.estimator builds the model again in predict() with "
                                f"labels=None; {why}")
        if not t._allowed(est.call, TFM115):
            est.ok = False
            return True
        keyword_only = self._loop_names(fn)
        clip_code = None if clip is None or is_none(clip) else code_of(clip)
        keyword_only = [n for n in keyword_only if n not in {param.name.value for param in extra}]
        new_fn = self._rewrite_fn(fn, names, True, one_hot=n_classes, keyword_only=keyword_only, defaults=extra, returns={
            r: self._tfx_return(r, optimizer_code, clip_code) for r in rets
        })
        if not self._same_plan(fn, new_fn):
            return self._refuse(est, TFM115, f"{what}: model_fn {fn.name.value} is shared with another estimator "
                                "that needs it rewritten differently; give each its own function")
        batch = a.get("batch_size", expression(defaults["batch_size"]))
        args = [kwarg("model_fn", a["model_fn"])]
        for save in est.saves:  # the path given to save() is the model_dir, as for the canned estimators
            path = save.args[0].value if save.args else None
            if (path is not None and est.model_dir is None and t._statement(save) is not None
                    and t._known_at_construction(est, path)):
                est.model_dir = path
        if est.model_dir is not None:
            args.append(kwarg("model_dir", est.model_dir))
        config = t._config(est)  # the legacy seed (42) and checkpoint settings
        if config is not None:
            args.append(kwarg("config", config))
        args.append(kwarg("params", self._params(None, spec)))
        new = layout_call(build_call("tf.estimator.Estimator", args))
        message = (f"{cls.name}(model_fn={fn.name.value}) -> tf.estimator.Estimator: {fn.name.value} takes "
                   "(features, labels, mode, params) and returns tf.estimator.EstimatorSpec with the legacy "
                   f"train_op ({optimizer_code}"
                   + (f", gradients clipped to a global norm of {clip_code}" if clip_code else "")
                   + ", update_ops grouped)"
                   + (f"; y fed one-hot ({n_classes} columns, y's dtype) as the legacy data feeder did"
                      if n_classes > 1 else "")
                   + "; predict() builds it with a labels placeholder shaped like fit()'s labels (params)"
                   + ("; the legacy graph seed is written out (RunConfig(tf_random_seed=...))" if config is not None
                      and "config" not in a else "")
                   + ("; verbose is dropped (tf.estimator logs through tf.compat.v1.logging)" if "verbose" in a else "")
                   + ("; continue_training=True is what tf.estimator does (every train() continues from model_dir)"
                      if continuing else "")
                   + (f"; {', '.join(keyword_only)} bound when the function is defined (the legacy estimator "
                      "built its graph once, at fit())" if keyword_only else ""))
        if t.fix(est.call, TFM115, message):
            t._apply(est.call, new)
            t.replace[fn] = new_fn
            est.new = new
            est.custom = Custom("tfx", fn, n_classes=n_classes, batch_size=batch)
            est.cls = replace(est.cls, classifier=False)  # labels are fed as they are; the one-hot is in model_fn
        else:
            est.ok = False
        return True

    def _repeated(self, fit: cst.Call, constructor: cst.Call) -> bool:
        """``fit`` runs in a loop that does not build the estimator again (several fits of one estimator)."""
        node = self.t._parent(fit)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            if isinstance(node, (cst.For, cst.While)):
                inner = self.t._parent(constructor)
                while inner is not None and inner is not node:
                    inner = self.t._parent(inner)
                return inner is None  # the constructor is outside the loop
            node = self.t._parent(node)
        return False

    def _own_lines(self, rets: list[cst.Return]) -> bool:
        """Every return statement is alone on its line (the rewrite replaces whole statement lines), in an
        indented block (not ``def f(x, y): return ...`` on one line)."""
        if rets and not isinstance(self.t._parent(self.t._parent(rets[0])), cst.IndentedBlock) and \
                not isinstance(self.t._parent(rets[0]), cst.SimpleStatementLine):
            return False
        for ret in rets:
            line = self.t._parent(ret)
            if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
                return False
        return True

    def _callable(self, node: cst.BaseExpression) -> bool:
        """A lambda, a function defined once in this module, or a tf.train / tf.compat.v1.train optimizer class."""
        if isinstance(node, cst.Lambda):
            return True
        if isinstance(node, cst.Name) and self.function(node) is not None:
            return True
        name = self.t.qualified_name(node) or ""
        return name.startswith(("tensorflow.train.", "tensorflow.compat.v1.train.")) and name.endswith("Optimizer")

    def _loop_names(self, fn: cst.FunctionDef) -> list[str]:
        """Targets of the for loops around ``fn`` that its body reads (late-bound closure variables)."""
        t = self.t
        targets: list[str] = []
        node = t._parent(fn)
        while node is not None and not isinstance(node, (cst.Module, cst.FunctionDef, cst.ClassDef)):
            if isinstance(node, cst.For):
                for name in _target_names(node.target):
                    targets.append(name)
            node = t._parent(node)
        if not targets:
            return []
        used = _reads(fn.body)
        params = {p.name.value for p in fn.params.params}
        return [n for n in dict.fromkeys(targets) if n in used and n not in params]

    def _tfx_return(self, ret: cst.Return, optimizer: str, clip: str | None) -> list[cst.BaseStatement]:
        value = code_of(ret.value)
        lines = [
            f"legacy_predictions, legacy_loss = {value}",
            f"legacy_optimizer = {optimizer}",
        ]
        if clip is not None:
            lines += [
                "legacy_gradients, legacy_variables = zip(*legacy_optimizer.compute_gradients(legacy_loss))",
                f"legacy_gradients, _ = tf.clip_by_global_norm(legacy_gradients, {clip})",
                "train_op = legacy_optimizer.apply_gradients(zip(legacy_gradients, legacy_variables), "
                "global_step=tf.compat.v1.train.get_global_step())",
            ]
        else:
            lines.append("train_op = legacy_optimizer.minimize(legacy_loss, "
                         "global_step=tf.compat.v1.train.get_global_step())")
        lines += [
            "train_op = tf.group(train_op, *tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS))",
            "return tf.estimator.EstimatorSpec(mode, predictions=legacy_predictions, loss=legacy_loss, "
            "train_op=train_op)",
        ]
        statements = [_statement(line + "\n") for line in lines]
        # keep the original value node (plans made for its calls are swapped in later)
        first = statements[0]
        assign = first.body[0].with_changes(value=ret.value)
        statements[0] = first.with_changes(body=[assign])
        return statements
