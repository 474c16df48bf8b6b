"""Benchmark `tfmigrate rewrite` against TensorFlow's own `tf_upgrade_v2`, in one run.

Prints, side by side:
- files/s of both tools over the same copy of a corpus of legacy files (generated from
  `samples/*/legacy.py` at `--files` files, or any `--corpus DIR`), and the ratio;
- MB/s of `tfmigrate rewrite --check` over a large tree with no TensorFlow code (default: the
  Python standard library);
- peak resident memory of one tfmigrate process (workers included, as the largest of them);
- seconds for one file of 5,000 and of 50,000 lines, to show the cost grows linearly;
- a core check before and after the corpus runs: --jobs N is only fair when N cores are free.

Usage: python benchmarks/bench_rewrite.py [--files 3000] [--corpus DIR] [--tree DIR] [--jobs N] [--corpus-only]
Needs tf_upgrade_v2 (it ships in the tensorflow wheel) on PATH or beside this Python.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}


def tool(name: str) -> str:
    local = BIN / name
    return str(local) if local.exists() else shutil.which(name) or name


def timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, int, int]:
    """Wall seconds, exit code and peak RSS (KiB) of the largest process the command ran."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode not in (0, 1):
        print(f"  ! {' '.join(cmd[:3])}... exited {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
    return seconds, proc.returncode, max(peak, before)


_SPIN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"


def core_check(jobs: int) -> float:
    """How much slower ``jobs`` busy processes run side by side than one alone (1.00: that many
    cores are free). The --jobs figure means little when a neighbour has a core: it is printed
    before and after the corpus runs, so such a run shows itself."""
    def spin(n: int) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(n)]
        for proc in procs:
            proc.wait()
        return time.perf_counter() - start

    return spin(jobs) / spin(1)


def make_corpus(target: Path, count: int) -> int:
    legacy = sorted(ROOT.glob("samples/*/legacy.py"))
    if not legacy:
        sys.exit("no samples/*/legacy.py to build a corpus from; pass --corpus DIR")
    texts = [p.read_bytes() for p in legacy]
    for i in range(count):
        sub = target / f"pkg{i // 200:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"module_{i:05d}.py").write_bytes(texts[i % len(texts)])
    return count


def count_py(tree: Path) -> tuple[int, int]:
    files = [p for p in tree.rglob("*.py") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def big_file(path: Path, lines: int) -> None:
    chunk = [
        "import tensorflow as tf\n",
        "x = tf.placeholder(tf.float32, shape=[None, 4])\n",
        "with tf.Session() as sess:\n",
        "    tf.logging.info('step %d', 1)\n",
        "    saver = tf.train.Saver(max_to_keep=3)\n",
    ]
    body = ["import tensorflow as tf\n"]
    while len(body) < lines:
        body.extend(chunk[1:])
    path.write_text("".join(body[:lines]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--tree", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--corpus-only", action="store_true", help="skip the no-TensorFlow tree and the big files")
    args = parser.parse_args()
    tfm, upgrade = tool("tfmigrate"), tool("tf_upgrade_v2")

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        ours, theirs = tmp_path / "tfmigrate", tmp_path / "tf_upgrade_v2"
        if args.corpus:
            shutil.copytree(args.corpus, ours)
        else:
            make_corpus(ours, args.files)
        shutil.copytree(ours, theirs)
        files, size = count_py(ours)
        print(f"corpus: {files} files, {size / 1e6:.1f} MB; jobs={args.jobs}; cores={os.cpu_count()}")
        calm_before = core_check(args.jobs)

        t_ours, _, rss_ours = timed([tfm, "rewrite", "--jobs", str(args.jobs), "--format", "json", "-q", str(ours)])
        shutil.rmtree(ours)
        shutil.copytree(theirs, ours)
        t_ours1, _, rss_ours1 = timed([tfm, "rewrite", "--jobs", "1", "--format", "json", "-q", str(ours)])
        t_theirs, _, _ = timed(
            [upgrade, "--intree", str(theirs), "--outtree", str(tmp_path / "upgraded"), "--reportfile", str(tmp_path / "report.txt")]
        )
        print()
        print(f"{'rewrite corpus':<34}{'seconds':>10}{'files/s':>12}{'vs tf_upgrade_v2':>20}")
        print(f"{'tf_upgrade_v2':<34}{t_theirs:>10.2f}{files / t_theirs:>12.0f}{'1.00x':>20}")
        print(f"{'tfmigrate --jobs ' + str(args.jobs):<34}{t_ours:>10.2f}{files / t_ours:>12.0f}{t_theirs / t_ours:>19.2f}x")
        print(f"{'tfmigrate --jobs 1':<34}{t_ours1:>10.2f}{files / t_ours1:>12.0f}{t_theirs / t_ours1:>19.2f}x")
        print(f"peak RSS of one tfmigrate process: {max(rss_ours, rss_ours1) / 1024:.0f} MB (target < 300 MB)")
        calm_after = core_check(args.jobs)
        print(f"core check: {args.jobs} busy processes take {calm_before:.2f}x (before) / {calm_after:.2f}x (after) "
              f"the time of one (1.00 = {args.jobs} free cores; above ~1.15 the --jobs {args.jobs} figure is low)")
        if args.corpus_only:
            return

        tree_files, tree_bytes = count_py(args.tree)
        t_tree, _, _ = timed([tfm, "rewrite", "--check", "--jobs", str(args.jobs), "--format", "json", "-q", str(args.tree)])
        print()
        print(f"no-TensorFlow tree {args.tree}: {tree_files} files, {tree_bytes / 1e6:.1f} MB")
        print(f"  tfmigrate rewrite --check: {t_tree:.2f} s = {tree_bytes / 1e6 / t_tree:.1f} MB/s (target > 20 MB/s)")

        print()
        print(f"{'one big file':<34}{'tfmigrate s':>12}{'tf_upgrade_v2 s':>17}{'tfmigrate µs/line':>19}")
        for lines in (5_000, 50_000):
            path = tmp_path / f"big_{lines}.py"
            big_file(path, lines)
            t_big, _, _ = timed([tfm, "rewrite", "--diff", "--jobs", "1", "-q", str(path)])
            t_up, _, _ = timed([upgrade, "--infile", str(path), "--outfile", str(tmp_path / f"up_{lines}.py"), "--reportfile", str(tmp_path / "r.txt")])
            print(f"{str(lines) + ' lines':<34}{t_big:>12.2f}{t_up:>17.2f}{t_big / lines * 1e6:>19.1f}")


if __name__ == "__main__":
    main()
