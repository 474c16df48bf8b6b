"""``tfmigrate report``: the whole migration at a glance.

Composes the stages into the one :class:`~tfmigrate.report.model.Report`: what ``rewrite --diff``
would change (engine, mode "diff"), the findings that need manual work, the checkpoint analysis
for each estimator whose ``model_dir`` holds a checkpoint (or ``--checkpoint``), and with
``--validate`` the validation runs. The estimators are found statically in the *migrated* code
(the rewrite applied in memory, written to a scratch copy), so nothing in PATH is modified.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from tfmigrate.report.console import make_console
from tfmigrate.report.model import Report

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class EstimatorSite:
    """A tf.estimator construction in the migrated code of one file."""

    path: str  # the user's file
    line: int  # in the migrated code
    cls: str
    spec: str  # TARGET for the scratch copy: /tmp/.../file.py:LINE
    model_dir: str | None = None
    error: str | None = None
    key: str = ""  # identical definitions (legacy.py and expected.py of a sample) are analysed once


def apply_diff(original: str, diff: str) -> str:
    """Apply a unified diff (as the engine writes it) to the text it was made from."""
    old = original.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    last = ""
    for line in diff.splitlines(keepends=True):
        if line.startswith(("--- ", "+++ ")):
            continue
        m = _HUNK.match(line)
        if m:
            start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
            out.extend(old[pos:start])
            pos = start
        elif line.startswith("\\"):
            if out and last in "+ ":  # "\ No newline at end of file" after a line the new text keeps
                out[-1] = out[-1].rstrip("\r\n")
        elif line.startswith("+"):
            out.append(line[1:])
        elif line.startswith("-"):
            pos += 1
        elif line.startswith(" "):
            out.append(old[pos])
            pos += 1
        last = line[:1]
    out.extend(old[pos:])
    return "".join(out)


def migrated_sources(report: Report) -> dict[str, bytes]:
    """The code each file would have after ``rewrite`` (the diff applied in memory; unchanged files as they are)."""
    out: dict[str, bytes] = {}
    for r in report.files:
        if r.status not in ("changed", "unchanged"):
            continue
        try:
            data = Path(r.path).read_bytes()
        except OSError:
            continue
        if r.status == "changed" and r.diff:
            if b"estimator" not in data and "estimator" not in r.diff:
                continue
            data = apply_diff(data.decode("utf-8", errors="replace"), r.diff).encode("utf-8")
        if b"estimator" in data:
            out[r.path] = data
    return out


def find_estimators(
    sources: dict[str, bytes], scratch: Path, run_code: bool = True, notes: list[str] | None = None
) -> list[EstimatorSite]:
    """tf.estimator constructions of the migrated code; each file's migrated text is written to a scratch copy.

    A builder function (``build_estimator()``...) is a site only with ``run_code``: using it means
    importing the file and calling the function, which ``tfmigrate report`` does only under
    ``--validate``; otherwise a note (in ``notes``) says so and the static constructions are used."""
    from tfmigrate.validate import static

    sites: list[EstimatorSite] = []
    for i, (path, data) in enumerate(sorted(sources.items())):
        copy = scratch / str(i) / Path(path).name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(data)
        found = static.find(data, str(copy))
        builder = builder_function(data)
        if builder and found and not run_code:
            if notes is not None and any(c.error for c in found):
                notes.append(f"{path}:{builder[1]}: {builder[0]}() builds the estimator; analysing its checkpoints means "
                             "running that code, which tfmigrate report does only with --validate")
            builder = None
        if builder and found:
            # a builder (experiment_fn, build_estimator...) builds what the constructions cannot statically;
            # an unchanged file is imported where it is (its sibling imports work)
            unchanged = Path(path).is_file() and Path(path).read_bytes() == data
            where = path if unchanged else str(copy)
            digest = hashlib.sha256(data).hexdigest()
            sites.append(EstimatorSite(path, builder[1], f"{builder[0]}()", f"{where}:{builder[0]}", key=f"fn:{digest}:{builder[0]}"))
        for c in found:
            if builder and c.error:
                continue  # the builder covers it
            sites.append(EstimatorSite(
                path, c.line, c.cls, f"{copy}:{c.line}", model_dir=c.model_dir,
                error=c.error.replace(str(copy), path) if c.error else None, key=c.key.replace(str(copy), "") if c.key else "",
            ))
    return sites


BUILDERS = ("build_estimator", "make_estimator", "experiment_fn", "estimator_fn")


def builder_function(data: bytes) -> tuple[str, int] | None:
    """A module-level function that returns the estimator (name, line), by the usual names."""
    import ast

    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    defs = {n.name: n.lineno for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in BUILDERS:
        if name in defs:
            return name, defs[name]
    return None


def holds_checkpoint(directory: Path) -> bool:
    return directory.is_dir() and ((directory / "checkpoint").is_file() or any(directory.glob("*.index")))


def resolve_model_dir(site: EstimatorSite) -> Path | None:
    if not site.model_dir:
        return None
    candidates = [Path(site.model_dir)]
    if not Path(site.model_dir).is_absolute():
        candidates.append(Path(site.path).parent / site.model_dir)
    for c in candidates:
        if holds_checkpoint(c):
            return c
    return None


def unique(sites: list[EstimatorSite]) -> list[EstimatorSite]:
    seen: set[str] = set()
    out = []
    for s in sites:
        if s.key and s.key in seen:
            continue
        seen.add(s.key)
        out.append(s)
    return out


def shown_target(site: EstimatorSite) -> str:
    return f"{site.path}:{site.line} {site.cls}"


def relabel(obj: Any, site: EstimatorSite) -> Any:
    """Scratch-copy paths in results become the user's file."""
    scratch = site.spec.rsplit(":", 1)[0]
    text = json.dumps(obj).replace(json.dumps(site.spec)[1:-1], shown_target(site)).replace(json.dumps(scratch)[1:-1], site.path)
    return json.loads(text)


SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "env", "node_modules", "__pycache__", ".tox", ".mypy_cache", "site-packages"}


def unreferenced_checkpoints(root: Path, sites: list[EstimatorSite], extra: tuple[Path, ...], limit: int = 2000) -> list[str]:
    """Checkpoint directories under PATH that no estimator's model_dir (and no --checkpoint) names."""

    used = {p.resolve() for p in extra}
    used |= {d.resolve() for d in (resolve_model_dir(s) for s in sites) if d is not None}
    found: list[Path] = []
    seen = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        seen += 1
        if seen > limit:
            break
        if "checkpoint" in files or any(f.endswith(".index") for f in files):
            here = Path(directory)
            if here.resolve() not in used and not any(p.resolve().parent == here.resolve() for p in extra):
                found.append(here)
    if not found:
        return []
    shown = ", ".join(str(p) for p in found[:4]) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
    return [f"{len(found)} checkpoint director{'y' if len(found) == 1 else 'ies'} no estimator names as model_dir: {shown} "
            f"(compare with --checkpoint DIR, or `tfmigrate ckpt diff DIR --model FILE.py`)"]


def _distinct(paths: list[str]) -> list[str]:
    """Checkpoint paths naming the same checkpoint (its model_dir, its prefix) are analysed once."""
    seen: set[str] = set()
    out = []
    for p in paths:
        try:
            from tfmigrate.checkpoint.index import resolve

            key = os.path.realpath(resolve(p)[0])
        except Exception:  # noqa: BLE001 - the analysis reports what is wrong with it
            key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def analyse_checkpoints(sites: list[EstimatorSite], extra: tuple[Path, ...], say) -> tuple[list[dict], list[str]]:
    from tfmigrate.validate.runner import run_validation

    work: list[tuple[EstimatorSite, list[str]]] = []
    usable = [s for s in unique(sites) if not s.error]
    for s in usable:
        found = resolve_model_dir(s)
        paths = _distinct(([str(found)] if found else []) + [str(p) for p in extra])
        if paths:
            work.append((s, paths))
    errors: list[str] = []
    if extra and not usable:
        errors.append("--checkpoint: no tf.estimator construction in PATH to compare it with")
    results: list[dict] = []
    if not work:
        return results, errors
    by_spec = {site.spec: site for site, _ in work}
    say(f"checkpoint analysis: {len(work)} estimator(s) against {len({p for _, ps in work for p in ps})} checkpoint(s)")
    r = run_validation(work[0][0].spec, device="cpu", analyse_batch=[{"target": s.spec, "paths": ps} for s, ps in work])
    if r.get("error"):
        errors.append(f"checkpoint analysis could not run: {r['error']}")
    for item in r.get("target_errors", []):
        site = by_spec[item["target"]]
        errors.append(f"{site.path}:{site.line}: checkpoint analysis could not run: {relabel(item['error'], site)}")
    for ck in r.get("checkpoints", []):
        site = by_spec[ck.pop("target")]
        ck = relabel(ck, site)
        ck["model"] = shown_target(site) if not isinstance(ck.get("model"), dict) else {**ck["model"], "target": shown_target(site)}
        results.append(ck)
    return results, errors


