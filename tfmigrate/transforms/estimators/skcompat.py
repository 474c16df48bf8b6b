"""TFM119: ``tf.contrib.learn.SKCompat(estimator)`` -> the estimator itself, its ``fit``/``score``/``predict``
rewritten with SKCompat's own semantics (TF 1.x ``contrib/learn/python/learn/estimators/estimator.py``):

- ``fit(x, y, batch_size=128, steps=None, max_steps=None, monitors=None)`` fed the arrays through
  ``_get_input_fn(x, y, batch_size, shuffle=True, epochs=None)``: ``train(input_fn=numpy_input_fn(...,
  batch_size=<128 unless given>, shuffle=True, num_epochs=None), steps=, max_steps=, hooks=)``;
- ``score(x, y, batch_size=128, steps=None, metrics=None, name=None)`` evaluated one shuffle-free epoch and
  returned the metrics dict (with ``global_step``): ``evaluate(input_fn=numpy_input_fn(..., batch_size=128,
  shuffle=False, num_epochs=1), steps=, name=)`` returns the same dict;
- ``predict(x, batch_size=128, outputs=None)`` ran the model over one epoch in batches and concatenated
  them: one array when the model's predictions are a tensor, else a dict of arrays. ``skcompat_predict``,
  written once into the module, rebuilds that from tf.estimator's per-example predictions; for the canned
  estimators it keeps the legacy keys and shapes (``classes`` [N] where tf.estimator has ``class_ids``
  [N, 1], ``scores`` [N] where it has ``predictions`` [N, 1], squeezed as the legacy heads did only for a
  width of one).

The planner (``EstimatorTransform``) follows a value through ``SKCompat(...)`` to its estimator like any
other binding; this module decides the wrappers that go (``plan_wrappers``) and plans the calls made
through them (``plan_method``). A wrapper around something not rewritten stays, and TFM155 reports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM119
from tfmigrate.transforms.common.builders import Substitute, bind_args, build_call, code_of, is_none, kwarg, layout_call
from tfmigrate.transforms.common.learn_names import legacy_name
from tfmigrate.transforms.estimators.helpers import defines

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Est, Planner

FIT = ("x", "y", "batch_size", "steps", "max_steps", "monitors")
SCORE = ("x", "y", "batch_size", "steps", "metrics", "name")
PREDICT = ("x", "batch_size", "outputs")
BATCH = "128"  # SKCompat's default batch_size in fit, score and predict (every TF 1.x release)
HELPER = "skcompat_predict"
HELPER_CODE = '''def skcompat_predict(predictions, head=None):
    """tf.contrib.learn.SKCompat.predict's result, which TensorFlow 2 lacks (written by tfmigrate, TFM119): every
    prediction in one array, or in a dict of arrays; head: a canned estimator's legacy keys (classes, scores [N])."""
    import numpy as np
    rows = list(predictions)
    if not rows or not isinstance(rows[0], dict):
        return np.array(rows)
    scores = {"logits": "logits", "logistic": "logistic", "probabilities": "probabilities"}
    keys = {"classifier": dict(scores, classes="class_ids"), "classifier_keys": dict(scores, classes="classes"),
            "regressor": {"scores": "predictions"}}.get(head, {key: key for key in rows[0]})
    result = {}
    for legacy, key in keys.items():
        if key in rows[0]:
            values = np.array([row[key] for row in rows])
            squeeze = head is not None and legacy in ("classes", "scores") and values.shape[1:] == (1,)
            result[legacy] = values[:, 0] if squeeze else values
    return result
