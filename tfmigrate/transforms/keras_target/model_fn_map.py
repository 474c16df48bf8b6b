"""The layers TFM707 creates for the model_fn of one ``tf.estimator.Estimator(model_fn=F)`` construction, read by
``ckpt convert --to keras`` (:mod:`tfmigrate.checkpoint.keras_model_fn`): the very plan the rewrite lowers with
(:class:`model_fn_lower.ModelFnLowering`), asked of a module on its own. Nothing of the module is run.

    model_fn_plan(source, path, line) -> ModelFnLayers   # raises ValueError (one line) where there is none
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper

from tfmigrate.codemod.parsing import parse_module
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.transform import Context
from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.keras_target.model_fn_estimator import plan_model_fn
from tfmigrate.transforms.keras_target.model_fn_lower import ESTIMATOR_PARAMS, LayerRecord, _bind


@dataclass
class ModelFnLayers:
    """What the lowering of one Estimator's model_fn creates (the class ``class_of`` names in the Keras module)."""

    line: int  # the Estimator construction
    model_fn: str  # the def's name (the Keras class's docstring names it)
    layers: list[LayerRecord] = field(default_factory=list)
    params: str | None = None  # the construction's params= argument, as written
    sources: list[str] = field(default_factory=list)  # the code of the model_fn and of the network functions it calls


def estimator_calls(source: str, path: str) -> list[tuple[int, int]]:
    """(first line, last line) of every ``tf.estimator.Estimator(...)`` construction of the module."""
    t, module = _transform(source, path)
    out = []
    for call in t.index.nodes(cst.Call):
        if (t.qualified_name(call.func) or "") in ("tensorflow.estimator.Estimator", "tensorflow.compat.v1.estimator.Estimator",
                                                    "tensorflow.contrib.learn.Estimator"):
            pos = t.index.positions[call]
            out.append((pos.start.line, pos.end.line))
    return sorted(out)


def _transform(source: str, path: str):  # type: ignore[no-untyped-def]
    try:
        module = parse_module(source.encode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - what libcst cannot parse
        raise ValueError(f"{path}: cannot parse: {' '.join(str(exc).split())[:200]}") from None
    catalog = load_catalog()
    family = next(f for f in catalog.families if f.transform.partition(":")[0] == "tfmigrate.transforms.keras_target")
    rules = frozenset(r.id for r in family.rules)
    t = family.load_transform()(Context(filename=path, run_rules=rules), rules, {}, [], catalog.ids)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    t.context = Context(filename=path, run_rules=rules, wrapper=wrapper)
    t.index = TreeIndex.of(module)
    t.source = source
    return t, module


def model_fn_plan(source: str, path: str, line: int) -> ModelFnLayers:
    """The layers of the model_fn of the Estimator construction on (or around) ``line``; ValueError (one line)
    where there is none, or where TFM707 does not lower it (the piece that stops it, as TFM705 says)."""
    t, _ = _transform(source, path)
    calls = []
    for call in t.index.nodes(cst.Call):
        if (t.qualified_name(call.func) or "").rpartition(".")[2] != "Estimator":
            continue
        if not (t.qualified_name(call.func) or "").startswith("tensorflow."):
            continue
        pos = t.index.positions[call]
        if pos.start.line <= line <= pos.end.line:
            calls.append((pos.start.line, call))
    if not calls:
        raise ValueError(f"{path}:{line}: no tf.estimator.Estimator(model_fn=...) construction there")
    start, call = max(calls, key=lambda c: c[0])
    plan, why = plan_model_fn(t, call)
    if plan is None:
        raise ValueError(f"{path}:{start}: its model_fn has no Keras form (TFM705): {why}")
    unmapped = [piece for piece in plan.layers if piece.startswith(("get_variable", "embedding_lookup(get_variable"))]
    if unmapped:  # weights TFM707 makes of get_variable: no layer record (their legacy names are not mapped yet)
        raise ValueError(f"{path}:{start}: its model_fn's tf.compat.v1.get_variable weights ({unmapped[0]}) have no "
                         "legacy-name map for ckpt convert yet")
    args = _bind(call, ESTIMATOR_PARAMS)
    params = code_of(args["params"].value) if "params" in args else None
    return ModelFnLayers(start, plan.fn.name.value, list(plan.created), params,
                         [code_of(plan.fn), *(code_of(n) for n in plan.networks)])
