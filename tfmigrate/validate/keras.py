"""``tfmigrate validate --target keras``: the parent half (no TensorFlow here).

The Keras code ``tfmigrate rewrite --target keras`` writes runs on TensorFlow 2.21, which cannot share
a venv with TensorFlow 2.15 (the last with tf.estimator): its children run with a second interpreter,
``--python PATH`` or ``tfmigrate.childproc.keras_interpreter()`` (``$TFMIGRATE_KERAS_PYTHON``, tfmigrate's
own ``.venv-keras``, which ``make keras`` builds); never one the analysed project names or holds.

Two kinds of TARGET, one result (``run_validation``'s JSON object, with ``"migration_target": "keras"``):

* ``file.py:LINE`` / ``file.py``: a ``canned_keras_model("DNNClassifier", ...)`` call, built, trained,
  checkpointed, restored and resumed in one TensorFlow 2.21 child (``_keras_child``);
* ``--program file.py``: the whole migrated program, run twice with the 2.21 interpreter in a copy of its
  tree (:mod:`tfmigrate.validate.scratch`; nothing is written where the program lives, not even through a link):
  each run exits 0, the first leaves ``model.ckpt-STEP.weights.h5`` files, the second resumes (a larger STEP).

A file that is still tf.estimator code is refused with one line (rewrite it with ``--target keras`` first).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tfmigrate.childproc import interpreter_command
from tfmigrate.validate.runner import SCHEMA, Event, _could_not_run, last_error_line, removed_on_interrupt, stream_child, watched
from tfmigrate.validate.targets import TargetError, check, split

NO_INTERPRETER = ("no TensorFlow 2.21 interpreter for --target keras: run `make keras` (builds .venv-keras) or name one "
                  "with --python PATH or $TFMIGRATE_KERAS_PYTHON (one your project names or holds is never started on its own)")
CHECKPOINT_PREFIX, CHECKPOINT_SUFFIX = "model.ckpt-", ".weights.h5"


def keras_sites(target: str, program: bool = False) -> list:
    """The canned_keras_model calls of TARGET's file (static); TargetError (one line) when TARGET is not
    something ``--target keras`` validates: a function, or a file that is still tf.estimator code."""
    from tfmigrate import targets_static as static

    check(target)
    path, func = split(target)
    if program and func is not None:
        raise TargetError(f"{target}: --program runs the file itself: give the file only ({path})")
    if func is not None and not func.isdigit():
        raise TargetError(f"{target}: --target keras validates the canned_keras_model(...) call on a line (file.py:LINE), "
                          f"the first one in a file (file.py) or the whole program (--program {path}), not a function")
    source = path.read_bytes()
    sites = static.find_keras(source, str(path))
    estimators = [s for s in static.find(source, str(path)) if s.cls != "?"]
    line = int(func) if func else None
    on_line = [s for s in estimators if s.line == line] if line is not None else estimators
    if on_line and (line is not None or not sites):
        first = on_line[0]
        raise TargetError(f"{path}:{first.line}: still tf.estimator code ({first.cls}); rewrite it for Keras first: "
                          f"tfmigrate rewrite --target keras {path}")
    if not program:
        try:
            static.select_keras(sites, str(path), line)
        except static.StaticError as exc:
            raise TargetError(str(exc)) from None
    return sites


def run_keras_validation(
    target: str,
    *,
    python: str | None,
    device: str = "auto",
    steps: int = 20,
    resume_steps: int | None = None,
    model_dir: str | Path | None = None,
    batch_size: int = 64,
    on_event: Callable[[Event], None] | None = None,
    timeout: float | None = 1800.0,
    program: bool = False,
    program_args: list[str] | None = None,
) -> dict[str, Any]:
    """Validate TARGET's Keras model (or, with ``program``, the whole program) with TensorFlow 2.21 in ``python``."""
    result: dict[str, Any] = {
        "schema": SCHEMA, "passed": False, "device": device, "steps": steps, "stages": [],
        "target": target, "checkpoints": [], "migration_target": "keras",
    }
    started = time.perf_counter()
    try:
        sites = keras_sites(target, program)  # what is wrong with TARGET first: it needs no interpreter to say
    except TargetError as exc:
        return _could_not_run(result, str(exc), started)
    if not python:
        return _could_not_run(result, NO_INTERPRETER, started, environment=True)
    if not (Path(python).is_file() and os.access(python, os.X_OK)):
        return _could_not_run(result, f"the TensorFlow 2.21 interpreter {python} does not exist "
                                      f"({NO_INTERPRETER.split(': ', 1)[1]})", started, environment=True)
    result["python"] = str(python)
    if program:
        return _run_program(result, target, python, sites, steps, program_args or [], on_event, timeout, started)
    fresh = model_dir is None
    directory = Path(tempfile.mkdtemp(prefix="tfmigrate-validate-")) if fresh else Path(model_dir)
    directory.mkdir(parents=True, exist_ok=True)
    result["model_dir"] = str(directory)
    config = {
        "target": str(target), "device": device, "steps": steps, "resume_steps": resume_steps or max(1, steps // 2),
        "model_dir": str(directory), "batch_size": batch_size,
    }
    with removed_on_interrupt(directory if fresh else None):
        fatal = stream_child(interpreter_command(python, "tfmigrate.validate._keras_child", json.dumps(config)),
                             result, device, on_event, timeout)
    if fatal is not None:
        return _could_not_run(result, fatal, started)
    return _finish(result, directory if fresh else None, started)


def _finish(result: dict[str, Any], scratch: Path | None, started: float) -> dict[str, Any]:
    result["passed"] = bool(result["stages"]) and all(s["passed"] for s in result["stages"])
    if scratch is not None and result["passed"]:
        shutil.rmtree(scratch, ignore_errors=True)  # a failed run keeps its directory to look at
        result["model_dir_removed"] = True
    result["exit_code"] = 0 if result["passed"] else 1
    result["seconds"] = round(time.perf_counter() - started, 2)
    train = next((s for s in result["stages"] if s["name"] == "train"), None)
    if train and "steps_per_second" in train:
        result["steps_per_second"] = train["steps_per_second"]
    return result


# --------------------------------------------------------------------------- --program


def weights_checkpoints(root: Path) -> dict[str, list[int]]:
    """{directory (relative to root): [STEP...]} for every model.ckpt-STEP.weights.h5 under root (links not followed)."""
    out: dict[str, list[int]] = {}
    for directory, _, files in os.walk(root):
        for name in files:
            middle = name[len(CHECKPOINT_PREFIX):-len(CHECKPOINT_SUFFIX)]
            if name.startswith(CHECKPOINT_PREFIX) and name.endswith(CHECKPOINT_SUFFIX) and middle.isdigit():
                out.setdefault(os.path.relpath(directory, root), []).append(int(middle))
    return {k: sorted(v) for k, v in sorted(out.items())}


def _scratch_workdir(path: Path, sites: list) -> tuple[Path, Path]:
    """The program's scratch working directory (a copy, :mod:`tfmigrate.validate.scratch`) and the program in
    it: every checkpoint lands in the copy, never in the user's directories. The top directory of each relative
    model_dir the program names, and any ``model.ckpt-STEP.weights.h5`` (a run of its own), start fresh there."""
    from tfmigrate.validate.scratch import program_copy

    reserved = frozenset(Path(s.model_dir).parts[0] for s in sites if s.model_dir and not os.path.isabs(s.model_dir))

    def checkpoint(name: str) -> bool:
        return name.startswith(CHECKPOINT_PREFIX) and name.endswith(CHECKPOINT_SUFFIX)

    return program_copy(path, skip_top=reserved, skip_file=checkpoint, prefix="tfmigrate-validate-")


def _program_env(tmpdir: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TF_CPP_MIN_LOG_LEVEL="3", ABSL_MIN_LOG_LEVEL="3", PYTHONUNBUFFERED="1", TMPDIR=tmpdir, TMP=tmpdir, TEMP=tmpdir)
    env.setdefault("PYTHONHASHSEED", "0")
    env.pop("PYTHONSAFEPATH", None)
    return env


def _run_once(python: str, program: Path, args: list[str], work: Path, timeout: float | None) -> tuple[int | None, float, str]:
    """(exit code or None when stopped at the timeout, seconds, its output's last error line)."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log, \
            tempfile.TemporaryDirectory(prefix="tfmigrate-tmp-", ignore_cleanup_errors=True) as tmp:
        began = time.perf_counter()
        # the program's copy in the scratch directory: its __file__ is there too (a model_dir made from it lands there)
        proc = subprocess.Popen([python, str(program), *args], cwd=work, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=_program_env(tmp), start_new_session=True)
        with watched(proc, timeout) as expired:
            proc.wait()
        seconds = time.perf_counter() - began
        log.seek(0)
        return (None if expired.is_set() else proc.returncode), seconds, last_error_line(log.read())


def _run_program(result: dict[str, Any], target: str, python: str, sites: list, steps: int, args: list[str],
                 on_event: Callable[[Event], None] | None, timeout: float | None, started: float) -> dict[str, Any]:
    path, _ = split(target)
    absolute = [s for s in sites if s.model_dir and os.path.isabs(s.model_dir)]
    if absolute:
        return _could_not_run(result, f"{path}:{absolute[0].line}: model_dir {absolute[0].model_dir} is absolute: --program runs "
                                      "the program in a scratch directory and never trains into your model_dir; make it relative "
                                      f"or validate the call itself: tfmigrate validate --target keras {path}:{absolute[0].line}", started)
    from tfmigrate.validate.scratch import TooLarge

    try:
        work, program = _scratch_workdir(path, sites)
    except (TooLarge, OSError) as exc:
        return _could_not_run(result, str(exc), started)
    result["model_dir"] = str(work)
    result["steps"] = 0  # the program's own step count
    say = on_event or (lambda event: None)

    def stage(name: str, passed: bool, seconds: float, detail: str, **extra: Any) -> bool:
        event = {"name": name, "passed": passed, "seconds": round(seconds, 3), "detail": detail, **extra}
        result["stages"].append(event)
        say({"event": "stage", **event})
        return passed

    def run(name: str) -> tuple[bool, float]:
        say({"event": "stage-start", "name": name})
        with removed_on_interrupt(work):
            code, seconds, last = _run_once(python, program, args, work, timeout)
        if code is None:
            return stage(name, False, seconds, f"python {path.name}: did not finish in {timeout:.0f} s and was stopped"), seconds
        if code != 0:
            return stage(name, False, seconds, f"python {path.name} exited with code {code}: {last}"), seconds
        return True, seconds

    ok, seconds = run("train")
    if not ok:
        return _finish(result, None, started)
    first = weights_checkpoints(work)
    shown = "; ".join(f"{d}: steps {s}" for d, s in first.items())
    stage("train", True, seconds, f"python {path.name} {' '.join(args)}".rstrip() + f" with {python}: exit 0 in {seconds:.1f} s "
          "(a scratch working directory)")
    if not first:
        stage("checkpoint files", False, 0.0, f"no {CHECKPOINT_PREFIX}STEP{CHECKPOINT_SUFFIX} written under the working directory: "
              "the program's model_dir keeps nothing (is model_dir set? a restart loses all training)")
        return _finish(result, None, started)
    stage("checkpoint files", True, 0.0, f"{sum(len(s) for s in first.values())} checkpoint(s): {shown}",
          checkpoint_steps=max(first.values(), key=len))
    ok, seconds = run("resume")
    if not ok:
        return _finish(result, None, started)
    second = weights_checkpoints(work)
    grew = {d: (first[d][-1], second.get(d, [0])[-1]) for d in first}
    behind = {d: pair for d, pair in grew.items() if pair[1] <= pair[0]}
    if behind:
        d, (before, after) = next(iter(behind.items()))
        stage("resume", False, seconds, f"{d}: newest checkpoint step {after} after the second run, {before} after the first: "
              "the second run did not resume from the checkpoint")
        return _finish(result, None, started)
    stage("resume", True, seconds, "second run resumed: " + "; ".join(
        f"{d}: {CHECKPOINT_PREFIX}{before} -> {CHECKPOINT_PREFIX}{after}{CHECKPOINT_SUFFIX}" for d, (before, after) in grew.items()))
    return _finish(result, work, started)
