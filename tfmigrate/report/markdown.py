"""Markdown for a pull request: a comment someone reads, and the full report as an artifact.

``render`` is the comment (at most ``max_chars``, 15,000 by default): the summary, the findings by
rule (the top rules), the manual steps grouped by rule with each rule's why once, the files with
manual work, the checkpoint and validation verdicts in a line each, the next commands, and a last
line naming the full report (the file of ``report --markdown-full``, ``--html`` or ``--json``).

``render_full`` is everything (``report --markdown-full FILE``): the summary, what a reviewer must act
on (errors, manual steps, incompatible checkpoints, failed validations), then, collapsed, the
automatic fixes by rule, the diffs, every finding and the rules' explanations; cut only at its own
``max_chars`` (GitHub's 65,536 when it is posted), with a last line that says what was left out.

Both cut a section row by row where it does not fit. Everything from the user's files is escaped
(``_cell``, ``_code``, ``_fence``): it is shown, never interpreted.
"""

from __future__ import annotations

import html
import re

from collections.abc import Sequence

from tfmigrate.report.next_steps import next_steps
from tfmigrate.results import FIX_MEANING, Fix, Mode, Outcome, Report, map_text, shape_text
from tfmigrate.visible import undecodable_written_out, visible

COMMENT_LIMIT = 65_536  # characters in a GitHub pull-request comment
COMMENT_CHARS = 15_000  # the comment tfmigrate writes: what a reviewer reads
TOP_RULES = 12  # rows of the findings-by-rule table in the comment
PLACES_PER_RULE = 6  # places of one manual rule shown in the comment


def _cell(text: object) -> str:
    """Plain text in a table cell or a paragraph: Markdown punctuation backslash-escaped, HTML
    characters as entities, control characters written out, all on one line."""
    text = html.escape(visible(str(text)), quote=False)
    return re.sub(r"([\\`*_\[\]{}()#+!|~])", r"\\\1", text)


def _code(text: object) -> str:
    """An inline code span that nothing in ``text`` can close: delimited by more backticks than
    its longest run, padded where it starts or ends with one; ``|`` escaped for tables."""
    text = visible(str(text)).replace("|", "\\|")
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence(text: str) -> str:
    """A code fence longer than any backtick run in ``text`` (a source line holding ``` cannot end it)."""
    return "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)


class _Section:
    """A block of lines: a head that must be shown whole, rows that may be cut, and a tail."""

    def __init__(self, head: list[str], rows: list[str] | None = None, tail: list[str] | None = None, what: str = "") -> None:
        self.head, self.rows, self.tail, self.what = head, rows or [], tail or [], what

    def text(self, rows: int | None = None) -> str:
        kept = self.rows if rows is None else self.rows[:rows]
        return "".join(line + "\n" for line in [*self.head, *kept, *self.tail])


def summary_lines(report: Report) -> list[str]:
    s = report.summary()
    lines = [
        f"**{s.files}** files scanned · **{s.changed}** {report.changed_label} · **{s.errors}** errors",
        "",
        f"**{s.findings}** findings: " + (f"**{s.fixed}** {Fix.FIXED} · " if report.mode is Mode.WRITE or s.fixed else "")
        + f"**{s.fixable}** {Fix.FIXABLE} "
        f"({FIX_MEANING[Fix.FIXABLE]}) · **{s.manual}** {Fix.MANUAL}",
        "",
        f"target: **{_cell(report.target_label)}**",
    ]
    if s.checkpoints:
        lines += ["", f"**{s.checkpoints}** checkpoint(s) analysed: **{s.incompatible}** incompatible"]
    if s.validations:
        ran = s.validations - s.validations_not_run
        lines += ["", f"**{ran}** validation(s) run: **{s.validations_failed}** failed"
                  + (f" · **{s.validations_not_run}** could not run" if s.validations_not_run else "")]
    if s.keras_conversions:
        lines += ["", f"**{s.keras_conversions}** checkpoint(s) converted for Keras: **{s.keras_conversions_failed}** failed"]
    return lines