def run_validations(sites: list[EstimatorSite], steps: int, say) -> list[dict]:
    from tfmigrate.validate.runner import run_validation

    out = []
    for s in unique(sites):
        if s.error:
            out.append({"schema": 1, "passed": False, "device": "-", "steps": 0, "stages": [], "target": shown_target(s), "error": s.error})
            continue
        say(f"validating {shown_target(s)} ({steps} steps)")
        err = make_console(stderr=True)
        if err.is_terminal:
            from tfmigrate.cli.validate import ProgressView

            with ProgressView(err) as view:
                r = run_validation(s.spec, device="auto", steps=steps, on_event=view)
        else:
            r = run_validation(s.spec, device="auto", steps=steps)
        r.pop("exit_code", None)
        r = relabel(r, s)
        r["target"] = shown_target(s)
        out.append(r)
    return out


# ------------------------------------------------------------------------------------ terminal


def summary_view(report: Report) -> Table:
    s = report.summary()
    table = Table(title="tfmigrate report", show_header=False, box=None, pad_edge=False, title_justify="left", title_style="bold")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_row("files", f"{s['files']} scanned, [yellow]{s['changed']} to change[/], {s['errors']} error(s)")
    table.add_row("findings", f"{s['findings']} ({s['findings'] - s['manual']} fixed by rewrite, [magenta]{s['manual']} manual[/])")
    if report.checkpoints:
        bad = sum(not c.get("compatible") for c in report.checkpoints)
        table.add_row("checkpoints", f"{len(report.checkpoints)} analysed, " + (f"[bold red]{bad} incompatible[/]" if bad else "[green]all compatible[/]"))
    else:
        table.add_row("checkpoints", "[dim]none found (estimator model_dir or --checkpoint)[/]")
    if report.validations:
        ran = [v for v in report.validations if not v.get("error")]
        bad = sum(not v.get("passed") for v in ran)
        not_run = len(report.validations) - len(ran)
        parts = [f"{len(ran)} run, " + (f"[bold red]{bad} failed[/]" if bad else "[green]all passed[/]")] if ran else []
        if not_run:
            parts.append(f"[yellow]{not_run} could not run[/]")
        text = ", ".join(parts)
        table.add_row("validation", text)
    else:
        table.add_row("validation", "[dim]not run (--validate)[/]")
    return table


def model_label(ck: dict[str, Any]) -> str:
    model = ck.get("model")
    if isinstance(model, dict):
        return str(model.get("target") or model.get("class") or "the model")
    return str(model or "the model")


def _shape(value: Any) -> str:
    return "-" if value is None else ("[" + ", ".join(str(v) for v in value) + "]" if isinstance(value, (list, tuple)) else str(value))


