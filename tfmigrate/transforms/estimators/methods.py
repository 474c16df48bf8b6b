"""Planning the method calls of the TFM1 family: fit, evaluate and predict become train, evaluate and
predict over numpy input functions with the legacy batch size and steps; save, restore, weights_,
bias_ and get_variable_value are rewritten where the facts allow, reported otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM104, TFM105, TFM106, TFM107, TFM109, TFM130, TFM135, TFM136
from tfmigrate.transforms.estimators.variable_names import LEGACY_OPTIMIZER, tf215_name
from tfmigrate.transforms.estimators import flow, inputs, predict_flow, skcompat
from tfmigrate.transforms.common.builders import Substitute, bind_args, build_call, code_of, kwarg, layout_call
from tfmigrate.transforms.estimators.monitors import Converter as MonitorConverter
from tfmigrate.transforms.estimators.defaults import FEATURE_KEY, LEGACY_MODULES, NUMPY_INPUT_FN
from tfmigrate.transforms.estimators.model_fn.planner import ModelFnPlanner
from tfmigrate.transforms.estimators.model_fn.contract import PREDICTS

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Est


class EstimatorMethods:
    """The method-call planning of :class:`~tfmigrate.transforms.estimators.transform.EstimatorTransform` (a
    mixin of it: the libcst hooks and the plan stay there)."""

    # --- methods ---------------------------------------------------------------------------------
    def _settings(self, est: Est) -> Est:
        return est.source or est

    def _input_fn(self, x: cst.BaseExpression, y: cst.BaseExpression | None, batch: cst.BaseExpression | None,
                  train: bool, classifier: bool = False) -> cst.Call:
        if getattr(self, "_raw_x", False):  # a custom model_fn reads the data as fit() got it (transforms/model_fn.py)
            args = [kwarg("x", x if self._is_dict(x) else self._as_array(x))]
            if batch is None:  # the legacy evaluate/predict fed x as one batch (DataFeeder: batch_size=len(x))
                batch = expression(f"len({code_of(x)})")
        elif self._is_dict(x):  # a dict of arrays: its keys are the feature columns' names
            args = [kwarg("x", x)]
        else:
            args = [kwarg("x", cst.Dict([cst.DictElement(cst.SimpleString(f'"{FEATURE_KEY}"'), self._as_array(x))]))]
        if y is not None:
            labels = self._as_array(y)
            if classifier and not self._is_int(y):  # the legacy DataFeeder cast class labels to int64
                labels = expression("np.asarray(LABELS, dtype=np.int64)").visit(Substitute({"LABELS": labels}))
                self.need_np = True
            args.append(kwarg("y", labels))
        if batch is not None:
            args.append(kwarg("batch_size", batch))
        args.append(kwarg("shuffle", expression("True" if train else "False")))
        args.append(kwarg("num_epochs", expression("None" if train else "1")))
        return build_call(NUMPY_INPUT_FN, args)

    def _is_int(self, value: cst.BaseExpression | None, depth: int = 0) -> bool:
        """Integer labels, as far as the code shows (astype(int...), dtype=int..., randint)."""
        if depth > 6 or value is None:
            return False
        if isinstance(value, cst.Name):
            found = self._single_assignment(value)
            return found is not None and self._is_int(found[1].value, depth + 1)
        if isinstance(value, cst.Call):
            name = self.qualified_name(value.func) or ""
            if name.endswith("randint"):
                return True
            if isinstance(value.func, cst.Attribute) and value.func.attr.value == "astype" and value.args:
                return "int" in code_of(value.args[0].value)
            if any(a.keyword and a.keyword.value == "dtype" and "int" in code_of(a.value) for a in value.args):
                return True
            if name.rpartition(".")[2] in ("minimum", "maximum", "clip", "argmax") and value.args:
                return name.endswith("argmax") or self._is_int(value.args[0].value, depth + 1)
        return False

    def _as_array(self, data: cst.BaseExpression) -> cst.BaseExpression:
        """pandas data as its array (what the legacy DataFeeder's extract_pandas_data fed)."""
        if self._is_pandas(data):
            return cst.Attribute(value=data, attr=cst.Name("values"))
        return data

    def _is_dict(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Name):
            found = self._single_assignment(value)
            value = found[1].value if found is not None else value
        return isinstance(value, (cst.Dict, cst.DictComp)) or (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict"
        )

    def _is_pandas(self, value: cst.BaseExpression | None, depth: int = 0) -> bool:
        while depth < 8 and value is not None:
            depth += 1
            if isinstance(value, cst.Call):
                if (self.qualified_name(value.func) or "").startswith("pandas."):
                    return True
                value = value.func
            elif isinstance(value, (cst.Attribute, cst.Subscript)):
                value = value.value
            elif isinstance(value, cst.Name):
                found = self._single_assignment(value)
                value = found[1].value if found is not None else None
            else:
                return False
        return False

    def _plan_method(self, est: Est, call: cst.Call, method: str) -> None:
        if not est.ok or est.new is None:
            return
        base = self._settings(est)
        if not isinstance(call.func, cst.Attribute):
            return
        legacy_tfx = est.cls.era != "learn"
        self._raw_x = est.custom is not None  # a custom model_fn reads the features as fit() got them
        sk = self.sk_via.get(call)
        if sk is not None:  # called through SKCompat(...): its semantics, where the wrapper goes (TFM119)
            if sk in self.sk_unwrapped:
                skcompat.plan_method(self, est, call, method)
            return
        if est.custom is not None and method in PREDICTS:
            ModelFnPlanner(self).plan_predict(est, call, method)
            return
        if est.custom is not None and method in ("get_variable_names", "get_variable_value"):
            return  # the model_fn's own variables: the same names in tf.estimator
        if method == "fit":
            self._plan_fit(est, base, call, legacy_tfx)
        elif method == "evaluate":
            self._plan_evaluate(est, call, legacy_tfx)
        elif method in ("predict", "predict_proba", "predict_classes", "predict_scores"):
            self._plan_predict(est, call, method, legacy_tfx)
        elif method == "save":
            path = call.args[0].value if call.args else None
            stmt = self._statement(call)
            if call in self.copied_saves and path is not None:
                if self.fix(call, TFM136, f"save({code_of(path)}): the program deletes or recreates this path after "
                            "training, so it cannot be model_dir (it would delete the checkpoints train() wrote); the "
                            "estimator trains in a model_dir of its own (a temporary one, as the legacy estimator "
                            "did) and the checkpoint is copied to the path here, where the legacy save() wrote it"):
                    self._apply(call, expression(f"shutil.copytree({code_of(call.func.value)}.model_dir, {code_of(path)}, "
                                                 "dirs_exist_ok=True)"))
                    self.imports.add("shutil")
            elif legacy_tfx and path is not None and base.model_dir is not None and code_of(path) == code_of(base.model_dir) and stmt is not None:
                if self.fix(call, TFM107, f"save({code_of(path)}): tf.estimator writes its checkpoints to "
                            "model_dir during train(); the path is the estimator's model_dir, the call is removed"):
                    self.remove.add(stmt)
                    self.changed = True
            elif call not in self.reported_saves:
                self.flag(call, TFM107, "save(path): tf.estimator has no save(); it writes checkpoints to model_dir "
                          "during train(). Pass model_dir=path to the constructor (the path must be known there) and "
                          "remove this call")
        elif method == "get_variable_value" and self._plan_variable_name(est, base, call):
            pass
        elif method in ("get_variable_names", "get_variable_value"):
            self.flag(call, TFM109, f"{method}(): tf.estimator has it, but the variable names differ: "
                      "dnn/hiddenlayer_<i>/kernel|bias, dnn/logits/kernel|bias, linear/linear_model/x/weights, "
                      "linear/linear_model/bias_weights, training/<Optimizer>/... (see get_variable_names())")
        elif method in ("get_params", "set_params", "score", "get_tensor", "get_tensor_value", "partial_fit", "export"):
            self.flag(call, TFM109, f"{method}() has no tf.estimator equivalent; rewrite it by hand "
                      "(score: evaluate(input_fn=...)['accuracy']; export: export_saved_model)")

    def _plan_load_variable(self, call: cst.Call) -> None:
        """``tf.train.load_variable(dir, name)`` / ``tf.contrib.framework.load_variable``: where ``dir`` is the
        model_dir of a migrated estimator of this module (the same code, or ``<estimator>.model_dir``), its
        checkpoint holds TF 2.15's names (TFM135); any other directory may hold a legacy checkpoint: left alone."""
        if len(call.args) != 2 or any(a.star for a in call.args):
            return
        bound = {(a.keyword.value if a.keyword else ("ckpt_dir_or_file", "name")[i]): a for i, a in enumerate(call.args)}
        directory, name = bound.get("ckpt_dir_or_file") or bound.get("checkpoint_dir"), bound.get("name")
        if directory is None or name is None:
            return
        found = None
        value = directory.value
        if isinstance(value, cst.Attribute) and value.attr.value == "model_dir":
            found = self._receiver(value.value)
        else:
            matches = [e for e in self.ests if (e.model_dir or e.args.get("model_dir")) is not None
                       and _same_path(e.model_dir or e.args["model_dir"], value)]
            found = matches[0] if len({id(e.new) for e in matches}) == 1 else None
        if found is None or not found.ok or found.new is None or found.custom is not None:
            return
        self._plan_variable_name(found, self._settings(found), call, name)

    def _plan_variable_name(self, est: Est, base: Est, call: cst.Call, arg: cst.Arg | None = None) -> bool:
        """``get_variable_value(<legacy name>)``: the literal rewritten to the name the migrated estimator
        creates (TFM135), a computed or unknown name flagged on its line; False: not one call of that shape."""
        args = [arg] if arg is not None else [a for a in call.args if a.keyword is None or a.keyword.value == "name"]
        if (arg is None and len(call.args) != 1) or len(args) != 1 or args[0].star or not self.enabled(TFM135):
            return False
        value = args[0].value
        units = base.args.get("hidden_units")
        layers = len(units.elements) if isinstance(units, cst.List) else None
        names = ("dnn/hiddenlayer_<i>/kernel|bias, dnn/logits/kernel|bias" if base.cls.dnn else
                 "linear/linear_model/<column>/weights, linear/linear_model/bias_weights") + (
                 ", global_step, training/<its optimizer>/<variable>/<slot>")
        if not isinstance(value, cst.SimpleString) or value.prefix.lower() not in ("", "u"):
            self.flag(call, TFM135, f"{code_of(call.func)}({code_of(value)}): a computed name; the migrated estimator's "
                      f"variables are named {names} (see get_variable_names())")
            return True
        legacy = value.evaluated_value
        old_era = base.cls.era != "learn"  # TF Learn 0.8 / skflow: tfmigrate wrote the one feature column
        written = est.new or base.new  # the optimizer the migrated estimator trains with names its slots
        optimizer = next((kwarg_value for kwarg_value in (a.value for a in (written.args if written else ())
                                                          if a.keyword is not None and a.keyword.value == "optimizer")), None)
        found = LEGACY_OPTIMIZER.search(code_of(optimizer)) if optimizer is not None else None
        new = tf215_name(legacy, base.cls.dnn, layers, FEATURE_KEY if old_era else None, found.group(1) if found else None)
        if new is None:
            self.flag(call, TFM135, f"{code_of(call.func)}({legacy!r}): the migrated estimator has no variable of that "
                      f"name; its variables are named {names} (see get_variable_names())")
        elif new != legacy and self.fix(call, TFM135, f"{code_of(call.func)}({legacy!r}) -> {new!r}: the name TF 2.15's "
                                         "tf.estimator gives the same variable" + (" (a binary classifier's logits: one column in TF 2.15, two in "
                                         "TF Learn 0.8)" if old_era and new.startswith("dnn/logits") else "")):
            quote = value.value[len(value.prefix)]
            renamed = args[0].with_changes(value=value.with_changes(value=f"{value.prefix}{quote}{new}{quote}"))
            self._apply(call, call.with_changes(args=[renamed if a is args[0] else a for a in call.args]))
        return True

    def _statement(self, call: cst.Call) -> cst.SimpleStatementLine | None:
        expr = self._parent(call)
        stmt = self._parent(expr) if isinstance(expr, cst.Expr) else None
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            return stmt
        return None

    def _plan_fit(self, est: Est, base: Est, call: cst.Call, legacy_tfx: bool,
                  bound: dict[str, cst.BaseExpression] | None = None) -> None:
        """``bound``: the arguments already bound by name (SKCompat.fit's own order, TFM119)."""
        func = call.func
        if legacy_tfx:
            bound, problems = bind_args(call, ("x", "y", "monitor", "logdir"))
            for arg in call.args:
                if arg.keyword and arg.keyword.value == "X":
                    bound["x"] = arg.value
                    problems = [p for p in problems if p != "X="]
            if problems or "x" not in bound or "y" not in bound or "monitor" in bound or "logdir" in bound:
                self.flag(call, TFM104, "fit(): rewrite as train(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn("
                          "x={\"x\": x}, y=y, batch_size=..., shuffle=True, num_epochs=None), steps=...) by hand "
                          "(monitor/logdir: use hooks and model_dir)")
                return
            a = base.args
            batch = a.get("batch_size", expression(base.cls.defaults["batch_size"]))
            steps = a.get("steps", expression(base.cls.defaults["steps"]))
            new_args = [kwarg("input_fn", self._input_fn(bound["x"], bound["y"], batch, True, base.cls.classifier)),
                        kwarg("steps", steps)]
        else:
            problems = []
            if bound is None:
                bound, problems = bind_args(call, ("x", "y", "input_fn", "steps", "batch_size", "monitors", "max_steps"))
            bound = {k: v for k, v in bound.items() if not (isinstance(v, cst.Name) and v.value == "None")}
            if problems:
                self.flag(call, TFM104, f"fit(): cannot map {', '.join(problems)}; rewrite as train(input_fn=..., steps=...)")
                return
            if "input_fn" in bound:
                new_args = [kwarg("input_fn", bound["input_fn"])]
            elif "x" in bound:
                if not est.key_matches and not base.key_matches and not self._is_dict(bound["x"]):
                    self.flag(call, TFM104, "fit(x, y): the data is fed as {\"x\": x}; the feature columns must "
                              "read the key \"x\" (tf.feature_column.numeric_column(\"x\", shape=...)); rewrite by hand")
                    return
                batch = bound.get("batch_size") or expression(f"len({code_of(bound['x'])})")
                new_args = [kwarg("input_fn", self._input_fn(bound["x"], bound.get("y"), batch, True, est.cls.classifier))]
            else:
                self.flag(call, TFM104, "fit() without data: rewrite as train(input_fn=..., steps=...)")
                return
            monitors = None
            if "monitors" in bound and self._allowed(call, TFM130):  # transforms/estimator_monitors.py
                monitors = MonitorConverter(self, est, call)
                hooks = monitors.hooks(bound["monitors"])
                bound["monitors"] = hooks if hooks is not None else bound["monitors"]
                monitors = monitors if hooks is not None else False
            for old, new in (("steps", "steps"), ("max_steps", "max_steps"), ("monitors", "hooks")):
                if old in bound:
                    new_args.append(kwarg(new, bound[old]))
        note = ""
        if legacy_tfx:
            note = "; batch_size and steps are the estimator's legacy values"
        elif "x" in bound and "batch_size" not in bound:
            note = "; without batch_size the legacy fit fed the whole data set as one batch: batch_size=len(x)"
        if self.fix(call, TFM104, f"fit() -> train(input_fn=numpy_input_fn(..., shuffle=True, num_epochs=None)){note}"):
            self._apply(call, layout_call(call.with_changes(func=func.with_changes(attr=cst.Name("train")), args=build_call("f", new_args).args)))
            if not legacy_tfx and monitors:
                if self.fix(call, TFM130, "fit(monitors=[...]) -> train(hooks=[...]): " + "; ".join(monitors.notes)):
                    self.remove.update(monitors.removals)
            elif not legacy_tfx and monitors is False:
                pass  # TFM130 said what to do by hand
            elif "monitors" in bound:
                self.flag(call, TFM104, "monitors= became hooks=: contrib.learn monitors must be rewritten as "
                          "tf.estimator.SessionRunHook / tf.compat.v1.train hooks")

    def _plan_evaluate(self, est: Est, call: cst.Call, legacy_tfx: bool,
                       bound: dict[str, cst.BaseExpression] | None = None) -> None:
        """``bound``: the arguments already bound by name (SKCompat.score's own order, TFM119)."""
        problems = []
        if bound is None:
            bound, problems = bind_args(call, ("x", "y", "input_fn", "feed_fn", "batch_size", "steps", "metrics",
                                               "name", "checkpoint_path", "hooks", "log_progress"))
        bound = {k: v for k, v in bound.items() if not (isinstance(v, cst.Name) and v.value == "None")}
        metrics = inputs.metric_specs(self, bound.get("metrics")) if "metrics" in bound else None
        if problems or "feed_fn" in bound or ("metrics" in bound and metrics is None):
            self.flag(call, TFM105, "evaluate(): metrics/feed_fn have no direct equivalent; rewrite as "
                      "evaluate(input_fn=...) and add metrics with tf.estimator.add_metrics")
            return
        if "input_fn" in bound:
            args = [kwarg("input_fn", bound["input_fn"])]
        elif "x" in bound:
            if not est.key_matches and not self._is_dict(bound["x"]):
                self.flag(call, TFM105, "evaluate(x, y): the feature columns must read the key \"x\"; rewrite by hand")
                return
            args = [kwarg("input_fn", self._input_fn(bound["x"], bound.get("y"), bound.get("batch_size"), False,
                                                   est.cls.classifier))]
        else:
            return
        for name in ("steps", "name", "checkpoint_path", "hooks"):
            if name in bound:
                args.append(kwarg(name, bound[name]))
        note = "" if metrics is None else ("; metrics={name: MetricSpec} -> tf.estimator.add_metrics(estimator, ...)"
                                           " over the same metrics (TFM173 rewrites each MetricSpec)")
        if self.fix(call, TFM105, "evaluate(x=, y=) -> evaluate(input_fn=numpy_input_fn(..., shuffle=False, num_epochs=1))"
                    + note):
            new = call.with_changes(args=build_call("f", args).args)
            if call.func.attr.value != "evaluate":  # SKCompat.score (TFM119)
                new = new.with_changes(func=new.func.with_changes(attr=cst.Name("evaluate")))
            if metrics is not None:
                new = new.with_changes(func=new.func.with_changes(value=expression(
                    f"tf.estimator.add_metrics({code_of(call.func.value)}, lambda labels, predictions: {{name: "
                    f"metric(labels=labels, predictions=predictions) for name, metric in ({code_of(metrics)}).items()}})")))
            self._apply(call, layout_call(new))

    def _plan_predict(self, est: Est, call: cst.Call, method: str, legacy_tfx: bool) -> None:
        params = ("x", "axis", "batch_size") if legacy_tfx and method == "predict" else (
            ("x", "batch_size") if legacy_tfx else ("x", "input_fn", "batch_size", "outputs", "as_iterable"))
        bound, problems = bind_args(call, params)
        bound = {k: v for k, v in bound.items() if not (isinstance(v, cst.Name) and v.value == "None")}
        for arg in call.args:
            if arg.keyword and arg.keyword.value == "X":
                bound["x"] = arg.value
                problems = [p for p in problems if p != "X="]
        if problems or "outputs" in bound or "axis" in bound:
            self.flag(call, TFM106, f"{method}(): rewrite as predict(input_fn=...) and read the prediction dicts by hand")
            return
        if "input_fn" in bound:
            input_fn = bound["input_fn"]
        elif "x" in bound:
            if not est.key_matches and not self._is_dict(bound["x"]):
                self.flag(call, TFM106, f"{method}(x): the feature columns must read the key \"x\"; rewrite by hand")
                return
            input_fn = self._input_fn(bound["x"], None, bound.get("batch_size"), False)
        else:
            return
        if method == "predict_proba":
            item = 'p["probabilities"]'
        elif est.cls.classifier and method != "predict_scores":
            item = 'p["class_ids"][0]'
        elif est.label_dimension is not None and est.label_dimension != "1":
            # skflow's regressor predicted one value per output: a row per example where y had several columns
            item = 'p["predictions"] if len(p["predictions"]) > 1 else p["predictions"][0]'
        else:
            item = 'p["predictions"][0]'
        predict = layout_call(call.with_changes(func=call.func.with_changes(attr=cst.Name("predict")),
                                            args=[kwarg("input_fn", input_fn)]), limit=80, nested=False)
        iterable = bound.get("as_iterable")
        lazy = iterable is not None and isinstance(iterable, cst.Name) and iterable.value == "True"
        why = ""
        if iterable is None and not legacy_tfx and flow.consumed_lazily(self, call):
            lazy = True  # next(clf.predict(x)): only the 1.x generator (as_iterable=True default) allows it
        elif iterable is None and not legacy_tfx:
            # y = clf.predict(...); islice(y, 6): the value flow decides (transforms/estimators/predict_flow.py)
            kinds = predict_flow.uses(self, call)
            ends = "input_fn" not in bound or predict_flow.finite(self, input_fn)
            if predict_flow.NEXT in kinds or (not ends and kinds & {predict_flow.LAZY, predict_flow.ESCAPE}):
                lazy = True
                why = ("; the result is " + ("read with next()" if predict_flow.NEXT in kinds else
                       "consumed lazily" if predict_flow.LAZY in kinds else "passed where tfmigrate cannot follow it")
                       + (" over an input that may not end (an array would never be complete)" if not ends else "")
                       + ": the generator is the TF 1.x default as_iterable=True")
        if iterable is not None and not (isinstance(iterable, cst.Name) and iterable.value in ("True", "False")):
            self.flag(call, TFM106, f"{method}(as_iterable=...): not a literal; rewrite by hand")
            return
        if lazy:
            new = expression(f"({item} for p in PREDICT)")
        else:
            new = expression(f"np.array([{item} for p in PREDICT])")
        new = new.visit(Substitute({"PREDICT": predict}))
        shape = "a generator" if lazy else "an array"
        if self.fix(call, TFM106, f"{method}() -> predict(input_fn=...) read as {shape} of {item}, as the legacy "
                    f"{method} returned{why}"):
            self._apply(call, new)
            self.need_np = self.need_np or not lazy

    def _plan_weights(self, est: Est, attr: cst.Attribute) -> None:
        if not est.ok or est.new is None:
            return
        base = self._settings(est)
        receiver = code_of(attr.value)
        kind = attr.attr.value[:-1]
        if base.cls.dnn:
            units = base.args.get("hidden_units")
            if not isinstance(units, cst.List):
                self.flag(attr, TFM109, f"{attr.attr.value}: read dnn/hiddenlayer_<i>/{'kernel' if kind == 'weights' else 'bias'} "
                          "and dnn/logits/... with get_variable_value()")
                return
            leaf = "kernel" if kind == "weights" else "bias"
            names = [f"dnn/hiddenlayer_{i}/{leaf}" for i in range(len(units.elements))] + [f"dnn/logits/{leaf}"]
            new = expression("[" + ", ".join(f'{receiver}.get_variable_value("{n}")' for n in names) + "]")
        else:
            name = f"linear/linear_model/{FEATURE_KEY}/weights" if kind == "weights" else "linear/linear_model/bias_weights"
            new = expression(f'{receiver}.get_variable_value("{name}")')
        if self.fix(attr, TFM109, f"{attr.attr.value} -> get_variable_value() of the tf.estimator variables "
                    "(note: a binary classifier has one logit column, the legacy model had two)"):
            self._apply(attr, new)

    def _drop_legacy_import(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                name = code_of(alias.name)
                if name.startswith(LEGACY_MODULES):
                    self.imports.remove(name, asname=alias.asname.name.value if alias.asname else None
                    )
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
            module = code_of(node.module)
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                full = f"{module}.{code_of(alias.name)}"
                if module.startswith(LEGACY_MODULES) or full.startswith(LEGACY_MODULES):
                    self.imports.remove(module, code_of(alias.name), alias.asname.name.value if alias.asname else None
                    )


def _same_path(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    """The same code, or the same string however quoted."""
    if isinstance(a, cst.SimpleString) and isinstance(b, cst.SimpleString):
        return a.evaluated_value == b.evaluated_value
    return code_of(a) == code_of(b)