def sections(report: Report) -> list[_Section]:
    """The report's sections, most important first."""
    out: list[_Section] = []
    findings = report.findings
    errors = [r.error or r.path for r in report.files if r.error or r.status == "error"] + report.errors
    if errors:
        out.append(_Section(["### Errors", ""], [f"- {_code(e)}" for e in errors], [""], "errors"))
    manual = [f for f in findings if f.fix is Fix.MANUAL]
    if manual:
        out.append(_Section(
            [f"### Manual steps ({len(manual)})", "", "| Rule | Location | What to do |", "|---|---|---|"],
            [f"| {_code(f.rule)} | {_code(f.location)} | {_cell(f.message)} |" for f in manual], [""], "manual steps",
        ))
    for ck in report.checkpoints:
        verdict = "compatible" if ck.compatible else "incompatible"
        head = [f"### Checkpoint {_code(ck.checkpoint)}: {verdict}", ""] + ([f"from {_cell(ck.origin)}", ""] if ck.origin else []) + [
            f"against {_code(ck.model.target)}: {_cell(ck.verdict)}", ""]
        pairs = sorted((p for p in ck.pairs if p.status != "match"), key=lambda p: (p.concern != "bad", p.name))
        if pairs:
            head += ["| Checkpoint | Model | Status | Shapes |", "|---|---|---|---|"]
        rows = [f"| {_code(p.checkpoint_name or '-')} | {_code(p.model_name or '-')} | {_cell(p.status_text)} | "
                f"{_cell(shape_text(p.checkpoint_shape))} → {_cell(shape_text(p.model_shape))} |" for p in pairs]
        out.append(_Section(head, rows, [""], "checkpoint table rows"))
    for k in report.keras_conversions:
        out.append(_Section([f"### Keras conversion of {_code(k.checkpoint)}: {'verified' if k.passed else 'failed'}", "",
                             *([f"from {_cell(k.origin)}", ""] if k.origin else []),
                             f"for {_code(k.model)}" + (f" → {_code(k.out)}" if k.out else "")
                             + (f" (max difference {k.max_difference:.3g})" if k.max_difference is not None else "")
                             + f": {_cell(k.verdict)}", ""], what="keras conversions"))
    for v in report.validations:
        runtime = f" ({_cell(v.runtime)})" if v.runtime else ""
        head = [f"### Validation of {_code(v.target)}: {v.outcome} on {_cell(v.device_label)}{runtime}", ""]
        if v.error:
            head += [f"could not run: {_cell(v.error)}", ""]
        if v.stages:
            head += ["| Stage | Result | Seconds | Detail |", "|---|---|---|---|"]
        rows = [f"| {_cell(st.name)} | {'✅' if st.passed else '❌'} | {st.seconds:.2f} | {_cell(st.detail)} |" for st in v.stages]
        out.append(_Section(head, rows, [""], "validation stages"))
    by_rule = report.by_rule()
    automatic = {rule: fixes for rule, fixes in by_rule.items() if fixes[Fix.FIXED] + fixes[Fix.FIXABLE]}
    if automatic:
        n = sum(fixes[Fix.FIXED] + fixes[Fix.FIXABLE] for fixes in automatic.values())
        out.append(_Section(
            [f"<details><summary>Automatic fixes ({n}) by rule</summary>", "",
             f"| Rule | {Fix.FIXED} | {Fix.FIXABLE} | Title |", "|---|---|---|---|"],
            [f"| {_code(rule)} | {fixes[Fix.FIXED]} | {fixes[Fix.FIXABLE]} | {_cell(report.rules[rule].title) if rule in report.rules else ''} |"
             for rule, fixes in automatic.items()],
            ["", "</details>", ""], "rules of the fix table",
        ))
    diffs = [r for r in report.files if r.diff]
    if diffs:
        rows = []
        for r in diffs:
            fence = _fence(r.diff or "")
            name = html.escape(visible(r.path))
            rows.append("\n".join([f"<details><summary><code>{name}</code></summary>", "", f"{fence}diff", (r.diff or "").rstrip("\n"),
                                   fence, "", "</details>", ""]))
        out.append(_Section([f"### Changes ({len(diffs)} files)", ""], rows, [], "file diffs"))
    if findings:
        out.append(_Section(
            [f"<details><summary>All findings ({len(findings)})</summary>", "", "| Rule | Location | Message | Fix |", "|---|---|---|---|"],
            [f"| {_code(f.rule)} | {_code(f.location)} | {_cell(f.message)} | {f.fix} |" for f in findings],
            ["", "</details>", ""], "rows of the findings table",
        ))
        explained = [report.rules[rule] for rule in by_rule if rule in report.rules]
        if explained:
            out.append(_Section(["<details><summary>Rules</summary>", ""],
                                [f"- **{r.id}** {_cell(r.title)}: {_cell(r.why)}" for r in explained], ["", "</details>", ""], "rule explanations"))
    return out


