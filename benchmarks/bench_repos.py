"""Whole repositories, pinned to 2017-2018 commits: tfmigrate against libcst's parser and tf_upgrade_v2.

usage: .venv/bin/python benchmarks/bench_repos.py [NAME ...] [--trees DIR] [--repeat N] [--skip WHAT ...]
       .venv/bin/python benchmarks/bench_repos.py --slowest-only [NAME ...]   (the per-file table only)

Issue 28. Every Python file of each repository at its pinned commit (not files chosen for the
benchmark); for each tree, side by side in one run:
- ``libcst``: ``libcst.parse_module`` plus code generation (``module.code``) of every file Python 3
  compiles, alone: the floor any libcst codemod stands on;
- ``tfmigrate rewrite --check --no-cache --jobs 1`` and with the default ``--jobs``;
- ``tf_upgrade_v2 --intree`` (TensorFlow 2.15's, from the venv);
- CPU seconds of each (user + system of the child process and its children,
  ``resource.getrusage(RUSAGE_CHILDREN)`` in a probe process that runs only that command), wall
  seconds, files/s, and the ratios the issue's targets are stated in;
- the 10 slowest files in ms a line (CPU time of ``rewrite_source`` in one warm process, a file at a
  time, with the CLI's collector settings, after a warm-up that loads what a run has loaded after
  its first files: every family's ``warm_up``, every file of ``samples/`` and every before-text of
  the catalog's examples; the lower of two rounds over the tree). The one-time start-up (import,
  catalog, warm-up) and each round's total are printed beside it, so that nothing is hidden.
The machine these figures come from is shared: CPU time is the honest figure. Wall time (and so
files/s and the parallel run's gain) means something only on a quiet machine; the script prints
the load average before and after so that a reader can judge.

The trees are materialised once, from a git mirror (the ``fetch`` tool of the session brings them
to ``/work/.mirror/<owner>+<name>``; any clone works, ``--mirror-root``), with
``git archive <commit> -- '*.py' | tar -x`` into ``--trees`` (default ``/work/bench-trees``):
their code is never part of this repository.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}


@dataclass(frozen=True)
class Tree:
    name: str
    repo: str  # owner/name on GitHub
    commit: str
    date: str  # the commit's date, for the reader
    why: str
    mirror: str = ""  # the repository the commit is fetched from, where not ``repo`` (a fork that holds it)
    paths: tuple[str, ...] = ("*.py",)  # the git pathspecs extracted


# tensorflow/models itself (research/ and official/) is what the issue asks for first; its snapshot
# (813 MB) is over the 500 MB the session's fetch tool brings. A fork that holds upstream's history up
# to September 2018 (jdavidagudelo/tensorflow-models, 60 MB) brings the upstream commit 38385b0a
# (2018-09-28, "Update lr and default number epochs for CIFAR 10 (#5243)"): the same commit id, so
# the same tree, as tensorflow/models. tensorflow/tpu (the models the TPU team kept outside
# tensorflow/models in 2018: official/resnet, retinanet, mnasnet, amoeba_net, transformer on
# TPUEstimator, TF 1.12) was its stand-in before and stays.
TREES = (
    Tree("models", "tensorflow/models", "38385b0a0260609192423e371ce8a30a9f5571ba", "2018-09-28",
         "research/ and official/ of tensorflow/models (slim, object_detection, ~100 research models)",
         mirror="jdavidagudelo/tensorflow-models", paths=("research/*.py", "official/*.py")),
    Tree("magenta", "magenta/magenta", "d151a9717bd46157fafdfadef487c1d1dce96f5b", "2018-12-28",
         "music/art models, tf.contrib.training/seq2seq/rnn/slim, Estimators"),
    Tree("tensor2tensor", "tensorflow/tensor2tensor", "2451614b930c73b2b8dd891b4fc5838d99a151a6", "2018-12-30",
         "T2T 1.12: large layer libraries, contrib.tpu/learn Experiment, many tf. chains"),
    Tree("tpu", "tensorflow/tpu", "0e3cfbdfbcf321681c1ac1c387baf7a1a41d8d21", "2018-12-11",
         "substitute for tensorflow/models (too big to fetch): TPUEstimator models"),
    Tree("sonnet", "deepmind/sonnet", "436f794969e8207c678bfeb028bf2f14bc1d77d2", "2018-11-20",
         "Sonnet 1.x: a TF 1.x module library, variable scopes, contrib.framework"),
)


def tool(name: str) -> str:
    local = BIN / name
    return str(local) if local.exists() else shutil.which(name) or name


def upgrade_command() -> list[str]:
    """tf_upgrade_v2 of the venv's TensorFlow (its script, else its module: a venv that shares
    another's site-packages has no script of its own)."""
    if (BIN / "tf_upgrade_v2").exists():
        return [str(BIN / "tf_upgrade_v2")]
    return [sys.executable, "-c", "import sys; from tensorflow.tools.compatibility.tf_upgrade_v2_main import main; "
            "sys.argv[0] = 'tf_upgrade_v2'; sys.exit(main())"]


