"""TFM114: tf.contrib.learn.Estimator(model_fn=f) -> tf.estimator.Estimator: f gets the tf.estimator
signature (features, labels, mode, params, config), its (predictions, loss, train_op) or ModelFnOps
returns become EstimatorSpec, and predict() gets the label placeholder the legacy Estimator built.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from tfmigrate.codemod.tree import expression, is_docstring, join_args, keyword_arg
from tfmigrate.rule_ids import TFM114, TFM119
from tfmigrate.transforms.common.builders import build_call, code_of, is_none, kwarg, layout_call
from tfmigrate.transforms.common.learn_names import MODEL_FN_OPS_KEEP, MODEL_FN_OPS_ORDER, Unsupported, bind
from tfmigrate.transforms.estimators.model_fn.contract import (
    FIT_LABELS, NAMED_ARGS, PREDICTS, Custom, _ReturnSwap, _name_reads, _not_predict, _statement,
    _statement_starts, _tensor_expression,
)


class LearnModelFn:
    """A mixin of :class:`~tfmigrate.transforms.estimators.model_fn.planner.ModelFnPlanner`."""

    # --- TFM114: tf.contrib.learn.Estimator(model_fn=...) -----------------------------------------
    def _plan_learn(self, est) -> bool:
        t, a = self.t, est.args
        fn = self.function(a.get("model_fn"))
        if fn is None:
            return False  # TFM153 says what to do
        p = fn.params
        if p.star_arg is not cst.MaybeSentinel.DEFAULT or p.star_kwarg is not None or p.posonly_params or p.kwonly_params:
            return False
        names = [param.name.value for param in p.params]
        extra = [param for param in p.params[2:] if param.name.value not in NAMED_ARGS]
        if len(names) < 2 or any(param.default is None for param in extra):
            return False
        names = [n for n in names if n not in {param.name.value for param in extra}]
        if any(param.default is not None for param in p.params[:2]):
            return False
        rets = self.returns(fn)
        if not self._own_lines(rets):
            return self._refuse(est, TFM114, f"tf.contrib.learn.Estimator: a return statement of model_fn "
                                f"{fn.name.value} shares its line with other statements (a; return ...): put it on "
                                "its own line and run tfmigrate again")
        kinds = []
        for ret in rets:
            value = ret.value
            if isinstance(value, cst.Tuple) and len(value.elements) == 3 and not any(
                isinstance(e, cst.StarredElement) for e in value.elements
            ):
                kinds.append("tuple")
            elif isinstance(value, cst.Call) and (t.qualified_name(value.func) or "") == "tensorflow.estimator.EstimatorSpec":
                kinds.append("spec")
            elif isinstance(value, cst.Call) and (t.qualified_name(value.func) or "").endswith(
                ("learn.ModelFnOps", "model_fn.ModelFnOps")
            ) and self._model_fn_ops_ok(value):
                kinds.append("ops")
            else:
                kinds.append("other")
        if not rets or "other" in kinds:
            if "tuple" not in kinds and names[:2] == ["features", "labels"]:
                return False
            return self._refuse(est, TFM114, f"tf.contrib.learn.Estimator: model_fn {fn.name.value} must return "
                                "(predictions, loss, train_op) or ModelFnOps(...) written out in every return "
                                "statement to be converted; make it return tf.estimator.EstimatorSpec(mode, "
                                "predictions=..., loss=..., train_op=...) and take (features, labels, mode, params)")
        if "tuple" not in kinds and names[:2] == ["features", "labels"]:
            return False  # the tf.estimator contract already (ModelFnOps returns are TFM152's): TFM153
        if "feature_engineering_fn" in a and not is_none(a["feature_engineering_fn"]):
            return self._refuse(est, TFM114, "tf.contrib.learn.Estimator(feature_engineering_fn=...): call it at "
                                "the top of model_fn (features, labels = feature_engineering_fn(features, labels)) "
                                "and drop the argument")
        if "params" in a and not is_none(a["params"]) and "params" not in names:
            return False  # legacy raised ValueError; TFM153 says so
        shadowed = self._shadowed(fn, names, ["features", "labels", "mode", "params", "config"])
        if shadowed:
            return self._refuse(est, TFM114, f"tf.contrib.learn.Estimator: model_fn {fn.name.value} reads "
                                f"{', '.join(shadowed)} from outside; tf.estimator passes arguments by those names, "
                                "so rename that variable first")
        wrapper = self._wrapper(est)
        if wrapper is not None:
            return self._refuse(est, TFM114, f"tf.contrib.learn.Estimator wrapped in {wrapper}: its fit/predict "
                                "calls go through the wrapper, so the labels predict() needs cannot be followed; "
                                "unwrap it first (TFM155) and run tfmigrate again")
        needs_labels = any(m in PREDICTS for m in self._methods(est)) and not self._labels_guarded(fn, names)
        spec = None
        if needs_labels:
            spec, why = self._fit_labels(est)
            if spec is None:
                return self._refuse(est, TFM114, f"tf.contrib.learn.Estimator: predict() built model_fn "
                                    f"{fn.name.value} with placeholders shaped like fit()'s labels, tf.estimator "
                                    f"passes labels=None; {why}. Pass params={{'{FIT_LABELS}': <labels>[:0]}} and "
                                    "build the placeholder in model_fn when labels is None")
        # predict(as_iterable=False) returned an array for tensor predictions, a dict of arrays for a dict
        tensor_predictions = all(
            _tensor_expression(fn, r.value.elements[0].value) for r, k in zip(rets, kinds) if k == "tuple"
        ) and all(k == "tuple" for k in kinds)
        given = a.get("params")
        if spec is not None and given is not None and not is_none(given) and not self._dict_value(given):
            return self._refuse(est, TFM114, f"tf.contrib.learn.Estimator(params={code_of(given)}): predict() needs "
                                f"the labels placeholder's dtype and shape in params['{FIT_LABELS}'], and these "
                                "params are not visibly a dict; pass a dict and run tfmigrate again")
        if not t._allowed(est.call, TFM114):
            est.ok = False
            return True
        custom = Custom("learn", fn, tensor_predictions=tensor_predictions)
        plans = {r: self._spec_return(r) for r, k in zip(rets, kinds) if k == "tuple"}
        plans.update({r: self._ops_return(r) for r, k in zip(rets, kinds) if k == "ops"})
        new_fn = self._rewrite_fn(fn, names, spec is not None, one_hot=None, returns=plans, defaults=extra)
        args = [kwarg("model_fn", a["model_fn"])]
        for name in ("model_dir", "config"):
            if name in a and not is_none(a[name]):
                args.append(kwarg(name, a[name]))
        params = self._params(a.get("params"), spec)
        if params is not None:
            args.append(kwarg("params", params))
        new = layout_call(build_call("tf.estimator.Estimator", args))
        if not self._same_plan(fn, new_fn):
            return self._refuse(est, TFM114, f"tf.contrib.learn.Estimator: model_fn {fn.name.value} is shared with "
                                "another estimator that needs it rewritten differently; give each its own function")
        what = " and ".join(w for w, k in (("(predictions, loss, train_op)", "tuple"), ("ModelFnOps", "ops"))
                            if k in kinds)
        message = (f"tf.contrib.learn.Estimator(model_fn={fn.name.value}) -> tf.estimator.Estimator: "
                   f"{fn.name.value} takes (features, labels, mode, ...) by name and returns "
                   f"tf.estimator.EstimatorSpec where it returned {what} (the legacy Estimator made the same "
                   "ModelFnOps of them)")
        if extra:
            message += (f"; {', '.join(param.name.value for param in extra)} keep their defaults as keyword-only "
                        "parameters (the legacy Estimator never passed them either)")
        if spec is not None:
            message += (f"; predict() builds it with a labels placeholder shaped like fit()'s labels, as the "
                        f"legacy Estimator did (params['{FIT_LABELS}'])")
        if t.fix(est.call, TFM114, message):
            t._apply(est.call, new)
            t.replace[fn] = new_fn
            est.new = new
            est.custom = custom
            est.cls = replace(est.cls, classifier=False)  # labels are fed as they are (no int cast)
        else:
            est.ok = False
        return True

    def _ops_return(self, ret: cst.Return) -> cst.Return:
        """``return ModelFnOps(...)`` -> ``return tf.estimator.EstimatorSpec(...)`` (the same arguments, by keyword
        where they were positional: TFM152's mapping)."""
        call = ret.value
        args = [a if a.keyword is not None else keyword_arg(a, k) for k, a in bind(call, MODEL_FN_OPS_ORDER)
                if k in MODEL_FN_OPS_KEEP]  # output_alternatives=None and the like have no EstimatorSpec place
        return ret.with_changes(value=call.with_changes(func=expression("tf.estimator.EstimatorSpec"),
                                                        args=join_args(args)))

    def _model_fn_ops_ok(self, call: cst.Call) -> bool:
        """This ModelFnOps maps onto an EstimatorSpec (no output_alternatives)."""
        try:
            bound = bind(call, MODEL_FN_OPS_ORDER)
        except Unsupported:
            return False
        return all(k in MODEL_FN_OPS_KEEP or is_none(arg.value) for k, arg in bound)

    def _labels_guarded(self, fn: cst.FunctionDef, names: list[str]) -> bool:
        """Every read of the labels parameter sits under ``if mode == TRAIN/EVAL``, ``if mode != INFER`` or
        ``if <labels> is not None`` (the else branch of the negations): predict() never builds it, so the
        labels=None tf.estimator passes is never read."""
        labels = names[1]
        if "mode" not in names:
            return False
        reads = [n for n in _name_reads(fn.body) if n.value == labels]
        return bool(reads) and all(self._guarded(n, fn, labels) for n in reads)

    def _guarded(self, node: cst.CSTNode, fn: cst.FunctionDef, labels: str) -> bool:
        child, parent = node, self.t._parent(node)
        while parent is not None and parent is not fn:
            if isinstance(parent, cst.If) and child is parent.body and _not_predict(self.t, parent.test, labels):
                return True
            if isinstance(parent, cst.IfExp) and child is parent.body and _not_predict(self.t, parent.test, labels):
                return True
            child, parent = parent, self.t._parent(parent)
        return False

    def _wrapper(self, est) -> str | None:
        """``SKCompat`` when the estimator is built inside ``SKCompat(...)`` and TFM119 may not unwrap it (its
        calls through the wrapper are then not rewritten, so the labels predict() needs are not followed)."""
        parent = self.t._parent(est.call)
        call = self.t._parent(parent) if isinstance(parent, cst.Arg) else None
        if isinstance(call, cst.Call) and (self.t.qualified_name(call.func) or "").endswith(".SKCompat"):
            return None if self.t._allowed(call, TFM119) else "SKCompat"
        return None

    def _layout_at(self, original: cst.Call, call: cst.Call) -> cst.Call:
        """One argument a line, indented from the line the call starts on (not from its statement: the call may
        sit inside a bracket that spans lines, e.g. a list comprehension)."""
        if len(code_of(call)) <= 80:
            return call
        line = self.t._lines(original)[0]
        text = (self.t.source or "").splitlines()
        if not (0 < line <= len(text)) or _statement_starts(self.t, original, line):
            return layout_call(call, limit=80, nested=False)
        base = len(text[line - 1]) - len(text[line - 1].lstrip())

        def newline(indent: int) -> cst.ParenthesizedWhitespace:
            return cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), indent=False,
                                               last_line=cst.SimpleWhitespace(" " * indent))

        args = [a.with_changes(comma=cst.Comma(whitespace_after=newline(base + 4 if i < len(call.args) - 1 else base)))
                for i, a in enumerate(call.args)]
        return call.with_changes(whitespace_before_args=newline(base + 4), args=args)

    def _iterated(self, call: cst.Call) -> bool:
        """The result is only iterated (a for loop, a comprehension, list()/tuple()), which reads the same
        values from the legacy generator and, for tensor predictions, from the legacy array."""
        parent = self.t._parent(call)
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is call:
            return True
        if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
            outer = self.t._parent(parent)
            return (isinstance(outer, cst.Call) and isinstance(outer.func, cst.Name)
                    and outer.func.value in ("list", "tuple") and len(outer.args) == 1 and self.t.is_builtin(outer.func))
        return False

    def _dict_value(self, node: cst.BaseExpression) -> bool:
        """A dict display, ``dict(...)``, or a name assigned one of them once."""
        if isinstance(node, cst.Name):
            found = self.t._single_assignment(node)
            node = found[1].value if found is not None else node
        return isinstance(node, (cst.Dict, cst.DictComp)) or (
            isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict")

    def _same_plan(self, fn: cst.FunctionDef, new_fn: cst.FunctionDef) -> bool:
        """A model function shared by several estimators gets one rewrite: theirs must agree."""
        prior = self.t.replace.get(fn)
        return prior is None or code_of(prior) == code_of(new_fn)

    def _methods(self, est) -> list[str]:
        return [method for owner, _, method in self.t.methods if owner is est]

    def _params(self, given: cst.BaseExpression | None, spec: cst.BaseExpression | None) -> cst.BaseExpression | None:
        if spec is None:
            return None if given is None or is_none(given) else given
        if given is None or is_none(given):
            return expression(f'{{"{FIT_LABELS}": {code_of(spec)}}}')
        return expression(f"dict({code_of(given)}, {FIT_LABELS}={code_of(spec)})")

    def _spec_return(self, ret: cst.Return) -> list[cst.BaseStatement] | cst.Return:
        elements = [e.value for e in ret.value.elements]
        call = expression("tf.estimator.EstimatorSpec(mode, predictions=P, loss=L, train_op=T)")
        args = list(call.args)
        args = [args[0]] + [arg.with_changes(value=v) for arg, v in zip(args[1:], elements)]
        return ret.with_changes(value=call.with_changes(args=args),
                                whitespace_after_return=cst.SimpleWhitespace(" "))

    # --- the function itself ----------------------------------------------------------------------
    def _rewrite_fn(self, fn: cst.FunctionDef, names: list[str], placeholder: bool, one_hot: int | None,
                    returns: dict, keyword_only: list[str] | None = None,
                    defaults: list[cst.Param] | None = None) -> cst.FunctionDef:
        features, labels = names[0], names[1]
        new_names = ["features", "labels", "mode"]
        if placeholder or "params" in names:
            new_names.append("params")
        if "config" in names:
            new_names.append("config")
        params = [cst.Param(cst.Name(n)) for n in new_names]
        kwonly = [cst.Param(cst.Name(n), default=cst.Name(n), equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
            for n in (keyword_only or [])]
        # parameters with defaults beyond the legacy (features, labels[, mode, params, config]): keyword-only, which
        # tf.estimator's argument check ignores and never passes, so the defaults hold as the legacy call left them
        kwonly += [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in (defaults or [])]
        new_params = fn.params.with_changes(
            params=[p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in params],
            kwonly_params=kwonly,
            star_arg=cst.ParamStar() if kwonly else cst.MaybeSentinel.DEFAULT,
        )
        prologue: list[str] = []
        if placeholder:
            prologue.append(
                "if labels is None:  # predict(): the legacy estimator built the model with a placeholder like "
                "fit()'s labels\n"
                f"    labels = tf.compat.v1.placeholder(params[\"{FIT_LABELS}\"].dtype, (None,) + "
                f"params[\"{FIT_LABELS}\"].shape[1:])\n"
            )
        if one_hot is not None and one_hot > 1:
            prologue.append(f"{labels} = tf.one_hot(tf.cast(labels, tf.int64), {one_hot}, dtype=labels.dtype)  "
                            "# the legacy data feeder fed y one-hot\n")
            if features != "features":
                prologue.append(f"{features} = features\n")
        else:
            pairs = [(old, new) for old, new in ((features, "features"), (labels, "labels")) if old != new]
            if pairs:
                prologue.append(", ".join(o for o, _ in pairs) + " = " + ", ".join(n for _, n in pairs) + "\n")
        body = fn.body
        assert isinstance(body, cst.IndentedBlock)
        statements = list(body.body)
        start = 1 if statements and is_docstring(statements[0]) else 0
        head = [_statement(code) for code in prologue]
        rest = [_ReturnSwap(returns).visit_statement(s) for s in statements[start:]]
        flat = []
        for s in rest:
            flat.extend(s if isinstance(s, list) else [s])
        new_body = body.with_changes(body=[*statements[:start], *head, *flat])
        return fn.with_changes(params=new_params, body=new_body)
