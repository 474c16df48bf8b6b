"""``tfmigrate validate --cluster chief=1,worker=1,ps=1``: the migrated estimator as a real local cluster.

No TensorFlow here. One process per task on 127.0.0.1 ports, each with its own ``TF_CONFIG``
(``_cluster_task``), training through ``tf.estimator.train_and_evaluate`` into one scratch
model_dir. Then: every chief/worker task trained, the chief's last checkpoint holds the sum of the
steps the tasks did, and a local validation run restores that checkpoint (bit-identical variables,
equal predictions) and resumes from it. Every task stops by itself (a deadline in each); the parent
kills only a task still running after that deadline, and reports it.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from tfmigrate.childproc import module_command
from tfmigrate.validate.runner import child_env, run_validation
from tfmigrate.validate.targets import TargetError, check, refuse_early
from tfmigrate.warm import popen

ROLES = ("chief", "worker", "ps")


class ClusterSpecError(ValueError):
    pass


def parse(spec: str) -> dict[str, int]:
    """``chief=1,worker=2,ps=1`` -> {"chief": 1, "worker": 2, "ps": 1}."""
    out: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        role, sep, n = part.partition("=")
        if not sep or role not in ROLES or not n.isdigit():
            raise ClusterSpecError(f"--cluster {spec}: write ROLE=N pairs, ROLE one of chief, worker, ps (e.g. chief=1,worker=1,ps=1)")
        out[role] = int(n)
    if out.get("chief", 0) != 1 or out.get("worker", 0) < 1 or out.get("ps", 0) < 1:
        raise ClusterSpecError(f"--cluster {spec}: needs chief=1, worker>=1 and ps>=1 (TensorFlow's parameter-server runtime)")
    return out


def _ports(n: int) -> list[int]:
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def run_cluster(target: str, spec: str, *, steps: int = 20, batch_size: int = 64, budget: float = 120.0,
                program: bool = False, program_args: list[str] | None = None, device: str = "cpu") -> dict[str, Any]:
    started = time.perf_counter()
    result: dict[str, Any] = {"schema": 1, "passed": False, "device": "CPU", "steps": steps, "stages": [], "target": target,
                              "checkpoints": [], "cluster": spec}
    if device == "gpu":  # every task is started with CUDA_VISIBLE_DEVICES=-1: the cluster trains on CPU only
        return {**result, "error": "--cluster trains every task on CPU (one GPU cannot be shared by the local tasks): "
                                   "drop --device gpu, or validate on the GPU without --cluster", "exit_code": 2}
    try:
        counts = parse(spec)
        check(target)
        refuse_early(target, program)
    except (ClusterSpecError, TargetError) as exc:
        return {**result, "error": str(exc), "exit_code": 2}
    model_dir = Path(tempfile.mkdtemp(prefix="tfmigrate-cluster-"))
    result["model_dir"] = str(model_dir)
    tasks = [(role, i) for role in ROLES for i in range(counts.get(role, 0))]
    ports = iter(_ports(len(tasks)))
    cluster = {role: [f"127.0.0.1:{next(ports)}" for _ in range(counts[role])] for role in ROLES if counts.get(role)}
    deadline = time.time() + budget
    config = {"target": target, "model_dir": str(model_dir), "steps": steps, "batch_size": batch_size, "deadline": deadline,
              "workers": counts["worker"], "program": program, "program_args": list(program_args or [])}
    procs: list = []
    t0 = time.perf_counter()
    child_tmp = tempfile.TemporaryDirectory(prefix="tfmigrate-tmp-", ignore_cleanup_errors=True)  # the tasks' temporary files
    try:
        for role, i in tasks:
            env = child_env(tmpdir=child_tmp.name)
            env["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": role, "index": i}})
            env["CUDA_VISIBLE_DEVICES"] = "-1"
            log = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            proc = popen(module_command("tfmigrate.validate._cluster_task", json.dumps(config)),
                                    stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, env=env)
            procs.append((role, i, proc, log))
        reports: dict[str, dict] = {}
        killed = []
        for role, i, proc, log in procs:
            try:
                out, _ = proc.communicate(timeout=max(1.0, deadline - time.time()) + 30)  # each task's own deadline, then a margin
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
                killed.append(f"{role}:{i}")
            line = next((ln for ln in reversed(out.splitlines()) if ln.startswith("{")), None)
            if line is None:
                log.seek(0)
                from tfmigrate.validate.runner import last_error_line

                reports[f"{role}:{i}"] = {"task": role, "index": i, "error": f"exited with code {proc.returncode}: {last_error_line(log.read())}"}
            else:
                reports[f"{role}:{i}"] = json.loads(line)
            log.close()
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP: no task is left running, nothing left behind
        for _role, _i, proc, _log in procs:
            proc.kill()
            proc.wait()
        child_tmp.cleanup()
        shutil.rmtree(model_dir, ignore_errors=True)
        raise
    child_tmp.cleanup()
    seconds = round(time.perf_counter() - t0, 3)
    result["tasks"] = reports
    errors = [f"{k}: {r['error']}" for k, r in reports.items() if r.get("error")]
    trainers = {k: r for k, r in reports.items() if r.get("task") in ("chief", "worker")}
    chief = reports.get("chief:0", {})
    total = sum(int(r.get("steps") or 0) for r in trainers.values())
    per_task = ", ".join(f"{k} {r.get('steps', '?')} steps" for k, r in trainers.items())
    if errors or killed:
        detail = "; ".join(errors + [f"{k} did not stop by itself and was killed" for k in killed])
        passed = False
    elif any(not r.get("steps") for r in trainers.values()):
        detail, passed = f"not every task trained: {per_task}", False
    elif chief.get("global_step") != total:
        detail, passed = f"the chief's checkpoint is at global_step {chief.get('global_step')}, the tasks did {total} steps ({per_task})", False
    else:
        ps = ", ".join(f"{k} stopped on {r.get('stopped')}" for k, r in reports.items() if r.get("task") == "ps")
        detail, passed = (f"{len(tasks)} processes on 127.0.0.1 ({', '.join(f'{r}={n}' for r, n in counts.items())}) through "
                          f"tf.estimator.train_and_evaluate: {per_task}; the chief's checkpoint is at global_step "
                          f"{total} = their sum; {ps}"), True
    result["stages"].append({"name": "cluster", "passed": passed, "seconds": seconds, "detail": detail})
    if passed:
        # the chief's checkpoint, restored and resumed by a local validation run into the same directory
        local = run_validation(target, device="cpu", steps=2, model_dir=model_dir, batch_size=batch_size,
                               program=program, program_args=program_args)
        if local.get("error"):
            result["stages"].append({"name": "restore the chief's checkpoint", "passed": False, "seconds": 0.0, "detail": local["error"]})
        else:
            for st in local["stages"]:
                result["stages"].append({**st, "name": f"local: {st['name']}"})
            result["checkpoints"] = local.get("checkpoints", [])
            result["estimator"] = local.get("estimator")
    result["passed"] = all(s["passed"] for s in result["stages"])
    result["exit_code"] = 0 if result["passed"] else 1
    if result["passed"]:
        import shutil

        shutil.rmtree(model_dir, ignore_errors=True)  # a failed run keeps its model_dir to look at
        result["model_dir_removed"] = True
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result
