"""The terminal view of ``tfmigrate report``: the details first, the summary and what was written last.

A long run scrolls; what stays on screen when it ends is the summary (the same counts as every
other format) and the paths of the files written. Code, paths and tensor names are never cropped
or wrapped mid-word: tables fold long cells at their own width, and output to a pipe is plain text
with no width limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from tfmigrate.report import console as view
from tfmigrate.report.next_steps import Step
from tfmigrate.results import FIX_MEANING, Concern, FileStatus, Fix, KerasConversion, Mode, Outcome, Report, Validation, shape_text

TOP_RULES = 15  # rows of the automatic-fixes table (the rest in one row; every rule in --json and --html)
_CONCERN_STYLE = {Concern.BAD: "bold red", Concern.WARN: "yellow", Concern.OK: "green"}


def summary_view(report: Report) -> Table:
    s = report.summary()
    table = Table(title="tfmigrate report", show_header=False, box=None, pad_edge=False, title_justify="left", title_style="bold")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_row("files", f"{s.files} scanned, [yellow]{s.changed} {report.changed_label}[/], {s.errors} error(s)")
    fixed = f"{s.fixed} {Fix.FIXED}, " if report.mode is Mode.WRITE or s.fixed else ""  # a report that writes nothing fixes nothing
    table.add_row("findings", f"{s.findings}: {fixed}[blue]{s.fixable} {Fix.FIXABLE}[/] "
                              f"({FIX_MEANING[Fix.FIXABLE]}), [magenta]{s.manual} {Fix.MANUAL}[/]")
    table.add_row("target", escape(report.target_label))
    if s.checkpoints:
        table.add_row("checkpoints", f"{s.checkpoints} analysed, " + (f"[bold red]{s.incompatible} incompatible[/]" if s.incompatible else "[green]all compatible[/]"))
    else:
        table.add_row("checkpoints", "[dim]none found (estimator model_dir or --checkpoint)[/]")
    if s.validations:
        ran = s.validations - s.validations_not_run
        parts = [f"{ran} run, " + (f"[bold red]{s.validations_failed} failed[/]" if s.validations_failed else "[green]all passed[/]")] if ran else []
        if s.validations_not_run:
            parts.append(f"[yellow]{s.validations_not_run} could not run[/]")
        table.add_row("validation", ", ".join(parts))
    else:
        table.add_row("validation", "[dim]not asked for (--validate trains, restores, resumes each)[/]")
    if s.keras_conversions:
        failed = s.keras_conversions_failed
        table.add_row("keras conversion", f"{s.keras_conversions} checkpoint(s) converted, "
                      + (f"[bold red]{failed} failed[/]" if failed else "[green]all verified[/]"))
    return table


def stages_table(v: Validation, title: str | None = None) -> Table:
    table = Table(title=title, show_header=True, header_style="bold", expand=False)
    table.add_column("stage", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("s", justify="right", no_wrap=True)
    table.add_column("detail", overflow="fold")
    for st in v.stages:
        table.add_row(escape(st.name), "[green]ok[/]" if st.passed else "[bold red]FAIL[/]", f"{st.seconds:.1f}", escape(st.detail))
    return table


def verdict_line(v: Validation) -> str:
    if v.outcome is Outcome.NOT_RUN:
        return f"[bold red]could not run[/]: {escape(v.error or '')}"
    device = f" on {escape(v.device_label)}" if v.device not in ("-", "auto") else ""
    runtime = f" ({escape(v.runtime)})" if v.runtime else ""
    if v.passed:
        rate = f", {v.steps_per_second} steps/s" if v.steps_per_second else ""
        steps = f"{v.steps} steps{rate}, " if v.steps else ""
        return f"[bold green]passed[/]{device}{runtime}: {steps}{v.seconds or 0:.1f} s"
    failed = [s for s in v.stages if not s.passed]
    why = f"\n  {escape(failed[0].detail)}" if failed and failed[0].detail else ""
    error = f"\n  {escape(v.error)}" if v.error else ""
    return f"[bold red]failed[/]{device}{runtime}: stage {', '.join(escape(s.name) for s in failed)}{why}{error}"


def keras_conversion_line(k: KerasConversion) -> str:
    """A converted checkpoint's verdict (``ckpt convert --to keras``): verified or not, and its one line."""
    mark = "[bold green]verified[/]" if k.passed else "[bold red]failed[/]"
    out = f" -> {escape(k.out)}" if k.out else ""
    diff = f" (max difference {k.max_difference:.3g})" if k.max_difference is not None else ""
    return f"{mark} for {escape(k.model)}{out}{diff}\n  {escape(k.verdict)}"


