"""What a rewritten estimator's inputs become (TFM1): an input_fn returning the bare feature tensor of
a '' column returns {'x': features} (TFM134), a learning rate decayed by global_step becomes a
Keras schedule, MetricSpec metrics become add_metrics functions, and the default rate of a linear
estimator is the legacy one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM134
from tfmigrate.transforms.estimators.flow import _functions, _plain_reference, _returns
from tfmigrate.transforms.common.builders import code_of

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Est, Planner


DECAYS = {  # tf.train.<decay>(learning_rate, global_step, decay_steps, decay_rate, staircase) -> Keras schedule
    "exponential_decay": "ExponentialDecay",
    "inverse_time_decay": "InverseTimeDecay",
}
DECAY_ORDER = ("learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name")


def decay_schedule(t: Planner, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """skflow's ``learning_rate=f`` with ``def f(global_step): return tf.train.exponential_decay(lr, global_step,
    decay_steps, decay_rate, staircase)`` -> ``tf.keras.optimizers.schedules.ExponentialDecay(lr, decay_steps,
    decay_rate, staircase)``: the same formula (lr * rate ** (step / steps)), driven by the optimizer's
    iterations, which the TF 2.15 canned estimators set to the global step. Only numbers as arguments."""
    if not isinstance(value, cst.Name):
        return None
    defs = _functions(t).get(value.value, [])
    if len(defs) != 1 or t._assigned_by_statement(value.value):
        return None
    fn = defs[0]
    params = fn.params
    if len(params.params) != 1 or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.kwonly_params \
            or params.star_kwarg is not None or params.posonly_params:
        return None
    step = params.params[0].name.value
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
    statements = [b for b in body if not (isinstance(b, cst.SimpleStatementLine) and isinstance(b.body[0], cst.Expr)
                                          and isinstance(b.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))]
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    ret = statements[0].body[0]
    if not isinstance(ret, cst.Return) or not isinstance(ret.value, cst.Call):
        return None
    call = ret.value
    name = t.qualified_name(call.func) or ""
    module, _, last = name.rpartition(".")
    if module not in ("tensorflow.train", "tensorflow.compat.v1.train") or last not in DECAYS:
        return None
    bound: dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        key = arg.keyword.value if arg.keyword is not None else (DECAY_ORDER[i] if i < len(DECAY_ORDER) else None)
        if key not in DECAY_ORDER:
            return None
        bound[key] = arg.value
    if not (isinstance(bound.get("global_step"), cst.Name) and bound["global_step"].value == step):
        return None
    for key in ("learning_rate", "decay_steps", "decay_rate"):
        if key not in bound or not t._is_number(bound[key]):
            return None
    staircase = bound.get("staircase", cst.Name("False"))
    if not (isinstance(staircase, cst.Name) and staircase.value in ("True", "False")):
        return None
    return expression(
        f"tf.keras.optimizers.schedules.{DECAYS[last]}({code_of(bound['learning_rate'])}, "
        f"decay_steps={code_of(bound['decay_steps'])}, decay_rate={code_of(bound['decay_rate'])}, "
        f"staircase={staircase.value})"
    )


def metric_specs(t: Planner, value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``evaluate(metrics=M)`` where M is (bound once to) a dict literal of string keys and MetricSpec values
    (rewritten by TFM173 into (labels, predictions) lambdas): M, else None (tuple keys or plain metric
    functions, the 0.x forms, are not rewritten)."""
    target = value
    if isinstance(value, cst.Name):
        found = t._single_assignment(value)
        target = found[1].value if found is not None else None
    if not isinstance(target, cst.Dict) or not target.elements:
        return None
    for element in target.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
            return None
        spec = element.value
        if not (isinstance(spec, cst.Call) and (t.qualified_name(spec.func) or "").startswith("tensorflow.contrib.learn.")
                and (t.qualified_name(spec.func) or "").endswith("MetricSpec")):
            return None
    return value