def _fit(head: str, parts: list[_Section], max_chars: int, note: str, pointer: str, closing: str = "") -> str:
    """``head``, then each section while it fits ``max_chars`` (a section that does not fit is cut row
    by row), then ``closing`` (always). ``note`` (with ``{}`` for what was left out) ends a cut text."""
    reserve = len(note) + len(closing) + 200  # room for the closing lines is kept free throughout
    out = [head]
    used = len(head)
    left_out: dict[str, int] = {}
    for section in parts:
        whole = section.text()
        if not left_out and used + len(whole) <= max_chars - reserve:
            out.append(whole)
            used += len(whole)
            continue
        # cut: as many rows as fit beside the closing line, or nothing of this section
        fits = 0
        budget = max_chars - reserve - used
        size = len(section.text(0))
        if not left_out and size < budget:
            for row in section.rows:
                if size + len(row) + 1 > budget:
                    break
                size += len(row) + 1
                fits += 1
        if fits:
            out.append(section.text(fits))
            used += size
        left_out[section.what] = left_out.get(section.what, 0) + max(1, len(section.rows) - fits)
    out.append(closing)
    if left_out:
        out.append(note.format(", ".join(f"{n} {what}" for what, n in left_out.items())))
    text = "".join(out).rstrip("\n") + "\n"
    return text if len(text) <= max_chars else _hard_cut(text, max_chars, pointer)


def render_full(report: Report, max_chars: int = COMMENT_LIMIT, full_report: str | None = None, paths: Sequence[str] = (".",),
                validated: bool | None = None) -> str:
    """The whole report as Markdown, at most ``max_chars`` characters, ending with the next commands.
    ``full_report``: where the whole report is (the HTML file written beside it), named in the line
    that says what was cut."""
    # a file name that is not UTF-8 has its bytes written out (caf\xe9.py), in the diffs too
    report, full_report, paths = map_text((report, full_report, tuple(paths)), undecodable_written_out)
    head = "## tfmigrate report\n\n" + "".join(line + "\n" for line in summary_lines(report)) + "\n"
    pointer = (f"the full report is in {_code(full_report)}" if full_report
               else "the full report: `tfmigrate report PATH --html report.html`")
    note = f"\n**Cut to fit {max_chars:,} characters** ({{}} left out): {pointer}.\n"
    closing = "".join(line + "\n" for line in next_steps_lines(report, paths, validated))
    return _fit(head, sections(report), max_chars, note, pointer, closing)


WHY_CHARS = 400  # of a rule's why in the comment: its first sentences; the whole in `tfmigrate rules ID` and the full report


