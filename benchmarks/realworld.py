"""Real legacy programs after the rewrite: how many run on TensorFlow 2.15, tfmigrate vs tf_upgrade_v2.

usage: .venv/bin/python benchmarks/realworld.py [--corpus DIR] [--jobs N] [--json FILE] [--target keras] [NAME ...]

The corpus (default ``../shared/realworld`` beside the repository) holds real 2016-2019 programs, an
offline-data patch for each (data loading only, never TensorFlow code) and a harness
(``tools/run_one.py``). This script copies the corpus to a scratch directory, then for every program:

1. ``tfmigrate rewrite`` (this checkout, through the venv running this script) and the harness runs
   the migrated program (every run must exit 0 with no traceback, print what the program prints
   when it works, and leave its checkpoints where it meant to);
2. ``tf_upgrade_v2`` (TensorFlow's own upgrader, shipped in the same venv) on a fresh copy, and the
   same runs and checks.

It prints one line a program (tfmigrate's exit code and manual findings, whether each migration
runs, and for a failure the exception and the migrated line it points at), whether the exit code
told the truth (0 and runs, or 1 and a manual finding), and the totals ``N/M run`` side by side.
Python 2 programs count as not running for both (tfmigrate refuses them with one line).

``--target keras``: tfmigrate rewrites with ``--target keras`` and both migrations run on TensorFlow 2.21
(the ``.venv-keras`` interpreter, or ``--keras-python``), where tf.estimator no longer exists. The
corpus programs also import scikit-learn and pandas: install them there once
(``.venv-keras/bin/pip install -e ".[keras,keras-corpus]"``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent.parent  # the venv running this script: its tfmigrate and tf_upgrade_v2


def load_harness(corpus: Path):
    """The corpus's own tools/run_one.py, pointed at the scratch copy and this venv."""
    os.environ["DEVCORPUS"] = str(corpus)
    os.environ["TFM_VENV"] = str(VENV)
    sys.path.insert(0, str(corpus / "tools"))
    import run_one  # type: ignore[import-not-found]

    return run_one


def target_keras(harness, scratch: Path, python: str) -> None:
    """Point the harness at ``rewrite --target keras`` and at the TensorFlow 2.21 interpreter."""
    wrapper = scratch / "tfmigrate-keras"
    wrapper.write_text(f'#!/bin/sh\nexec "{VENV / "bin" / "tfmigrate"}" "$@" --target keras\n')
    wrapper.chmod(0o755)
    harness.TFM, harness.PY = str(wrapper), python
    estimator_ckpt_state = harness.ckpt_state

    def ckpt_state(d: str, cfg: dict) -> dict:
        """A model_dir of an estimator lowered to Keras holds model.ckpt-STEP.weights.h5 (TFM701's
        checkpoints), not the Estimator's ``checkpoint`` state file or ``*.index``: where the migrated
        program imports the Keras helpers, the corpus's checkpoint globs ask for those. A graph-mode program
        that imports only TFM712's legacy_dense still writes TF1 checkpoints: the corpus's own globs first."""
        state = estimator_ckpt_state(d, cfg)
        if os.path.exists(os.path.join(d, "legacy_estimators.py")) and not all(state.values()):
            return estimator_ckpt_state(d, dict(cfg, ckpt=[_keras_checkpoints(g) for g in cfg.get("ckpt", [])]))
        return state

    harness.ckpt_state = ckpt_state


def _keras_checkpoints(pattern: str) -> str:
    head, _, tail = pattern.rpartition("/")
    if tail == "checkpoint" or tail.endswith(".index"):
        return f"{head}/model.ckpt-*.weights.h5" if head else "model.ckpt-*.weights.h5"
    return pattern


def run_tf_upgrade_v2(harness, name: str) -> dict:
    """The same program, migrated by tf_upgrade_v2 instead, run and checked as the harness does."""
    cfg = harness.CONFIG[name]
    entry = cfg.get("entry", name + ".py")
    runs = cfg.get("runs", 1)
    d = os.path.join(harness.ROOT, "work", name, "tfu")
    files = harness.setup_dir(d, name, cfg)
    upgrader = str(VENV / "bin" / "tf_upgrade_v2")
    for f in files:
        path = os.path.join(d, f)
        harness.sh([upgrader, "--infile", path, "--outfile", path, "--reportfile", path + ".report.txt"], d, timeout=300)
    rr = harness.run_program(d, entry, cfg, "run", runs)
    ck = harness.ckpt_state(d, cfg)
    return {"runs": rr, "ckpt": ck, "verdict": harness.verdict(rr, ck, cfg, runs)}


def one(harness, name: str) -> dict:
    started = time.time()
    harness.main(name, pre=False)  # writes results/NAME.json
    with open(os.path.join(harness.ROOT, "results", name + ".json")) as handle:
        result = json.load(handle)
    result["tf_upgrade_v2"] = run_tf_upgrade_v2(harness, name)
    result["seconds"] = round(time.time() - started, 1)
    return result


