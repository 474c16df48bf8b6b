"""TFM114/TFM115: the legacy custom-model contract -> ``tf.estimator.Estimator`` (TF 2.15).

Called by the TFM1 transform (``estimators.py``) for the two legacy estimators that take a
``model_fn`` of their own, and rewrites the model function in place:

- ``tf.contrib.learn.Estimator(model_fn=f)`` (TFM114): ``f(features, targets[, mode][, params]
  [, config])`` returning ``(predictions, loss, train_op)`` or ``ModelFnOps``. The legacy Estimator
  passed the first two by position and the others by name (``_call_model_fn``), wrapped a tuple
  into ``ModelFnOps(mode, predictions, loss, train_op)``, and in ``predict()`` built the model with
  placeholders shaped like the labels of the last ``fit()`` (``_get_predict_ops``).
- skflow / TF Learn 0.8 ``TensorFlowEstimator(model_fn, n_classes, ...)`` (TFM115): ``f(X, y)``
  returning ``(predictions, loss)``; the estimator trained it with ``optimize_loss(loss,
  global_step, learning_rate, optimizer, clip_gradients)`` grouped with the ``update_ops``, fed
  ``y`` one-hot (``n_classes`` columns, ``y``'s dtype) when ``n_classes > 1``, and built the graph
  once, at the first ``fit()`` (so values the model function read then are the ones it keeps).

tf.estimator calls ``model_fn(features, labels, mode, params, config)`` by name, wants an
``EstimatorSpec``, passes ``labels=None`` to ``predict()`` and builds the graph again for every
``train/evaluate/predict``. The rewrite gives the function that signature, binds the legacy names
to the new ones in its first lines, writes the label placeholder ``predict()`` used (its dtype and
shape come from ``params["fit_labels"]``, an empty slice of the labels given to ``fit``), and
returns ``tf.estimator.EstimatorSpec``. Whatever cannot be shown to keep the legacy behaviour is
left as it is with a finding.

What such model functions call (``learn.models``, ``learn.ops``, ``learn.preprocessing``) is
``learn_models.py`` (TFM116-TFM118).

Legacy sources read: tensorflow/contrib/learn/python/learn/estimators/estimator.py (TF 1.0),
tensorflow/contrib/learn/python/learn/estimators/base.py (TF 0.8), io/data_feeder.py, models.py,
and skflow's trainer.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from tfmigrate.codemod.tree import expression, is_docstring
from tfmigrate.rule_ids import TFM114, TFM115
from tfmigrate.transforms.builders import bind_args, build_call, code_of, kwarg, layout_call
from tfmigrate.transforms.estimators_defaults import NUMPY_INPUT_FN

NAMED_ARGS = ("mode", "params", "config")  # passed by name to a legacy model_fn that declares them
# optimizer names of optimize_loss (OPTIMIZER_CLS_NAMES) -> the TF1 class TF 2.15 still has
OPTIMIZER_CLASSES = {
    "SGD": "GradientDescentOptimizer",
    "Adagrad": "AdagradOptimizer",
    "Adam": "AdamOptimizer",
    "Ftrl": "FtrlOptimizer",
    "RMSProp": "RMSPropOptimizer",
}
# models returning (predictions, loss) (tensorflow/contrib/learn/python/learn/models.py)
PAIR_MODELS = {
    "linear_regression", "logistic_regression", "linear_regression_zero_init", "logistic_regression_zero_init",
}
# TensorFlowEstimator arguments with no tf.estimator.Estimator place (tf_random_seed, max_to_keep,
# keep_checkpoint_every_n_hours and config go to its RunConfig, as for the canned estimators)
TFX_LOST = ("class_weight", "num_cores", "early_stopping_rounds")
PREDICTS = ("predict", "predict_proba")
FIT_LABELS = "fit_labels"
# names the rewrite writes into a model function: refused when the function binds them already
_TFX_LOCALS = ("legacy_predictions", "legacy_loss", "legacy_optimizer", "legacy_gradients", "legacy_variables",
               "train_op")


@dataclass
class Custom:
    """A legacy custom-model estimator the rewrite converts."""

    kind: str  # "learn" | "tfx"
    fn: cst.FunctionDef
    n_classes: int = 0
    tensor_predictions: bool = False  # every return's predictions is provably a tensor, not a dict
    batch_size: cst.BaseExpression | None = None


def _is_none(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


class ModelFnPlanner:
    """Plans one legacy custom-model estimator on the TFM1 transform ``t`` (its helpers and plan tables)."""

    def __init__(self, t) -> None:
        self.t = t

    # --- finding the model function -----------------------------------------------------------
    def function(self, value: cst.BaseExpression | None) -> cst.FunctionDef | None:
        if not isinstance(value, cst.Name):
            return None
        scope = self.t.scopes.scope_of(value)
        assignments = list(scope[value.value]) if scope is not None else []
        if len(assignments) != 1:
            return None
        node = getattr(assignments[0], "node", None)
        return node if isinstance(node, cst.FunctionDef) else None

    def returns(self, fn: cst.FunctionDef) -> list[cst.Return]:
        out: list[cst.Return] = []

        def walk(node: cst.CSTNode) -> None:
            for child in node.children:
                if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    continue
                if isinstance(child, cst.Return):
                    out.append(child)
                walk(child)

        walk(fn.body)
        return out

    def _names_bound(self, fn: cst.FunctionDef) -> set[str]:
        names: set[str] = set()

        def walk(node: cst.CSTNode) -> None:
            for child in node.children:
                if isinstance(child, cst.Name):
                    names.add(child.value)
                walk(child)

        walk(fn)
        return names

    def _shadowed(self, fn: cst.FunctionDef, legacy: list[str], new: list[str]) -> list[str]:
        """New parameter names the body reads from outside (a global ``mode`` would be shadowed)."""
        assigned: set[str] = set(legacy)

        def targets(node: cst.CSTNode) -> None:
            if isinstance(node, cst.Name):
                assigned.add(node.value)
            elif isinstance(node, (cst.Tuple, cst.List)):
                for element in node.elements:
                    targets(element.value)
            elif isinstance(node, cst.StarredElement):
                targets(node.value)

        def walk(node: cst.CSTNode) -> None:
            for child in node.children:
                if isinstance(child, cst.AssignTarget):
                    targets(child.target)
                elif isinstance(child, (cst.AugAssign, cst.AnnAssign)):
                    targets(child.target)
                elif isinstance(child, (cst.For, cst.CompFor)):
                    targets(child.target)
                elif isinstance(child, cst.AsName):
                    targets(child.name)
                walk(child)

        walk(fn.body)
        return [n for n in new if n not in assigned and n in _reads(fn.body)]

    def _legacy_name(self, node: cst.CSTNode) -> str:
        name = self.t.qualified_name(node) or ""
        for middle in (".python.learn.models.", ".models."):
            if name.startswith("tensorflow.contrib.learn") and middle in name:
                return "models." + name.rpartition(".")[2]
        if name.startswith(("skflow.models.", "tensorflow.contrib.skflow.")) and ".models." in name:
            return "models." + name.rpartition(".")[2]
        return name

    # --- the labels predict() was built with ------------------------------------------------------
    def _fit_labels(self, est) -> tuple[cst.BaseExpression | None, str | None]:
        """``np.asarray(y)[:0]`` for the labels of the estimator's fit(), when known at construction."""
        t = self.t
        ys = []
        for fit in est.fits:
            if est.cls.era == "learn":
                bound, _ = bind_args(fit, ("x", "y", "input_fn", "steps", "batch_size", "monitors", "max_steps"))
            else:
                bound, _ = bind_args(fit, ("x", "y", "monitor", "logdir"))
                for arg in fit.args:
                    if arg.keyword and arg.keyword.value == "X":
                        bound["x"] = arg.value
            if "y" not in bound or _is_none(bound["y"]):
                return None, "fit() gets no labels y= (an input_fn): the labels predict() needs are not known"
            ys.append(bound["y"])
        if not ys:
            return None, "the estimator is never fit() here, so the labels predict() needs are not known"
        first = code_of(ys[0])
        if any(code_of(y) != first for y in ys):
            return None, "fit() is called with different labels"
        y = ys[0]
        names = _name_reads(cst.Expr(y)) if not isinstance(y, cst.Name) else [y]
        if isinstance(y, (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.DictComp, cst.SetComp)) or not names or any(
                not (t._bound_before(n, est.call) or t.qualified_name(n)) for n in names):
            return None, (f"the labels {first} of fit() are not known where the estimator is built, so "
                          "params cannot carry them to predict()")
        t.need_np = True
        return expression(f"np.asarray({first})[:0]"), None

    # --- entry point ----------------------------------------------------------------------------------
    def plan(self, est) -> bool:
        """True when this module dealt with ``est`` (converted it, or flagged why not)."""
        if est.cls.era == "learn":
            return self._plan_learn(est)
        return self._plan_tfx(est)

    def _refuse(self, est, rule: str, message: str) -> bool:
        if not self.t.enabled(rule):
            return False  # the general finding (TFM110 / TFM153) then says what to do
        est.ok = False
        self.t.flag(est.call, rule, message)
        return True

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
        if "feature_engineering_fn" in a and not _is_none(a["feature_engineering_fn"]):
            return self._refuse(est, TFM114, "tf.contrib.learn.Estimator(feature_engineering_fn=...): call it at "
                                "the top of model_fn (features, labels = feature_engineering_fn(features, labels)) "
                                "and drop the argument")
        if "params" in a and not _is_none(a["params"]) and "params" not in names:
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
        if spec is not None and given is not None and not _is_none(given) and not self._dict_value(given):
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
            if name in a and not _is_none(a[name]):
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
        from tfmigrate.transforms.contrib_learn import MODEL_FN_OPS_KEEP, MODEL_FN_OPS_ORDER, bind, join_args, _kw as kw

        call = ret.value
        args = [a if a.keyword is not None else kw(a, k) for k, a in bind(call, MODEL_FN_OPS_ORDER)
                if k in MODEL_FN_OPS_KEEP]  # output_alternatives=None and the like have no EstimatorSpec place
        return ret.with_changes(value=call.with_changes(func=expression("tf.estimator.EstimatorSpec"),
                                                        args=join_args(args)))

    def _model_fn_ops_ok(self, call: cst.Call) -> bool:
        """This ModelFnOps maps onto an EstimatorSpec (no output_alternatives)."""
        from tfmigrate.transforms.contrib_learn import MODEL_FN_OPS_KEEP, MODEL_FN_OPS_ORDER, Unsupported, bind

        try:
            bound = bind(call, MODEL_FN_OPS_ORDER)
        except Unsupported:
            return False
        return all(k in MODEL_FN_OPS_KEEP or _is_none(arg.value) for k, arg in bound)

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
        """``SKCompat`` when the estimator is built inside ``SKCompat(...)``."""
        parent = self.t._parent(est.call)
        call = self.t._parent(parent) if isinstance(parent, cst.Arg) else None
        if isinstance(call, cst.Call) and (self.t.qualified_name(call.func) or "").endswith(".SKCompat"):
            return "SKCompat"
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
            return None if given is None or _is_none(given) else given
        if given is None or _is_none(given):
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
        n_classes = int(n.value) if isinstance(n, cst.Integer) else (0 if _is_none(n) else None)
        if n_classes is None:
            return self._refuse(est, TFM115, f"{what}: n_classes must be a literal number (it decides whether "
                                "y was fed one-hot)")
        lost = [k for k in TFX_LOST if k in a and not _is_none(a[k])]
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
        if clip is not None and not (_is_none(clip) or t._is_number(clip)):
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
        clip_code = None if clip is None or _is_none(clip) else code_of(clip)
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

    # --- methods ------------------------------------------------------------------------------------
    def plan_predict(self, est, call: cst.Call, method: str) -> None:
        t = self.t
        custom: Custom = est.custom
        if custom.kind == "learn":
            bound, problems = bind_args(call, ("x", "input_fn", "batch_size", "outputs", "as_iterable"))
        else:
            bound, problems = bind_args(call, ("x", "axis", "batch_size") if method == "predict" else ("x", "batch_size"))
            for arg in call.args:
                if arg.keyword and arg.keyword.value == "X":
                    bound["x"] = arg.value
                    problems = [p for p in problems if p != "X="]
        bound = {k: v for k, v in bound.items() if not _is_none(v)}
        rule = TFM114 if custom.kind == "learn" else TFM115
        if problems:
            t.flag(call, rule, f"{method}(): cannot map {', '.join(problems)}; call predict(input_fn=...) by hand")
            return
        if "input_fn" in bound:
            input_fn = bound["input_fn"]
        elif "x" in bound:
            x = bound["x"]
            batch = bound.get("batch_size")
            if batch is None:
                batch = custom.batch_size if custom.kind == "tfx" else expression(f"len({code_of(x)})")
            input_fn = build_call(NUMPY_INPUT_FN, [kwarg("x", t._as_array(x)), kwarg("batch_size", batch),
                                                 kwarg("shuffle", expression("False")),
                                                 kwarg("num_epochs", expression("1"))])
        else:
            return
        args = [kwarg("input_fn", input_fn)]
        if "outputs" in bound:
            args.append(kwarg("predict_keys", bound["outputs"]))
        predict = self._layout_at(call, call.with_changes(func=call.func.with_changes(attr=cst.Name("predict")),
                                                          args=build_call("f", args).args))
        if custom.kind == "learn":
            iterable = bound.get("as_iterable")
            if iterable is None and not self._iterated(call):
                t.flag(call, rule, f"{method}() without as_iterable: TF 1.x returned a generator, TF 0.10-0.11 an "
                       "array (a dict of arrays for dict predictions); pass as_iterable=True or False as your "
                       "TensorFlow version did and run tfmigrate again")
                return
            lazy = iterable is None or (isinstance(iterable, cst.Name) and iterable.value == "True")
            if not lazy and not (isinstance(iterable, cst.Name) and iterable.value == "False"):
                t.flag(call, rule, f"{method}(as_iterable={code_of(iterable)}): not a literal; rewrite by hand")
                return
            if lazy:
                new = predict
                note = ("a generator of the model_fn's predictions (dicts when it returns a dict), as the legacy "
                        "predict(as_iterable=True) returned" + ("" if iterable is not None else
                                                                 " (the TF 1.x default; the result is only iterated)"))
            elif not custom.tensor_predictions:
                t.flag(call, rule, f"{method}(as_iterable=False) returned an array, or a dict of arrays when model_fn "
                       "returns a dict of predictions (not provably a tensor here); tf.estimator's predict() yields "
                       "one value or dict per example: collect them by hand")
                return
            else:
                new = expression("np.array(list(PREDICT))")
                t.need_np = True
                note = "an array, as the legacy predict(as_iterable=False) returned"
        else:
            axis = bound.get("axis")
            if method == "predict" and custom.n_classes > 1:
                if axis is not None and not isinstance(axis, cst.Integer):
                    t.flag(call, rule, f"{method}(axis={code_of(axis)}): not a literal; rewrite by hand")
                    return
                shift = (int(axis.value) if axis is not None else 1) - 1
                new = expression(f"np.array([np.argmax(p, axis={shift}) for p in PREDICT])")
                note = "the argmax of each prediction, as the legacy classifier's predict() returned"
            else:
                new = expression("np.array(list(PREDICT))")
                note = "an array of the model_fn's predictions, as the legacy predict() returned"
            new = _substitute(new, predict)
            t.need_np = True
        if custom.kind == "learn" and new is not predict:
            new = _substitute(new, predict)
        how = ("predict(input_fn=...)" if "input_fn" in bound else
               f"{method}(x) -> predict(input_fn=numpy_input_fn(x, shuffle=False, num_epochs=1))")
        if t.fix(call, rule, f"{how} read as {note}"):
            t._apply(call, new)


