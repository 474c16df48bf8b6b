"""The terminal view (rich): findings as ``path:line:col: RULE message``, diffs, a summary table."""

from __future__ import annotations

import re

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from tfmigrate.report.model import Report

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def make_console(stderr: bool = False) -> Console:
    """Every terminal view goes through here: no emoji codes (``file.py:100:5`` is not 💯),
    no guessed highlighting; user text is passed through ``escape`` so it is never markup."""
    return Console(stderr=stderr, highlight=False, emoji=False)


def print_errors(report: Report, console: Console) -> None:
    """Files that could not be processed: one line each (always on stderr)."""
    for error in [r.error for r in report.files if r.status == "error"] + report.errors:
        console.print(f"[bold red]error[/]: {escape(error)}", highlight=False, soft_wrap=True)


_TAGS = {"fixed": ("fixed", "green"), "fixable": ("fixable", "blue"), "manual": ("manual", "magenta")}


def print_findings(report: Report, console: Console) -> None:
    """One line a finding, all rendered in one print (Text pieces: no markup to parse, nothing in
    the user's text can be taken for markup): a tree with tens of thousands of findings prints in
    a fraction of a second."""
    findings = report.findings
    plain = [f"{f.path}:{f.position}: {f.rule} {f.message} ({_tag(f)[0]})" for f in findings]
    if console.color_system is None and not any(_PLAIN_UNSAFE.search(line) for line in plain):
        # no colours (a pipe, CI, a pre-commit log): what rich would write, without rendering it
        if plain:
            console.file.write("\n".join(plain) + "\n")
            console.file.flush()
        return
    lines = [
        Text.assemble((f.path, "bold"), f":{f.position}: ", (f.rule, _STYLE.get(f.severity, "")), f" {f.message} (", _tag(f), ")")
        for f in findings
    ]
    if lines:
        console.print(Text("\n").join(lines), highlight=False, soft_wrap=True)


def _tag(f) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    return _TAGS["fixed" if f.fixed else "fixable" if f.fixable else "manual"]


# what rich would render otherwise than as written (tabs, control characters): left to rich
_PLAIN_UNSAFE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def print_diffs(report: Report, console: Console) -> None:
    for r in report.files:
        if r.diff:
            if console.is_terminal:
                console.print(Syntax(r.diff, "diff", theme="ansi_dark", background_color="default"))
            else:
                console.file.write(r.diff)


def summary_table(report: Report, title: str = "tfmigrate") -> Table:
    s = report.summary()
    table = Table(title=title, show_header=True, header_style="bold", expand=False)
    table.add_column("files", justify="right")
    table.add_column("changed" if report.mode == "write" else "to change", justify="right")
    table.add_column("errors", justify="right")
    table.add_column("findings", justify="right")
    table.add_column("fixed", justify="right")
    table.add_column("manual", justify="right")
    table.add_row(*(str(s[k]) for k in ("files", "changed", "errors", "findings", "fixed", "manual")))
    return table


def rules_table(report: Report) -> Table | None:
    counts = report.by_rule()
    if not counts:
        return None
    table = Table(show_header=True, header_style="bold", title="findings by rule")
    table.add_column("rule")
    table.add_column("count", justify="right")
    table.add_column("fixable/fixed", justify="right")
    table.add_column("manual", justify="right")
    fixable: dict[str, int] = {}
    for f in report.findings:
        fixable[f.rule] = fixable.get(f.rule, 0) + f.fixable
    for rule, count in sorted(counts.items()):
        table.add_row(rule, str(count), str(fixable.get(rule, 0)), str(count - fixable.get(rule, 0)))
    return table
