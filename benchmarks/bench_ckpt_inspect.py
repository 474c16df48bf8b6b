"""Benchmark `tfmigrate ckpt inspect` against `tf.train.list_variables`, whole process, on a ~1 GB checkpoint.

Generates the checkpoint in a temp dir (a few big float32 variables plus small ones, written by
TensorFlow's SaveV2 in a child process), then times, as whole processes (start-up included):
- `python -m tfmigrate ckpt inspect PREFIX --format json`
- `python -c 'import tensorflow as tf; tf.train.list_variables(PREFIX)'`
and prints the median of --runs runs of each and the ratio. Also times inspect on a checkpoint 10x
smaller, to show the work does not grow with the data file's size.

Usage: python benchmarks/bench_ckpt_inspect.py [--gb 1.0] [--runs 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import resource
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}

WRITE = """
import sys, numpy as np, tensorflow as tf
prefix, total = sys.argv[1], int(float(sys.argv[2]) * 1e9)
names, tensors = [], []
big = 4
for i in range(big):
    n = total // big // 4
    names.append(f"dnn/input_from_feature_columns/embedding_{i}/weights")
    tensors.append(tf.random.uniform([n // 64, 64]))
for i in range(50):
    names.append(f"dnn/hiddenlayer_{i}/kernel"); tensors.append(tf.zeros([64, 64]))
    names.append(f"dnn/hiddenlayer_{i}/bias"); tensors.append(tf.zeros([64]))
names.append("global_step"); tensors.append(tf.constant(1000, tf.int64))
tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names), tensors=tensors)
"""


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+sys) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}... failed: {proc.stderr.strip().splitlines()[-1:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_time(cmd: list[str], runs: int) -> tuple[float, float]:
    timed(cmd)  # warm the page cache and the interpreter's .pyc files
    samples = [timed(cmd) for _ in range(runs)]
    return statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples)


def make(prefix: Path, gb: float) -> None:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-c", WRITE, str(prefix), str(gb)], check=True, env=ENV, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="write the checkpoints here and keep them")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="tfmigrate-bench-"))
    try:
        big = root / "big" / "model.ckpt-1000"
        small = root / "small" / "model.ckpt-1000"
        if not Path(f"{big}.index").exists():
            make(big, args.gb)
        if not Path(f"{small}.index").exists():
            make(small, args.gb / 10)
        data_bytes = sum(p.stat().st_size for p in big.parent.glob("*.data-*"))
        index_bytes = Path(f"{big}.index").stat().st_size
        ours = [sys.executable, "-m", "tfmigrate", "ckpt", "inspect", str(big), "--format", "json"]
        theirs = [sys.executable, "-c", f"import tensorflow as tf; tf.train.list_variables({str(big)!r})"]
        check = subprocess.run(ours, capture_output=True, text=True, env=ENV, check=True)
        n = len(json.loads(check.stdout)["variables"])
        t_ours = median_time(ours, args.runs)
        t_small = median_time([*ours[:5], str(small), "--format", "json"], args.runs)
        t_tf = median_time(theirs, args.runs)
        t_py = median_time([sys.executable, "-c", "pass"], args.runs)
        group_only = [sys.executable, "-c", "import sys; from tfmigrate.cli.ckpt import ckpt; "
                      f"ckpt(['inspect', {str(big)!r}, '--format', 'json'])"]
        t_group = median_time(group_only, args.runs)
        print(f"checkpoint: {data_bytes / 1e9:.2f} GB of data, {index_bytes} B index, {n} tensors")
        print(f"whole process, median of {args.runs}:                  wall       CPU (user+sys)")
        print(f"tfmigrate ckpt inspect --format json            {t_ours[0]:7.3f} s  {t_ours[1]:7.3f} s")
        print(f"python -c 'tf.train.list_variables(...)'        {t_tf[0]:7.3f} s  {t_tf[1]:7.3f} s")
        print(f"ratio (faster)                                  {t_tf[0] / t_ours[0]:7.1f}x  {t_tf[1] / t_ours[1]:7.1f}x")
        print(f"ckpt group alone (no top-level rich/tomllib)    {t_group[0]:7.3f} s  {t_group[1]:7.3f} s")
        print(f"bare `python -c pass` (the floor)               {t_py[0]:7.3f} s  {t_py[1]:7.3f} s")
        print(f"load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall times stretch under load; CPU times do not)")
        print(f"inspect on a {data_bytes / 10 / 1e9:.2f} GB checkpoint: {t_small[0]:.3f} s wall, {t_small[1]:.3f} s CPU "
              "(work does not grow with the data size)")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
