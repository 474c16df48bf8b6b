"""The parent half of ``tfmigrate validate``: starts the TensorFlow child and turns its events into a result.

No TensorFlow here. ``run_validation`` returns the ``tfmigrate validate`` JSON object::

    {"schema": 1, "passed": bool, "device": str, "steps": int,
     "stages": [{"name", "passed", "seconds", "detail"}], ...}

plus ``target``, ``migration_target`` (``estimator``; ``keras`` from ``tfmigrate.validate.keras``),
``tensorflow`` (its version), ``model_dir``, ``estimator``, ``checkpoints`` (analyses, `ckpt diff`-shaped),
``error`` (when it could not run) and ``exit_code`` (0 passed, 1 failed, 2 could not run).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tfmigrate.childproc import child_env as isolated_env
from tfmigrate.childproc import module_command
from tfmigrate.validate.targets import TargetError, check, refuse_early, runs_program, split
from tfmigrate.warm import popen

SCHEMA = 1
Event = dict[str, Any]


def child_env(tmpdir: str | None = None) -> dict[str, str]:
    """A validation child's environment; ``tmpdir``: its temporary directory, removed by the caller
    when the child has ended (what TensorFlow leaves there goes with it)."""
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["ABSL_MIN_LOG_LEVEL"] = "3"
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("PYTHONHASHSEED", "0")
    return isolated_env(env, tmpdir=tmpdir)  # tfmigrate's own directory first; never the current directory


def run_validation(
    target: str,
    *,
    device: str = "auto",
    steps: int = 20,
    resume_steps: int | None = None,
    model_dir: str | Path | None = None,
    checkpoint: str | Path | None = None,
    batch_size: int = 64,
    on_event: Callable[[Event], None] | None = None,
    timeout: float | None = 1800.0,
    analyse_batch: list[dict[str, Any]] | None = None,
    convert: str | Path | None = None,
    program: bool = False,
    program_args: list[str] | None = None,
    model_dir_base: str | Path | None = None,
    program_tree: str | Path | None = None,
) -> dict[str, Any]:
    """Validate TARGET in a TensorFlow child. With ``analyse_batch`` (``[{"target", "paths"}]``), only
    compare checkpoints with definitions, all in one child, and train nothing: ``result["checkpoints"]``
    (each with its ``target``) and ``result["target_errors"]``. ``model_dir_base``: the directory the
    program runs from, against which its own relative model_dir is read (default: TARGET's directory).
    ``program_tree``: with a program run, the user's file whose tree the copy is made of, TARGET being its
    migrated text elsewhere (``tfmigrate report``'s scratch copy; a notebook's cells as a script): that text
    runs in the copy in the file's place (a notebook's beside it, as NAME_notebook.py)."""
    result: dict[str, Any] = {
        "schema": SCHEMA, "passed": False, "device": device, "steps": steps, "stages": [],
        "target": target, "checkpoints": [], "migration_target": "estimator",
    }
    started = time.perf_counter()
    try:
        check(target)
        if analyse_batch is None:
            refuse_early(target, program)  # no estimator in sight: say so without starting TensorFlow
    except TargetError as exc:
        return _could_not_run(result, str(exc), started)
    if checkpoint is not None and not Path(checkpoint).exists() and not Path(str(checkpoint) + ".index").exists():
        return _could_not_run(result, f"--checkpoint {checkpoint}: no such checkpoint", started)
    if convert is not None and checkpoint is None:
        return _could_not_run(result, "--convert needs --checkpoint OLD (the legacy checkpoint to convert)", started)
    if analyse_batch is None and model_dir_base is None:
        model_dir_base = Path(os.path.abspath(split(str(target))[0])).parent  # as `python file.py` run from there resolves it
    convert_stage = None
    converted = None
    if convert is not None:
        convert_stage, converted = _convert(str(checkpoint), str(convert))
    fresh = model_dir is None and analyse_batch is None
    if analyse_batch is not None:
        scratch = tempfile.TemporaryDirectory(prefix="tfmigrate-analyse-")
        directory = Path(scratch.name)
    else:
        directory = Path(tempfile.mkdtemp(prefix="tfmigrate-validate-")) if fresh else Path(model_dir)
        directory.mkdir(parents=True, exist_ok=True)
    result["model_dir"] = str(directory)
    work: Path | None = None
    program_copy = None
    if analyse_batch is None and runs_program(str(target), program):
        from tfmigrate.validate.scratch import TooLarge, program_copy as make_copy

        try:  # the program runs in a copy of its tree (the child's working directory), never among the user's files
            work, copied = make_copy(Path(program_tree) if program_tree is not None else Path(split(str(target))[0]))
            if program_tree is not None:
                text = Path(split(str(target))[0]).read_bytes()
                if copied.suffix != ".py":
                    copied = copied.with_name(f"{copied.stem}_notebook.py")
                copied.write_bytes(text)
        except (TooLarge, OSError) as exc:
            if fresh:
                shutil.rmtree(directory, ignore_errors=True)
            return _could_not_run(result, str(exc), started)
        program_copy = str(copied)
        if not Path(split(str(target))[0]).resolve().is_relative_to(Path.cwd().resolve()):
            target = str(Path(split(str(target))[0]).resolve())  # found from the copy, where the working directory is
    config = {
        "target": str(target),
        "device": device,
        "steps": steps,
        "resume_steps": resume_steps or max(1, steps // 2),
        "model_dir": str(directory),
        "checkpoint": str(checkpoint) if checkpoint else None,
        "batch_size": batch_size,
        "analyse_batch": analyse_batch,
        "converted": converted,
        "program": program,
        "program_args": list(program_args or []),
        "program_copy": program_copy,
        "model_dir_base": os.path.abspath(model_dir_base) if model_dir_base is not None else None,
    }
    try:
        with removed_on_interrupt(directory if fresh or analyse_batch is not None else None):
            fatal = stream_child(module_command("tfmigrate.validate._child", json.dumps(config)), result, device, on_event, timeout,
                                 cwd=work)
    finally:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    if analyse_batch is not None:
        scratch.cleanup()
        result.pop("model_dir", None)
    if fatal is not None:
        return _could_not_run(result, fatal, started)
    if analyse_batch is not None:
        result["passed"] = all(c.get("compatible") for c in result["checkpoints"])
        result["exit_code"] = 0 if result["passed"] else 1
        return result
    if convert_stage is not None:
        names = [s["name"] for s in result["stages"]]
        at = names.index("converted checkpoint") if "converted checkpoint" in names else len(names)
        result["stages"].insert(at, convert_stage)
        if convert_stage["passed"]:
            result["converted"] = converted
    result["passed"] = bool(result["stages"]) and all(s["passed"] for s in result["stages"])
    if fresh and result["passed"]:
        shutil.rmtree(directory, ignore_errors=True)  # a failed run keeps its model_dir to look at
        result["model_dir_removed"] = True
    result["exit_code"] = 0 if result["passed"] else 1
    result["seconds"] = round(time.perf_counter() - started, 2)
    train = next((s for s in result["stages"] if s["name"] == "train"), None)
    if train and "steps_per_second" in train:
        result["steps_per_second"] = train["steps_per_second"]
        result["dense_device"] = train.get("dense_device")
    return result


def stream_child(command: list[str], result: dict[str, Any], device: str, on_event: Callable[[Event], None] | None,
                 timeout: float | None, cwd: Path | None = None) -> str | None:
    """Run a validation child (``command``) and read its events into ``result``; the one-line error when it
    could not run (None when it reached its end). The child gets a temporary directory of its own
    (removed when it ends), its own process group (killed when it ends: whatever the user's program
    started ends with it), TensorFlow's log noise off and its stderr kept out of the terminal."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log, \
            tempfile.TemporaryDirectory(prefix="tfmigrate-tmp-", ignore_cleanup_errors=True) as child_tmp:
        proc = popen(  # a fork of the user's warm TensorFlow server when $TFMIGRATE_WARM names one
            command,
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, env=child_env(tmpdir=child_tmp), cwd=cwd,
            start_new_session=True,  # its own process group: whatever the user's program started ends with it
        )
        fatal: str | None = None
        done = False
        assert proc.stdout is not None
        with watched(proc, timeout) as expired:
            for line in proc.stdout:
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue
                kind = event.get("event")
                if kind == "stage":
                    result["stages"].append({k: v for k, v in event.items() if k != "event"})
                elif kind == "info":
                    result["device"] = event.get("device", device)
                    for key in ("device_name", "estimator", "declared_model_dir", "inputs", "tensorflow"):
                        if event.get(key):
                            result[key] = event[key]
                elif kind == "checkpoint":
                    analysis = event["analysis"]
                    if event.get("target"):
                        analysis = {**analysis, "target": event["target"]}
                    result["checkpoints"].append(analysis)
                elif kind == "target-error":
                    result.setdefault("target_errors", []).append({"target": event.get("target"), "error": event.get("error")})
                elif kind == "fatal":
                    fatal = event.get("error") or "the validation child failed"
                    if event.get("environment"):  # no TensorFlow: nothing else can validate either
                        result["environment"] = True
                elif kind == "done":
                    done = True
                if on_event:
                    on_event(event)
            proc.wait()
        if expired.is_set():
            fatal = f"the validation child did not finish in {timeout:.0f} s and was stopped"
        if fatal is None and not done:
            log.seek(0)
            fatal = f"the validation child exited with code {proc.returncode}: {last_error_line(log.read())}"
    return fatal


