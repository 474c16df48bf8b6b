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

What such model functions call (``learn.models``, ``learn.ops``) is ``learn_models.py`` (TFM116,
TFM118; ``learn.preprocessing`` is the TFM18 family's). The planner's two halves are mixins: ``model_fn_learn.py``
(TFM114) and ``model_fn_tfx.py`` (TFM115); the contract's tables and the questions they ask of a
model function's code are ``model_fn_contract.py``.

Legacy sources read: tensorflow/contrib/learn/python/learn/estimators/estimator.py (TF 1.0),
tensorflow/contrib/learn/python/learn/estimators/base.py (TF 0.8), io/data_feeder.py, models.py,
and skflow's trainer.py.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM114, TFM115
from tfmigrate.transforms.common.builders import bind_args, build_call, code_of, is_none, kwarg
from tfmigrate.transforms.estimators.defaults import NUMPY_INPUT_FN
from tfmigrate.transforms.estimators.model_fn.contract import Custom, _name_reads, _reads, _substitute
from tfmigrate.transforms.estimators.model_fn.learn import LearnModelFn
from tfmigrate.transforms.estimators.model_fn.tfx import TfxModelFn


class ModelFnPlanner(TfxModelFn, LearnModelFn):
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
            if "y" not in bound or is_none(bound["y"]):
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
        bound = {k: v for k, v in bound.items() if not is_none(v)}
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
