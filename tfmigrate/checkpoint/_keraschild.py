"""The TensorFlow 2.21 side of ``ckpt convert --to keras``; runs only as a child process of the
Keras interpreter (``python -P -m tfmigrate.checkpoint._keraschild < {"jobs": [REQUEST, ...]}``):
one TensorFlow import for several conversions.

It executes :func:`tfmigrate.keras_runtime.program_text` (the helpers a migrated module gets),
evaluates the model's arguments (checked statically by the parent), builds ``canned_keras_model``,
sets each layer's weights from the parent's arrays (after checking their shapes), saves the
``.weights.h5`` through Keras, loads it into a fresh model (with ``model_dir``, the way the
migrated program restores it) and predicts on deterministic inputs.

Prints one JSON line: ``{"ok": true, "results": [{"ok": true, ...} | {"ok": false, "error": "one line"}, ...]}``
or ``{"ok": false, "error": "one line"}``.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _fail(message: str) -> None:
    print(json.dumps({"ok": False, "error": " ".join(str(message).split())[:500]}))
    sys.exit(0)


class JobError(Exception):
    """One conversion cannot be done (one line); the others go on."""


def _first(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0][:300] if lines else ''}"


def describe(column: Any) -> dict[str, Any]:
    """A feature column as data the parent's numpy forward pass reads."""
    kind = type(column).__name__
    out: dict[str, Any] = {"name": column.name, "kind": kind}
    if kind == "NumericColumn":
        out.update(key=column.key, shape=list(column.shape), dtype=column.dtype.name, normalizer=column.normalizer_fn is not None)
    elif kind in ("EmbeddingColumn", "IndicatorColumn"):
        out["categorical"] = describe(column.categorical_column)
        if kind == "EmbeddingColumn":
            out["dimension"] = column.dimension
    elif kind == "VocabularyListCategoricalColumn":
        out.update(key=column.key, vocabulary=[v.decode() if isinstance(v, bytes) else v for v in column.vocabulary_list],
                   num_oov=column.num_oov_buckets, dtype=column.dtype.name, size=len(column.vocabulary_list) + column.num_oov_buckets)
    elif kind == "IdentityCategoricalColumn":
        out.update(key=column.key, size=column.num_buckets)
    elif kind == "BucketizedColumn":
        out.update(source=describe(column.source_column), boundaries=list(column.boundaries), size=len(column.boundaries) + 1,
                   key=column.source_column.key)
    else:
        out["unsupported"] = True
    return out


def _leaves(col: dict[str, Any]) -> list[dict[str, Any]]:
    if "categorical" in col:
        return _leaves(col["categorical"])
    if "source" in col:
        return _leaves(col["source"])
    return [col]


def _inputs(columns: list[dict[str, Any]], rows: int, np: Any) -> dict[str, Any]:
    """Deterministic inputs for every input the columns read."""
    rng = np.random.RandomState(20)
    out: dict[str, Any] = {}
    for col in sorted(columns, key=lambda c: c["name"]):
        for leaf in _leaves(col):
            key = leaf.get("key")
            if key in out:
                continue
            if leaf["kind"] == "NumericColumn":
                out[key] = (rng.normal(size=(rows, *leaf["shape"])) * 1.5).astype(leaf["dtype"])
            elif leaf["kind"] == "VocabularyListCategoricalColumn":
                out[key] = np.asarray(leaf["vocabulary"], dtype=object if leaf["dtype"] == "string" else leaf["dtype"])[
                    rng.randint(0, len(leaf["vocabulary"]), size=(rows, 1))]
            elif leaf["kind"] == "IdentityCategoricalColumn":
                out[key] = rng.randint(0, leaf["size"], size=(rows, 1)).astype("int64")
    return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if hasattr(x, "tolist"):
        return [_jsonable(v) for v in x.tolist()] if isinstance(x.tolist(), list) else _jsonable(x.tolist())
    if isinstance(x, list):
        return [_jsonable(v) for v in x]
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    return x