def failure(migrated: dict) -> str:
    if migrated["verdict"] == "runs":
        return ""
    runs = migrated.get("runs") or [{}]
    last = runs[-1]
    if migrated["verdict"] == "check-failed":
        missing = [rx for r in runs for rx, ok in r.get("expect", {}).items() if not ok]
        missing += [g for g, found in migrated.get("ckpt", {}).items() if not found]
        return "exit 0, but missing: " + ", ".join(missing)
    where = f"{last.get('file')}:{last.get('line')}: " if last.get("file") else ""
    exception = last.get("exception") or ("timeout" if last.get("rc") == "timeout" else f"exit {last.get('rc')}")
    return f"{where}{exception}"[:150]


def honest(result: dict) -> str:
    """Did `tfmigrate rewrite`'s exit code tell the truth about the program?"""
    exit_code = result["tfmigrate"].get("exit")
    runs = result["migrated"]["verdict"] == "runs"
    if exit_code == 2:
        return "refused"
    if exit_code == 0:
        return "yes" if runs else "NO: exit 0, fails"
    return "yes" if not runs else "exit 1, runs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="programs to run (default: all)")
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "realworld")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write every result here")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy (printed)")
    parser.add_argument("--target", choices=("estimator", "keras"), default="estimator",
                        help="keras: rewrite with --target keras and run both migrations on TensorFlow 2.21")
    parser.add_argument("--keras-python", default=str(REPO / ".venv-keras" / "bin" / "python"))
    args = parser.parse_args()
    if args.target == "keras":
        probe = subprocess.run([args.keras_python, "-c", "import tensorflow, sklearn, pandas"], capture_output=True)
        if probe.returncode != 0:
            print(f"realworld.py: {args.keras_python} lacks TensorFlow 2.21, scikit-learn or pandas "
                  '(make keras, then .venv-keras/bin/pip install -e ".[keras,keras-corpus]")', file=sys.stderr)
            return 2
    if not (args.corpus / "tools" / "run_one.py").exists():
        print(f"realworld.py: no corpus at {args.corpus} (tools/run_one.py missing)", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="tfm-realworld-"))
    corpus = scratch / "realworld"
    shutil.copytree(args.corpus, corpus, ignore=shutil.ignore_patterns("work", "results"))
    python = str(VENV / "bin" / "python")
    subprocess.run([python, "tools/prepare.py"], cwd=corpus, check=True, stdout=subprocess.DEVNULL)
    if not (corpus / "data" / "text8.zip").exists():
        subprocess.run([python, "tools/make_data.py"], cwd=corpus, check=True, stdout=subprocess.DEVNULL)
    harness = load_harness(corpus)
    if args.target == "keras":
        target_keras(harness, scratch, args.keras_python)
    names = args.names or [n.strip() for n in (corpus / "tools" / "names.txt").read_text().splitlines() if n.strip() and not n.startswith("#")]
    families = _families(corpus)

    started = time.time()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda n: one(harness, n), names))
    elapsed = time.time() - started

    print()
    header = f"{'program':32} {'family':18} {'tfm exit':8} {'manual':6} {'tfmigrate':9} {'honest':18} {'tf_upgrade_v2':13}  failure after tfmigrate"
    print(header)
    print("-" * len(header))
    for r in results:
        t = r["tfmigrate"]
        manual = len(t.get("manual", []))
        print(
            f"{r['name']:32} {families.get(r['name'], '?'):18} {str(t.get('exit')):8} {manual:<6} "
            f"{'runs' if r['migrated']['verdict'] == 'runs' else 'fails':9} {honest(r):18} "
            f"{'runs' if r['tf_upgrade_v2']['verdict'] == 'runs' else 'fails':13}  {failure(r['migrated'])}"
        )
    print()
    py3 = [r for r in results if not r.get("py2")]
    for label, group in (("Python 3 programs", py3), ("all programs", results)):
        tfm = sum(r["migrated"]["verdict"] == "runs" for r in group)
        tfu = sum(r["tf_upgrade_v2"]["verdict"] == "runs" for r in group)
        print(f"{label:18}  tfmigrate {tfm}/{len(group)} run   tf_upgrade_v2 {tfu}/{len(group)} run")
    by_family: dict[str, list[dict]] = {}
    for r in results:
        by_family.setdefault(families.get(r["name"], "?"), []).append(r)
    for family, group in sorted(by_family.items()):
        tfm = sum(r["migrated"]["verdict"] == "runs" for r in group)
        tfu = sum(r["tf_upgrade_v2"]["verdict"] == "runs" for r in group)
        print(f"  {family:18}  tfmigrate {tfm}/{len(group)}   tf_upgrade_v2 {tfu}/{len(group)}")
    lies = [r["name"] for r in results if honest(r).startswith("NO")]
    cautious = [r["name"] for r in results if honest(r) == "exit 1, runs"]
    print(f"exit 0 but fails: {len(lies)} {lies}")
    print(f"exit 1 but runs:  {len(cautious)} {cautious}")
    print(f"(target {args.target}: programs run with {harness.PY}; {elapsed:.0f} s, {args.jobs} jobs; scratch copy {'kept at ' + str(scratch) if args.keep else 'removed'})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _families(corpus: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    sources = corpus / "orig" / "SOURCES.tsv"
    for line in sources.read_text().splitlines()[1:]:
        cells = line.split("\t")
        if len(cells) > 1:
            found.setdefault(cells[0].split("/")[0], cells[1])
    return found


if __name__ == "__main__":
    sys.exit(main())
