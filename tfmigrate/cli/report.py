"""``tfmigrate report``: the whole migration at a glance.

The stages are composed in :mod:`tfmigrate.assemble`; this module is the command: its options, the
files it writes (each renderer reads the one Report), and the terminal view, which ends with the
summary and the paths written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from tfmigrate.report.console import make_console


def _checkpoint_paths(values: tuple[Path, ...]) -> tuple[Path, ...]:
    for p in values:
        if not p.exists() and not Path(f"{p}.index").exists():
            raise click.BadParameter(f"{p}: neither a directory nor a checkpoint prefix (no {p}.index)", param_hint="--checkpoint")
    return values


@click.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path), default=Path("."))
@click.option("--checkpoint", "checkpoints", multiple=True, type=click.Path(path_type=Path), callback=lambda ctx, param, value: _checkpoint_paths(value),
              help="Also analyse this checkpoint (model_dir or prefix) against the estimators in PATH (repeatable).")
@click.option("--cwd", "cwd", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="The directory the programs run from, for a relative model_dir [default: each program's own directory].")
@click.option("--validate", "do_validate", is_flag=True, help="Also train/restore/resume each migrated estimator (TensorFlow, a few steps each).")
@click.option("--diff", "show_diffs", is_flag=True, help="Also print every file's diff (the HTML report always has them).")
@click.option("--steps", type=click.IntRange(min=1), default=10, show_default=True, help="Training steps per validation.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), help="Write a self-contained HTML report.")
@click.option("--markdown", "md_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a pull-request comment: the summary, findings by rule, manual steps, verdicts, next commands, "
                   "at most --max-chars; it names the full report (--markdown-full, else --html, else --json).")
@click.option("--markdown-full", "md_full_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the whole report as Markdown (every finding and diff), for an artifact the comment names.")
@click.option("--max-chars", type=click.IntRange(min=1000), default=15_000, show_default=True,
              help="The longest comment --markdown writes (a GitHub comment holds 65,536 characters); what is cut is named.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), help="Write the report as JSON (schema 2, see the README).")
@click.option("--sarif", "sarif_out", type=click.Path(dir_okay=False, path_type=Path), help="Write SARIF 2.1.0.")
@click.option("--target", type=click.Choice(("estimator", "keras")), default="estimator", show_default=True,
              help="What the estimator code becomes: estimator (TensorFlow 2.15) or keras (Keras 3, TensorFlow 2.16+).")
@click.option("--python", "python", default=None,
              help="With --target keras: the Python that has TensorFlow 2.21 [default: $TFMIGRATE_KERAS_PYTHON, tfmigrate's own "
                   ".venv-keras (make keras); never one your project names or holds].")
@click.option("--select", multiple=True, help="Rule ids or prefixes to enable.")
@click.option("--ignore", multiple=True, help="Rule ids or prefixes to disable.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes for the rewrite stage [default and at most: the CPUs this process may use].")
def report(
    path: Path, checkpoints: tuple[Path, ...], cwd: Path | None, do_validate: bool, show_diffs: bool, steps: int, html_out: Path | None,
    md_out: Path | None, md_full_out: Path | None, max_chars: int, json_out: Path | None, sarif_out: Path | None, target: str,
    python: str | None, select: tuple[str, ...],
    ignore: tuple[str, ...], exclude: tuple[str, ...], jobs: int | None,
) -> None:
    """Everything about migrating PATH: rewrites, manual steps, checkpoints, validation.

    A relative model_dir is where the program writes it when run from its own directory (or from --cwd):
    every checkpoint line shows its absolute path and the model_dir it came from.

    Exit 0 nothing left to do, 1 work remains (changes, manual findings, incompatible checkpoints,
    failed validation), 2 errors.
    """
    from tfmigrate.assemble import build_report
    from tfmigrate.cli.common import emit, enabled_rules, keras_python, refuse_clobbering, run_with_progress, split_codes, split_glob
    from tfmigrate.codemod.runner import Options, default_jobs
    from tfmigrate.report import html, json_format, markdown, sarif, terminal
    from tfmigrate.report.next_steps import next_steps

    refuse_clobbering({"--html": html_out, "--markdown": md_out, "--markdown-full": md_full_out, "--json": json_out, "--sarif": sarif_out},
                      (path, *checkpoints))

    err = make_console(stderr=True)

    def say(message: str) -> None:
        if err.is_terminal:
            err.print(f"[dim]… {escape(message)}[/]", highlight=False)

    def watch():  # a validation's progress, on a terminal
        from tfmigrate.cli.validate import ProgressView

        return ProgressView(err)

    options = Options(enabled=enabled_rules(split_codes(select), split_codes(ignore), target), mode="diff", jobs=jobs or default_jobs(),
                      target=target)
    excludes = tuple(split_glob(exclude))
    result = build_report(lambda opts: run_with_progress((path,), opts, excludes), path, options, checkpoints=checkpoints,
                          validate=do_validate, steps=steps, say=say, watch=watch if err.is_terminal else None,
                          keras_python=keras_python(python), cwd=cwd)  # used with --target keras (the rewrite Options' target)
    written: list[tuple[str, str]] = []
    if html_out is not None:
        emit(html.render(result, subject=str(path), validated=do_validate), html_out)
        written.append(("HTML", str(html_out)))
    if md_full_out is not None:
        emit(markdown.render_full(result, max_chars=10**12, paths=(str(path),), validated=do_validate), md_full_out)  # an artifact: never cut
        written.append(("Markdown (full)", str(md_full_out)))
    if md_out is not None:
        full = next((str(p) for p in (md_full_out, html_out, json_out) if p is not None), None)
        emit(markdown.render(result, max_chars=max_chars, full_report=full, paths=(str(path),), validated=do_validate), md_out)
        written.append(("Markdown", str(md_out)))
    if json_out is not None:
        emit(json_format.render(result), json_out)
        written.append(("JSON", str(json_out)))
    if sarif_out is not None:
        emit(sarif.render(result), sarif_out)
        written.append(("SARIF", str(sarif_out)))
    out = make_console()
    if result.files or result.errors:  # with nothing read (a run that found no Python file) the summary is shown once, at the end
        out.print(terminal.summary_view(terminal.view.visible_report(result)))
        out.print()
        terminal.print_details(result, out, show_diffs=show_diffs)
    terminal.print_summary(result, out, written, next_steps(result, (str(path),), validated=do_validate))
    sys.exit(result.exit_code())
