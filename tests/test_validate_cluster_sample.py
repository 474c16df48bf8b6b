"""samples/cluster_ps: a 2017 ClusterSpec/Server + MonitoredTrainingSession program, its rewrite, and
its hand migration to tf.estimator + TF_CONFIG, checked as real local clusters on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cluster_checks import assert_trained_as_one_cluster
from tests.tfchildren import run_python, spawn

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "cluster_ps"


def validate(*args: str, cwd: Path, tmpdir: Path | None = None) -> tuple[int, dict]:
    env = {**os.environ, "TMPDIR": str(tmpdir)} if tmpdir is not None else None
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", *args, "--format", "json"],
                          capture_output=True, text=True, cwd=cwd, timeout=400, env=env)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _kill(pid: int) -> None:
    """Kill a fork that tests/tfchildren.py's ``spawn`` started (its own process group) and wait until it is dead
    (a zombie until its server reaps it: its sockets are closed, its port free)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:  # not yet the leader of its group
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.02)


def test_the_rewrite_leaves_the_cluster_to_the_findings_that_describe_the_migration() -> None:
    from tfmigrate.codemod.engine import rewrite_source
    from tfmigrate.codemod.rule import load_catalog

    result = rewrite_source((SAMPLE / "legacy.py").read_bytes(), load_catalog().selected(None), path="legacy.py")
    manual = {(f.rule, f.line) for f in result.findings if not f.fixable}
    rules = {rule for rule, _ in manual}
    assert rules == {"TFM302", "TFM304"}, manual
    text = " ".join(f.message for f in result.findings if f.rule == "TFM304")
    # what migrated.py does: a chief task, no strategy (the Estimator places variables on the ps tasks), train_and_evaluate
    assert '"chief"' in text and "replica_device_setter" in text and "train_and_evaluate" in text
    assert "tf.distribute.experimental.ParameterServerStrategy" not in text  # RunConfig refuses it with an Estimator
    assert "samples/cluster_ps" in text
    assert b"MonitoredTrainingSession" in result.new and b"tf.estimator.train_and_evaluate" not in result.new


@pytest.mark.slow
def test_the_migrated_sample_trains_as_a_real_local_cluster(tmp_path: Path) -> None:
    """chief + worker + ps processes, each with its own TF_CONFIG, through train_and_evaluate: both
    trainers step, the chief's checkpoint holds the sum of their steps, every process stops by itself
    within the bound, and the chief's checkpoint restores and resumes. The suite's one local cluster run
    (an Estimator with its own model_fn and the module's train_input_fn, as tests/test_validate.py's
    local cluster test had; --device gpu with --cluster and a bad spec are refused there, before any task)."""
    temporary, work = tmp_path / "tmp", tmp_path / "work"
    temporary.mkdir()
    work.mkdir()
    code, result = validate("--cluster", "chief=1,worker=1,ps=1", f"{SAMPLE / 'migrated.py'}:build_estimator",
                            "--steps", "12", cwd=work, tmpdir=temporary)
    assert code == 0, result
    # nothing left in the temporary directory: not the tasks' AutoGraph modules, not a model_dir
    assert sorted(p.name for p in temporary.iterdir()) == []
    chief, _ = assert_trained_as_one_cluster(result, steps=12)
    # every task stopped by itself: a task still running at the cluster's deadline fails the cluster stage
    # (code 1), so no wall-clock bound is asserted here (it failed at load 19 on a correct run)
    names = [s["name"] for s in result["stages"]]
    assert names[0] == "cluster" and all(s["passed"] for s in result["stages"])
    cluster = result["stages"][0]["detail"]
    assert "3 processes on 127.0.0.1" in cluster and "= their sum" in cluster
    assert "bit-identical" in next(s for s in result["stages"] if s["name"] == "local: restore")["detail"]
    assert f"global_step {chief['global_step'] + 2} + 1" in next(s for s in result["stages"] if s["name"] == "local: resume")["detail"]
    assert result.get("model_dir_removed") and not any(work.iterdir())


@pytest.mark.slow
def test_the_rewritten_program_runs_as_its_cluster_and_its_checkpoint_fits_the_migration(tmp_path: Path) -> None:
    """expected.py (the rewrite: tf.compat.v1 names) still runs as the legacy ps + worker cluster on
    TF 2.15, and the checkpoint it writes restores into migrated.py's estimator: same variable names."""
    from tfmigrate.validate.cluster import _ports

    ps_port, worker_port = _ports(2)
    model_dir = tmp_path / "train_logs"
    flags = [f"--ps_hosts=127.0.0.1:{ps_port}", f"--worker_hosts=127.0.0.1:{worker_port}", f"--model_dir={model_dir}", "--max_steps=6"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    program = [sys.executable, str(SAMPLE / "expected.py"), *flags]
    # the ps task: a long-lived fork of the suite's TensorFlow server (as `python expected.py --job_name=ps` would be)
    ps = spawn([*program[1:], "--job_name=ps", "--task_index=0"], cwd=tmp_path, env=env, stdout=os.devnull, stderr=os.devnull)
    try:
        worker = run_python([*program[1:], "--job_name=worker", "--task_index=0"], cwd=tmp_path, env=env, timeout=120)
    finally:
        _kill(ps)  # server.join() serves forever, as in TF 1.x
    assert worker.returncode == 0, worker.stderr[-2000:]
    assert (model_dir / "model.ckpt-6.index").exists(), sorted(p.name for p in model_dir.iterdir())
    code, result = validate(f"{SAMPLE / 'migrated.py'}:build_estimator", "--checkpoint", str(model_dir),
                            "--steps", "2", "--device", "cpu", cwd=tmp_path)
    assert code == 0, result
    legacy = next(s for s in result["stages"] if s["name"] == "legacy checkpoint")
    assert legacy["passed"] and "model.ckpt-6" in legacy["detail"]