def heading(out: Console, title: str) -> None:
    """A rule across a terminal; piped (no width limit), a plain line."""
    if out.is_terminal:
        out.rule(title)
    else:
        out.print(Text.from_markup(f"── {title} ──"))


def print_details(report: Report, out: Console, *, show_diffs: bool = True) -> None:
    """Everything but the summary: files, manual steps (by rule), fixes by rule, diffs (unless
    ``show_diffs`` is false: ``report`` shows them with ``--diff``, the HTML file always), checkpoints,
    validations (the stages of those that did not pass), errors."""
    report = view.visible_report(report)  # names and code from the user's files: control characters shown
    for note in report.notes:
        out.print(f"[dim]note:[/] {escape(note)}", highlight=False)
    files = [r for r in report.files if r.status in (FileStatus.CHANGED, FileStatus.ERROR) or r.findings]
    if files:
        table = Table(show_header=True, header_style="bold", title="files", title_justify="left")
        table.add_column("file", overflow="fold")
        table.add_column("status", no_wrap=True)
        for fix in Fix:
            table.add_column(str(fix), justify="right", no_wrap=True)
        for r in files:
            status = {FileStatus.CHANGED: f"[yellow]{report.changed_label}[/]", FileStatus.ERROR: "[bold red]error[/]"}.get(r.status, str(r.status))
            table.add_row(escape(r.path), status, *(str(sum(f.fix is fix for f in r.findings)) for fix in Fix))
        view.print_whole(out, table)
    manual = [f for f in report.findings if f.fix is Fix.MANUAL]
    if manual:
        heading(out, f"[bold]manual steps[/] ({len(manual)}, by rule: why once, then each place)")
        by_rule: dict[str, list] = {}
        for f in manual:
            by_rule.setdefault(f.rule, []).append(f)
        for rule_id, found in sorted(by_rule.items()):
            info = report.rules.get(rule_id)
            out.print(Text.from_markup(f"[magenta bold]{escape(rule_id)}[/] ({len(found)}) ") + Text(info.title if info else "", style="bold"),
                      soft_wrap=True)
            if info and info.why:  # its first sentences; the whole in `tfmigrate rules ID` and the HTML report
                lead, cut = info.why_lead()
                out.print(Text(f"  why: {lead}" + (f" … (tfmigrate rules {rule_id})" if cut else ""), style="dim"), soft_wrap=True)
            for f in found:
                out.print(Text("  ") + Text(f.location, style="bold") + Text(f" {f.message}"), soft_wrap=True)
    automatic = {rule: fixes[Fix.FIXED] + fixes[Fix.FIXABLE] for rule, fixes in report.by_rule().items()}
    automatic = {rule: n for rule, n in automatic.items() if n}
    if automatic:
        where = "the diffs below" if show_diffs else "the diffs: --diff, or the HTML report"
        heading(out, f"[bold]automatic fixes[/] ({sum(automatic.values())}; {where}; why: tfmigrate rules ID)")
        table = Table(show_header=True, header_style="bold", box=None)
        table.add_column("rule", no_wrap=True)
        table.add_column("n", justify="right", no_wrap=True)
        table.add_column("what", overflow="fold")
        ranked = sorted(automatic.items(), key=lambda kv: (-kv[1], kv[0]))  # the rules that fix most first
        for rule_id, n in ranked[:TOP_RULES]:
            info = report.rules.get(rule_id)
            table.add_row(escape(rule_id), str(n), escape(info.title) if info else "")
        rest = ranked[TOP_RULES:]
        if rest:
            table.add_row("...", str(sum(n for _, n in rest)), f"{len(rest)} more rules: " + ", ".join(rule_id for rule_id, _ in rest))
        view.print_whole(out, table)
    diffs = [r for r in report.files if r.diff] if show_diffs else []
    if diffs:
        heading(out, "[bold]changes[/]")
        for r in diffs:
            if out.is_terminal:
                view.print_whole(out, Syntax((r.diff or "").rstrip("\n"), "diff", theme="ansi_dark", background_color="default"))
            else:  # plain: the diff as it is, never wrapped
                out.file.write(r.diff or "")
    for c in report.checkpoints:
        heading(out, f"[bold]checkpoint[/] {escape(c.checkpoint)} vs {escape(c.model.target)}")
        if c.origin:
            out.print(Text(f"from {c.origin}", style="dim"))
        if out.is_terminal:
            out.print(Panel(Text(c.verdict), border_style="green" if c.compatible else "red"))
        else:
            out.print(Text(("compatible: " if c.compatible else "incompatible: ") + c.verdict))
        renames = c.renames
        if c.writer or renames:
            out.print(Text(f"written by {c.writer or '?'}" + (f"; {len(renames)} tensor(s) renamed by the era name map" if renames else ""), style="dim"))
        for note in c.notes[:5]:
            out.print(Text(f"- {note}"))
        if len(c.notes) > 5:
            out.print(Text(f"- ... {len(c.notes) - 5} more (see --json or --html)", style="dim"))
        rows = [p for p in c.pairs if p.concern is not Concern.OK]
        bad = sorted((p for p in rows if p.kind != "optimizer"), key=lambda p: (p.concern is not Concern.BAD, p.name))
        hidden = len(rows) - len(bad)
        if bad:
            table = Table(show_header=True, header_style="bold")
            table.add_column("variable", overflow="fold")
            table.add_column("status", overflow="fold")
            table.add_column("ckpt", no_wrap=True)
            table.add_column("model", no_wrap=True)
            for p in bad[:40]:
                table.add_row(escape(p.name), f"[{_CONCERN_STYLE[p.concern]}]{escape(p.status_text)}[/]",
                              escape(shape_text(p.checkpoint_shape)), escape(shape_text(p.model_shape)))
            if len(bad) > 40:
                table.add_row(f"... {len(bad) - 40} more", "", "", "")
            view.print_whole(out, table)
        if hidden:
            out.print(f"[dim]{hidden} optimizer slot/hyperparameter row(s) not shown (see --json or --html)[/]")
    for k in report.keras_conversions:
        heading(out, f"[bold]keras conversion[/] {escape(k.checkpoint)}")
        if k.origin:
            out.print(Text(f"from {k.origin}", style="dim"))
        out.print(keras_conversion_line(k), soft_wrap=True)
    for v in report.validations:
        if v.passed or v.outcome is Outcome.NOT_RUN:  # its one line is in the summary; its stages in --json and --html
            continue
        heading(out, f"[bold]validation[/] {escape(v.target)}")
        if v.stages:
            out.print(stages_table(v))
        out.print(verdict_line(v))
    errors = [r.error or r.path for r in report.files if r.status is FileStatus.ERROR] + report.errors
    if errors:
        heading(out, "[bold red]errors[/]")
        for error in errors:
            out.print(f"[bold red]error[/]: {escape(error)}", highlight=False, soft_wrap=True)


