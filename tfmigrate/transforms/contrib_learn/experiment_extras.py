"""TFM154 additions for the Experiments real programs build (issue 13; called from contrib_learn.py).

- ``eval_metrics={name: metric}`` (each metric a MetricSpec rewritten by TFM173 into a
  ``lambda labels, predictions: ...``) -> the estimator of the returned triple is
  ``tf.estimator.add_metrics(estimator, lambda labels, predictions: {name: metric(labels=labels,
  predictions=predictions) for name, metric in METRICS.items()})``: the same metrics, computed in
  every evaluation of train_and_evaluate.
- ``export_strategies=[tf.estimator.LatestExporter(...)]`` (TFM172) -> ``EvalSpec(exporters=[...])``.
- ``Experiment(..., **experiment_args)`` (Cloud ML trainers pass the command line through): the
  legacy keywords TrainSpec/EvalSpec know are read from the dict with the legacy defaults
  (``experiment_args.get("train_steps")``, ``.get("eval_steps", 100)``, ``.get("eval_delay_secs", 120)``),
  those local train_and_evaluate never used are dropped, and any other key is passed on to EvalSpec,
  which raises TypeError for it, as the legacy Experiment did for an unknown keyword.
- ``learn_runner.run(make_experiment_fn(**args), output_dir)``: an experiment_fn that a module-level
  function returns (``def make(...): def _experiment_fn(output_dir): return Experiment(...); return
  _experiment_fn``) is followed to the nested function.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.transforms.common.builders import code_of

# legacy Experiment keywords read from **kwargs: new place, legacy default (None: not given)
KWARGS_TRAIN = {"train_steps": ("max_steps", None)}
KWARGS_EVAL = {"eval_steps": ("steps", "100"), "eval_delay_secs": ("start_delay_secs", "120")}
KWARGS_UNUSED = ("min_eval_frequency", "continuous_eval_throttle_secs")
EXPORTERS = ("tensorflow.estimator.LatestExporter", "tensorflow.estimator.BestExporter",
             "tensorflow.estimator.FinalExporter", "tensorflow.estimator.Exporter")


def split_kwargs(call: cst.Call) -> tuple[cst.Call, str | None]:
    """The call without one ``**name`` argument, and that name (None when there is none)."""
    stars = [a for a in call.args if a.star == "**"]
    if len(stars) != 1 or not isinstance(stars[0].value, cst.Name):
        return call, None
    return call.with_changes(args=[a for a in call.args if a is not stars[0]]), stars[0].value.value


def problem(transform, key: str, arg: cst.Arg) -> str | None:
    """None when TFM154 can move ``key=`` of the Experiment (else the manual instruction)."""
    value = arg.value
    if key == "eval_metrics":
        if isinstance(value, cst.Dict):
            for element in value.elements:
                if not isinstance(element, cst.DictElement) or not _metric_function(transform, element.value):
                    return ("eval_metrics values must be metric functions of (labels, predictions) (MetricSpec is "
                            "rewritten by TFM173): wrap the estimator with tf.estimator.add_metrics(estimator, metric_fn)")
        return None
    if key == "export_strategies":
        elements = value.elements if isinstance(value, (cst.List, cst.Tuple)) else None
        if elements is None or not all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Call)
            and (transform.qualified_name(e.value.func) or "") in EXPORTERS for e in elements
        ):
            return ("export_strategies become EvalSpec(exporters=[tf.estimator.LatestExporter(name, "
                    "serving_input_receiver_fn)]) (make_export_strategy is rewritten by TFM172); rewrite them by hand")
        return None
    return "unknown"


def _metric_function(transform, value: cst.BaseExpression) -> bool:
    """A (labels, predictions) metric as TFM173 writes it: a lambda, or a name bound once to one (a plain
    contrib streaming function, the 0.x dict form, takes (predictions, labels) and is not rewritten)."""
    if isinstance(value, cst.Lambda):
        return True
    if isinstance(value, cst.Name):
        bound = [v for t, v in transform._target_values.items() if t.value == value.value]
        return len(bound) == 1 and isinstance(bound[0], cst.Lambda)
    return False


def augment(transform, bound: dict[str, cst.Arg], kwargs: str | None, train: list[str], evals: list[str],
            estimator: str) -> str:
    """Complete TrainSpec/EvalSpec arguments in place; the estimator expression of the triple."""
    tf = transform._tf
    if kwargs is not None:
        for legacy, (new, default) in KWARGS_TRAIN.items():
            if legacy not in bound:
                train.append(f'{new}={kwargs}.get("{legacy}"' + (f", {default})" if default else ")"))
        for legacy, (new, default) in KWARGS_EVAL.items():
            if legacy not in bound:
                evals.append(f'{new}={kwargs}.get("{legacy}"' + (f", {default})" if default else ")"))
    bound = {k: a for k, a in bound.items() if not (isinstance(a.value, cst.Name) and a.value.value == "None")}
    if "export_strategies" in bound:
        evals.append(f"exporters={code_of(bound['export_strategies'].value)}")
    if kwargs is not None:
        known = ", ".join(f'"{k}"' for k in (*KWARGS_TRAIN, *KWARGS_EVAL, *KWARGS_UNUSED))
        evals.append(f"**{{k: v for k, v in {kwargs}.items() if k not in ({known})}}")
    if "eval_metrics" in bound:
        metrics = code_of(bound["eval_metrics"].value)
        estimator = (f"{tf}.estimator.add_metrics({estimator}, lambda labels, predictions: {{name: metric(labels=labels, "
                     f"predictions=predictions) for name, metric in ({metrics}).items()}})")
    return estimator


def closure(transform, call: cst.Call) -> cst.FunctionDef | None:
    """``make(...)`` -> the nested def it returns, when ``make`` is a module-level def read only here."""
    if not isinstance(call.func, cst.Name):
        return None
    outer = transform.function(call.func)
    if outer is None or not transform._only_use(outer, call.func):
        return None
    returns = transform.returns(outer)
    if len(returns) != 1 or not isinstance(returns[0].value, cst.Name):
        return None
    name = returns[0].value.value
    inside = lambda node: node is outer or not isinstance(node, (cst.ClassDef, cst.Lambda))  # noqa: E731
    parents = transform.index.parents
    nested = [n for n in iter_nodes(outer, inside, trivia=False) if isinstance(n, cst.FunctionDef) and n is not outer
              and n.name.value == name and parents.get(parents.get(n)) is outer]
    if len(nested) != 1:
        return None
    return nested[0]


def imported_experiment_fn(transform, value: cst.BaseExpression) -> bool:
    """``learn_runner.run(model.experiment_fn, ...)`` with the function imported from another module of the
    program (not TensorFlow, not defined here). tfmigrate rewrites a module-level experiment_fn that
    returns an Experiment to return (estimator, train_spec, eval_spec) (``exported_experiment_fns``), and
    reports it there when it cannot, so the runner becomes train_and_evaluate(*experiment_fn(...))."""
    if not isinstance(value, (cst.Name, cst.Attribute)):
        return False
    name = transform.qualified_name(value)
    if not name or name.startswith(("tensorflow", "builtins")) or "." not in name:
        return False
    if isinstance(value, cst.Name) and transform.function(value) is not None:
        return False
    return True


def exported_experiment_fns(transform) -> None:
    """Module-level ``def f(output_dir): return Experiment(...)`` that nothing in the module reads:
    its runner is in another module (``learn_runner.run(module.f, ...)``); the Experiment becomes the
    (estimator, TrainSpec, EvalSpec) triple, as for a runner in the same module."""
    module = transform._module
    if module is None:
        return
    names = None
    for stmt in module.body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        rets = transform.returns(stmt)
        if len(rets) != 1 or not isinstance(rets[0].value, cst.Call):
            continue
        exp = rets[0].value
        if exp in transform._experiment_calls or transform.legacy(exp.func) != "learn.Experiment":
            continue
        if names is None:
            names = {n.value for n in transform.index.nodes(cst.Name)
                     if not isinstance(transform.index.parents.get(n), cst.FunctionDef)}
        if stmt.name.value in names or len(transform._functions.get(stmt.name.value, [])) != 1:
            continue  # read here: the runner in this module decides
        if transform._experiment_problem(exp):
            continue
        transform._experiment_calls[exp] = rets[0]


def unpacked_value(transform, target: cst.CSTNode | None) -> cst.BaseExpression | None:
    """``a, b = [x, y]`` (or ``(x, y)``): the element bound to the name ``target`` (``b`` -> ``y``)."""
    parents = transform.index.parents
    element = parents.get(target)
    pack = parents.get(element) if isinstance(element, cst.Element) else None
    assign_target = parents.get(pack) if isinstance(pack, (cst.Tuple, cst.List)) else None
    assign = parents.get(assign_target) if isinstance(assign_target, cst.AssignTarget) else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    value = assign.value
    if not isinstance(value, (cst.List, cst.Tuple)) or len(value.elements) != len(pack.elements):
        return None
    if any(isinstance(e, cst.StarredElement) for e in (*value.elements, *pack.elements)):
        return None
    return value.elements[pack.elements.index(element)].value
