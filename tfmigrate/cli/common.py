"""What several commands share: the [tool.tfmigrate] configuration, rule selection, the rewrite
stage with its progress bar, and writing outputs (exit 2 on an output that would clobber an input)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console


def find_config(start: Path) -> tuple[Path | None, dict[str, Any]]:
    """``[tool.tfmigrate]`` from the nearest pyproject.toml at or above ``start``."""
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
                if "tfmigrate" not in text:
                    continue
                import tomllib

                data = tomllib.loads(text)
            except (OSError, ValueError) as exc:  # tomllib.TOMLDecodeError is a ValueError
                raise click.UsageError(f"{candidate}: cannot read [tool.tfmigrate]: {exc}") from None
            table = data.get("tool", {}).get("tfmigrate")
            if table is not None:
                return candidate, {k.replace("-", "_"): v for k, v in table.items()}
    return None, {}


def keras_python(given: str | Path | None = None) -> str | None:
    """The TensorFlow 2.21 interpreter of ``--target keras``: ``--python``, then
    ``childproc.keras_interpreter()`` ($TFMIGRATE_KERAS_PYTHON, tfmigrate's own .venv-keras); None when
    there is none. Never one the analysed project names or holds (see ``keras_interpreter``)."""
    from tfmigrate.childproc import keras_interpreter

    return keras_interpreter(str(given) if given else None)


def configured_target(given: str | None) -> str:
    """``--target``, else ``target`` of [tool.tfmigrate], else the estimator target."""
    if given:
        return given
    _, config = find_config(Path.cwd())
    target = str(config.get("target") or "estimator")
    if target not in ("estimator", "keras"):
        raise click.UsageError(f"[tool.tfmigrate] target = {target!r}: use 'estimator' or 'keras'")
    return target


def split_codes(values: tuple[str, ...] | list[str] | str | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    codes = tuple(c.strip().upper() for v in values for c in str(v).split(",") if c.strip())
    return codes or None


def enabled_rules(select: tuple[str, ...] | None, ignore: tuple[str, ...] | None, target: str = "estimator") -> frozenset[str]:
    """The rules --select/--ignore enable for --target (a family of the other target never runs)."""
    from tfmigrate.codemod.rule import load_catalog

    catalog = load_catalog()
    for option, codes in (("--select", select or ()), ("--ignore", ignore or ())):
        unknown = catalog.unknown_codes(codes)
        if unknown:
            raise click.BadParameter(f"unknown rule code(s): {', '.join(unknown)} (see `tfmigrate rules`)", param_hint=option)
    return catalog.selected(select, ignore or (), target=target)


TARGET_HELP = ("What the estimator code becomes: estimator (tf.estimator on TensorFlow 2.15) or keras (Keras 3 models "
               "on today's TensorFlow, 2.16+: the TFM70 rules).")


def stderr_console() -> Console:
    from tfmigrate.report.console import make_console

    return make_console(stderr=True)


def run_with_progress(paths: tuple[Path, ...], options: Any, excludes: tuple[str, ...]) -> Any:
    from tfmigrate.codemod import runner

    err = stderr_console()
    if not err.is_terminal:
        return runner.run(paths, options, excludes)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn  # a bar only on a terminal

    with Progress(TextColumn("[bold]tfmigrate"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=err, transient=True) as progress:
        task = progress.add_task("files", total=None)

        def tick(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return runner.run(paths, options, excludes, on_progress=tick)


def refuse_clobbering(outputs: dict[str, Path | None], inputs: tuple[Path, ...]) -> None:
    """Exit 2 with one line when an output option names an input of the run (``-o src.py``)."""
    from tfmigrate.codemod.files import clobbered_input

    for option, output in outputs.items():
        if output is None:
            continue
        why = clobbered_input(output, inputs)
        if why:
            click.echo(f"tfmigrate: error: {option} {why}", err=True)
            sys.exit(2)


def emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from tfmigrate.codemod.files import write_output

    try:
        write_output(output, text.encode("utf-8"))  # atomically: never a half-written report
    except OSError as exc:  # exit 2 (an error), not click's 1 (which means "changes needed")
        click.echo(f"tfmigrate: error: cannot write {output}: {exc.strerror or exc}", err=True)
        sys.exit(2)


def cache_directory(given: Path) -> Path:
    """A --cache-dir is taken from the current directory; ``cache-dir`` in [tool.tfmigrate] and the
    default from the directory of that pyproject.toml (the project's root), else the current one."""
    source = click.get_current_context().get_parameter_source("cache_dir")
    if source is click.core.ParameterSource.COMMANDLINE:
        return given
    config_file, _ = find_config(Path.cwd())
    return (config_file.parent if config_file is not None else Path.cwd()) / given


def split_glob(values: tuple[str, ...] | list[str] | str) -> list[str]:
    if isinstance(values, str):
        values = [values]
    return [g for v in values for g in str(v).split(",") if g]
