"""``--jobs 1000000`` (or ``jobs = 1000000`` in the config) is capped at the CPUs this process may use.

Before, it started one worker process per file. The processes that really rewrite files are
counted by a fixture family (``tests/fixtures/tfm_probe_transforms.py:RecordsItsProcess``, loaded
through a catalog of its own), in a child pinned to a set of CPUs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RUN = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: int(sys.argv[3])]))
    from tfmigrate.codemod.rule import load_catalog
    from tfmigrate.codemod.runner import Options, run
    catalog = Path(sys.argv[2])
    report = run(["src"], Options(frozenset(load_catalog(catalog).rules), "check", int(sys.argv[4]), catalog))
    assert len(report.files) == 40 and all(f.status == "changed" for f in report.files), report.files
""")


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
@pytest.mark.parametrize("cpus", [1, 2])
def test_a_million_jobs_start_no_more_workers_than_cpus(tmp_path: Path, cpus: int) -> None:
    if len(os.sched_getaffinity(0)) < cpus:
        pytest.skip(f"needs {cpus} CPUs")
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "demo.toml").write_text((FIXTURES / "catalog" / "demo.toml").read_text()
                                       .replace("tfm_fixture_transform:Demo", "tfm_probe_transforms:RecordsItsProcess"))
    (tmp_path / "src").mkdir()
    for i in range(40):
        (tmp_path / "src" / f"m{i:02}.py").write_bytes(LEGACY)
    pids = tmp_path / "pids"
    pids.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(FIXTURES), str(catalog), str(cpus), "1000000"], cwd=tmp_path,
        env={**os.environ, "TFM_PROBE_PIDS": str(pids)}, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    workers = list(pids.iterdir())
    assert 1 <= len(workers) <= cpus, len(workers)  # before: up to one process per file


def test_the_help_says_jobs_are_capped_and_the_config_value_is_accepted(tmp_path: Path) -> None:
    for command in ("rewrite", "report"):
        shown = " ".join(tfm(command, "--help", cwd=tmp_path).stdout.split())
        assert "at most: the CPUs this process may use" in shown, shown
    (tmp_path / "a.py").write_bytes(LEGACY)
    (tmp_path / "pyproject.toml").write_text("[tool.tfmigrate]\njobs = 1000000\n")
    for args in (("rewrite", "--check", "a.py"), ("rewrite", "--check", "--jobs", "1000000", "a.py")):
        proc = tfm(*args, cwd=tmp_path)
        assert proc.returncode == 1 and "TFM501" in proc.stdout, proc.stderr
