"""A few real legacy programs end to end: rewrite, run on TensorFlow 2.15, restore, compare checkpoints.

The programs come from the development corpus (``../shared/realworld`` beside the repository: real
2016-2019 programs with offline data and the corpus's own harness); they are never copied into the
project. ``benchmarks/realworld.py`` runs the whole corpus; this test keeps a handful of programs of
different kinds green on every CI run. Skipped where the corpus is absent.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tfchildren import run_python
from tfmigrate.checkpoint import api

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "realworld"
VENV = Path(sys.executable).parent.parent

pytestmark = [
    pytest.mark.slow,
    pytest.mark.tf,
    pytest.mark.skipif(not (CORPUS / "tools" / "run_one.py").exists(), reason="no realworld corpus beside the repository"),
]

# one program per kind: TF1 graph code with a Saver that resumes from its own checkpoint; a TF 1.4
# custom Estimator with tf.data; a tf.contrib.learn.Estimator with a legacy (features, target) model_fn
# returning (predictions, loss, train_op) over contrib.layers (TFM114, TFM6); skflow-era TensorFlowEstimators
# with a (X, y) model_fn built in a loop and kept in a list (TFM115, TFM116); a TF 0.7 graph program
# (tf.mul, tf.sub, scalar summaries, initialize_all_variables: TFM540-TFM547)
PROGRAMS = [
    "golbin_saver", "models_blog_custom_estimators", "learn_multiple_gpu", "skflow_multioutput_regression",
    "pkmital_linear_regression_tf0",
]


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    root = tmp_path_factory.mktemp("realworld") / "realworld"
    shutil.copytree(CORPUS, root, ignore=shutil.ignore_patterns("work", "results"))
    subprocess.run([sys.executable, "tools/prepare.py"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    os.environ["DEVCORPUS"], os.environ["TFM_VENV"] = str(root), str(VENV)
    spec = importlib.util.spec_from_file_location("realworld_run_one", root / "tools" / "run_one.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _tables(directory: Path, pattern: str) -> dict[str, tuple[str, tuple[int, ...]]]:
    """name -> (dtype, shape) of the newest checkpoint that ``pattern``'s directory names."""
    ckpt_dir = (directory / pattern).parent
    text = (ckpt_dir / "checkpoint").read_text()
    prefix = re.search(r'^model_checkpoint_path: "([^"]+)"', text, re.M).group(1)
    path = prefix if os.path.isabs(prefix) else str(ckpt_dir / prefix)
    return {v["name"]: (v["dtype"], tuple(v["shape"])) for v in api.inspect(path)["variables"]}


def run_program(harness, work: Path, entry: str, cfg: dict, log: Path) -> dict:
    """One run of the migrated program as the harness's ``run_program`` makes it (``python ENTRY ARGS...`` in
    ``work``, the harness's environment: its stubs on the path, CPU only; stdout and stderr in ``log``), in a
    fork of the suite's TensorFlow server (tests/tfchildren.py) instead of a fresh interpreter: the program
    still runs as ``__main__`` in its own process, without paying ``import tensorflow`` again (2-3 CPU
    seconds a run, most of what a run of these small programs costs). ``benchmarks/realworld.py`` runs them
    fresh."""
    proc = run_python([entry, *cfg.get("args", [])], cwd=work, env=harness.ENV, timeout=cfg.get("timeout", 180))
    out = proc.stdout + proc.stderr
    log.write_text(out, encoding="utf-8")
    exception = harness.last_error(out, str(work))[0]
    return {"rc": proc.returncode, "exception": exception, "tail": out.splitlines()[-8:]}


@pytest.fixture(scope="module")
def migrated(harness) -> dict:
    """Every program set up in its own work directory as the harness does it (``setup_dir``), then ONE
    ``tfmigrate rewrite --format json`` over all their files and ONE ``rewrite --check`` of the result, from
    the directory above them (each file is rewritten as it is alone: a CLI start each is what this shares).
    Per program: (work directory, its files, their bytes before); the two runs and the report."""
    root = Path(harness.ROOT) / "work"
    programs = {}
    for name in PROGRAMS:
        work = root / name / "tfm"
        files = harness.setup_dir(str(work), name, harness.CONFIG[name])
        programs[name] = (work, files, {f: (work / f).read_bytes() for f in files})
    paths = [f"{name}/tfm/{f}" for name, (_, files, _) in programs.items() for f in files]
    rewrite = subprocess.run(
        [str(VENV / "bin" / "tfmigrate"), "rewrite", *paths, "--format", "json", "--jobs", "1", "--output", "report.json"],
        cwd=root, capture_output=True, text=True, timeout=300,
    )
    report = json.loads((root / "report.json").read_text())
    again = subprocess.run([str(VENV / "bin" / "tfmigrate"), "rewrite", "--check", *paths], cwd=root, capture_output=True, text=True,
                           timeout=300)
    return {"programs": programs, "rewrite": rewrite, "report": report, "again": again}


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_real_program_runs_after_rewrite_and_restores_its_own_checkpoint(harness, migrated, name):
    cfg = harness.CONFIG[name]
    entry = cfg.get("entry", name + ".py")
    work, files, before = migrated["programs"][name]
    rewrite, report = migrated["rewrite"], migrated["report"]
    manual = [f for f in report["findings"] if not f.get("fixed")]
    assert rewrite.returncode == (1 if manual else 0), rewrite.stderr
    mine = {f"{name}/tfm/{f}" for f in files}
    assert not [f for f in manual if f["path"] in mine], manual  # these programs migrate with no hand edits
    assert not manual, manual  # nor does any other of them
    assert any((work / f).read_bytes() != before[f] for f in files)

    # a second rewrite changes nothing (of any of them)
    again = migrated["again"]
    assert again.returncode == 0, again.stdout + again.stderr

    # run it as often as the program is meant to run (a second run resumes from the first's checkpoint)
    runs = max(cfg.get("runs", 1), 2 if cfg.get("ckpt") else 1)
    tables = []
    for i in range(runs):
        result = run_program(harness, work, entry, cfg, work / f"run{i}.log")
        assert result["rc"] == 0 and not result["exception"], (result["exception"], result["tail"])
        wanted = cfg.get("runs", 1)
        log = (work / f"run{i}.log").read_text(errors="replace")
        for ri, rx in cfg.get("expect", []):
            if ri == i or (ri == -1 and i == wanted - 1):
                assert re.search(rx, log), (rx, log[-2000:])
        checkpoints = [g for g in cfg.get("ckpt", []) if g.endswith("checkpoint")]
        if checkpoints:
            tables.append(_tables(work, checkpoints[0]))
        for pattern, found in harness.ckpt_state(str(work), cfg).items():
            assert found, f"{pattern}: the program did not write its checkpoint where it meant to"
    if len(tables) > 1:
        # the restored model is the same model: same variables, dtypes and shapes after the resume
        assert tables[0] and tables[0] == tables[-1]