def comment_sections(report: Report) -> list[_Section]:
    """The comment's sections, most important first (``render``)."""
    out: list[_Section] = []
    findings = report.findings
    errors = [r.error or r.path for r in report.files if r.error or r.status == "error"] + report.errors
    if errors:
        out.append(_Section(["### Errors", ""], [f"- {_code(e)}" for e in errors], [""], "errors"))
    by_rule = report.by_rule()
    if by_rule:
        ranked = sorted(by_rule.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        rows = [f"| {_code(rule)} | {fixes[Fix.FIXED] + fixes[Fix.FIXABLE]} | {fixes[Fix.MANUAL]} | "
                f"{_cell(report.rules[rule].title) if rule in report.rules else ''} |" for rule, fixes in ranked[:TOP_RULES]]
        rest = ranked[TOP_RULES:]
        tail = [f"| … | {sum(f[Fix.FIXED] + f[Fix.FIXABLE] for _, f in rest)} | {sum(f[Fix.MANUAL] for _, f in rest)} | "
                f"{len(rest)} more rules (full report) |"] if rest else []
        out.append(_Section([f"### Findings by rule ({len(by_rule)} rules)", "", "| Rule | Automatic | Manual | What |", "|---|---|---|---|"],
                            rows, [*tail, ""], "rules of the findings table"))
    manual = [f for f in findings if f.fix is Fix.MANUAL]
    if manual:
        files: dict[str, list[int]] = {}
        for r in report.files:
            if any(f.fix is Fix.MANUAL for f in r.findings):
                files[r.path] = [sum(f.fix is Fix.MANUAL for f in r.findings), sum(f.fix is not Fix.MANUAL for f in r.findings)]
        out.append(_Section(["### Files with manual work", "", "| File | Manual | Automatic |", "|---|---|---|"],
                            [f"| {_code(path)} | {m} | {a} |" for path, (m, a) in sorted(files.items(), key=lambda kv: (-kv[1][0], kv[0]))],
                            [""], "file(s) with manual work"))
    verdicts = []
    for ck in report.checkpoints:
        verdicts.append(f"- checkpoint {_code(ck.checkpoint)} for {_code(ck.model.target)}: "
                        f"**{'compatible' if ck.compatible else 'incompatible'}**: {_cell(ck.verdict)}"
                        + (f" (from {_cell(ck.origin)})" if ck.origin else ""))
    for k in report.keras_conversions:
        verdicts.append(f"- Keras conversion of {_code(k.checkpoint)} for {_code(k.model)}: **{'verified' if k.passed else 'failed'}**: "
                        f"{_cell(k.verdict)}" + (f" (from {_cell(k.origin)})" if k.origin else ""))
    for v in report.validations:
        if v.outcome is Outcome.NOT_RUN:
            what = f"**could not run**: {_cell(v.error or '')}"
        elif v.passed:
            what = f"**passed** on {_cell(v.device_label)}" + (f" ({_cell(v.runtime)})" if v.runtime else "")
        else:
            failed = [st for st in v.stages if not st.passed]
            what = ("**failed** at " + ", ".join(_cell(st.name) for st in failed)
                    + (f": {_cell(failed[0].detail)}" if failed and failed[0].detail else "") + (f" {_cell(v.error)}" if v.error else ""))
        verdicts.append(f"- validation of {_code(v.target)}: {what}")
    if verdicts:
        out.append(_Section(["### Checkpoints and validation", ""], verdicts, [""], "verdict(s)"))
    if manual:
        groups: dict[str, list] = {}
        for f in manual:
            groups.setdefault(f.rule, []).append(f)
        rows = []
        for rule, found in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            info = report.rules.get(rule)
            lines = [f"**{_code(rule)}** {_cell(info.title) if info else ''} ({len(found)})", ""]
            if info and info.why:
                lead, cut = info.why_lead(WHY_CHARS)
                lines += [f"Why: {_cell(lead)}" + (f" … (the whole: {_code(f'tfmigrate rules {rule}')})" if cut else ""), ""]
            lines += ["| Location | What to do |", "|---|---|"]
            lines += [f"| {_code(f.location)} | {_cell(f.message)} |" for f in found[:PLACES_PER_RULE]]
            if len(found) > PLACES_PER_RULE:
                lines.append(f"| … | {len(found) - PLACES_PER_RULE} more places (full report) |")
            rows.append("\n".join(lines) + "\n")
        out.append(_Section([f"### Manual steps ({len(manual)})", ""], rows, [], "manual rule(s)"))
    return out


def next_steps_lines(report: Report, paths: Sequence[str], validated: bool | None) -> list[str]:
    steps = next_steps(report, paths, validated=validated)
    if not steps:
        return []
    body = "\n".join(f"{visible(s.command)}   # {visible(s.why)}" for s in steps)
    fence = _fence(body)
    return ["### Next steps", "", f"{fence}sh", body, fence, ""]


def render(report: Report, max_chars: int = COMMENT_CHARS, full_report: str | None = None, paths: Sequence[str] = (".",),
           validated: bool | None = None) -> str:
    """The pull-request comment, at most ``max_chars`` characters, ending with the next commands and
    where the full report is (``full_report``: the file written beside it)."""
    report, full_report, paths = map_text((report, full_report, tuple(paths)), undecodable_written_out)
    head = "## tfmigrate report\n\n" + "".join(line + "\n" for line in summary_lines(report)) + "\n"
    pointer = (f"the full report is in {_code(full_report)}" if full_report
               else "the full report: `tfmigrate report PATH --html report.html` (or `--markdown-full report.md`)")
    closing = "".join(line + "\n" for line in next_steps_lines(report, paths, validated)) + f"\n{pointer[0].upper()}{pointer[1:]}.\n"
    note = f"\n(cut to fit {max_chars:,} characters: {{}} left out)\n"
    return _fit(head, comment_sections(report), max_chars, note, pointer, closing)


def _hard_cut(text: str, max_chars: int, pointer: str) -> str:
    """Where even the summary does not fit (a tiny ``--max-chars``): the first characters and the pointer."""
    tail = f"\n\n**Cut**: {pointer}.\n"
    return text[: max(0, max_chars - len(tail))] + tail[: max_chars]