def _paren(node: cst.BaseExpression) -> str:
    code = code_of(node)
    return f"({code})" if isinstance(node, cst.Lambda) else code


def _statement_starts(t, node: cst.CSTNode, line: int) -> bool:
    """The statement holding ``node`` starts on ``line`` (libcst's relative indentation is then right)."""
    current = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = t._parent(current)
    return current is not None and t._lines(current)[0] == line


def _substitute(tree: cst.BaseExpression, node: cst.BaseExpression) -> cst.BaseExpression:
    class Swap(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return node if original.value == "PREDICT" else updated

    return tree.visit(Swap())


def _tensor_expression(fn: cst.FunctionDef, value: cst.BaseExpression, depth: int = 0) -> bool:
    """``value`` (a model_fn's predictions) is a tensor expression, never a dict: a call, an operation, a
    subscript, or a name every assignment of which in ``fn`` is one."""
    if isinstance(value, (cst.Dict, cst.DictComp)):
        return False
    if isinstance(value, cst.Call):
        return not (isinstance(value.func, cst.Name) and value.func.value == "dict")
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation, cst.Subscript)):
        return True
    if isinstance(value, cst.Name) and depth < 4:
        values = []

        def walk(node: cst.CSTNode) -> None:
            for child in node.children:
                if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    continue
                if isinstance(child, cst.Assign):
                    for target in child.targets:
                        if isinstance(target.target, cst.Name) and target.target.value == value.value:
                            values.append(child.value)
                        elif value.value in _target_names(target.target):
                            values.append(None)  # unpacked: unknown
                elif isinstance(child, (cst.AugAssign, cst.AnnAssign, cst.For, cst.With, cst.CompFor)):
                    names = _target_names(getattr(child, "target", None)) if hasattr(child, "target") else []
                    if value.value in names:
                        values.append(None)
                walk(child)

        walk(fn.body)
        names = {p.name.value for p in fn.params.params}
        return bool(values) and value.value not in names and all(
            v is not None and _tensor_expression(fn, v, depth + 1) for v in values
        )
    return False


