"""One task of ``tfmigrate validate --cluster``: runs in its own process with its own ``TF_CONFIG``.

chief / worker: build TARGET as the validation child does (same inputs), then
``tf.estimator.train_and_evaluate`` — TensorFlow's own distributed runtime (parameter servers,
asynchronous workers). Tasks meet through files in the shared model_dir so that every task trains:
the chief starts its steps after a worker's first step, each worker waits (bounded) for the chief's
first, the chief ends (and writes its last checkpoint) after every worker is done. ps: a
``tf.distribute.Server`` that stops by itself when the chief is done or at the deadline.

Prints one JSON line: {"task", "index", "steps", "seconds"} or {"task", "index", "error"}.
Invoked as ``python -m tfmigrate.validate._cluster_task CONFIG_JSON``.
"""

from __future__ import annotations

import json
import os
import sys
import time


def _wait(path: str, deadline: float) -> bool:
    while time.time() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def run(cfg: dict) -> dict:
    from tfmigrate.validate import _child

    tf = _child.quiet_tensorflow()
    import numpy as np

    task = json.loads(os.environ["TF_CONFIG"])["task"]
    role, index = task["type"], int(task["index"])
    sync = os.path.join(cfg["model_dir"], ".tfmigrate-cluster")
    os.makedirs(sync, exist_ok=True)
    deadline = cfg["deadline"]
    workers = cfg["workers"]
    if role == "ps":
        rc = tf.estimator.RunConfig()
        server = tf.distribute.Server(rc.cluster_spec, job_name="ps", task_index=index, protocol="grpc", start=True)
        started = time.time()
        stopped = _wait(os.path.join(sync, "chief-done"), deadline)
        del server
        return {"task": role, "index": index, "steps": 0, "seconds": round(time.time() - started, 2), "stopped": "chief done" if stopped else "deadline"}
    est, _factory, _declared, _columns, features, labels, _kinds, _vars = _child.prepare(
        tf, np, cfg["target"], cfg["model_dir"], cfg["batch_size"], bool(cfg.get("program")), cfg.get("program_args"))
    est._config = est.config.replace(experimental_max_worker_delay_secs=0)
    counted = {"steps": 0}
    me = f"{role}-{index}"

    class Meet(tf.estimator.SessionRunHook):
        def begin(self):
            self.global_step = tf.compat.v1.train.get_global_step()

        def after_create_session(self, session, coord):
            if role == "chief":  # the variables are initialized: workers may start; let one step first
                open(os.path.join(sync, "chief-ready"), "w").close()
                _wait(os.path.join(sync, "worker-0-stepped"), min(deadline, time.time() + 60))

        def before_run(self, run_context):
            if time.time() > deadline:
                run_context.request_stop()
            return tf.estimator.SessionRunArgs(self.global_step)

        def after_run(self, run_context, run_values):
            counted["steps"] += 1
            if counted["steps"] == 1:
                open(os.path.join(sync, f"{me}-stepped"), "w").close()
                if role != "chief":
                    _wait(os.path.join(sync, "chief-0-stepped"), min(deadline, time.time() + 60))
            if role == "chief" and run_values.results + 1 >= cfg["steps"]:
                # the chief stops now; the workers stop at their next step. Its last checkpoint (saved at
                # the session's end) must hold their steps too: wait until every worker is done
                for i in range(workers):
                    _wait(os.path.join(sync, f"worker-{i}-done"), deadline)

    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices((_child.unpack(features), labels))
        return ds.repeat().batch(min(cfg["batch_size"], 32))

    started = time.time()
    if role != "chief":  # a worker that finds the variables uninitialized waits 30 s before it looks again
        _wait(os.path.join(sync, "chief-ready"), deadline)
    try:
        tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(input_fn, max_steps=cfg["steps"], hooks=[Meet()]),
            tf.estimator.EvalSpec(input_fn, steps=1, start_delay_secs=0, throttle_secs=0))
    finally:
        open(os.path.join(sync, f"{me}-done" if role != "chief" else "chief-done"), "w").close()
    out = {"task": role, "index": index, "steps": counted["steps"], "seconds": round(time.time() - started, 2)}
    if role == "chief":
        latest = tf.train.latest_checkpoint(cfg["model_dir"])
        out["checkpoint"] = latest
        out["global_step"] = int(tf.train.load_checkpoint(latest).get_tensor("global_step")) if latest else None
    return out


def main(argv: list[str]) -> int:
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    cfg = json.loads(argv[0])
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    try:
        out = run(cfg)
    except BaseException as exc:  # noqa: BLE001 - one line for the parent
        from tfmigrate.validate._child import first_line

        out = {"task": task.get("type"), "index": task.get("index"), "error": f"{type(exc).__name__}: {first_line(exc)}"}
    proto.write(json.dumps(out) + "\n")
    proto.flush()
    os._exit(0)  # gRPC servers and their threads end with the process, now


if __name__ == "__main__":
    main(sys.argv[1:])