def materialise(tree: Tree, root: Path, mirrors: Path) -> Path:
    """The tree's Python files at its commit, extracted once into ``root/<name>``."""
    target = root / tree.name
    if (target / ".commit").is_file() and (target / ".commit").read_text().strip() == tree.commit:
        return target
    if (target.is_dir() and any(target.iterdir())) and not (target / ".commit").exists():
        (target / ".commit").write_text(tree.commit + "\n")  # extracted by hand before this script existed
        return target
    owner_name = (tree.mirror or tree.repo).replace("/", "+")
    candidates = [mirrors / owner_name / "repo", mirrors / owner_name / "repo" / ".git", mirrors / owner_name]
    git_dir = next((c for c in candidates if (c / "objects").is_dir() or (c / ".git").exists()), None)
    if git_dir is None:
        sys.exit(f"{tree.repo}: no git mirror under {mirrors / owner_name}; fetch it (or clone it there) first")
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.Popen(["git", "-C", str(git_dir), "archive", tree.commit, "--", *tree.paths], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive.stdout, check=True)
    archive.wait()  # a blob the snapshot lacks (a large binary) is reported by git and skipped: .py files only
    (target / ".commit").write_text(tree.commit + "\n")
    return target


def python_files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.py") if p.is_file() and not p.is_symlink())


