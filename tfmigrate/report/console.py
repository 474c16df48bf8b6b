"""The terminal view (rich): findings as ``path:line:col: RULE message``, diffs, a summary table."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

if TYPE_CHECKING:
    from rich.table import Table

from tfmigrate.results import FileStatus, Fix, Report, map_text
from tfmigrate.visible import visible, visible_block

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}

def visible_data(value: Any) -> Any:
    """The strings of a value (JSON-shaped data, or part of the results model) made visible."""
    return map_text(value, visible)


def visible_report(report: Report) -> Report:
    """A copy of ``report`` for the terminal: names, messages, errors and diffs made visible (a
    diff line by line); the catalog's own text and the kept sources as they are."""
    shown = map_text(report, visible, skip=("diff", "new_text", "rules"))
    for mine, theirs in zip(shown.files, report.files):
        mine.diff = visible_block(theirs.diff) if theirs.diff else theirs.diff
    return shown


PLAIN_WIDTH = 1_000_000  # piped output: no width limit (a line is as long as its content)


def make_console(stderr: bool = False) -> Console:
    """Every terminal view goes through here: no emoji codes (``file.py:100:5`` is not 💯),
    no guessed highlighting; user text is passed through ``escape`` so it is never markup.

    On a terminal, text wraps at its width (tables fold long cells, never mid-code); piped, the
    output is plain: no colours and no width limit, so nothing is wrapped or cropped (views print
    no full-width rules or panels there)."""
    console = Console(stderr=stderr, highlight=False, emoji=False)
    if not console.is_terminal:
        console = Console(stderr=stderr, highlight=False, emoji=False, width=PLAIN_WIDTH, soft_wrap=True)
    return console


def print_whole(console: Console, renderable: Any) -> None:
    """Print a table or code at its own width when that is wider than the terminal: rich would fold
    or crop a name, a path or a line of code to fit; printed whole, the terminal wraps the long lines
    and their text stays intact (to read, copy and search)."""
    from rich.measure import Measurement

    need = Measurement.get(console, console.options.update_width(PLAIN_WIDTH), renderable).maximum
    if need <= console.width:
        console.print(renderable)
        return
    wide = Console(file=console.file, width=need, color_system=console.color_system, force_terminal=console.is_terminal,
                   highlight=False, emoji=False, soft_wrap=True)
    wide.print(renderable, crop=False)


def print_errors(report: Report, console: Console) -> None:
    """Files that could not be processed: one line each (always on stderr)."""
    for error in [r.error for r in report.files if r.status is FileStatus.ERROR] + report.errors:
        console.print(f"[bold red]error[/]: {escape(visible(error or ''))}", highlight=False, soft_wrap=True)


FIX_STYLE = {Fix.FIXED: "green", Fix.FIXABLE: "blue", Fix.MANUAL: "magenta"}


def print_findings(report: Report, console: Console) -> None:
    """One line a finding, all rendered in one print (Text pieces: no markup to parse, nothing in
    the user's text can be taken for markup): a tree with tens of thousands of findings prints in
    a fraction of a second."""
    findings = [_visible_finding(f) for f in report.findings]  # names from the user: control characters shown
    plain = [f"{f.path}:{f.position}: {f.rule} {f.message} ({f.fix})" for f in findings]
    if console.color_system is None and not any(_PLAIN_UNSAFE.search(line) for line in plain):
        # no colours (a pipe, CI, a pre-commit log): what rich would write, without rendering it
        if plain:
            console.file.write("\n".join(plain) + "\n")
            console.file.flush()
        return
    lines = [
        Text.assemble((f.path, "bold"), f":{f.position}: ", (f.rule, _STYLE.get(f.severity, "")), f" {f.message} (", (str(f.fix), FIX_STYLE[f.fix]), ")")
        for f in findings
    ]
    if lines:
        console.print(Text("\n").join(lines), highlight=False, soft_wrap=True)


# what rich would render otherwise than as written (tabs, control characters): left to rich
_PLAIN_UNSAFE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def _visible_finding(f):  # type: ignore[no-untyped-def]
    path, message = visible(f.path), visible(f.message)
    return f if (path, message) == (f.path, f.message) else replace(f, path=path, message=message)


def print_diffs(report: Report, console: Console) -> None:
    for r in visible_report(report).files:
        if r.diff:
            if console.is_terminal:
                from rich.syntax import Syntax  # pygments with it: only for a diff shown on a terminal

                print_whole(console, Syntax(r.diff, "diff", theme="ansi_dark", background_color="default"))
            else:
                console.file.write(r.diff)


def summary_table(report: Report, title: str = "tfmigrate") -> Table:
    from rich.table import Table

    s = report.summary()
    table = Table(title=title, show_header=True, header_style="bold", expand=False)
    for name in ("files", report.changed_label, "errors", "findings", *Fix):
        table.add_column(str(name), justify="right", no_wrap=True)
    table.add_row(*(str(n) for n in (s.files, s.changed, s.errors, s.findings, s.fixed, s.fixable, s.manual)))
    return table


def rules_table(report: Report) -> Table | None:
    counts = report.by_rule()
    if not counts:
        return None
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", title="findings by rule")
    table.add_column("rule", no_wrap=True)
    for name in ("count", *Fix):
        table.add_column(str(name), justify="right", no_wrap=True)
    for rule, fixes in counts.items():
        table.add_row(rule, str(sum(fixes.values())), *(str(fixes[fix]) for fix in Fix))
    return table
