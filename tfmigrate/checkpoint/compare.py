"""Pair a checkpoint's tensors with the variables a model will create, and say what TF 2.15 does.

Behaviour the verdicts rely on (measured, see FACTS.md):

* ``tf.estimator.*`` (V2 canned estimators) restore from ``model_dir`` in graph mode into resource
  variables, which does not validate shapes: a ``[4, 10]`` kernel is *silently* kept where the model
  asks for ``[4, 20]``; training, evaluation and prediction then run on the old shapes.
  The same holds for a custom ``tf.estimator.Estimator(model_fn)`` (checked: a ``[4, 10]``
  ``tf.compat.v1.layers.dense`` kernel survives a model asking for ``[4, 7]``).
* ``tf.compat.v1.estimator.*`` (V1) raise ``InvalidArgumentError`` at restore ("shape in
  shape_and_slice spec ... does not match the shape stored in checkpoint"): their variables are
  partitioned (one ``part_0``), restored through slice specs, which check shapes. Partitioned
  variables of other models are given the same verdict (inferred from that mechanism, not
  measured; the TF child reports ``partitioned`` per variable).
* A changed ``n_classes`` fails later, on labels ("label value 3 ... outside the valid range"); a
  changed feature width fails with "Matrix size-incompatible"; neither names the checkpoint.
* A variable the model creates that the checkpoint lacks raises ``NotFoundError`` at restore
  (``train()`` also needs the optimizer's state -- checked on a converted skflow checkpoint;
  ``predict``/``evaluate`` only the model weights).
* Keras ``model.load_weights`` raises ``ValueError`` ("Received incompatible tensor with shape ...").
* ``tf.estimator.WarmStartSettings`` loads only the weights named/matched and never optimizer state.
"""

from __future__ import annotations

from typing import Any

from tfmigrate.checkpoint import classify, names, slots
from tfmigrate.results import shape_text

SCHEMA = 1