def print_next_steps(steps: Sequence[Step], out: Console) -> None:
    """The commands that follow, each with what it does: the last lines of the output."""
    if not steps:
        return
    heading(out, "[bold]next steps[/]")
    for step in steps:
        out.print(Text("  ") + Text(step.command, style="bold") + Text(f"   # {step.why}", style="dim"), soft_wrap=True)  # pasted whole, the comment is a comment


def print_summary(report: Report, out: Console, written: Sequence[tuple[str, str]] = (), steps: Sequence[Step] = ()) -> None:
    """The summary, each checkpoint's and validation's verdict in a line, the files written, and the
    commands that follow (``steps``)."""
    report = view.visible_report(report)
    heading(out, "[bold]summary[/]")
    out.print(summary_view(report))
    for c in report.checkpoints:
        mark = "[green]compatible[/]" if c.compatible else "[bold red]incompatible[/]"
        out.print(Text.from_markup("[bold]checkpoint[/] ") + Text(f"{c.checkpoint} vs {c.model.target}: ") + Text.from_markup(mark))
    for k in report.keras_conversions:
        out.print(f"[bold]keras conversion[/] {escape(k.checkpoint)}: " + keras_conversion_line(k).split("\n")[0])
    for v in report.validations:
        out.print(f"[bold]validate[/] {escape(v.target)}: " + verdict_line(v).split("\n")[0])
    for label, path in written:
        out.print(Text.from_markup(f"[bold]wrote[/] {label}: ") + Text(path))
    if not written:
        out.print("[dim]write it as a file: --html report.html, --markdown pr.md, --json report.json, --sarif report.sarif[/]")
    print_next_steps(steps, out)