def main() -> None:
    jobs = json.loads(sys.stdin.read())["jobs"]
    from tfmigrate import keras_runtime

    ns: dict[str, Any] = {}
    exec(compile(keras_runtime.program_text(), "<tfmigrate.keras_runtime>", "exec"), ns)  # noqa: S102 - tfmigrate's own helpers
    ns["tf"].get_logger().setLevel("ERROR")
    results = []
    for request in jobs:
        try:
            results.append(convert(request, ns))
        except JobError as exc:
            results.append({"ok": False, "error": " ".join(str(exc).split())[:500]})
        except Exception as exc:  # noqa: BLE001 - one line for the parent, the traceback on stderr
            traceback.print_exc()
            results.append({"ok": False, "error": f"TensorFlow 2.21 child: {_first(exc)}"})
        ns["tf"].keras.backend.clear_session()
    print(json.dumps({"ok": True, "results": results}))


def convert(request: dict[str, Any], ns: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    from tfmigrate import static_values

    tf = ns["tf"]
    canned = ns["canned_keras_model"]
    modules = {"tensorflow": tf, "numpy": np}
    notes: list[str] = []

    def evaluate(name: str, plan: Any) -> Any:
        try:
            return static_values.materialize(plan, modules)  # the parent's plan: tfmigrate's own table of constructors
        except Exception as exc:  # noqa: BLE001 - the user's arguments
            raise ValueError(f"{name}: {_first(exc)} (on TensorFlow {tf.__version__})") from None

    try:
        kwargs = {k: evaluate(k, v) for k, v in request["kwargs"].items() if k != "optimizer"}
    except ValueError as exc:
        raise JobError(f"the model's arguments cannot be built: {exc}") from None

    estimator = request["estimator"]
    default_name = "Adagrad" if estimator.startswith("DNN") else "Ftrl"
    default_rate = 0.05 if estimator.startswith("DNN") else 0.2
    default_optimizer = f"tf.keras.optimizers.{default_name}(learning_rate={default_rate})"

    def optimizer() -> Any:
        plan = request["kwargs"].get("optimizer")
        if plan is not None:
            try:
                return evaluate("optimizer", plan)
            except ValueError as exc:
                if not any("optimizer" in n for n in notes):
                    notes.append(f"optimizer {exc}; the file is written with {default_optimizer} (the estimator's default)")
        return getattr(tf.keras.optimizers, default_name)(learning_rate=default_rate)

    columns = [describe(c) for c in kwargs.get("feature_columns") or []]
    for col in columns:
        leaves = _leaves(col)
        if col.get("unsupported") or any(leaf.get("unsupported") for leaf in leaves):
            raise JobError(f"feature column {col['name']} ({col['kind']}): --to keras converts numeric, bucketized, vocabulary-list and identity columns")
        if any(leaf.get("normalizer") for leaf in leaves):
            raise JobError(f"feature column {col['name']}: a numeric column with normalizer_fn, which canned_keras_model's inputs "
                           f"do not apply: the Keras model would not compute what the estimator did")
        if any(leaf.get("num_oov") for leaf in leaves):
            raise JobError(f"feature column {col['name']}: a vocabulary with out-of-vocabulary buckets (Keras' StringLookup puts them first, "
                  f"tf.feature_column last): not converted")

    def build(model_dir: str | None = None) -> Any:
        return canned(estimator, **kwargs, optimizer=optimizer(), model_dir=model_dir)

    try:
        model = build()
    except Exception as exc:  # noqa: BLE001
        raise JobError(f"canned_keras_model({estimator!r}, ...) fails: {_first(exc)}") from None
    layers = {layer.name: layer for layer in model.layers if layer.weights}
    shapes = {name: [list(w.shape) for w in layer.weights] for name, layer in layers.items()}
    stored = np.load(request["weights"])
    arrays = {layer: [stored[f"{layer}::{i}"] for i in range(n)] for layer, n in request["layers"].items()}
    slots = {layer: [stored[f"slot::{layer}::{i}"] for i in range(n)] for layer, n in (request.get("slots") or {}).items()}
    result: dict[str, Any] = {"ok": True, "layer_shapes": shapes, "notes": notes, "written": False, "stack_status": "match",
                              "activation": getattr(kwargs.get("activation_fn", tf.nn.relu), "__name__", "?"),
                              "columns": columns}
    result["unfilled"] = sorted(n for n in layers if n not in arrays)
    if request.get("linear_columns") is not None and "logits" in arrays:
        by_col = dict(zip(request["linear_columns"], arrays["logits"][:-1]))
        missing = [c["name"] for c in columns if c["name"] not in by_col]
        if missing:
            result["stack_status"] = "shape_mismatch"
            notes.append(f"the checkpoint has no linear weights for column {missing[0]}")
        else:
            order = [c["name"] for c in sorted(columns, key=lambda c: c["name"])]
            kernel = np.concatenate([by_col[c] for c in order], axis=0)
            arrays["logits"] = [kernel, arrays["logits"][-1]]
            if "logits" in slots:
                by_col = dict(zip(request["linear_columns"], slots["logits"][:-1]))
                slots["logits"] = [np.concatenate([by_col[c] for c in order], axis=0), slots["logits"][-1]]
            if [list(kernel.shape), list(arrays["logits"][1].shape)] != shapes.get("logits"):
                result["stack_status"] = "shape_mismatch"
    plan: dict[str, list[Any]] = {}
    bad = bool(result["unfilled"]) or result["stack_status"] != "match"
    for name, values in arrays.items():
        want = shapes.get(name)
        if want is None:
            bad = True
            continue
        have = [list(v.shape) for v in values]
        if have != want and name == "logits" and have[0][-1] == 2 and want[0][-1] == 1 and have[0][:-1] == want[0][:-1]:
            values = [v[..., 1:2] - v[..., 0:1] for v in values]  # a 2-class softmax is the sigmoid of the difference
            slots.clear()  # the difference has no accumulator of its own
            notes.append("logits: a 2-class softmax becomes 1 sigmoid logit (column 1 - column 0): same predictions")
            have = want
        if have != want:
            bad = True
        plan[name] = values
    if bad:
        return _jsonable(result)
    for name, values in plan.items():
        layers[name].set_weights([np.asarray(v, dtype=w.dtype) for v, w in zip(values, layers[name].weights)])
    model.optimizer.build(model.trainable_variables)
    step = int(request.get("step") or 0)
    model.optimizer.iterations.assign(step)
    carried = []  # (variable path, accumulator) of the Adagrad slots carried
    if slots and type(model.optimizer).__name__ == "Adagrad":
        for name, values in slots.items():
            for var, value in zip(layers[name].weights, values):
                model.optimizer._accumulators[model.optimizer._get_variable_index(var)].assign(np.asarray(value, dtype=var.dtype))  # noqa: SLF001
                carried.append((name, var.name, np.asarray(value)))
    elif slots:
        notes.append(f"the legacy Adagrad accumulators are not carried: the model's optimizer is {type(model.optimizer).__name__}")
    out = request["out"]
    model.save_weights(out)
    fresh = build(request["model_dir"]) if request.get("model_dir") else build()
    if not request.get("model_dir"):
        fresh.optimizer.build(fresh.trainable_variables)
        fresh.load_weights(out)
    if carried:
        fresh_layers = {layer.name: layer for layer in fresh.layers if layer.weights}
        opt = fresh.optimizer
        diff = 0.0
        for name, var_name, value in carried:
            var = next(v for v in fresh_layers[name].weights if v.name == var_name)
            diff = max(diff, float(np.max(np.abs(np.asarray(opt._accumulators[opt._get_variable_index(var)]) - value))))  # noqa: SLF001
        result["slots"] = {"carried": len(carried), "max_abs_diff": diff}
        notes.append(f"the legacy Adagrad accumulators are carried ({len(carried)} tensors; restored with max abs difference {diff:.3g})")
    inputs = _inputs(columns, int(request.get("rows") or 16), np)
    feed = {k: (tf.constant(v.astype(str)) if v.dtype == object else v) for k, v in inputs.items()}
    predictions = fresh.predict(feed, verbose=0)
    result.update(written=True, out=out, restored_step=int(fresh.optimizer.iterations), predictions=predictions.tolist(),
                  inputs=_jsonable({k: v.astype(str) if v.dtype == object else v for k, v in inputs.items()}),
                  width=int(predictions.shape[-1]), keras=tf.keras.__version__ if hasattr(tf.keras, "__version__") else "?",
                  tensorflow=tf.__version__)
    return _jsonable(result)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - one line for the parent, the traceback on stderr
        traceback.print_exc()
        _fail(f"TensorFlow 2.21 child: {_first(exc)}")
