"""The worker pool starts only for work large enough to pay for it, takes the biggest files first,
and gives exactly the results of ``--jobs 1`` in path order (issue 28)."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys

import pytest

from tfmigrate.codemod import runner
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import Options, pool_size, run

LEGACY = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nsess = tf.Session()\n"


def test_little_work_gets_no_pool_and_large_work_gets_the_jobs_asked_for():
    assert pool_size([500] * 3, 2) == 1  # the pre-commit case: a few small files
    assert pool_size([runner.POOL_MIN_BYTES - 10, 5], 2) == 1
    assert pool_size([runner.POOL_MIN_BYTES], 2) == 1  # one file: nothing to share out
    assert pool_size([runner.POOL_MIN_BYTES // 2] * 2, 2) == 2
    assert pool_size([runner.POOL_MIN_BYTES] * 10, 1) == 1
    assert pool_size([runner.POOL_MIN_BYTES] * 3, 8) == 3  # never more workers than files


def test_a_run_over_a_few_small_files_starts_no_worker_process(tmp_path):
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(LEGACY)
    script = (
        "import sys\n"
        "from tfmigrate.codemod.runner import Options, run\n"
        "from tfmigrate.codemod.rule import load_catalog\n"
        f"report = run([{str(tmp_path)!r}], Options(enabled=load_catalog().selected(None), mode='check', jobs=2))\n"
        "print(sorted(str(f.status) for f in report.files), 'concurrent.futures.process' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['changed', 'changed', 'changed'] False"


def _as_data(report) -> list:
    return [json.dumps([f.path, str(f.status), f.diff, f.error, [str(x) for x in f.findings]]) for f in report.files]


def test_the_pool_gives_the_serial_results_in_path_order_with_progress_for_every_file(tmp_path, monkeypatch):
    # very different sizes, so that the biggest-first order and the completion order both differ
    # from the path order
    for i in range(12):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY * (1 + (i * 7) % 11))
    (tmp_path / "broken.py").write_text("import tensorflow\nprint 'x'\n")
    (tmp_path / "plain.py").write_text("x = 1\n")
    os.chdir(tmp_path)
    enabled = load_catalog().selected(None)
    serial = _as_data(run(["."], Options(enabled, "diff", 1)))
    monkeypatch.setattr(runner, "POOL_MIN_BYTES", 0)
    seen: list[tuple[int, int, int]] = []
    report = run(["."], Options(enabled, "diff", 2), on_progress=lambda d, t: seen.append((d, t, len(multiprocessing.active_children()))))
    assert _as_data(report) == serial
    assert [(d, t) for d, t, _ in seen] == [(d, 14) for d in range(1, 15)]  # plain.py (skipped in this process) first
    assert any(workers for _, _, workers in seen), "no worker process ran"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_file_costs_that_file_only_in_either_mode(tmp_path, monkeypatch, jobs):
    monkeypatch.setattr(runner, "POOL_MIN_BYTES", 0)
    (tmp_path / "a.py").write_text(LEGACY * 3)
    (tmp_path / "b.py").write_bytes(b"import tensorflow\nx = '\xff'\n")
    (tmp_path / "c.py").write_text(LEGACY)
    os.chdir(tmp_path)
    report = run(["."], Options(load_catalog().selected(None), "check", jobs))
    assert [(f.path, str(f.status)) for f in report.files] == [("a.py", "changed"), ("b.py", "error"), ("c.py", "changed")]
