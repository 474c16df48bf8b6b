"""``tfmigrate rewrite``: the codemod over files and directories.

Exit codes follow linters: 0 clean, 1 changes or manual findings remain, 2 errors or bad usage.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.markup import escape

from tfmigrate.cli.config import FORMATS
from tfmigrate.cli.common import (
    TARGET_HELP, cache_directory, emit, enabled_rules, refuse_clobbering, run_with_progress, split_codes, split_glob, stderr_console,
)

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.results import Report



@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--diff", "show_diff", is_flag=True, help="Print unified diffs; write nothing.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file would change or a finding remains.")
@click.option("--target", type=click.Choice(("estimator", "keras")), default="estimator", show_default=True, help=TARGET_HELP)
@click.option("--keras-helpers", metavar="MODULE", default="legacy_estimators", show_default=True,
              help="With --target keras: the module, beside the migrated modules, that holds the Keras helpers they "
                   "import (written once a directory).")
@click.option("--select", multiple=True, help="Rule ids or prefixes to enable (e.g. TFM1,TFM501).")
@click.option("--ignore", multiple=True, help="Rule ids or prefixes to disable.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes [default and at most: the CPUs this process may use].")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: one line a finding (path:line:col: RULE message (fixed|fixable|manual)) and a summary on stderr; "
                   "json: the results (schema 2, see the README); sarif: SARIF 2.1.0 for code scanning; "
                   "markdown: a pull-request comment.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write the formatted result to FILE (text: as Markdown).")
@click.option("--max-chars", type=click.IntRange(min=1000), default=65_536, show_default=True,
              help="With markdown: the longest comment to write (GitHub holds 65,536 characters); what is cut is named.")
@click.option("--quiet", "-q", is_flag=True, help="No summary table.")
@click.option("--no-cache", is_flag=True, help="Process every file, even those whose results are cached.")
@click.option(
    "--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Where results of unchanged files are kept [default: .tfmigrate_cache beside pyproject.toml, or here].",
)
def rewrite(
    paths: tuple[Path, ...], show_diff: bool, check: bool, target: str, keras_helpers: str, select: tuple[str, ...], ignore: tuple[str, ...],
    exclude: tuple[str, ...], jobs: int | None, fmt: str, output: Path | None, max_chars: int, quiet: bool, no_cache: bool,
    cache_dir: Path | None,
) -> None:
    """Rewrite legacy TensorFlow code in PATHS (files, directories, notebooks; default: .).

    Each finding is fixed (rewritten in this run), fixable (--check/--diff: would be fixed by
    rewrite) or manual (the message says what to do).

    \b
    Exit codes:
      0  nothing left to do
      1  with --check/--diff: a file would change or a finding remains;
         when rewriting: a manual finding remains
      2  an error: a file could not be processed, or bad usage
    """
    from tfmigrate.codemod.cache import DEFAULT_DIRECTORY
    from tfmigrate.codemod.runner import Options, default_jobs

    if show_diff and check:
        raise click.UsageError("--diff and --check are exclusive")
    refuse_clobbering({"--output": output}, paths or (Path("."),))
    if not keras_helpers.isidentifier() or keras_helpers in ("tensorflow", "keras", "tf"):
        raise click.BadParameter(f"{keras_helpers!r} is not a module name without dots", param_hint="--keras-helpers")
    enabled = enabled_rules(split_codes(select), split_codes(ignore), target)
    mode = "diff" if show_diff else "check" if check else "write"
    # Only --diff and the Markdown report show diffs; making them is a cost on every changed file.
    cache = None if no_cache else cache_directory(cache_dir or Path(DEFAULT_DIRECTORY))
    options = Options(
        enabled=enabled, mode=mode, jobs=jobs or default_jobs(), diffs=show_diff or fmt == "markdown", cache_dir=cache,
        target=target, keras_helpers=keras_helpers,
    )
    report = run_with_progress(paths or (Path("."),), options, tuple(split_glob(exclude)))
    render_report(report, fmt, output, quiet, show_diff, max_chars, tuple(str(p) for p in paths) or (".",))
    sys.exit(report.exit_code())


def render_report(report: Report, fmt: str, output: Path | None, quiet: bool, show_diff: bool, max_chars: int = 65_536,
                  paths: tuple[str, ...] = (".",)) -> None:
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
        from tfmigrate.report import json_format, markdown, sarif

        if fmt in ("text", "markdown"):
            emit(markdown.render_full(report, max_chars=max_chars, paths=paths), output)  # every finding and diff
        else:
            emit({"json": json_format, "sarif": sarif}[fmt].render(report), output)
        if fmt == "text":
            view.print_findings(report, err)
    if not quiet and fmt == "text":
        err.print(view.summary_table(report))
        table = view.rules_table(report)
        if table is not None:
            err.print(table)
    if not quiet and fmt == "text":
        from tfmigrate.report.next_steps import next_steps

        for step in next_steps(report, paths):  # the commands that follow: apply the fixes, explain the manual steps
            err.print(f"[bold]next[/]: {escape(step.command)}   [dim]# {escape(step.why)}[/]", highlight=False, soft_wrap=True)