'''


def is_skcompat(t: Planner, call: cst.Call) -> bool:
    return legacy_name(t.qualified_name(call.func)) == "learn.SKCompat"


def wrapped(call: cst.Call) -> cst.BaseExpression | None:
    """The estimator of ``SKCompat(estimator)`` / ``SKCompat(estimator=...)``."""
    if len(call.args) != 1 or call.args[0].star:
        return None
    arg = call.args[0]
    if arg.keyword is None or arg.keyword.value == "estimator":
        return arg.value
    return None


def plan_wrappers(t: Planner, calls: list[cst.Call]) -> None:
    """Each ``SKCompat(e)`` whose estimator is rewritten becomes ``e`` (its calls are planned by ``plan_method``)."""
    for call in calls:
        if not is_skcompat(t, call):
            continue
        inner = wrapped(call)
        est = t._receiver(inner) if inner is not None else None
        if est is None or not est.ok or est.new is None:
            continue  # TFM155 says what to do by hand
        where = _unfollowed_use(t, call)
        if where is not None:
            t.flag(call, TFM119, f"SKCompat(...) is {where}, where tfmigrate cannot follow what is called on it: "
                   "unwrapped, it would be a tf.estimator without fit(x, y)/score/predict(x); rewrite those calls "
                   "by hand (train/evaluate/predict over numpy_input_fn with SKCompat's batch_size=128)")
            continue
        if _defines_helper(t) and any(t.sk_via.get(m) is call for m in _predicts(t, est)):
            t.flag(call, TFM119, f"SKCompat: this module defines its own {HELPER}, the name of the helper "
                   "tfmigrate writes for SKCompat.predict; rename it and run tfmigrate again")
            continue
        what = code_of(inner) if len(code_of(inner)) <= 40 else "estimator"
        if t.fix(call, TFM119, f"SKCompat({what}) -> the estimator itself: its fit/score/predict are "
                 "rewritten with SKCompat's semantics (numpy input functions with its batch_size=128 default, "
                 "shuffled for fit, one epoch for score and predict; predict's result collected into the arrays "
                 "SKCompat returned)"):
            t.replace[call] = t.replace.get(inner, inner)  # the estimator's own rewrite, when it is built here
            t.sk_unwrapped.add(call)
            t.changed = True


def _unfollowed_use(t: Planner, call: cst.Call) -> str | None:
    """Where the wrapper goes when the planner does not follow it there (else None): its methods called on it,
    a name or ``self`` attribute bound to it (their reads are checked, TFM131), a helper's return or a parameter
    whose uses are followed."""
    parent = t._parent(call)
    if isinstance(parent, cst.Attribute) and parent.value is call:
        return None  # SKCompat(e).fit(...)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, (cst.Name, cst.Attribute)):
        return None
    if isinstance(parent, cst.Return):
        return None if parent in getattr(t, "_flow_followed_returns", ()) else "returned by a function"
    if isinstance(parent, cst.Arg):
        return None if parent in getattr(t, "_flow_followed_args", ()) else "passed to a call"
    return "used in an expression"


def _predicts(t: Planner, est: Est) -> list[cst.Call]:
    return [call for owner, call, method in t.methods if owner is est and method == "predict"]


def _defines_helper(t: Planner) -> bool:
    return defines(t.index, HELPER)


def plan_method(t, est: Est, call: cst.Call, method: str) -> None:
    """A method called through an unwrapped SKCompat (``t`` is the planner with its method mixin)."""
    if method == "fit":
        bound = _bind(t, call, FIT, method)
        if bound is not None:
            t._plan_fit(est, t._settings(est), call, False, bound=bound)
    elif method == "score":
        bound = _bind(t, call, SCORE, method)
        if bound is not None:
            t._plan_evaluate(est, call, False, bound=bound)
    elif method == "predict":
        _plan_predict(t, est, call)
    else:
        t.flag(call, TFM119, f"SKCompat.{method}() (scikit-learn's BaseEstimator) has no tf.estimator equivalent: "
               "rewrite it by hand on the estimator")


def _bind(t, call: cst.Call, params: tuple[str, ...], method: str) -> dict[str, cst.BaseExpression] | None:
    bound, problems = bind_args(call, params)
    if problems or "x" not in bound or is_none(bound["x"]):
        t.flag(call, TFM119, f"SKCompat.{method}(): cannot map {', '.join(problems) or 'a call without x'}; "
               f"spell out its arguments ({', '.join(params)}) and run tfmigrate again")
        return None
    bound = {k: v for k, v in bound.items() if not is_none(v)}
    bound.setdefault("batch_size", expression(BATCH))
    return bound


def _plan_predict(t, est: Est, call: cst.Call) -> None:
    bound = _bind(t, call, PREDICT, "predict")
    if bound is None:
        return
    custom = est.custom is not None
    if "outputs" in bound and not custom:
        t.flag(call, TFM119, "SKCompat.predict(outputs=...): the canned estimators' prediction keys changed "
               "(classes is class_ids, scores is predictions); call predict(input_fn=..., predict_keys=[...]) "
               "by hand")
        return
    if not custom and not est.key_matches and not t._is_dict(bound["x"]):
        t.flag(call, TFM119, "SKCompat.predict(x): the feature columns must read the key \"x\"; rewrite by hand")
        return
    args = [kwarg("input_fn", t._input_fn(bound["x"], None, bound["batch_size"], False))]
    if "outputs" in bound:
        args.append(kwarg("predict_keys", bound["outputs"]))
    predict = layout_call(call.with_changes(args=build_call("f", args).args), limit=80, nested=False)
    cls = t._settings(est).cls
    head = None
    if not custom:
        keys = "label_keys" in t._settings(est).args
        head = ("classifier_keys" if keys else "classifier") if cls.classifier else "regressor"
    template = f'{HELPER}(PREDICT, "{head}")' if head else f"{HELPER}(PREDICT)"
    new = expression(template).visit(Substitute({"PREDICT": predict}))
    shape = "a dict of arrays with the legacy keys" if head else "an array (a dict of arrays for dict predictions)"
    if t.fix(call, TFM119, f"SKCompat.predict(x) -> {HELPER}(predict(input_fn=numpy_input_fn(..., batch_size="
             f"{code_of(bound['batch_size'])}, shuffle=False, num_epochs=1))): {shape}, as SKCompat returned"):
        t._apply(call, new)
        t._sk_helper = True


def add_helper(t, module: cst.Module) -> list[str]:
    """``skcompat_predict``'s code when a call uses it (written once after the imports)."""
    return [HELPER_CODE] if getattr(t, "_sk_helper", False) else []