def diff(ckpt_vars: list[dict[str, Any]], model_vars: list[dict[str, Any]], model_info: dict[str, Any], checkpoint: str) -> dict[str, Any]:
    """The ``ckpt diff`` JSON object. ``*_vars``: ``[{"name", "dtype", "shape"}]``."""
    ck = {v["name"]: v for v in ckpt_vars}
    md = {v["name"]: v for v in model_vars}
    api = model_info.get("api", "v2")
    writer = classify.writer(list(ck))
    ck_model = {n for n in ck if classify.kind(n) == "model"}
    md_model = {n for n in md if classify.kind(n) == "model"}

    # names: identity where they agree, an era map where the model's weights are not found by name
    name_map: dict[str, str] = {}
    renamed = False
    plan = None
    if md_model and not (md_model & ck_model):
        plan = names.plan({n: v["shape"] for n, v in ck.items()}, {n: v["shape"] for n, v in md.items()})
        name_map = {o: n for o, n in plan.name_map.items() if o != n}
        renamed = bool(name_map)
    inverse = {n: o for o, n in name_map.items()}

    pairs: list[dict[str, Any]] = []
    seen_ck: set[str] = set()
    for name in sorted(md):
        m = md[name]
        old = inverse.get(name, name if name in ck else None)
        c = ck.get(old) if old else None
        if c is None:
            status = "missing_from_checkpoint"
        else:
            seen_ck.add(old)  # type: ignore[arg-type]
            if list(c["shape"]) != list(m["shape"]):
                status = "shape_mismatch"
            elif c["dtype"] != m["dtype"]:
                status = "dtype_mismatch"
            else:
                status = "match"
        pairs.append({
            "checkpoint_name": old if c else None, "model_name": name, "status": status,
            "checkpoint_shape": list(c["shape"]) if c else None, "model_shape": list(m["shape"]),
            "checkpoint_dtype": c["dtype"] if c else None, "model_dtype": m["dtype"],
            "kind": classify.kind(name),
        })
    for name in sorted(set(ck) - seen_ck):
        c = ck[name]
        pairs.append({
            "checkpoint_name": name, "model_name": None, "status": "unused_in_checkpoint",
            "checkpoint_shape": list(c["shape"]), "model_shape": None, "checkpoint_dtype": c["dtype"],
            "model_dtype": None, "kind": classify.kind(name),
        })

    def where(kind: str, status: str) -> list[dict[str, Any]]:
        return [p for p in pairs if p["status"] == status and (p["kind"] == kind if kind != "weights" else p["kind"] != "optimizer")]

    shape_bad = where("weights", "shape_mismatch")
    dtype_bad = where("weights", "dtype_mismatch")
    missing = where("weights", "missing_from_checkpoint")
    opt_missing = where("optimizer", "missing_from_checkpoint")
    opt_bad = where("optimizer", "shape_mismatch") + where("optimizer", "dtype_mismatch")
    notes: list[str] = []
    if plan is not None:
        notes += plan.notes
        notes += [f"{o}: not carried ({why})" for o, why in plan.not_carried.items() if classify.kind(o) == "model"]

    src = names.structure({n: v["shape"] for n, v in ck.items() if n in ck_model})
    dst = names.structure({n: v["shape"] for n, v in md.items() if n in md_model})
    matched_weights = [p["model_name"] for p in pairs if p["status"] == "match" and p["kind"] == "model"]
    n_model = len([p for p in pairs if p["kind"] == "model" and p["model_name"]])
    settings = (f"tf.estimator.WarmStartSettings(ckpt_to_initialize_from={checkpoint!r}, "
                f"vars_to_warm_start={sorted(matched_weights)!r})")
    if not matched_weights:
        warm = "train from scratch in a NEW model_dir (no model weight fits)"
    elif 2 * len(matched_weights) >= n_model:
        warm = f"warm start what still fits with {settings} and a NEW model_dir"
    else:
        warm = (f"train in a NEW model_dir; only {len(matched_weights)} of {n_model} model weights still fit "
                f"(warm start them with {settings} if worth it)")

    verdict: str
    compatible = False
    if renamed:
        what = (f"raises NotFoundError at restore: the checkpoint was written by {classify.WRITERS.get(writer, writer)} "
                f"with other names (e.g. {next(iter(name_map))} for {name_map[next(iter(name_map))]})")
        bad = [p for p in shape_bad if p["kind"] == "model"]
        lost = [p for p in missing if p["kind"] == "model"]  # bookkeeping (save_counter, object graph) is rewritten
        if bad or lost:
            what += f"; even renamed, {len(bad) + len(lost)} model weight(s) do not fit"
            remedy = "`tfmigrate ckpt convert` what fits, then " + warm
        elif slots.target_optimizer(md) is not None:  # convert writes the TF 2.15 optimizer state (slots.carry)
            remedy = (f"`tfmigrate ckpt convert {checkpoint} OUT --map auto --model MODEL`, then point the model at OUT: "
                      f"predict/evaluate restore the weights and train() goes on from the checkpoint's global_step (convert "
                      f"writes the model's {slots.target_optimizer(md)} state: legacy slots renamed, the rest as the optimizer "
                      f"initialises it)")
        else:
            remedy = (f"`tfmigrate ckpt convert {checkpoint} OUT --map auto --model MODEL`, then point the model at OUT "
                      "(predict/evaluate) or warm-start from it (training: optimizer state is not carried)")
        verdict = f"{what}. Remedy: {remedy}."
    elif missing:
        names_ = ", ".join(p["model_name"] for p in missing[:3]) + (" ..." if len(missing) > 3 else "")
        verdict = (f"raises NotFoundError at restore: the model creates {len(missing)} variable(s) the checkpoint "
                   f"lacks ({names_})")
        if shape_bad:
            verdict += f"; {len(shape_bad)} more have other shapes"
        verdict += f". Remedy: {warm}."
    elif shape_bad:
        if api not in ("keras",) and any(md[p["model_name"]].get("partitioned") for p in shape_bad):
            api = "v1"  # partitioned variables are restored through slice specs, which check shapes
        verdict = _shape_verdict(shape_bad, src, dst, api, warm)
        if opt_missing:  # the restore op fails on the first missing key before shapes matter
            head, _, tail = verdict.partition(". Remedy: ")
            verdict = (f"train() raises NotFoundError at restore: the optimizer state the model needs "
                       f"({opt_missing[0]['model_name']}, {len(opt_missing)} in all) is not in the checkpoint; "
                       f"predict/evaluate restore the weights, and then: {head}. Remedy: {tail}")
    elif dtype_bad:
        p = dtype_bad[0]
        verdict = (f"raises at restore: {p['model_name']} is {p['model_dtype']} in the model but {p['checkpoint_dtype']} "
                   f"in the checkpoint. Remedy: convert the tensor (`tfmigrate ckpt convert`) or {warm}.")
    elif opt_missing or opt_bad:
        first = (opt_missing or opt_bad)[0]["model_name"]
        verdict = (f"model weights restore and predict/evaluate work, but train() raises NotFoundError at restore: the "
                   f"optimizer state the model needs ({first}, {len(opt_missing) + len(opt_bad)} in all) is not in the "
                   f"checkpoint. Remedy: " + (
                       f"`tfmigrate ckpt convert {checkpoint} OUT --map auto --model MODEL` writes it (legacy slots renamed, "
                       f"the rest as the model's {slots.target_optimizer(md)} initialises it; global_step kept), or "
                       if slots.target_optimizer(md) is not None else "") +
                   f"train with warm_start_from={checkpoint!r} and a new model_dir (warm start loads weights only).")
    else:
        compatible = True
        unused = [p for p in pairs if p["status"] == "unused_in_checkpoint"]
        verdict = "restores cleanly: every variable the model creates is in the checkpoint with its shape and dtype"
        if unused:
            verdict += f" ({len(unused)} checkpoint tensor(s) unused and ignored)"
        verdict += "."
    return {
        "schema": SCHEMA, "checkpoint": checkpoint, "compatible": compatible, "verdict": verdict,
        "pairs": pairs, "name_map": name_map, "writer": writer, "model": model_info, "notes": notes,
    }


