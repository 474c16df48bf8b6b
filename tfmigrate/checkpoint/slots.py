"""Optimizer state across eras: a legacy checkpoint's slots renamed to the ones a TF 2.15 canned
estimator creates, and every other optimizer variable of the model written as its optimizer
initialises it, so that ``train()`` on the converted model_dir restores and goes on from the legacy
``global_step``.

Legacy (``tf.compat.v1.train.*Optimizer``) slots are ``<var>/<Slot>`` (skflow, contrib.learn) or
``<var>/t_0/<Slot>``, ``<var>/part_0/<Slot>`` (Estimator V1); TF 2.15's canned estimators use a
``tf.keras.optimizers.legacy`` optimizer whose slots are ``training/<Opt>/<var>/<slot>`` and whose
hyperparameters are variables ``training/<Opt>/<name>`` (its ``iterations`` is ``global_step``).
A legacy slot is renamed only onto the same state of the same algorithm (below), and only for a
weight carried as a plain copy: the accumulator of a sum or difference of weights means nothing.

Every target optimizer variable the checkpoint cannot give gets the value its own initializer gives
(measured in the TF child, :func:`tfmigrate.checkpoint._tfchild._initial_values`: Adagrad's
``initial_accumulator_value``, Adam's zero moments, the learning rate the code sets). Legacy Adam's
``beta1_power``/``beta2_power`` have no counterpart: Keras derives them from ``iterations``
(``global_step``).
"""

from __future__ import annotations

import re
from typing import Any

from tfmigrate.checkpoint import classify

# legacy slot suffix -> (the Keras optimizer's name under training/, the same state's slot name there)
LEGACY_SLOTS: dict[str, tuple[str, str]] = {
    "Adagrad": ("Adagrad", "accumulator"),
    "Adam": ("Adam", "m"), "Adam_1": ("Adam", "v"),
    "Ftrl": ("Ftrl", "accumulator"), "Ftrl_1": ("Ftrl", "linear"),
    "Momentum": ("SGD", "momentum"),
    "RMSProp": ("RMSprop", "rms"), "RMSProp_1": ("RMSprop", "momentum"),
    "Adadelta": ("Adadelta", "accum_grad"), "Adadelta_1": ("Adadelta", "accum_var"),
}
_LEGACY_RE = re.compile(r"^(?P<var>.+?)/(?:t_\d+/|part_\d+/)?(?P<slot>%s)$" % "|".join(sorted(LEGACY_SLOTS, key=len, reverse=True)))
_TARGET_RE = re.compile(r"^training/(?P<opt>[^/]+)/")


def target_optimizer(target_vars: dict[str, Any]) -> str | None:
    """The optimizer a TF 2.15 canned estimator's variables name (``training/<Opt>/...``; a DNNLinearCombined
    model's two: ``Adagrad and Ftrl``), or None."""
    return " and ".join(target_optimizers(target_vars)) or None


def target_optimizers(target_vars: dict[str, Any]) -> list[str]:
    """Every optimizer a TF 2.15 canned estimator's variables name: two for a DNNLinearCombined model
    (``training/Ftrl/linear/...``, ``training/Adagrad/dnn/...``)."""
    return sorted({m.group("opt") for n in target_vars if (m := _TARGET_RE.match(n))})


def _variable_optimizer(new_var: str, target_vars: dict[str, Any], opts: list[str]) -> str | None:
    """The optimizer that holds slots of the model's variable ``new_var`` (``training/<Opt>/<var>/...``)."""
    for opt in opts:
        prefix = f"training/{opt}/{new_var}/"
        if any(n.startswith(prefix) for n in target_vars):
            return opt
    return opts[0] if len(opts) == 1 else None


