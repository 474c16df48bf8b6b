"""TFM130: ``fit(monitors=[...])`` of a contrib.learn estimator -> ``train(hooks=[...])`` (TF 2.15).

Called by the TFM1 planner (``EstimatorTransform._plan_fit``) for the ``monitors`` argument of a
``fit`` it rewrites. A legacy monitor got its estimator from ``fit`` (``set_estimator``); a TF 2.15
hook that needs the estimator must be built where ``train`` is called, so the monitor's constructor
moves into the ``hooks`` list (and its ``name = Monitor(...)`` statement goes) when that is provably
the same value: the monitor is bound once, read only by this ``fit``, and its arguments hold the same
values there.

``learn.monitors.ValidationMonitor(x, y, input_fn, batch_size, eval_steps, every_n_steps=100, metrics,
hooks, early_stopping_rounds, early_stopping_metric="loss", early_stopping_metric_minimize=True, name,
check_interval_secs=5)`` (tensorflow/contrib/learn/python/learn/monitors.py, TF 1.x) evaluated the
estimator on (x, y) every ``every_n_steps`` and stopped training when the metric had not improved
for ``early_stopping_rounds`` steps. TF 2.15 has both halves:
``tf.estimator.experimental.InMemoryEvaluatorHook(estimator, input_fn, steps, hooks, name,
every_n_iter)`` (it needs a ``tf.data`` input: a queue-based numpy_input_fn evaluates nothing after
its first run, measured) and ``tf.estimator.experimental.stop_if_no_decrease_hook`` /
``stop_if_no_increase_hook(estimator, metric_name, max_steps_without_decrease, run_every_secs=None,
run_every_steps=N)``, which reads the evaluations that hook writes to ``estimator.eval_dir(name)``.
``StopAtStep(num_steps, last_step)`` is ``tf.estimator.StopAtStepHook(num_steps, last_step)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.rule_ids import TFM130
from tfmigrate.transforms.common.builders import code_of, is_none, layout_call

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Est, Planner

VALIDATION_ORDER = ("x", "y", "input_fn", "batch_size")  # stable in every TF 1.x release; the rest by keyword
VALIDATION_KEYWORDS = {
    "x", "y", "input_fn", "batch_size", "eval_steps", "every_n_steps", "metrics", "hooks", "early_stopping_rounds",
    "early_stopping_metric", "early_stopping_metric_minimize", "name", "check_interval_secs",
}
STOP_AT_STEP_ORDER = ("num_steps", "last_step")
NUMPY_INPUT_FN_ORDER = ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads")  # TF 1.x


def monitor_kind(t: Planner, call: cst.Call) -> str | None:
    """``ValidationMonitor`` / ``StopAtStep`` / another monitor's class name, for a contrib.learn monitor."""
    name = t.qualified_name(call.func) or ""
    if not name.startswith(("tensorflow.contrib.learn.", "tensorflow.contrib.skflow.")):  # skflow: TF 0.9-0.11's alias
        return None
    module, _, last = name.rpartition(".")
    if module.endswith("monitors") or module.endswith("monitors_lib"):
        return last
    return None


