"""The TensorFlow 2.15 side of ``ckpt convert --to keras`` for a custom model_fn: the Estimator's predictions.
Runs only as a child process (``python -P -m tfmigrate.checkpoint._modelfn_estimator_child < {"jobs": [...]}``).

For each job it imports the definitions of the estimator-target module the parent wrote (``tfm_estimator_N.py``:
imports, functions, classes, literal assignments; never the program), builds the model_fn's graph in mode
PREDICT as ``Estimator.predict`` does (the global step first, ``labels=None``, ``params`` as the construction
passed them), restores the checkpoint with a Saver of every variable and predicts on the parent's inputs.

Prints one JSON line: ``{"ok": true, "results": [{"ok": true, "predictions": ...} | {"ok": false, "error": ...}]}``.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _first(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0][:300] if lines else ''}"


def load(work: str, name: str) -> Any:
    if work not in sys.path:
        sys.path.insert(0, work)
    spec = importlib.util.spec_from_file_location(name, os.path.join(work, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def params_of(request: dict[str, Any], module: Any) -> Any:
    given = request["params"]
    value = getattr(module, given["name"]) if "name" in given else given.get("literal")
    return {} if value is None else value  # the Estimator passes {} for no params


def predict(request: dict[str, Any]) -> dict[str, Any]:
    import numpy as np
    import tensorflow as tf

    module = load(request["work"], f"tfm_estimator_{request['n']}")
    model_fn = getattr(module, request["fn"])
    inputs = dict(np.load(os.path.join(request["work"], f"inputs-{request['n']}.npz")))
    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()
        features = {k: tf.compat.v1.placeholder(tf.float32, [None, *v.shape[1:]], name=k) for k, v in inputs.items()}
        given = {"features": features, "labels": None, "mode": tf.estimator.ModeKeys.PREDICT, "params": params_of(request, module)}
        accepted = inspect.signature(model_fn).parameters
        spec = model_fn(**{k: v for k, v in given.items() if k in accepted})
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            saver.restore(session, request["checkpoint"])
            out = session.run(spec.predictions, {features[k]: v for k, v in inputs.items()})
    return {"ok": True, "predictions": listed(out)}


def listed(predictions: Any) -> Any:
    """Predictions (a dict of arrays or one array) as JSON lists."""
    import numpy as np

    if isinstance(predictions, dict):
        return {k: np.asarray(v).tolist() for k, v in predictions.items()}
    return np.asarray(predictions).tolist()


def run_jobs(job: Callable[[dict[str, Any]], dict[str, Any]], failed: Callable[[Any, BaseException], str],
             expected: tuple[type[BaseException], ...] = (), after: Callable[[Any], None] | None = None) -> None:
    """Answer the parent's jobs (stdin) with one JSON line: each job's result, or its one-line error (``expected``
    exceptions by their own text; any other by ``failed(tf, exc)``, its traceback on stderr)."""
    jobs = json.loads(sys.stdin.read())["jobs"]
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    results = []
    for request in jobs:
        try:
            results.append(job(request))
        except expected as exc:
            results.append({"ok": False, "error": " ".join(str(exc).split())[:500]})
        except Exception as exc:  # noqa: BLE001 - one line for the parent, the traceback on stderr
            traceback.print_exc()
            results.append({"ok": False, "error": failed(tf, exc)})
        if after is not None:
            after(tf)
    print(json.dumps({"ok": True, "results": results}))


def main() -> None:
    run_jobs(predict, lambda tf, exc: f"the Estimator's predictions (TensorFlow {tf.__version__}): {_first(exc)}")


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:  # noqa: BLE001
        traceback.print_exc()
        print(json.dumps({"ok": False, "error": f"TensorFlow 2.15 child: {_first(exc)}"}))
