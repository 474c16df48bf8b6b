"""tfmigrate on real code, side by side with tf_upgrade_v2, in one run.

usage: .venv/bin/python benchmarks/bench_real.py TREE [TREE ...] [--plain TREE ...] [--repeat N] [--jobs N]

TREE: directories of real legacy TensorFlow code (the realworld corpus's ``orig/``, a large real
repository checked out at a pinned commit). For each tree, on fresh copies:
- ``tfmigrate rewrite --check --no-cache`` with the default ``--jobs`` (wall seconds, files/s) and
  with ``--jobs 1`` (CPU seconds, user + system, of the whole process), against
  ``tf_upgrade_v2 --intree`` (wall and CPU), and the ratios the targets are stated in: files/s at
  least 2x tf_upgrade_v2's, ``--jobs 1`` CPU at most 0.5x its CPU;
- the slowest file in ms a line (rewritten in this process, best of ``--repeat``), target < 1;
- peak resident memory of the largest tfmigrate process, target < 300 MB;
- the second ``--check`` with the cache against the first (target: at most 10%).
--plain TREE: trees with no TensorFlow code (site-packages of pip, setuptools, scikit-learn,
pandas): MB/s of ``--check`` over them, target >= 100 MB/s.
Every timing is the best of ``--repeat`` runs (default 3), tf_upgrade_v2's too. tfmigrate's
modules are byte-compiled first, as TensorFlow's are in site-packages.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}


def tool(name: str) -> str:
    local = BIN / name
    return str(local) if local.exists() else shutil.which(name) or name


def measure(cmd: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system of the command and its children) and the peak RSS
    (KiB) of its largest process. Run in a child Python so the RSS belongs to this command only."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "wall = time.perf_counter() - start\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(wall, u.ru_utime + u.ru_stime, u.ru_maxrss, p.returncode)\n"
        "sys.stderr.write(p.stderr.decode(errors='replace')[-500:] if p.returncode not in (0, 1) else '')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, *cmd], cwd=cwd, env=ENV, capture_output=True, text=True)
    wall, cpu, rss, code = done.stdout.split()
    if int(code) not in (0, 1) and "cannot parse" not in done.stderr:  # Python 2 files: exit 2, as they should
        print(f"  ! {' '.join(cmd[:3])}... exited {code}: {done.stderr.strip()}", file=sys.stderr)
    return float(wall), float(cpu), int(rss)


def best(runs: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def count(tree: Path) -> tuple[int, int, int]:
    files = [p for p in tree.rglob("*.py") if p.is_file()]
    data = [p.read_bytes() for p in files]
    return len(files), sum(d.count(b"\n") + 1 for d in data), sum(len(d) for d in data)


def slowest_per_line(tree: Path, repeat: int) -> tuple[float, str, float]:
    from tfmigrate.codemod.engine import SourceError, rewrite_source
    from tfmigrate.codemod.rule import load_catalog
    from tfmigrate.codemod.runner import names_a_root_package

    enabled = load_catalog().selected(None)
    worst = (0.0, "", 0.0)
    for path in sorted(tree.rglob("*.py")):
        data = path.read_bytes()
        if not names_a_root_package(data):
            continue
        lines = data.count(b"\n") + 1
        times = []
        for _ in range(repeat):
            start = time.process_time()
            try:
                rewrite_source(data, enabled, path=str(path))
            except SourceError:
                pass
            times.append(time.process_time() - start)
        ms = min(times) * 1000
        if ms / lines > worst[0]:
            worst = (ms / lines, str(path.relative_to(tree)), ms)
    return worst


def bench_tree(tree: Path, args: argparse.Namespace, tfm: str, upgrade: str) -> None:
    files, lines, size = count(tree)
    print(f"\n== {tree} : {files} files, {lines:,} lines, {size / 1e6:.1f} MB")
    with tempfile.TemporaryDirectory(prefix="bench-real-") as scratch:
        root = Path(scratch)
        shutil.copytree(tree, root / "ours", symlinks=True)
        jobs_default, jobs_one, theirs = [], [], []
        for i in range(args.repeat):
            jobs_default.append(measure([tfm, "rewrite", "--check", "--no-cache", "-q", *(["--jobs", str(args.jobs)] if args.jobs else []), "ours"], root))
            jobs_one.append(measure([tfm, "rewrite", "--check", "--no-cache", "-q", "--jobs", "1", "ours"], root))
            out = root / f"theirs{i}"
            theirs.append(measure([upgrade, "--intree", "ours", "--outtree", str(out), "--reportfile", str(root / f"r{i}.txt")], root))
            shutil.rmtree(out, ignore_errors=True)
        first = measure([tfm, "rewrite", "--check", "-q", "--cache-dir", str(root / "cache"), "ours"], root)
        second = best([measure([tfm, "rewrite", "--check", "-q", "--cache-dir", str(root / "cache"), "ours"], root) for _ in range(args.repeat)])
    wall_d, _, rss_d = best(jobs_default)
    _, cpu_1, rss_1 = best(jobs_one)
    wall_t, cpu_t, rss_t = best(theirs)
    print(f"{'':34}{'wall s':>9}{'files/s':>10}{'CPU s':>9}{'peak MB':>9}")
    print(f"{'tf_upgrade_v2':34}{wall_t:>9.2f}{files / wall_t:>10.0f}{cpu_t:>9.2f}{rss_t / 1024:>9.0f}")
    print(f"{'tfmigrate --jobs ' + (str(args.jobs) if args.jobs else 'default'):34}{wall_d:>9.2f}{files / wall_d:>10.0f}{'':>9}{rss_d / 1024:>9.0f}")
    print(f"{'tfmigrate --jobs 1':34}{'':>9}{'':>10}{cpu_1:>9.2f}{rss_1 / 1024:>9.0f}")
    print(f"files/s vs tf_upgrade_v2: {wall_t / wall_d:.2f}x (target >= 2x)   "
          f"--jobs 1 CPU vs tf_upgrade_v2 CPU: {cpu_1 / cpu_t:.2f}x (target <= 0.5x)")
    print(f"second --check with the cache: {second[0]:.2f} s, {second[0] / first[0]:.0%} of the first {first[0]:.2f} s (target <= 10%)")
    per_line, where, ms = slowest_per_line(tree, args.repeat)
    print(f"slowest file: {per_line:.2f} ms/line ({where}, {ms:.0f} ms) (target < 1)")


def bench_plain(trees: list[Path], args: argparse.Namespace, tfm: str) -> None:
    size = sum(count(t)[2] for t in trees)
    runs = [measure([tfm, "rewrite", "--check", "--no-cache", "-q", *map(str, trees)], Path.cwd()) for _ in range(args.repeat)]
    wall, cpu, rss = best(runs)
    print(f"\n== no-TensorFlow trees ({', '.join(t.name for t in trees)}): {size / 1e6:.1f} MB")
    print(f"--check: {wall:.2f} s wall, {cpu:.2f} s CPU, {size / 1e6 / wall:.0f} MB/s (target >= 100), peak {rss / 1024:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--plain", nargs="*", type=Path, default=[])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="tfmigrate's --jobs for the parallel run [default: its own]")
    args = parser.parse_args()
    tfm, upgrade = tool("tfmigrate"), tool("tf_upgrade_v2")
    # Both tools as installed: TensorFlow's modules are byte-compiled in site-packages (pip does it
    # at install), so tfmigrate's are too, even where PYTHONDONTWRITEBYTECODE is set (a checkout
    # would otherwise compile its ~70 modules from source at every start, ~0.04 s).
    import compileall
    import tfmigrate

    compileall.compile_dir(Path(tfmigrate.__file__).parent, quiet=1)
    print(f"machine: {os.cpu_count()} CPUs; best of {args.repeat} runs each")
    for tree in args.trees:
        bench_tree(tree.resolve(), args, tfm, upgrade)
    if args.plain:
        bench_plain([t.resolve() for t in args.plain], args, tfm)


if __name__ == "__main__":
    main()