def print_terminal(report: Report, out: Console, notes: list[str] = ()) -> None:
    from tfmigrate.report import console as view
    from tfmigrate.cli.validate import stages_table, verdict_line

    report = view.visible_report(report)  # names and code from the user's files: control characters shown
    out.print(summary_view(report))
    for note in notes:
        out.print(f"[dim]note:[/] {escape(view.visible(note))}", highlight=False)
    out.print()
    files = [r for r in report.files if r.status in ("changed", "error") or r.findings]
    if files:
        table = Table(show_header=True, header_style="bold", title="files", title_justify="left")
        table.add_column("file", overflow="fold")
        table.add_column("status", no_wrap=True)
        table.add_column("fixes", justify="right")
        table.add_column("manual", justify="right")
        for r in files:
            status = {"changed": "[yellow]to change[/]", "error": "[bold red]error[/]"}.get(r.status, r.status)
            table.add_row(escape(r.path), status, str(sum(f.fixable for f in r.findings)), str(sum(not f.fixable for f in r.findings)))
        out.print(table)
    for c in report.checkpoints:
        ok = c.get("compatible")
        mark = "[green]compatible[/]" if ok else "[bold red]incompatible[/]"
        out.print(Text.from_markup("[bold]checkpoint[/] ") + Text(f"{c.get('checkpoint')} vs {model_label(c)}: ") + Text.from_markup(mark))
    for v in report.validations:
        out.print(f"[bold]validate[/] {escape(str(v.get('target')))}: " + verdict_line(v))
    # ---------------------------------------------------------------- details
    manual = [f for f in report.findings if not f.fixable]
    auto = [f for f in report.findings if f.fixable]
    if manual:
        out.rule(f"[bold]manual steps[/] ({len(manual)})")
        for i, f in enumerate(manual):
            if i:
                out.print()
            out.print(Text.from_markup(f"[magenta]{f.rule}[/] ") + Text(f.location, style="bold") + Text(f" {f.message}"))
    if auto:
        from tfmigrate.codemod.rule import load_catalog

        rules = load_catalog().rules
        out.rule(f"[bold]automatic fixes[/] ({len(auto)}, see the diffs)")
        table = Table(show_header=True, header_style="bold", box=None)
        table.add_column("rule", no_wrap=True)
        table.add_column("n", justify="right")
        table.add_column("what", overflow="fold")
        counts: dict[str, int] = {}
        for f in auto:
            counts[f.rule] = counts.get(f.rule, 0) + 1
        for rule_id, n in sorted(counts.items()):
            table.add_row(escape(rule_id), str(n), escape(rules[rule_id].title) if rule_id in rules else "")
        out.print(table)
    diffs = [r for r in report.files if r.diff]
    if diffs:
        out.rule("[bold]changes[/]")
        for r in diffs:
            out.print(Syntax(r.diff.rstrip("\n"), "diff", theme="ansi_dark", background_color="default", word_wrap=True))
    for c in report.checkpoints:
        out.rule(Text.from_markup("[bold]checkpoint[/] ") + Text(f"{c.get('checkpoint')} vs {model_label(c)}"))
        ok = c.get("compatible")
        out.print(Panel(Text(str(c.get("verdict", ""))), border_style="green" if ok else "red"))
        renames = {k: v for k, v in (c.get("name_map") or {}).items() if k != v}
        if c.get("writer") or renames:
            out.print(Text(f"written by {c.get('writer', '?')}" + (f"; {len(renames)} tensor(s) renamed by the era name map" if renames else ""), style="dim"))
        for note in (c.get("notes") or [])[:5]:
            out.print(Text(f"- {note}"))
        if len(c.get("notes") or []) > 5:
            out.print(Text(f"- ... {len(c['notes']) - 5} more (see --json or --html)", style="dim"))
        rows = [p for p in c.get("pairs", []) if p.get("status") != "match"]
        bad = [p for p in rows if p.get("kind") != "optimizer"]
        hidden = len(rows) - len(bad)
        bad.sort(key=lambda p: (0 if ("mismatch" in str(p.get("status")) or "missing" in str(p.get("status"))) else 1, str(p.get("model_name") or p.get("checkpoint_name"))))
        if bad:
            table = Table(show_header=True, header_style="bold")
            table.add_column("variable", overflow="fold")
            table.add_column("status", overflow="fold")
            table.add_column("ckpt", no_wrap=True)
            table.add_column("model", no_wrap=True)
            for p in bad[:40]:
                status = str(p.get("status"))
                if "dtype" in status and p.get("checkpoint_dtype"):
                    status += f" ({p.get('checkpoint_dtype')} -> {p.get('model_dtype')})"
                style = "bold red" if ("mismatch" in status or "missing" in status) else "yellow"
                table.add_row(escape(str(p.get("model_name") or p.get("checkpoint_name"))), f"[{style}]{escape(status)}[/]",
                              escape(_shape(p.get("checkpoint_shape"))), escape(_shape(p.get("model_shape"))))
            if len(bad) > 40:
                table.add_row(f"... {len(bad) - 40} more", "", "", "")
            out.print(table)
        if hidden:
            out.print(f"[dim]{hidden} optimizer slot/hyperparameter row(s) not shown (see --json or --html)[/]")
    for v in report.validations:
        out.rule(f"[bold]validation[/] {escape(str(v.get('target')))}")
        if v.get("stages"):
            out.print(stages_table(v))
        out.print(verdict_line(v))
    errors = [r for r in report.files if r.status == "error"]
    if errors or report.errors:
        out.rule("[bold red]errors[/]")
        view.print_errors(Report(files=errors, errors=report.errors), out)