class Converter:
    """Plans the ``hooks=`` list for one ``fit(monitors=...)``; None + a finding when it cannot."""

    def __init__(self, t: Planner, est: Est, fit: cst.Call) -> None:
        self.t, self.est, self.fit = t, est, fit
        self.removals: list[cst.CSTNode] = []
        self.notes: list[str] = []

    def hooks(self, monitors: cst.BaseExpression) -> cst.BaseExpression | None:
        if is_none(monitors):
            return None
        elements = monitors
        if isinstance(monitors, cst.Name):
            found = self.t._single_assignment(monitors)
            if found is None or not isinstance(found[1].value, (cst.List, cst.Tuple)):
                return self._manual(monitors, "monitors= is not a list this rewrite can follow")
            if len(found[0].references) != 1:
                return self._manual(monitors, f"the list {monitors.value} is used elsewhere too")
            elements = found[1].value
            self.removals.append(self.t._parent(found[1]))
        if not isinstance(elements, (cst.List, cst.Tuple)):
            return self._manual(monitors, "monitors= is not a list this rewrite can follow")
        new: list[cst.BaseExpression] = []
        for element in elements.elements:
            if isinstance(element, cst.StarredElement):
                return self._manual(element, "a starred monitor list")
            converted = self._one(element.value)
            if converted is None:
                return None
            new.extend(converted)
        return _list(new)

    def _manual(self, node: cst.CSTNode, why: str) -> None:
        self.t.flag(self.fit, TFM130, f"fit(monitors=...): {why}; turn the contrib.learn monitors into "
                    "tf.estimator hooks by hand (ValidationMonitor: tf.estimator.experimental.InMemoryEvaluatorHook("
                    "estimator, input_fn of a tf.data.Dataset, every_n_iter=...) plus, for early stopping, "
                    "tf.estimator.experimental.stop_if_no_decrease_hook(estimator, 'loss', rounds, run_every_secs=None, "
                    "run_every_steps=...)) and pass them as train(hooks=[...])")
        return None

    def _one(self, value: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        call = value
        if isinstance(value, cst.Name):
            found = self.t._single_assignment(value)
            if found is None or not isinstance(found[1].value, cst.Call):
                if self._is_hook(value):
                    return [value]
                return self._manual(value, f"{value.value} is not bound once to a monitor this rewrite can follow")
            assignment, assign = found
            call = assign.value
            kind = monitor_kind(self.t, call)
            if kind is None:
                return [value] if self._is_hook(call) else self._manual(value, f"{value.value} is not a known monitor")
            if len(assignment.references) != 1:
                return self._manual(value, f"the monitor {value.value} is read elsewhere too (a hook needs the "
                                    "estimator where train() is called)")
            statement = self.t._parent(assign)
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                return self._manual(value, f"the monitor {value.value} is built inside a compound statement")
            if not self._same_values(call, self.t._line(assign)):
                return self._manual(value, f"the arguments of {value.value} may change between its construction "
                                    "and fit()")
            self.removals.append(statement)
        elif isinstance(value, cst.Call):
            kind = monitor_kind(self.t, value)
            if kind is None:
                return [value] if self._is_hook(value) else self._manual(value, f"{code_of(value.func)} is not a known monitor")
        else:
            return self._manual(value, "a monitor this rewrite can follow")
        assert isinstance(call, cst.Call)
        if kind == "ValidationMonitor":
            return self._validation(call)
        if kind == "StopAtStep":
            return self._stop_at_step(call)
        return self._manual(call, f"monitors.{kind} has no automatic rewrite")

    def _is_hook(self, node: cst.BaseExpression) -> bool:
        name = self.t.qualified_name(node.func if isinstance(node, cst.Call) else node) or ""
        return name.startswith(("tensorflow.train.", "tensorflow.estimator.", "tensorflow.compat.v1.train.")) and \
            name.endswith("Hook")

    def _same_values(self, call: cst.Call, line: int) -> bool:
        """Every name the monitor's arguments read holds the same value where fit() runs: none is
        assigned between the monitor's line and the fit's."""
        fit_line = self.t._line(self.fit)
        for name in _names(call.args):
            scope = self.t.scopes.scope_of(name)
            if scope is None:
                return False
            for assignment in scope[name.value]:
                node = getattr(assignment, "node", None)
                if node is None:
                    return False
                if line < self.t._line(node) <= fit_line:
                    return False
        return True

    def _bind(self, call: cst.Call, order: tuple[str, ...], keywords: set[str]) -> dict[str, cst.BaseExpression] | None:
        bound: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            if arg.star:
                return self._manual(call, "a monitor built with *args/**kwargs")
            if arg.keyword is None:
                if i >= len(order):
                    return self._manual(call, f"positional argument {i + 1} of the monitor differs between TF 1.x "
                                        "releases; pass it by keyword")
                bound[order[i]] = arg.value
            elif arg.keyword.value in keywords:
                bound[arg.keyword.value] = arg.value
            else:
                return self._manual(call, f"{arg.keyword.value}= is not an argument of the monitor")
        return {k: v for k, v in bound.items() if not is_none(v)}

    def _receiver(self) -> str | None:
        receiver = self.fit.func.value  # type: ignore[attr-defined]
        if isinstance(receiver, cst.Name) or (
            isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)
        ):
            return code_of(receiver)
        return None

    def _validation(self, call: cst.Call) -> list[cst.BaseExpression] | None:
        a = self._bind(call, VALIDATION_ORDER, VALIDATION_KEYWORDS)
        if a is None:
            return None
        estimator = self._receiver()
        if estimator is None:
            return self._manual(call, "the estimator is not a plain name (a hook needs it by name)")
        evaluated = estimator
        if "metrics" in a:
            from tfmigrate.transforms.estimators.inputs import metric_specs  # (it imports the planner's helpers)

            metrics = metric_specs(self.t, a["metrics"])
            if metrics is None:
                return self._manual(call, "ValidationMonitor(metrics=...) other than a dict of MetricSpec: add the "
                                    "metrics with tf.estimator.add_metrics(estimator, metric_fn)")
            evaluated = (f"tf.estimator.add_metrics({estimator}, lambda labels, predictions: {{name: metric(labels="
                         f"labels, predictions=predictions) for name, metric in ({code_of(metrics)}).items()}})")
            self.notes.append("metrics={name: MetricSpec} evaluated through tf.estimator.add_metrics (TFM173 rewrites "
                              "each MetricSpec)")
        t = self.t
        if "input_fn" in a:
            input_fn = self._dataset_input_fn(a["input_fn"])
            if input_fn is None:
                return self._manual(call, "ValidationMonitor(input_fn=...): InMemoryEvaluatorHook needs an input_fn "
                                    "that returns a tf.data.Dataset (queue-based inputs evaluate nothing after the "
                                    "first run), and this one is neither a numpy_input_fn(..., num_epochs=1) nor a "
                                    "function of this module that visibly returns a Dataset")
        elif "x" not in a:
            return self._manual(call, "ValidationMonitor without x= or input_fn=")
        else:
            input_fn = self._array_input_fn(call, a)
            if input_fn is None:
                return None
        every = code_of(a["every_n_steps"]) if "every_n_steps" in a else "100"
        args = [evaluated, input_fn]
        for legacy, new in (("eval_steps", "steps"), ("hooks", "hooks"), ("name", "name")):
            if legacy in a:
                args.append(f"{new}={code_of(a[legacy])}")
        args.append(f"every_n_iter={every}")
        hooks = [expression(f"tf.estimator.experimental.InMemoryEvaluatorHook({', '.join(args)})")]
        self.notes.append(f"ValidationMonitor -> InMemoryEvaluatorHook(every_n_iter={every}) on the current weights "
                          "(the legacy monitor evaluated the latest checkpoint, at most every check_interval_secs)")
        if "early_stopping_rounds" in a:
            minimize = a.get("early_stopping_metric_minimize")
            if minimize is not None and not (isinstance(minimize, cst.Name) and minimize.value in ("True", "False")):
                return self._manual(call, "early_stopping_metric_minimize is not a literal")
            which = "increase" if isinstance(minimize, cst.Name) and minimize.value == "False" else "decrease"
            metric = code_of(a["early_stopping_metric"]) if "early_stopping_metric" in a else '"loss"'
            name = f", eval_dir={estimator}.eval_dir({code_of(a['name'])})" if "name" in a else ""
            hooks.append(expression(
                f"tf.estimator.experimental.stop_if_no_{which}_hook({estimator}, {metric}, "
                f"{code_of(a['early_stopping_rounds'])}{name}, run_every_secs=None, run_every_steps={every})"
            ))
            self.notes.append(f"early stopping -> stop_if_no_{which}_hook over those evaluations (it reads every "
                              "evaluation in the estimator's eval directory: clean model_dir between runs as the "
                              "legacy program's own best value started afresh with each fit)")
        return hooks

    def _array_input_fn(self, call: cst.Call, a: dict[str, cst.BaseExpression]) -> str | None:
        """The evaluation input of ``ValidationMonitor(x, y, batch_size)``: a tf.data pipeline over the same
        arrays, the whole data set as one batch without batch_size (the legacy evaluate(x, y) fed it so)."""
        t = self.t
        base = self.est.source or self.est
        raw = self.est.custom is not None  # a custom model_fn reads the features as fit() got them (TFM114)
        if not (raw or self.est.key_matches or base.key_matches or t._is_dict(a["x"])):
            return self._manual(call, "ValidationMonitor(x=...): the feature columns do not read the key \"x\" that "
                                "the rewritten input feeds")
        x = t._as_array(a["x"])
        features = code_of(x) if raw or t._is_dict(a["x"]) else f'{{"x": {code_of(x)}}}'
        parts = [features]
        if "y" in a:
            y = t._as_array(a["y"])
            labels = code_of(y)
            if self.est.cls.classifier and not t._is_int(a["y"]):
                labels = f"np.asarray({labels}, dtype=np.int64)"
                t.need_np = True
            parts.append(labels)
        data = f"({', '.join(parts)},)" if len(parts) == 1 else f"({', '.join(parts)})"
        batch = code_of(a["batch_size"]) if "batch_size" in a else f"len({code_of(x)})"
        return f"lambda: tf.data.Dataset.from_tensor_slices({data}).batch({batch})"

    def _dataset_input_fn(self, input_fn: cst.BaseExpression) -> str | None:
        """``ValidationMonitor(input_fn=...)`` as an input the hook can evaluate again and again: a
        ``numpy_input_fn(x, y, batch_size, num_epochs=1)`` (learn.io or tf.estimator.inputs) becomes the same
        batches from tf.data, and a function of this module whose every return is a tf.data Dataset is kept."""
        t = self.t
        if isinstance(input_fn, cst.Call):
            name = t.qualified_name(input_fn.func) or ""
            if name.rpartition(".")[2] != "numpy_input_fn" or not name.startswith(
                    ("tensorflow.contrib.learn.", "tensorflow.estimator.inputs.", "tensorflow.compat.v1.estimator.inputs.")):
                return None
            bound = self._bind_quiet(input_fn, NUMPY_INPUT_FN_ORDER)
            if bound is None or "x" not in bound or "y" not in bound:
                return None
            epochs = bound.get("num_epochs")
            if epochs is not None and code_of(epochs) != "1":
                return None  # another epoch count never ends the evaluation or repeats it
            x, y = bound["x"], bound["y"]
            batch = code_of(bound["batch_size"]) if "batch_size" in bound else "128"  # numpy_input_fn's default
            self.notes.append("ValidationMonitor(input_fn=numpy_input_fn(...)) evaluates the same batches from "
                              "tf.data (a queue-based input evaluates nothing after the hook's first run)")
            return f"lambda: tf.data.Dataset.from_tensor_slices(({code_of(x)}, {code_of(y)})).batch({batch})"
        if isinstance(input_fn, cst.Name):
            fns = [d for d in t.index.nodes(cst.FunctionDef) if d.name.value == input_fn.value]
            if len(fns) == 1 and isinstance(t._parent(fns[0]), cst.Module) and self._returns_dataset(fns[0]):
                return input_fn.value
        return None

    def _bind_quiet(self, call: cst.Call, order: tuple[str, ...]) -> dict[str, cst.BaseExpression] | None:
        bound: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            if arg.star or (arg.keyword is None and i >= len(order)):
                return None
            bound[order[i] if arg.keyword is None else arg.keyword.value] = arg.value
        return {k: v for k, v in bound.items() if not is_none(v)}

    def _returns_dataset(self, fn: cst.FunctionDef) -> bool:
        """Every ``return`` of ``fn`` gives a tf.data Dataset: a chain of calls from ``tf.data.*``, or a name
        assigned only such chains in ``fn``."""
        inside = lambda node: node is fn or not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))  # noqa: E731
        nodes = list(iter_nodes(fn, inside, trivia=False))
        returns = [n for n in nodes if isinstance(n, cst.Return)]
        assigned: dict[str, list[cst.BaseExpression]] = {}
        for node in nodes:
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        assigned.setdefault(target.target.value, []).append(node.value)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
                assigned.setdefault(node.target.value, []).append(cst.Name("None"))

        def dataset(expr: cst.BaseExpression | None, depth: int = 0) -> bool:
            if expr is None or depth > 8:
                return False
            if isinstance(expr, cst.Name):
                values = assigned.get(expr.value, [])
                return bool(values) and all(dataset(v, depth + 1) for v in values)
            while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
                name = self.t.qualified_name(expr.func) or ""
                if name.startswith("tensorflow.data."):
                    return True
                expr = expr.func.value  # dataset.map(...).batch(...): its receiver
            if isinstance(expr, cst.Name):
                return dataset(expr, depth + 1)
            return isinstance(expr, cst.Call) and (self.t.qualified_name(expr.func) or "").startswith("tensorflow.data.")

        return bool(returns) and all(dataset(r.value) for r in returns)

    def _stop_at_step(self, call: cst.Call) -> list[cst.BaseExpression] | None:
        a = self._bind(call, STOP_AT_STEP_ORDER, set(STOP_AT_STEP_ORDER))
        if a is None:
            return None
        args = ", ".join(f"{k}={code_of(v)}" for k, v in a.items())
        self.notes.append("StopAtStep -> tf.estimator.StopAtStepHook")
        return [expression(f"tf.estimator.StopAtStepHook({args})")]


