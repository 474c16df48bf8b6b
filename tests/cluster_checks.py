"""What every `validate --cluster chief=1,worker=1,ps=1` run must show (tests/test_validate_cluster_sample.py,
whose run of samples/cluster_ps/migrated.py is the suite's one local cluster run)."""

from __future__ import annotations


def assert_trained_as_one_cluster(result: dict, steps: int) -> tuple[dict, dict]:
    """Both trainers stepped, the chief's checkpoint holds the sum of their steps, and the ps stopped
    because the chief was done (not at its deadline, nothing killed). Returns (chief, worker)."""
    tasks = result["tasks"]
    assert set(tasks) == {"chief:0", "worker:0", "ps:0"}
    chief, worker = tasks["chief:0"], tasks["worker:0"]
    assert chief["steps"] >= 1 and worker["steps"] >= 1
    assert chief["global_step"] == chief["steps"] + worker["steps"] >= steps
    assert tasks["ps:0"]["stopped"] == "chief done"
    return chief, worker