@contextmanager
def watched(proc: subprocess.Popen, timeout: float | None) -> Iterator[threading.Event]:
    """A child's lifetime: its process group is killed at ``timeout`` seconds (the event yielded is then
    set), on Ctrl-C, and when the block ends (processes the program started and left running, such as
    a parameter server's join())."""
    expired = threading.Event()

    def watchdog() -> None:
        expired.set()
        _kill_group(proc)

    timer = threading.Timer(timeout, watchdog) if timeout else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        yield expired
    except KeyboardInterrupt:
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        if timer:
            timer.cancel()
        _kill_group(proc)


@contextmanager
def removed_on_interrupt(*directories: Path | str | None) -> Iterator[None]:
    """Scratch directories removed when Ctrl-C, SIGTERM or SIGHUP (a KeyboardInterrupt) ends the block:
    a run that was stopped leaves nothing behind (one that failed keeps its model_dir to look at)."""
    try:
        yield
    except KeyboardInterrupt:
        for directory in directories:
            if directory is not None:
                shutil.rmtree(directory, ignore_errors=True)
        raise


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's process group (the child and what the user's program started), if any is left."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _convert(checkpoint: str, out: str) -> tuple[dict[str, Any], str | None]:
    """``--convert OUT``: the analyser writes OLD under the new names (its own TF child); a stage."""
    start = time.perf_counter()
    try:
        from tfmigrate.checkpoint import api
        from tfmigrate.checkpoint.index import CheckpointError
    except ImportError:
        return {"name": "convert", "passed": False, "seconds": 0.0, "detail": "the checkpoint analyser is not installed"}, None
    try:
        done = api.convert(checkpoint, out, map="auto")
    except CheckpointError as exc:
        return {"name": "convert", "passed": False, "seconds": round(time.perf_counter() - start, 3), "detail": str(exc)}, None
    renamed = sum(1 for old, new in done.get("name_map", {}).items() if old != new)
    dropped = len(done.get("not_carried", {}))
    detail = (f"{checkpoint} -> {done['out']}: {len(done.get('name_map', {}))} tensor(s) written, {renamed} renamed, "
              f"{dropped} not carried; read back and verified")
    return {"name": "convert", "passed": bool(done.get("verified")), "seconds": round(time.perf_counter() - start, 3), "detail": detail}, done["out"]


def _could_not_run(result: dict[str, Any], error: str, started: float, environment: bool = False) -> dict[str, Any]:
    """``environment``: what is missing is this machine's (no TensorFlow, no interpreter), not the target's."""
    if environment:
        result["environment"] = True
    result["passed"] = False
    result["error"] = error
    result["exit_code"] = 2
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error" in line or "error" in line or "Killed" in line:
            return line[:400]
    return lines[-1][:400] if lines else "no output (killed? out of memory?)"
