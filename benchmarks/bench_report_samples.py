"""CPU and wall time of the README's main-job command on the bundled samples, as a whole process.

    tfmigrate report samples/ --markdown PR --html FULL      (no --validate)

Run from a scratch copy of ``samples/`` (so nothing lands in the repository), --runs times; prints each
run's wall and CPU seconds (the process and its children: the checkpoint analysis child), the median,
and whether the median CPU is under the bound (60 s: it was a test's bound, `test_report.py`'s
``test_report_samples_under_a_minute``, until the suite moved its measurements here; what that command
prints and writes is checked by tests/test_readme.py, which runs it as the README gives it).

Usage: python benchmarks/bench_report_samples.py [--runs 3] [--bound 60]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(work: Path) -> tuple[float, float, int]:
    before, start = children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "report", "samples/", "--markdown", "pr.md", "--html", "full.html"],
                          capture_output=True, text=True, cwd=work, env={**os.environ, "COLUMNS": "80", "TERM": "dumb"}, timeout=600)
    return time.perf_counter() - start, children_cpu() - before, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bound", type=float, default=60.0, help="CPU seconds the median must stay under")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "samples", work / "samples")
        cpus = []
        for i in range(args.runs):
            wall, cpu, code = one_run(work)
            if code != 1:  # 1: work remains on the samples (the legacy programs)
                print(f"run {i + 1}: exit {code}, expected 1", file=sys.stderr)
                return 2
            cpus.append(cpu)
            print(f"run {i + 1}: {wall:.1f} s wall, {cpu:.1f} CPU s")
    median = statistics.median(cpus)
    verdict = "under" if median < args.bound else "OVER"
    print(f"tfmigrate report samples/: median {median:.1f} CPU s over {args.runs} run(s), {verdict} the {args.bound:.0f} s bound")
    return 0 if median < args.bound else 1


if __name__ == "__main__":
    sys.exit(main())