def measure(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of ``cmd``: user + system of the command and every process it waited for,
    from ``getrusage(RUSAGE_CHILDREN)`` in a probe process that runs nothing else."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "wall = time.perf_counter() - start\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(wall, u.ru_utime + u.ru_stime, p.returncode)\n"
        "sys.stderr.write(p.stderr.decode(errors='replace')[-800:] if p.returncode not in (0, 1) else '')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, *cmd], cwd=cwd, env=ENV, capture_output=True, text=True)
    if len(done.stdout.split()) != 3:
        sys.exit(f"  ! the probe failed on {' '.join(cmd[:3])}...: {done.stderr.strip()[-500:]}")
    wall, cpu, code = done.stdout.split()
    if int(code) not in (0, 1):
        print(f"  ! {' '.join(cmd[:3])}... exited {code}: {done.stderr.strip()[-300:]}", file=sys.stderr)
    return float(wall), float(cpu)


_LIBCST_ONLY = r"""
import ast, io, sys, tokenize, warnings
import libcst
n = 0
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            compile(data, path, 'exec', ast.PyCF_ONLY_AST, dont_inherit=True)  # what tfmigrate refuses, skipped here too
        module = libcst.parse_module(data)
    except Exception:
        continue
    module.code
    n += 1
print(n)
"""


_SLOWEST = r"""
import glob, json, sys, time
t0 = time.process_time()
from tfmigrate.codemod.engine import SourceError, rewrite_source
from tfmigrate.codemod.options import names_a_root_package
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import _long_lived_data_frozen
catalog = load_catalog()
enabled = catalog.selected(None)
imported = time.process_time() - t0


def timed(data, path):
    start = time.process_time()
    try:
        rewrite_source(data, enabled, path=path)
    except SourceError:
        pass
    return time.process_time() - start


with _long_lived_data_frozen():  # the CLI's collector settings (frozen start-up data, a high threshold)
    # warm-up: what a CLI run has loaded after its first files (every family's transform, tables,
    # lazy imports, the helpers' parsed texts), else the first file to need a family pays for it:
    # each family's warm_up() (what the CLI does before forking workers), then every file of
    # samples/ and every before-text of the catalog's examples (each family's code paths run once)
    t1 = time.process_time()
    for family in catalog.families:
        family.load_transform().warm_up()
    for sample in sorted(glob.glob("samples/**/*.py", recursive=True)):
        timed(open(sample, "rb").read(), sample)
    for rule in catalog.rules.values():
        for example in rule.examples:
            timed(example.before.encode(), "example.py")
    warm = time.process_time() - t1
    files = [(path, open(path, "rb").read()) for path in sys.argv[1:]]
    files = [(path, data) for path, data in files if names_a_root_package(data)]
    # two rounds over the whole tree, each file's figure the lower of its two: the machine is shared
    # and one file's CPU varies by tens of percent; no content-keyed cache survives a round (the
    # largest holds 32 texts; every tree has more files than that)
    rounds = [[timed(data, path) for path, data in files] for _ in range(2)]
out = [(min(a, b), data.count(b"\n") + 1, path) for (path, data), a, b in zip(files, *rounds)]
print(json.dumps({"files": out, "imported": imported, "warm": warm, "rounds": [sum(r) for r in rounds]}))
"""


def slowest(files: list[Path], cwd: Path) -> tuple[list[tuple[float, int, str]], dict[str, float]]:
    """Each TensorFlow file's CPU in ``rewrite_source`` in a warm process, and the one-time costs
    (import and catalog; the warm-up) and each round's total, printed beside the table."""
    done = subprocess.run([sys.executable, "-c", _SLOWEST, *map(str, files)], cwd=cwd, env=ENV, capture_output=True, text=True, check=True)
    got = json.loads(done.stdout)
    return [tuple(x) for x in got.pop("files")], got  # type: ignore[misc]


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench(name: str, tree: Path, args: argparse.Namespace, tfm: str, upgrade: list[str], repo_root: Path) -> dict[str, float]:
    files = python_files(tree)
    data = [p.read_bytes() for p in files]
    lines = sum(d.count(b"\n") + 1 for d in data)
    print(f"\n== {name}: {len(files)} files, {lines:,} lines, {sum(map(len, data)) / 1e6:.1f} MB  (load before: {load()})", flush=True)
    rows: dict[str, tuple[float, float]] = {}
    skip = set(args.skip)

    print(f"{'':28}{'CPU s':>9}{'wall s':>9}{'files/s':>9}")

    def row(key: str, runs: list[tuple[float, float]]) -> None:
        wall, cpu = rows[key] = (min(r[0] for r in runs), min(r[1] for r in runs))
        print(f"{key:28}{cpu:>9.2f}{wall:>9.2f}{len(files) / wall:>9.0f}", flush=True)

    def best(key: str, cmd: list[str], cwd: Path) -> None:
        row(key, [measure(cmd, cwd) for _ in range(args.repeat)])

    with tempfile.TemporaryDirectory(prefix="bench-repos-") as scratch:
        root = Path(scratch)
        if "libcst" not in skip:
            best("libcst parse+codegen", [sys.executable, "-c", _LIBCST_ONLY, *map(str, files)], root)
        if "jobs1" not in skip:
            best("tfmigrate --jobs 1", [tfm, "rewrite", "--check", "--no-cache", "-q", "--jobs", "1", str(tree)], root)
        if "default" not in skip:
            jobs = ["--jobs", str(args.jobs)] if args.jobs else []
            best(f"tfmigrate --jobs {args.jobs or 'default'}", [tfm, "rewrite", "--check", "--no-cache", "-q", *jobs, str(tree)], root)
        if "upgrade" not in skip:
            runs = []
            for i in range(args.repeat):
                out = root / f"theirs{i}"
                runs.append(measure([*upgrade, "--intree", str(tree), "--outtree", str(out), "--reportfile", str(root / f"r{i}.txt")], root))
                shutil.rmtree(out, ignore_errors=True)
            row("tf_upgrade_v2", runs)
    figures = {k: v[1] for k, v in rows.items()}
    one, parse, theirs = rows.get("tfmigrate --jobs 1"), rows.get("libcst parse+codegen"), rows.get("tf_upgrade_v2")
    default = next((v for k, v in rows.items() if k.startswith("tfmigrate --jobs ") and k != "tfmigrate --jobs 1"), None)
    if one and parse:
        print(f"--jobs 1 CPU / libcst parse+codegen CPU: {one[1] / parse[1]:.2f}x (target <= 2x)")
    if one and theirs:
        print(f"--jobs 1 CPU / tf_upgrade_v2 CPU:        {one[1] / theirs[1]:.2f}x (target <= 0.5x)")
    if default and theirs:
        print(f"default files/s / tf_upgrade_v2 files/s: {theirs[0] / default[0]:.2f}x (target >= 3x; wall: honest only on a quiet machine)")
    if default and one:
        print(f"default wall / --jobs 1 wall:            {default[0] / one[0]:.2f}x (target <= 0.6x on 2 idle cores); "
              f"CPU {default[1] / one[1]:.2f}x")
    if "slowest" not in skip:
        timed, once = slowest(files, repo_root)
        total = sum(t for t, _, _ in timed)
        print(f"start-up, once a process: import and catalog {once['imported']:.2f} s CPU, warm-up {once['warm']:.2f} s; "
              f"rounds over the tree: {', '.join(f'{r:.1f}' for r in once['rounds'])} s")
        print(f"10 slowest files, ms a line (in-process CPU, warm, the lower of 2 rounds; all {len(timed)} TensorFlow files: "
              f"{total:.1f} s; target: none above 0.5):")
        for seconds, n, path in sorted(timed, key=lambda x: -x[0] / x[1])[:10]:
            print(f"  {seconds * 1000 / n:6.2f} ms/line {seconds * 1000:8.0f} ms {n:6} lines  {Path(path).relative_to(tree)}")
        figures["worst ms/line"] = max((t * 1000 / n for t, n, _ in timed), default=0.0)
    print(f"(load after: {load()})", flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"trees to run [default: all: {', '.join(t.name for t in TREES)}]")
    parser.add_argument("--trees", type=Path, default=Path("/work/bench-trees"), help="where the pinned trees are extracted")
    parser.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"), help="git mirrors, <owner>+<name>/repo")
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs of each command [default 1: the trees are large]")
    parser.add_argument("--jobs", type=int, default=None, help="tfmigrate's --jobs for the parallel run [default: its own]")
    parser.add_argument("--skip", nargs="*", default=[], choices=["libcst", "jobs1", "default", "upgrade", "slowest"])
    parser.add_argument("--slowest-only", action="store_true", help="only the table of the slowest files")
    args = parser.parse_args()
    if args.slowest_only:
        args.skip = ["libcst", "jobs1", "default", "upgrade"]
    chosen = [t for t in TREES if not args.names or t.name in args.names]
    repo_root = Path(__file__).resolve().parent.parent
    import compileall

    import tfmigrate

    compileall.compile_dir(Path(tfmigrate.__file__).parent, quiet=1)  # as pip would have installed it
    print(f"machine: {os.cpu_count()} CPUs (shared: CPU seconds are the figure to trust); best of {args.repeat}")
    for t in chosen:
        print(f"{t.name}: {t.repo} at {t.commit[:10]} ({t.date}) - {t.why}")
    tfm, upgrade = tool("tfmigrate"), upgrade_command()
    totals: dict[str, float] = {}
    for t in chosen:
        for key, value in bench(t.name, materialise(t, args.trees, args.mirror_root), args, tfm, upgrade, repo_root).items():
            totals[key] = max(totals.get(key, 0.0), value) if key == "worst ms/line" else totals.get(key, 0.0) + value
    if len(chosen) > 1:
        print("\n== all trees, CPU s: " + ", ".join(f"{k} {v:.2f}" for k, v in totals.items()))


if __name__ == "__main__":
    main()
