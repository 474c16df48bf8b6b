"""The ``tfmigrate`` command line: rewrite, rules, ckpt, validate, report.

Subcommands that need heavier modules (the checkpoint analyser, the validation run, the composed
report) are imported only when invoked, so ``tfmigrate rewrite`` stays fast and TensorFlow-free.
Exit codes follow linters: 0 clean, 1 changes or manual findings remain, 2 errors or bad usage.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

from tfmigrate import __version__

LAZY_COMMANDS = {
    "ckpt": "tfmigrate.checkpoint.cli:ckpt",
    "validate": "tfmigrate.validate.cli:validate",
    "report": "tfmigrate.report.cli:report",
}
FORMATS = ("text", "json", "sarif", "markdown")


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(n for n in LAZY_COMMANDS if self._load(n))})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, name) or self._load(name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(name)
        if not target:
            return None
        module, _, attr = target.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            if getattr(exc, "name", None) == module:  # that capability is not installed here
                return None
            raise

    def invoke(self, ctx: click.Context) -> Any:
        """Ctrl-C ends a command with exit status 130 (a shell's 128 + SIGINT) and says so.

        Click's own handling would print "Aborted!" and exit 1, which tfmigrate's exit codes
        already use for "changes needed"."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            promise = ": every file is either as it was or fully rewritten" if ctx.invoked_subcommand == "rewrite" else ""
            stderr_console().print(f"[bold red]interrupted[/]{promise}")
            ctx.exit(130)


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


def split_codes(values: tuple[str, ...] | list[str] | str | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    codes = tuple(c.strip().upper() for v in values for c in str(v).split(",") if c.strip())
    return codes or None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="tfmigrate")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Move legacy TensorFlow code and checkpoints onto tf.estimator (TensorFlow 2.15)."""
    _, config = find_config(Path.cwd())
    if config:
        ctx.default_map = {"rewrite": config, "report": {k: v for k, v in config.items() if k in ("select", "ignore", "exclude", "jobs")}}


def enabled_rules(select: tuple[str, ...] | None, ignore: tuple[str, ...] | None) -> frozenset[str]:
    from tfmigrate.codemod.rule import load_catalog

    catalog = load_catalog()
    for option, codes in (("--select", select or ()), ("--ignore", ignore or ())):
        unknown = catalog.unknown_codes(codes)
        if unknown:
            raise click.BadParameter(f"unknown rule code(s): {', '.join(unknown)} (see `tfmigrate rules`)", param_hint=option)
    return catalog.selected(select, ignore or ())


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
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:  # exit 2 (an error), not click's 1 (which means "changes needed")
        click.echo(f"tfmigrate: error: cannot write {output}: {exc.strerror or exc}", err=True)
        sys.exit(2)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--diff", "show_diff", is_flag=True, help="Print unified diffs; write nothing.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file would change or a finding remains.")
@click.option("--select", multiple=True, help="Rule ids or prefixes to enable (e.g. TFM1,TFM501).")
@click.option("--ignore", multiple=True, help="Rule ids or prefixes to disable.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes [default: CPU count].")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write the formatted result to FILE.")
@click.option("--quiet", "-q", is_flag=True, help="No summary table.")
@click.option("--no-cache", is_flag=True, help="Process every file, even those whose results are cached.")
@click.option(
    "--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Where results of unchanged files are kept [default: .tfmigrate_cache beside pyproject.toml, or here].",
)
def rewrite(
    paths: tuple[Path, ...], show_diff: bool, check: bool, select: tuple[str, ...], ignore: tuple[str, ...],
    exclude: tuple[str, ...], jobs: int | None, fmt: str, output: Path | None, quiet: bool, no_cache: bool,
    cache_dir: Path | None,
) -> None:
    """Rewrite legacy TensorFlow code in PATHS (files or directories; default: .)."""
    from tfmigrate.codemod.cache import DEFAULT_DIRECTORY
    from tfmigrate.codemod.runner import Options, default_jobs

    if show_diff and check:
        raise click.UsageError("--diff and --check are exclusive")
    refuse_clobbering({"--output": output}, paths or (Path("."),))
    enabled = enabled_rules(split_codes(select), split_codes(ignore))
    mode = "diff" if show_diff else "check" if check else "write"
    # Only --diff and the Markdown report show diffs; making them is a cost on every changed file.
    cache = None if no_cache else cache_directory(cache_dir or Path(DEFAULT_DIRECTORY))
    options = Options(
        enabled=enabled, mode=mode, jobs=jobs or default_jobs(), diffs=show_diff or fmt == "markdown", cache_dir=cache
    )
    report = run_with_progress(paths or (Path("."),), options, tuple(split_glob(exclude)))
    render_report(report, fmt, output, quiet, show_diff)
    sys.exit(exit_code(report))


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


def render_report(report: Any, fmt: str, output: Path | None, quiet: bool, show_diff: bool) -> None:
    from tfmigrate.report import console as view

    err = stderr_console()
    view.print_errors(report, err)
    if fmt == "text" and output is None:
        out = view.make_console()
        if show_diff:
            view.print_diffs(report, out)
            view.print_findings(report, err)
        else:
            view.print_findings(report, out)
    else:
        module = {"text": "markdown", "json": "json_format", "sarif": "sarif", "markdown": "markdown"}[fmt]
        renderer = importlib.import_module(f"tfmigrate.report.{module}")
        emit(renderer.render(report), output)
        if fmt == "text":
            view.print_findings(report, err)
    if not quiet and fmt == "text":
        err.print(view.summary_table(report))
        table = view.rules_table(report)
        if table is not None:
            err.print(table)


def exit_code(report: Any) -> int:
    summary = report.summary()
    if summary["errors"]:
        return 2
    if report.mode in ("check", "diff"):
        return 1 if summary["changed"] or summary["findings"] else 0
    return 1 if summary["manual"] else 0


@cli.command()
@click.argument("rule_id", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules(rule_id: str | None, fmt: str) -> None:
    """List the rule catalog, or explain RULE_ID with its before/after examples."""
    import json

    from rich.syntax import Syntax
    from rich.table import Table

    from tfmigrate.codemod.rule import load_catalog

    catalog = load_catalog()
    chosen = list(catalog.rules.values())
    if rule_id:
        chosen = [r for r in chosen if r.id.startswith(rule_id.upper())]
        if not chosen:
            raise click.BadParameter(f"no rule {rule_id} (see `tfmigrate rules`)", param_hint="RULE_ID")
    if fmt == "json":
        data = [
            {"id": r.id, "title": r.title, "family": r.family, "severity": r.severity, "fixable": r.fixable, "why": r.why,
             "examples": [{"before": e.before, "after": e.after} for e in r.examples]}
            for r in chosen
        ]
        click.echo(json.dumps(data, indent=2))
        return
    from tfmigrate.report.console import make_console

    out = make_console()
    if rule_id and len(chosen) == 1:
        r = chosen[0]
        out.print(f"[bold]{r.id}[/] {r.title}  [dim]({r.severity}, {'fixable' if r.fixable else 'manual'})[/]\n")
        out.print(r.why + "\n", soft_wrap=False)
        for i, e in enumerate(r.examples, start=1):
            out.print(f"[bold]Example {i}[/] — before:")
            out.print(Syntax(e.before.rstrip("\n"), "python", theme="ansi_dark", background_color="default"))
            out.print("after:" if e.after is not None else "after: [dim](left unchanged)[/]")
            if e.after is not None:
                out.print(Syntax(e.after.rstrip("\n"), "python", theme="ansi_dark", background_color="default"))
            out.print()
        return
    table = Table(show_header=True, header_style="bold")
    table.add_column("id")
    table.add_column("title")
    table.add_column("fix")
    for r in chosen:
        table.add_row(r.id, r.title, "auto" if r.fixable else "manual")
    out.print(table)


def main() -> None:
    cli.main(prog_name="tfmigrate")


if __name__ == "__main__":
    main()