def _name_reads(node: cst.CSTNode) -> list[cst.Name]:
    """Name nodes read as variables under ``node`` (not attribute names, keywords, parameters or targets)."""
    out: list[cst.Name] = []

    def walk(n: cst.CSTNode, target: bool = False) -> None:
        for child in n.children:
            if isinstance(n, cst.Attribute) and child is n.attr:
                continue
            if isinstance(n, cst.Arg) and child is n.keyword:
                continue
            if isinstance(n, cst.Param) and child is n.name:
                continue
            is_target = isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)) and \
                child is getattr(n, "target", None)
            if isinstance(child, cst.Name) and not (is_target or target):
                out.append(child)
            walk(child, target or (is_target and isinstance(child, (cst.Tuple, cst.List))))

    walk(node)
    return out


_TRAIN_EVAL = {"TRAIN", "EVAL"}


def _mode_key(t, node: cst.CSTNode) -> str | None:
    """``learn.ModeKeys.TRAIN`` / ``tf.estimator.ModeKeys.EVAL`` / the strings 'train', 'eval', 'infer'."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return {"train": "TRAIN", "eval": "EVAL", "infer": "INFER"}.get(value if isinstance(value, str) else "")
    name = t.qualified_name(node) or ""
    if ".ModeKeys." in name and name.startswith("tensorflow."):
        key = name.rpartition(".")[2]
        return "INFER" if key == "PREDICT" else key
    return None


def _not_predict(t, test: cst.BaseExpression, labels: str) -> bool:
    """``test`` is false when predict() builds the model: mode == TRAIN/EVAL, mode != INFER,
    mode in (TRAIN, EVAL), <labels> is not None."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    op, right = test.comparisons[0].operator, test.comparisons[0].comparator
    left = test.left
    if isinstance(left, cst.Name) and left.value == labels and isinstance(op, cst.IsNot) and \
            isinstance(right, cst.Name) and right.value == "None":
        return True
    if not (isinstance(left, cst.Name) and left.value == "mode"):
        return False
    if isinstance(op, cst.Equal):
        return _mode_key(t, right) in _TRAIN_EVAL
    if isinstance(op, cst.NotEqual):
        return _mode_key(t, right) == "INFER"
    if isinstance(op, cst.In) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        keys = [_mode_key(t, e.value) for e in right.elements]
        return bool(keys) and all(k in _TRAIN_EVAL for k in keys)
    return False


