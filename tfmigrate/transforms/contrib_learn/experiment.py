"""TFM154: tf.contrib.learn.Experiment run by learn_runner.run -> tf.estimator.train_and_evaluate (the
local train_and_evaluate schedule; experiment_fn's Experiment becomes the estimator, TrainSpec and
EvalSpec it returns); why a runner is left as it is when it is.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import attribute_or_keyword, join_args
from tfmigrate.rule_ids import TFM154
from tfmigrate.transforms.contrib_learn import experiment_extras as extras
from tfmigrate.transforms.common.builders import is_none, str_value
from tfmigrate.transforms.common.learn_names import (
    EXPERIMENT_LOCAL_UNUSED, EXPERIMENT_MAPPED, EXPERIMENT_ORDER, RUNNER_ORDER, Unsupported, _new_arg, bind,
)


class ExperimentRunner:
    """A mixin of :class:`~tfmigrate.transforms.contrib_learn.transform.ContribLearnTransform` (the libcst hooks stay there)."""

    # --- TFM154 Experiment + learn_runner.run -------------------------------------------------------
    def _experiment_problem(self, call: cst.Call) -> str | None:
        call, _ = extras.split_kwargs(call)  # Experiment(..., **experiment_args): experiment_extras.py
        try:
            bound = bind(call, EXPERIMENT_ORDER)
        except Unsupported as exc:
            return exc.args[0]
        names = {k for k, _ in bound}
        if not {"estimator", "train_input_fn", "eval_input_fn"} <= names:
            return "estimator, train_input_fn and eval_input_fn are required"
        for k, a in bound:
            if k in EXPERIMENT_MAPPED or k in EXPERIMENT_LOCAL_UNUSED or is_none(a.value):
                continue
            if k in ("eval_metrics", "export_strategies") and extras.problem(self, k, a) is None:
                continue
            if k == "eval_metrics":
                return ("eval_metrics has no TrainSpec/EvalSpec place: wrap the estimator with "
                        "tf.estimator.add_metrics(estimator, metric_fn) and drop eval_metrics")
            if k == "train_monitors":
                return ("train_monitors are legacy monitors: turn them into tf.estimator.SessionRunHook objects "
                        "and pass them as TrainSpec(hooks=[...])")
            if k == "export_strategies":
                return ("export_strategies become EvalSpec(exporters=[tf.estimator.LatestExporter(name, "
                        "serving_input_receiver_fn)]); rewrite them by hand")
            if k == "local_eval_frequency":
                return "local_eval_frequency: evaluation now follows checkpoints; set EvalSpec(throttle_secs=...)"
            return f"{k} has no tf.estimator.train_and_evaluate equivalent; remove it or express it by hand"
        return None

    def _plan_runner(self, call: cst.Call) -> None:
        try:
            bound = dict(bind(call, RUNNER_ORDER))
        except Unsupported:
            return
        schedule = bound.get("schedule")
        if schedule is not None and not is_none(schedule.value) and str_value(schedule.value) != "train_and_evaluate":
            return
        fn_arg = bound.get("experiment_fn")
        if fn_arg is not None and extras.imported_experiment_fn(self, fn_arg.value):
            self._runner_calls.add(call)  # run(model.experiment_fn, ...): rewritten in its own module
            return
        if fn_arg is not None and isinstance(fn_arg.value, cst.Call):
            fn = extras.closure(self, fn_arg.value)  # run(make_experiment_fn(**args), output_dir)
            if fn is None:
                return
        else:
            fn = self.function(fn_arg.value) if fn_arg else None
            if fn is None or not isinstance(fn_arg.value, cst.Name):
                return
            if not self._only_use(fn, fn_arg.value):
                return
        rets = self.returns(fn)
        if len(rets) != 1 or not isinstance(rets[0].value, cst.Call):
            return
        exp = rets[0].value
        if self.legacy(exp.func) != "learn.Experiment" or self._experiment_problem(exp):
            return
        self._experiment_calls[exp] = rets[0]
        self._runner_calls.add(call)

    def _only_use(self, fn: cst.FunctionDef, use: cst.Name) -> bool:
        """``fn`` is bound once in its scope and read only by ``use`` (the runner's argument).

        Answered from the index when the name is bound by this def alone and read once, by
        ``use``, after the def; otherwise by libcst's references."""
        name = fn.name.value
        scopes = self.scopes
        if scopes.plain(name) and scopes.bindings(name) == [fn]:
            reads = [
                n for n in self.index.nodes(cst.Name)
                if n.value == name and n is not fn.name and not attribute_or_keyword(n, self.index.parents.get(n))
            ]
            if reads == [use] and any(a.node is fn for a in scopes.scope_of(use)[name]):
                same_scope = scopes.scope_of(use) is scopes.scope_of(fn)
                if not same_scope or self.index.positions[fn].start.line < self.index.positions[use].start.line:
                    return True
        scope = self.scopes.scope_of(fn)
        if scope is None:
            return False
        references = [r for a in scope.assignments[name] for r in a.references]
        return len(scope.assignments[name]) == 1 and len(references) == 1  # used by this call only

    def _experiment(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if original in self._experiment_calls:
            return updated  # rewritten with its Return statement
        problem = self._experiment_problem(original)
        raise Unsupported(
            (problem + "; then: " if problem else "")
            + "replace the Experiment with tf.estimator.train_and_evaluate(estimator, "
            "tf.estimator.TrainSpec(train_input_fn, max_steps=train_steps), "
            "tf.estimator.EvalSpec(eval_input_fn, steps=eval_steps)) where the experiment is run "
            "(only `learn_runner.run(experiment_fn, ...)` with a module-level experiment_fn that returns the "
            "Experiment is rewritten automatically)"
        )

    def _runner(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if original not in self._runner_calls:
            raise Unsupported(
                "not rewritten automatically (schedule other than 'train_and_evaluate', an experiment_fn that is "
                "not a module-level function returning Experiment(...) and used only here, or an Experiment with "
                "arguments that need manual work): build estimator, TrainSpec and EvalSpec and call "
                "tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)"
            )
        bound = dict(bind(updated, RUNNER_ORDER))
        fn = bound["experiment_fn"].value
        if "run_config" in bound and not is_none(bound["run_config"].value):
            hparams = bound["hparams"].value if "hparams" in bound else cst.Name("None")
            call_args = [_new_arg("run_config", bound["run_config"].value), _new_arg("hparams", hparams)]
        elif "output_dir" in bound:
            call_args = [_new_arg("output_dir", bound["output_dir"].value)]
        else:
            raise Unsupported("neither output_dir nor run_config is passed (legacy raised ValueError)")
        if not self.fix(
            original, TFM154,
            "learn_runner.run(experiment_fn, ...) is tf.estimator.train_and_evaluate(*experiment_fn(...)); it "
            "calls experiment_fn with the same keyword arguments and returns (eval_result, export_results)",
        ):
            return updated
        self.drop_import_of(original.func)
        inner = cst.Call(func=fn, args=join_args(call_args))
        return updated.with_changes(
            func=self.tf("estimator.train_and_evaluate"),
            args=[cst.Arg(value=inner, star="*")],
        )