def feature_dict_input_fns(t: Planner, methods: list) -> None:
    """TFM134, input functions of rewritten contrib.learn estimators:

    - one that returns the bare feature tensor (``return x, y``; ``return x``) for columns that read the
      unnamed feature "" (real_valued_column("", ...), inferred columns): the legacy estimator wrapped it
      as {"": x}; the rewritten columns read "x" and TF 2.15's canned estimators take only a dict, so the
      returns become ``{"x": x}, y`` / ``{"x": x}``;
    - one that only predict() reads and that returns constants (numpy arrays, tf.constant): the legacy
      predict ran a constant input once (``_is_input_constant``), TF 2's loops until the input ends, which a
      constant never does, so it returns ``tf.data.Dataset.from_tensors(features)``: one batch.

    Only when every read of the function is such an input_fn; otherwise a finding on the line."""
    users: dict[int, tuple[cst.FunctionDef, list]] = {}
    kinds: dict[int, set[str]] = {}
    bare: dict[int, bool] = {}
    for est, call, method in methods:
        base = est.source or est
        if est.new is None or method == "save" or est.cls.era != "learn":
            continue
        empty_key = bool(getattr(base, "empty_key", False) or est.empty_key)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "input_fn" and isinstance(arg.value, cst.Name):
                fn = _local_def(t, arg.value)
                if fn is None:
                    if empty_key:
                        t.flag(arg.value, TFM134, _input_fn_message(arg.value.value))
                    continue
                users.setdefault(id(fn), (fn, []))[1].append(arg.value)
                kinds.setdefault(id(fn), set()).add("predict" if method.startswith("predict") else "train")
                bare[id(fn)] = bare.get(id(fn), False) or empty_key
    for fn, reads in users.values():
        predict_only = kinds.get(id(fn)) == {"predict"}
        empty_key = bare[id(fn)]
        plan: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
        problem = None
        for ret in _returns(fn):
            value = ret.value
            pair = isinstance(value, cst.Tuple) and len(value.elements) == 2
            features = value.elements[0].value if pair else value
            is_dict = isinstance(features, (cst.Dict, cst.DictComp))
            constant = predict_only and (_constant(t, features) or (isinstance(features, cst.Dict) and all(
                isinstance(e, cst.DictElement) and _constant(t, e.value) for e in features.elements)))
            if is_dict and not constant:
                continue
            if not is_dict and not empty_key and not constant:
                continue
            if not isinstance(features, (cst.Name, cst.Call, cst.Attribute, cst.Dict)):
                problem = ret
                break
            new: cst.BaseExpression = features.deep_clone() if is_dict else cst.Dict(
                [cst.DictElement(cst.SimpleString('"x"'), features.deep_clone())])
            if constant:
                if pair:
                    problem = ret
                    break
                new = expression("tf.data.Dataset.from_tensors(X)").with_changes(args=[cst.Arg(value=new)])
            plan.append((features, new))
        if not plan and problem is None:
            continue
        all_reads = _reads(t, fn)
        if problem is not None or all_reads is None or {id(r) for r in all_reads} != {id(r) for r in reads}:
            where = problem if problem is not None else reads[0]
            t.flag(where, TFM134, _input_fn_message(fn.name.value) + (
                "" if problem is not None else " (the function is used elsewhere too)"))
            continue
        if t.fix(fn, TFM134, f"{fn.name.value}(): " + "; ".join(sorted({
                "returns {\"x\": features}: the legacy estimator fed a bare feature tensor to its unnamed column "
                "\"\", the rewritten column reads \"x\" and TF 2 takes a dict" if not isinstance(f, cst.Dict) else
                "" for f, _ in plan} | {
                "a constant predict input is one element of tf.data.Dataset.from_tensors (the legacy predict ran it "
                "once; TF 2 would repeat it forever)" for _, n in plan if isinstance(n, cst.Call)} - {""}))):
            for node, new in plan:
                t.replace[node] = new
            t.changed = True


def _constant(t: Planner, value: cst.BaseExpression, depth: int = 0) -> bool:
    """A value that is the same on every run of the input function: a numpy array or tf.constant."""
    if isinstance(value, cst.Name) and depth < 3:
        found = t._single_assignment(value)
        return found is not None and _constant(t, found[1].value, depth + 1)
    if isinstance(value, cst.Call):
        name = t.qualified_name(value.func) or ""
        return name.startswith("numpy.") or name in ("tensorflow.constant", "tensorflow.convert_to_tensor")
    return False


def _input_fn_message(name: str) -> str:
    return (f"input_fn={name}: the rewritten feature column reads the key \"x\" and TF 2.15's canned estimators take "
            "features as a dict: make the input function return ({\"x\": features}, labels) (or {\"x\": features})")


def _local_def(t: Planner, name: cst.Name) -> cst.FunctionDef | None:
    scope = t.scopes.scope_of(name)
    assignments = list(scope[name.value]) if scope is not None else []
    if len(assignments) != 1:
        return None
    node = getattr(assignments[0], "node", None)
    return node if isinstance(node, cst.FunctionDef) else None


def _reads(t: Planner, fn: cst.FunctionDef) -> list[cst.CSTNode] | None:
    scope = t.scopes.scope_of(fn)
    if scope is None:
        return None
    for assignment in scope[fn.name.value]:
        if getattr(assignment, "node", None) is fn:
            return [access.node for access in assignment.references]
    return None


def linear_default_rate(t: Planner, est: Est, columns: cst.BaseExpression | None, code) -> str | None:
    """The legacy default Ftrl rate of a contrib.learn Linear* when TF 2.15's differs or may differ: None when
    it is provably the same (at most 25 columns: min(0.2, 1/sqrt(n)) = 0.2, TF 2.15's rate), a number for a
    visible count above 25, an expression over the columns' name when the count is not visible, "unknown"
    when not even that can be written."""
    if columns is None or est.empty_key:
        return None  # inferred / "" columns: one column
    target = columns
    if isinstance(columns, cst.Name):
        found = t._single_assignment(columns)
        if found is not None:
            target = found[1].value
    if isinstance(target, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement) for e in target.elements):
        n = len(target.elements)
        return None if n <= 25 else repr(round(1.0 / n ** 0.5, 12))
    if isinstance(target, cst.Call) and (t.qualified_name(target.func) or "").endswith("infer_real_valued_columns_from_input"):
        return None
    if _plain_reference(columns):
        return f"min(0.2, 1.0 / len({code(columns)}) ** 0.5)"
    return "unknown"