def _reads(node: cst.CSTNode) -> set[str]:
    """Names read as variables under ``node`` (not attribute names, keywords or parameters)."""
    out: set[str] = set()

    def walk(n: cst.CSTNode) -> None:
        for child in n.children:
            if isinstance(n, cst.Attribute) and child is n.attr:
                continue
            if isinstance(n, cst.Arg) and child is n.keyword:
                continue
            if isinstance(n, cst.Param) and child is n.name:
                continue
            if isinstance(child, cst.Name):
                out.add(child.value)
            walk(child)

    walk(node)
    return out


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for element in target.elements:
            out += _target_names(element.value)
        return out
    return []


class _ReturnSwap:
    """Replaces the planned return statements of one function (not of nested functions)."""

    def __init__(self, plans: dict) -> None:
        self.plans = plans

    def visit_statement(self, statement: cst.BaseStatement):
        if isinstance(statement, cst.SimpleStatementLine):
            if len(statement.body) == 1 and statement.body[0] in self.plans:
                new = self.plans[statement.body[0]]
                if isinstance(new, list):
                    new = list(new)
                    new[0] = new[0].with_changes(leading_lines=statement.leading_lines)
                    last = new[-1]
                    new[-1] = last.with_changes(trailing_whitespace=statement.trailing_whitespace)
                    return new
                return statement.with_changes(body=[new])
            if any(node in self.plans for node in statement.body):
                raise ValueError("a return statement shares its line with other statements")
            return statement
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return statement
        return self._compound(statement)

    def _compound(self, node: cst.CSTNode):
        changes = {}
        for attr in ("body", "orelse", "finalbody", "handlers"):
            value = getattr(node, attr, None)
            if value is None:
                continue
            if isinstance(value, (list, tuple)):
                changes[attr] = [self._compound(v) for v in value]
            elif isinstance(value, cst.IndentedBlock):
                flat = []
                for s in value.body:
                    out = self.visit_statement(s)
                    flat.extend(out if isinstance(out, list) else [out])
                changes[attr] = value.with_changes(body=flat)
            elif isinstance(value, cst.CSTNode):
                changes[attr] = self._compound(value)
        return node.with_changes(**changes) if changes else node


def list_receiver(t, expr: cst.Subscript, depth: int):
    """The estimator ``items[i]`` holds: ``items`` is bound once to ``[]`` and read only by
    ``items.append(e)`` calls (each ``e`` the same legacy estimator binding) and ``items[...]`` reads."""
    base = expr.value
    if not isinstance(base, cst.Name):
        return None
    return list_holds(t, base, depth)


def list_holds(t, base: cst.Name, depth: int):
    """The one estimator binding the list named ``base`` collects (see :func:`list_receiver`)."""
    found = t._single_assignment(base)
    if found is None or not isinstance(found[1].value, cst.List) or found[1].value.elements:
        return None
    assignment = found[0]
    est = None
    for access in assignment.references:
        node = access.node
        parent = t._parent(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            continue
        call = t._parent(parent) if isinstance(parent, cst.Attribute) else None
        if not (isinstance(parent, cst.Attribute) and parent.attr.value == "append" and isinstance(call, cst.Call)
                and call.func is parent and len(call.args) == 1 and call.args[0].keyword is None):
            return None
        item = t._receiver(call.args[0].value, depth + 1)
        if item is None or (est is not None and item is not est):
            return None
        est = item
    return est