def carry(p: Any, ckpt_vars: dict[str, list[int]], target_vars: dict[str, list[int]], target_init: dict[str, dict[str, Any]],
          target_dtypes: dict[str, str] | None = None) -> None:
    """Add to plan ``p`` (:class:`tfmigrate.checkpoint.names.Plan`) the optimizer state of the model:
    renamed legacy slots, then initial values for the rest; one note per kind of initial value. A model
    with two optimizers (DNNLinearCombined: Ftrl for the linear part, another for the DNN) gets each
    variable's slots from the optimizer that trains it."""
    opts = target_optimizers(target_vars)
    if not opts:
        return
    opt = opts[0] if len(opts) == 1 else None
    written = {o["new"] for o in p.ops}
    plain = {o["src"][0]: o["new"] for o in p.ops if o["op"] == "copy" and len(o["src"]) == 1}
    renamed: dict[str, int] = {}
    for name, shape in ckpt_vars.items():
        m = _LEGACY_RE.match(name)
        if not m or name in p.name_map:
            continue
        want_opt, slot = LEGACY_SLOTS[m.group("slot")]
        var = m.group("var")
        if var not in plain:
            if var in p.name_map:
                p.not_carried[name] = f"the slot of {var}, which is not carried as a plain copy ({p.name_map[var]} is computed)"
            continue
        var_opt = _variable_optimizer(plain[var], target_vars, opts)
        if var_opt is None:
            continue
        if want_opt != var_opt:
            p.not_carried[name] = (f"a slot of {want_opt}; the model's optimizer{'' if opt else ' of ' + plain[var]} is {var_opt} "
                                   f"(its state is written as {var_opt} initialises it)")
            continue
        new = f"training/{var_opt}/{plain[var]}/{slot}"
        if new not in target_vars or new in written:
            continue
        if list(target_vars[new]) != list(shape):
            p.not_carried[name] = f"shape {shape} but the model's {new} is {target_vars[new]}"
            continue
        p.name_map[name] = new
        p.not_carried.pop(name, None)
        p.ops.append({"new": new, "op": "copy", "src": [name]})
        written.add(new)
        renamed[var_opt] = renamed.get(var_opt, 0) + 1
    for each, count in renamed.items():
        p.notes.append(f"{count} {each} slot(s) renamed to TF 2.15 names (training/{each}/<variable>/...): train() goes on with them")
    kinds: dict[tuple[str, str], list[str]] = {}
    for new in sorted(target_vars):
        init = (target_init.get(new) or {}).get("fill")
        if new in written or new == "global_step" or classify.kind(new) == "model" or init is None:
            continue
        m = _TARGET_RE.match(new)
        each = m.group("opt") if m else (opt or "")
        dtype = (target_dtypes or {}).get(new, "float32")
        p.ops.append({"new": new, "op": "fill", "value": init, "dtype": dtype, "shape": list(target_vars[new]), "src": []})
        written.add(new)
        what = new.rsplit("/", 1)[-1] if new.count("/") > 2 else new.removeprefix(f"training/{each}/")
        kinds.setdefault((each, f"{what} = {_number(init)}"), []).append(new)
    for (each, what), news in kinds.items():
        slot = news[0].count("/") > 2
        p.notes.append(f"{each} {'slot' if slot else 'hyperparameter'} {what}: {len(news)} variable(s) written as {each} "
                       f"initialises {'it' if not slot else 'them'} (not in the checkpoint)")
    lrs = [f"training/{each}/learning_rate" for each in opts]
    if "learning_rate" in ckpt_vars and any(lr in written and lr not in p.name_map.values() for lr in lrs):
        own = ", ".join(lr for lr in lrs if lr in written)
        p.not_carried["learning_rate"] = f"the legacy program's learning rate; the model's own ({own}) is written, as the code sets it"
    for name in ckpt_vars:
        if name in ("beta1_power", "beta2_power") and "Adam" in opts:
            p.not_carried[name] = "Keras Adam derives it from iterations (global_step)"


def _number(value: float) -> str:
    """A float32 initial value as written in code (``0.1``, not ``0.10000000149011612``)."""
    import struct

    if isinstance(value, float):
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if struct.unpack("<f", struct.pack("<f", float(text)))[0] == struct.unpack("<f", struct.pack("<f", value))[0]:
                return text
    return str(value)
