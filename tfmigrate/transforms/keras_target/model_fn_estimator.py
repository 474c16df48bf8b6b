"""TFM707's part of the keras_target transform (a mixin): ``tf.estimator.Estimator(model_fn=F, ...)`` becomes
``FKerasClass(model_dir=..., params=..., config=dict(...))`` where :mod:`model_fn_lower` lowers ``F``; the
construction is then bound as a canned one is (its train/evaluate/predict become fit/evaluate/
model_fn_predictions, TFM702/TFM703). Where it cannot, the pieces that stop it go into TFM705's message.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.rule_ids import TFM707
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.keras_target.model_fn_lower import ESTIMATOR_PARAMS, Blocked, ModelFnLowering, Plan, _bind, build_class

RUN_CONFIG_OK = ("model_dir", "config", "params")


def taken_names(t: FamilyTransform) -> set[str]:
    return {n.value for n in t.index.nodes(cst.Name)}


def plan_model_fn(t: FamilyTransform, call: cst.Call) -> tuple[Plan | None, str | None]:
    """The plan of the model_fn of an Estimator construction, or why it cannot be lowered."""
    try:
        args = _bind(call, ESTIMATOR_PARAMS)
        extra = [k for k in args if k not in ("model_fn", *RUN_CONFIG_OK)]
        if extra:
            raise Blocked(f"Estimator({', '.join(k + '=' for k in extra)})")
        return ModelFnLowering(t, call, taken_names(t)).plan(), None
    except Blocked as blocked:
        return None, str(blocked)


class ModelFnEstimators:
    """The mixin: the transform's state it reads is KerasTargetTransform's (table, used, custom, ...)."""

    model_fn_bound: set[cst.CSTNode]
    model_fn_blocked: dict[int, str]
    model_fn_plans: dict[int, Plan]

    def _model_fn_estimator(self, call: cst.Call) -> bool:
        """Lowers ``Estimator(model_fn=...)``; False (the reason kept for TFM705) where it cannot."""
        t = self  # type: ignore[assignment]
        plan, why = plan_model_fn(t, call)  # type: ignore[arg-type]
        args = _bind(call, ESTIMATOR_PARAMS) if plan is not None else {}
        config_plan: dict[int, object] = {}
        if plan is not None and "config" in args and code_of(args["config"].value) != "None":
            config_plan, why = t._config(args["config"].value)  # type: ignore[attr-defined]
            if why:
                plan = None
        if plan is None:
            self.model_fn_blocked[id(call)] = why or ""
            return False
        message = (f"tf.estimator.Estimator(model_fn={plan.fn.name.value}) is a Keras model: {plan.fn.name.value} "
                   f"becomes the class {plan.class_name}(ModelFnModel), its layers ({', '.join(plan.layers) or 'none'}), "
                   f"metrics and optimizer ({plan.optimizer}) created once, its body the method model_fn run by fit/"
                   f"evaluate/predict in the Estimator's modes; {_listed(['summaries', *sorted(plan.dropped), 'export_outputs'])} "
                   "in it are dropped")
        if not t.fix(call, TFM707, message):  # type: ignore[attr-defined]
            self.model_fn_blocked[id(call)] = "the fix is not enabled here"
            return False
        fn_id = id(plan.fn)
        if fn_id not in self.model_fn_plans:
            self.model_fn_plans[fn_id] = plan
            t.table.update(plan.table)  # type: ignore[attr-defined]
            indent = t.index.module.default_indent  # type: ignore[attr-defined]
            t.table[fn_id] = lambda updated: build_class(plan, updated, indent)  # type: ignore[attr-defined]
            for reader in plan.readers:  # import tf_slim / from tensorflow import layers: gone once unread
                t.imports.remove_by_node(reader, t.index)  # type: ignore[attr-defined]
        plan = self.model_fn_plans[fn_id]
        t.table.update(config_plan)  # type: ignore[attr-defined]
        t.used.update(plan.helpers)  # type: ignore[attr-defined]
        t.lowered.add(id(call))  # type: ignore[attr-defined]
        t.context.facts.add("keras_program")  # type: ignore[attr-defined]
        class_name = plan.class_name

        def construct(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            now = _bind(updated, ESTIMATOR_PARAMS)
            parts = [f"{k}={code_of(a.value)}" for k, a in now.items() if k != "model_fn"]
            multiline = "\n" in code_of(updated)
            if multiline and parts:
                return cst.parse_expression(f"{class_name}(\n" + "".join(f"    {p},\n" for p in parts) + ")")
            return cst.parse_expression(f"{class_name}({', '.join(parts)})")

        t.table[id(call)] = construct  # type: ignore[attr-defined]
        before = set(t.bound)  # type: ignore[attr-defined]
        t._bind(call)  # type: ignore[attr-defined]
        self.model_fn_bound |= set(t.bound) - before  # type: ignore[attr-defined]
        return True

    @property
    def model_fn_names(self) -> set[str]:
        return {n.value for n in self.model_fn_bound if isinstance(n, cst.Name)}

    def _logging_hooks_only(self, hooks: cst.BaseExpression) -> bool:
        """``hooks=[LoggingTensorHook(...), ...]`` (or names bound once to them): they only print tensors of the
        graph, which a Keras model has no names for; fit logs the loss itself. Such hooks are left out of fit."""
        t = self  # type: ignore[assignment]
        if not isinstance(hooks, (cst.List, cst.Tuple)) or not hooks.elements:
            return False
        for element in hooks.elements:
            value = element.value
            if isinstance(value, cst.Name):
                scope = t.scopes.scope_of(value)  # type: ignore[attr-defined]
                seen = scope[value.value] if scope is not None else []
                assign = t.index.parents.get(t.index.parents.get(seen[0].node)) if len(seen) == 1 else None  # type: ignore[attr-defined]
                value = assign.value if isinstance(assign, cst.Assign) else value
            if not (isinstance(value, cst.Call) and (t.qualified_name(value.func) or "").endswith(".LoggingTensorHook")):  # type: ignore[attr-defined]
                return False
        return True

    def _predictions_helper(self, receiver: cst.BaseExpression) -> str:
        """``estimator_predictions`` for a canned model, ``model_fn_predictions`` for a lowered model_fn."""
        t = self  # type: ignore[assignment]
        if not isinstance(receiver, cst.Name) or not self.model_fn_bound:
            return "estimator_predictions"
        scope = t.scopes.scope_of(receiver)  # type: ignore[attr-defined]
        seen = scope[receiver.value] if scope is not None else []
        return "model_fn_predictions" if seen and all(a.node in self.model_fn_bound for a in seen) else "estimator_predictions"


def _listed(words: list[str]) -> str:
    """``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
