"""Real estimator programs after the rewrite: how many ``tfmigrate validate --program`` validates.

usage: .venv/bin/python benchmarks/realworld_validate.py [--corpus DIR] [--steps N] [--json FILE] [--keep] [NAME ...]

For every program of the corpus (default ``../shared/realworld`` beside the repository; Python 2
programs left out) in a scratch copy: the harness (``tools/run_one.py``) sets up its run directory
(the prepared program and its data), ``tfmigrate rewrite`` migrates it in place, and a program of the
estimator family (orig/SOURCES.tsv) or whose migrated source builds a ``tf.estimator`` estimator (the
only kind validate trains) is validated as
a user would: ``tfmigrate validate --program ENTRY --args 'the harness's flags' --steps N --device cpu``
in its run directory. One line a program: the exit code (0 passed, 1 a stage failed, 2 could not run)
and the first failed stage or the one-line error; then ``N/M validate``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent.parent
# an estimator constructed (canned or Estimator(model_fn)) or trained through train_and_evaluate; a hook renamed
# to tf.estimator.StopAtStepHook in a MonitoredTrainingSession program is not one
ESTIMATOR = re.compile(r"\bestimator\.(\w*(Estimator|Classifier|Regressor)\b(?!Spec)|train_and_evaluate\b)")


def load_harness(corpus: Path):
    os.environ["DEVCORPUS"] = str(corpus)
    os.environ["TFM_VENV"] = str(VENV)
    sys.path.insert(0, str(corpus / "tools"))
    import run_one  # type: ignore[import-not-found]

    return run_one


def families(corpus: Path) -> dict[str, str]:
    """NAME -> family, from the corpus's orig/SOURCES.tsv (a package program's files share one)."""
    out: dict[str, str] = {}
    for line in (corpus / "orig" / "SOURCES.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        cells = line.split("\t")
        if len(cells) > 1:
            out[cells[0].split("/")[0].removesuffix(".py")] = cells[1]
    return out


def one(harness, name: str, steps: int, family: str) -> dict:
    cfg = harness.CONFIG[name]
    entry = cfg.get("entry", name + ".py")
    d = os.path.join(harness.ROOT, "work", name, "val")
    files = harness.setup_dir(d, name, cfg)
    rc, _, _ = harness.sh([str(VENV / "bin" / "tfmigrate"), "rewrite", *files, "--jobs", "1", "--format", "json",
                           "--output", "tfmigrate.json"], d, timeout=300)
    source = "\n".join(Path(d, f).read_text(encoding="utf-8", errors="replace") for f in files)
    out = {"name": name, "rewrite_exit": rc}
    if family != "estimator" and not ESTIMATOR.search(source):
        return {**out, "estimator": False}
    cmd = [str(VENV / "bin" / "tfmigrate"), "validate", "--program", entry, "--steps", str(steps), "--device", "cpu", "--format", "json"]
    if cfg.get("args"):
        cmd += ["--args", shlex.join(cfg["args"])]
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=d, env=harness.ENV, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900)
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["command"] = f"cd {d} && " + shlex.join(cmd[1:])
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {**out, "estimator": True, "exit": proc.returncode, "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    failed = next((s for s in result.get("stages", []) if not s.get("passed")), None)
    out.update(estimator=True, exit=proc.returncode, error=result.get("error"),
               failed_stage=failed and f"{failed['name']}: {failed['detail']}",
               load=next((s["detail"] for s in result.get("stages", []) if s["name"] == "load"), None))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="programs (default: all)")
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "realworld")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--json", type=Path, help="write every result here")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy (printed)")
    args = parser.parse_args()
    if not (args.corpus / "tools" / "run_one.py").exists():
        sys.exit(f"no corpus at {args.corpus} (--corpus DIR)")
    scratch = Path(tempfile.mkdtemp(prefix="tfm-rw-validate-"))
    corpus = scratch / "realworld"
    shutil.copytree(args.corpus, corpus, ignore=shutil.ignore_patterns("work", "results"))
    harness = load_harness(corpus)
    kinds = families(corpus)
    names = args.names or [n for n, c in harness.CONFIG.items() if not n.startswith("_") and not c.get("py2")]
    results = []
    for name in names:
        r = one(harness, name, args.steps, kinds.get(name, ""))
        results.append(r)
        if not r["estimator"]:
            continue
        why = r.get("error") or r.get("failed_stage") or ""
        print(f"{name:34} exit {r['exit']}  {r['seconds']:6.1f} s  {why[:160]}", flush=True)
    estimators = [r for r in results if r["estimator"]]
    passed = sum(r["exit"] == 0 for r in estimators)
    print(f"{passed}/{len(estimators)} estimator programs validate ({len(results) - len(estimators)} other programs build no estimator)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if args.keep:
        print(f"scratch copy: {corpus}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
