"""What several commands share: the [tool.tfmigrate] configuration, rule selection, the rewrite
stage with its progress bar, and writing outputs (exit 2 on an output that would clobber an input)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tfmigrate.cli.config import find_config  # noqa: F401 - the commands' way to the config

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console


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
    """The engine over ``paths``; a run that found no file to read says so on stderr, in one line (the exit code
    stays 0, as ruff's: nothing there needs migrating, and a pre-commit hook over other files passes)."""
    err = stderr_console()
    report = _run(paths, options, excludes, err)
    if not report.files and not report.errors:
        from tfmigrate.visible import visible

        shown = ", ".join(visible(str(p)) for p in paths)
        err.print(f"tfmigrate: warning: no Python files found in {shown} (.py, .ipynb; after --exclude and .gitignore)",
                  highlight=False, markup=False)
    return report


def _run(paths: tuple[Path, ...], options: Any, excludes: tuple[str, ...], err: Any) -> Any:
    from tfmigrate.codemod import runner

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
    """Where the results cache is, checked: one line and exit 2 where it may not be.

    ``cache-dir`` of [tool.tfmigrate] and the default ``.tfmigrate_cache`` are taken from the
    project's root (the directory of that pyproject.toml, else the current one) and must lie inside
    it: a project's file never sends the cache elsewhere. ``--cache-dir`` is taken from the current
    directory and may be anywhere the user names (a CI cache outside the checkout). Neither may be
    the project's root or a directory above it (the cache's ``.gitignore`` of ``*`` and its
    ``CACHEDIR.TAG`` would hide the whole project from git and from backups), nor a directory that
    is not empty and that the cache did not make (its files are not the cache's to remove)."""
    from tfmigrate.cli.config import ConfigError, shown_path
    from tfmigrate.codemod.cache import foreign
    from tfmigrate.visible import visible

    source = click.get_current_context().get_parameter_source("cache_dir")
    config_file, _ = find_config(Path.cwd())
    root = config_file.parent if config_file is not None else Path.cwd()
    if source is click.core.ParameterSource.COMMANDLINE:
        where, what = given, f"--cache-dir {visible(str(given))}"
    elif source is click.core.ParameterSource.DEFAULT_MAP and config_file is not None:
        where, what = root / given, f"{shown_path(config_file)}: [tool.tfmigrate] cache-dir = \"{visible(str(given))}\""
    else:
        where, what = root / given, f"the cache directory {visible(str(root / given))}"
    here, top = Path(os.path.abspath(where)), Path(os.path.abspath(root))
    real_here, real_top = Path(os.path.realpath(here)), Path(os.path.realpath(top))
    if top.is_relative_to(here) or real_top.is_relative_to(real_here):
        raise ConfigError(f"{what}: is the project's root or above it, where the cache's .gitignore (*) and CACHEDIR.TAG "
                          "would hide the whole project from git and backups; name a directory inside it")
    if source is not click.core.ParameterSource.COMMANDLINE and (
        not here.is_relative_to(top) or not Path(os.path.realpath(here.parent)).is_relative_to(real_top)
    ):
        raise ConfigError(f"{what}: is outside the project ({visible(str(top))}); the cache of a project stays inside it "
                          "(--cache-dir on the command line may name any directory)")
    why = foreign(here)
    if why:
        raise ConfigError(f"{what}: {why}; name a new or empty directory, or pass --no-cache")
    return where


def split_glob(values: tuple[str, ...] | list[str] | str) -> list[str]:
    if isinstance(values, str):
        values = [values]
    return [g for v in values for g in str(v).split(",") if g]
