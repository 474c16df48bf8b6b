"""The TensorFlow 2.21 side of ``ckpt convert --to keras`` for a custom model_fn lowered by TFM707. Runs only as a
child process of the Keras interpreter (``python -P -m tfmigrate.checkpoint._modelfn_keras_child < {"jobs": [...]}``).

For each job it imports the definitions of the Keras module the parent wrote (``tfm_keras_N.py``, with the helpers
module ``legacy_estimators.py`` beside it), builds the lowered class on the parent's inputs (mode "infer"), sets each
mapped weight from the checkpoint's array (shapes checked), sets the optimizer's iterations to the global step,
saves the ``.weights.h5``, restores it into a fresh model (from ``model_dir`` as the migrated program does) and
predicts on the same inputs.

Prints one JSON line: ``{"ok": true, "results": [{"ok": true, ...} | {"ok": false, "error": "one line"}, ...]}``.
"""

from __future__ import annotations

import json
import os
import traceback
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from tfmigrate.checkpoint._modelfn_estimator_child import _first, listed, load, params_of, run_jobs  # noqa: E402


class JobError(Exception):
    """One conversion cannot be done (one line)."""


def convert(request: dict[str, Any]) -> dict[str, Any]:
    import numpy as np
    import tensorflow as tf

    work, n = request["work"], request["n"]
    module = load(work, f"tfm_keras_{n}")
    cls = getattr(module, request["class"])
    params = params_of(request, module)
    inputs = dict(np.load(os.path.join(work, f"inputs-{n}.npz")))
    stored = np.load(os.path.join(work, f"weights-{n}.npz"))
    data = tf.data.Dataset.from_tensors(inputs)
    model = cls(params=params)
    model.restore(data)
    shapes: dict[str, list[int]] = {}
    seen = set()
    for i, (attr, weight) in enumerate(request["map"]):
        layer = getattr(model, attr, None)
        if not isinstance(layer, tf.keras.layers.Layer):
            raise JobError(f"the Keras model has no layer {attr}")
        var = next((v for v in layer.weights if v.name == weight), None)
        if var is None:
            raise JobError(f"the Keras layer {attr} has no weight {weight} (built: {layer.built}; a layer the model_fn "
                           "uses only in training or evaluation is not built by predict)")
        value = stored[f"w{i}"]
        shapes[f"{attr}/{weight}"] = list(var.shape)
        if list(value.shape) != list(var.shape):
            raise JobError(f"layer {attr}: the checkpoint's {weight} is {list(value.shape)}, the Keras model's {list(var.shape)}: nothing written")
        var.assign(value.astype(var.dtype))
        seen.add(id(var))
    unfilled = [f"{attr}/{v.name}" for attr in dict.fromkeys(a for a, _ in request["map"]) for v in getattr(model, attr).weights
                if id(v) not in seen]
    layers = [v for layer in model.layers for v in layer.weights]
    unfilled += [v.path for v in layers if id(v) not in seen and not any(v.path == u for u in unfilled)]
    if unfilled:
        raise JobError(f"the Keras model's {unfilled[0]} has no variable in the checkpoint ({len(unfilled)} such): nothing written")
    step = int(request.get("step") or 0)
    model.optimizer.iterations.assign(step)
    model.save_weights(request["out"])
    if request.get("model_dir"):
        fresh = cls(params=params, model_dir=request["model_dir"])
        fresh.restore(data)
    else:
        fresh = cls(params=params)
        fresh.restore(data)
        fresh.load_weights(request["out"])
    predictions = fresh.run_model_fn((inputs,), "infer")["predictions"]
    return {"ok": True, "out": request["out"], "shapes": shapes, "predictions": listed(predictions),
            "restored_step": int(fresh.optimizer.iterations), "notes": [], "tensorflow": tf.__version__}


def main() -> None:
    run_jobs(convert, lambda tf, exc: f"TensorFlow 2.21 child: {_first(exc)}", expected=(JobError,),
             after=lambda tf: tf.keras.backend.clear_session())


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:  # noqa: BLE001
        traceback.print_exc()
        print(json.dumps({"ok": False, "error": f"TensorFlow 2.21 child: {_first(exc)}"}))