def _shape_verdict(bad: list[dict[str, Any]], src: Any, dst: Any, api: str, warm: str) -> str:
    bad = sorted(bad, key=lambda p: (p["kind"] != "model", len(p["model_shape"] or []) < 2, p["model_name"]))
    first = bad[0]  # a model kernel when there is one: the clearest example
    shapes = f"{first['model_name']} is {shape_text(first['checkpoint_shape'])} in the checkpoint, {shape_text(first['model_shape'])} in the model"
    feature = n_classes = None
    if src and dst and src.feature_width != dst.feature_width and src.feature_width and dst.feature_width:
        feature = (src.feature_width, dst.feature_width)
    if src and dst and src.logits_width and dst.logits_width and src.logits_width != dst.logits_width:
        n_classes = (src.logits_width, dst.logits_width)
    later: list[str] = []
    if feature:
        later.append(f"the first train/evaluate/predict step fails with 'Matrix size-incompatible' (feature width "
                     f"{feature[0]} in the checkpoint, {feature[1]} in the model); the message never names the checkpoint")
    if n_classes:
        old, new = n_classes
        if new > old:
            later.append(f"training/evaluation fails when a label >= {old} arrives ('label value {old} ... outside the valid "
                         f"range [0, {old})'): the logits keep the checkpoint's {old} classes")
        else:
            later.append(f"predictions silently keep {old} logits (class ids up to {old - 1}) where the model asks for {new}")
    if api == "v1":
        what = (f"raises InvalidArgumentError at restore (shape in shape_and_slice spec {shape_text(first['model_shape'])} does "
                f"not match the shape stored in checkpoint: {shape_text(first['checkpoint_shape'])}): {shapes}")
    elif api == "keras":
        what = f"load_weights raises ValueError (shape mismatch): {shapes}"
    else:
        scope = "TF 2.15 tf.estimator" if api == "v2" else "a TF 2.15 tf.estimator.Estimator (resource variables)"
        what = (f"{scope} restores WITHOUT ERROR and SILENTLY KEEPS the checkpoint's shapes ({len(bad)} variable(s); "
                f"{shapes})")
        if not later:
            later.append("training and predictions run on the old architecture, not the one in the code")
    kind = "n_classes changed" if n_classes and not feature and all("logits" in p["model_name"] or classify.kind(p["model_name"]) == "optimizer" for p in bad) \
        else "feature width changed" if feature else "layer sizes changed"
    text = f"{kind}: {what}"
    if later:
        text += "; then " + "; ".join(later)
    return f"{text}. Remedy: {warm}."
