"""``tfmigrate validate``: prove the migrated model trains, checkpoints, restores and resumes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from tfmigrate.report.console import make_console, visible, visible_data


class ProgressView:
    """Rich progress on stderr while the child works (only on a terminal)."""

    def __init__(self, console: Console):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.console = console
        self.progress = Progress(
            SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=console, transient=True,
        )
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> ProgressView:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, event: dict[str, Any]) -> None:
        kind, name = event.get("event"), event.get("name", "")
        if kind == "stage-start":
            label = "starting TensorFlow, building the model" if name == "load" else name
            self.tasks[name] = self.progress.add_task(escape(str(label)), total=None)
        elif kind == "progress" and name in self.tasks:
            self.progress.update(self.tasks[name], completed=event["step"], total=event["total"])
        elif kind == "stage":
            task = self.tasks.pop(name, None)
            if task is not None:
                self.progress.remove_task(task)
            mark = "[green]ok[/]" if event.get("passed") else "[bold red]FAIL[/]"
            self.progress.console.print(f"{mark} {escape(str(name))} [dim]{event.get('seconds', 0):.1f} s[/]", highlight=False)


@click.command()
@click.argument("target")
@click.option("--device", type=click.Choice(["auto", "cpu", "gpu"]), default="auto", show_default=True,
              help="Where TensorFlow trains; gpu fails when none is visible, auto picks one when present.")
@click.option("--steps", type=click.IntRange(min=1), default=20, show_default=True, help="Training steps N (resume trains N/2 more).")
@click.option("--model-dir", type=click.Path(file_okay=False, path_type=Path), help="Train into DIR instead of a fresh temporary one.")
@click.option("--checkpoint", type=click.Path(path_type=Path), help="Also analyse this legacy checkpoint (directory or prefix) against the definition.")
@click.option("--convert", type=click.Path(path_type=Path), help="With --checkpoint: write OLD under the new names into this new directory and check it against the definition.")
@click.option("--program", is_flag=True, help="Run TARGET (a file.py) itself as __main__ up to its first Estimator.train and validate the estimator it built "
              "(a file.py whose construction cannot be built statically does this by itself). Its model_dir is only read.")
@click.option("--cwd", "cwd", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="The directory the program runs from, for its own relative model_dir [default: TARGET's directory].")
@click.option("--args", "program_args", default="", metavar="'FLAGS'", help="The program's own command-line flags (with --program), e.g. --args '--hidden 16'.")
@click.option("--cluster", "cluster_spec", metavar="chief=1,worker=1,ps=1",
              help="Train as a real local cluster (one process per task on 127.0.0.1, each with its own TF_CONFIG, "
                   "tf.estimator.train_and_evaluate), then restore and resume the chief's checkpoint locally.")
@click.option("--target", "migration_target", type=click.Choice(["estimator", "keras"]), default=None,
              help="What the code was migrated to: tf.estimator (TensorFlow 2.15, this interpreter), or keras "
                   "(`rewrite --target keras`: trained with TensorFlow 2.21 in the --python interpreter) "
                   "[default: target of [tool.tfmigrate], else estimator].")
@click.option("--python", "python", type=click.Path(dir_okay=False, path_type=Path),
              help="With --target keras: the Python that has TensorFlow 2.21 [default: $TFMIGRATE_KERAS_PYTHON, "
                   "tfmigrate's own .venv-keras (make keras); never one your project names or holds].")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: the stages and the verdict; json: the result as one JSON object (what `tfmigrate report --json` holds).")
def validate(target: str, device: str, steps: int, model_dir: Path | None, checkpoint: Path | None, convert: Path | None,
             program: bool, cwd: Path | None, program_args: str, cluster_spec: str | None, migration_target: str | None, python: Path | None,
             fmt: str) -> None:
    """Train, checkpoint, restore and resume TARGET for real.

    \b
    TARGET is one of:
      file.py:function   a function that returns the estimator (imported and called)
      file.py:LINE       the tf.estimator construction on that line of a migrated file
      file.py            a migrated file: its first construction that can be built
                         statically, else the program itself run up to its first train()

    With --target keras (code `tfmigrate rewrite --target keras` wrote), TARGET is file.py:LINE of a
    canned_keras_model(...) call (or file.py: its first one), or --program file.py (the whole program,
    run twice: it must checkpoint, and its second run resume).

    Exit 0 passed, 1 a stage failed, 2 could not run.
    """
    from tfmigrate.cli.common import configured_target, keras_python
    from tfmigrate.validate.runner import run_validation

    err = make_console(stderr=True)
    import shlex

    kwargs = dict(device=device, steps=steps, model_dir=model_dir, checkpoint=checkpoint, convert=convert,
                  program=program, program_args=shlex.split(program_args), model_dir_base=cwd)
    keras = configured_target(migration_target) == "keras"
    if keras:
        from functools import partial

        from tfmigrate.validate.keras import run_keras_validation

        for option, value in (("--cluster", cluster_spec), ("--checkpoint", checkpoint), ("--convert", convert)):
            if value:
                raise click.UsageError(f"{option} validates tf.estimator code; with --target keras, convert a legacy checkpoint "
                                       "with `tfmigrate ckpt convert --to keras`")
        if program and model_dir:
            raise click.UsageError("--model-dir: with --target keras, --program runs the program in a scratch working "
                                   "directory, where its own (relative) model_dir lands")
        if cwd:
            raise click.UsageError("--cwd: with --target keras the program's own model_dir is not read (convert a legacy "
                                   "checkpoint with `tfmigrate ckpt convert --to keras`)")
        del kwargs["checkpoint"], kwargs["convert"], kwargs["model_dir_base"]
        run_validation = partial(run_keras_validation, python=keras_python(python))  # type: ignore[assignment]
    elif python:
        raise click.UsageError("--python names the TensorFlow 2.21 interpreter of --target keras")
    if cluster_spec:
        from tfmigrate.validate.cluster import run_cluster

        result = run_cluster(target, cluster_spec, steps=steps, program=program, program_args=shlex.split(program_args), device=device)
    elif err.is_terminal:
        with ProgressView(err) as view:
            result = run_validation(target, on_event=view, **kwargs)
    else:
        result = run_validation(target, **kwargs)
    code = result.pop("exit_code", 2)
    if fmt == "json":
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        if result.get("error"):
            err.print(f"[bold red]error[/]: {escape(str(result['error']))}")
    else:
        from tfmigrate.report.terminal import stages_table, verdict_line
        from tfmigrate.results import validation_from_json

        out = make_console()
        shown = validation_from_json(visible_data(result))  # the model the report renders too
        if shown.stages:
            out.print(stages_table(shown, title=f"tfmigrate validate {escape(visible(target))}"))
        out.print(verdict_line(shown), soft_wrap=True)
    sys.exit(code)