def _names(args) -> list[cst.Name]:
    """The names the arguments read (not attribute names or keywords)."""
    found: list[cst.Name] = []
    for arg in args:
        for node in iter_nodes(arg.value, lambda n: not isinstance(n, cst.Attribute), trivia=False):
            if isinstance(node, cst.Attribute):
                root = node
                while isinstance(root, cst.Attribute):
                    root = root.value
                node = root
            if isinstance(node, cst.Name) and node.value not in ("True", "False", "None"):
                found.append(node)
    return found


def _list(items: list[cst.BaseExpression]) -> cst.List:
    """``[a, b]``; one item a line (inside an argument of a call laid out one argument a line) when long."""
    if sum(len(code_of(item)) for item in items) <= 60:
        elements = []
        for i, item in enumerate(items):
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(items) - 1 else cst.MaybeSentinel.DEFAULT
            elements.append(cst.Element(value=item, comma=comma))
        return cst.List(elements=elements)

    def newline(indent: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(
            first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True, last_line=cst.SimpleWhitespace(indent)
        )

    items = [layout_call(item, depth=3, limit=92) if isinstance(item, cst.Call) else item for item in items]
    elements = [
        cst.Element(value=item, comma=cst.Comma(whitespace_after=newline("    " if i == len(items) - 1 else "        ")))
        for i, item in enumerate(items)
    ]
    return cst.List(elements=elements, lbracket=cst.LeftSquareBracket(whitespace_after=newline("        ")))