def _checkpoint_paths(values: tuple[Path, ...]) -> tuple[Path, ...]:
    for p in values:
        if not p.exists() and not Path(f"{p}.index").exists():
            raise click.BadParameter(f"{p}: neither a directory nor a checkpoint prefix (no {p}.index)", param_hint="--checkpoint")
    return values


def exit_code(report: Report) -> int:
    s = report.summary()
    if s["errors"]:
        return 2
    if s["changed"] or s["findings"] or any(not c.get("compatible") for c in report.checkpoints) or any(not v.get("passed") for v in report.validations):
        return 1
    return 0


@click.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path), default=Path("."))
@click.option("--checkpoint", "checkpoints", multiple=True, type=click.Path(path_type=Path), callback=lambda ctx, param, value: _checkpoint_paths(value),
              help="Also analyse this checkpoint (model_dir or prefix) against the estimators in PATH (repeatable).")
@click.option("--validate", "do_validate", is_flag=True, help="Also train/restore/resume each migrated estimator (TensorFlow, a few steps each).")
@click.option("--steps", type=click.IntRange(min=1), default=10, show_default=True, help="Training steps per validation.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), help="Write a self-contained HTML report.")
@click.option("--markdown", "md_out", type=click.Path(dir_okay=False, path_type=Path), help="Write Markdown (fits a pull-request comment).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), help="Write the report as JSON (schema 1).")
@click.option("--sarif", "sarif_out", type=click.Path(dir_okay=False, path_type=Path), help="Write SARIF 2.1.0.")
@click.option("--select", multiple=True, help="Rule ids or prefixes to enable.")
@click.option("--ignore", multiple=True, help="Rule ids or prefixes to disable.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes for the rewrite stage.")
def report(
    path: Path, checkpoints: tuple[Path, ...], do_validate: bool, steps: int, html_out: Path | None, md_out: Path | None,
    json_out: Path | None, sarif_out: Path | None, select: tuple[str, ...], ignore: tuple[str, ...], exclude: tuple[str, ...],
    jobs: int | None,
) -> None:
    """Everything about migrating PATH: rewrites, manual steps, checkpoints, validation.

    Exit 0 nothing left to do, 1 work remains (changes, manual findings, incompatible checkpoints,
    failed validation), 2 errors.
    """
    from tfmigrate.cli.common import emit, enabled_rules, refuse_clobbering, run_with_progress, split_codes, split_glob
    from tfmigrate.codemod.runner import Options, default_jobs

    refuse_clobbering({"--html": html_out, "--markdown": md_out, "--json": json_out, "--sarif": sarif_out}, (path, *checkpoints))

    err = make_console(stderr=True)

    def say(message: str) -> None:
        if err.is_terminal:
            err.print(f"[dim]… {escape(message)}[/]", highlight=False)

    enabled = enabled_rules(split_codes(select), split_codes(ignore))
    options = Options(enabled=enabled, mode="diff", jobs=jobs or default_jobs())
    result = run_with_progress((path,), options, tuple(split_glob(exclude)))
    with tempfile.TemporaryDirectory(prefix="tfmigrate-report-") as scratch:
        code_notes: list[str] = []  # without --validate no code of the user's is run (see the README)
        sites = find_estimators(migrated_sources(result), Path(scratch), run_code=do_validate, notes=code_notes)
        analyses, errors = analyse_checkpoints(sites, checkpoints, say)
        notes = code_notes + unreferenced_checkpoints(path, sites, checkpoints)
        result.checkpoints.extend(analyses)
        result.errors.extend(errors)
        if do_validate:
            result.validations.extend(run_validations(sites, steps, say))
    outputs = {html_out: "html", md_out: "markdown", json_out: "json_format", sarif_out: "sarif"}
    for target, module in outputs.items():
        if target is None:
            continue
        if module == "html":
            from tfmigrate.report import html

            text = html.render(result, subject=str(path), notes=notes)
        else:
            import importlib

            text = importlib.import_module(f"tfmigrate.report.{module}").render(result)
        emit(text, target)
    print_terminal(result, make_console(), notes)
    sys.exit(exit_code(result))
