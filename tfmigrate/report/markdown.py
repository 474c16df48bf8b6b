"""Markdown that fits a pull-request comment: summary, findings table, collapsed diffs."""

from __future__ import annotations

import html
import re

from tfmigrate.codemod.rule import load_catalog
from tfmigrate.report.model import Report
from tfmigrate.report.text import visible


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


def render(report: Report) -> str:
    s = report.summary()
    catalog = load_catalog()
    out = ["## tfmigrate report", ""]
    out.append(
        f"**{s['files']}** files scanned · **{s['changed']}** to change · **{s['findings']}** findings "
        f"(**{s['fixed']}** fixed, **{s['manual']}** need manual work) · **{s['errors']}** errors"
    )
    out.append("")
    errors = [r for r in report.files if r.status == "error"]
    if errors or report.errors:
        out += ["### Errors", ""]
        out += [f"- {_code(r.error or '')}" for r in errors] + [f"- {_code(e)}" for e in report.errors]
        out.append("")
    if report.findings:
        out += ["### Findings", "", "| Rule | Location | Message | Fix |", "|---|---|---|---|"]
        for f in report.findings:
            fix = "fixed" if f.fixed else ("auto" if f.fixable else "manual")
            out.append(f"| {_code(f.rule)} | {_code(f.location)} | {_cell(f.message)} | {fix} |")
        out.append("")
        out += ["<details><summary>Rules</summary>", ""]
        for rule_id in sorted(report.by_rule()):
            rule = catalog.rules.get(rule_id)
            if rule:
                out.append(f"- **{rule.id}** {rule.title}: {rule.why}")
        out += ["", "</details>", ""]
    for r in report.files:
        if r.diff:
            fence = _fence(r.diff)
            name = html.escape(visible(r.path))
            out += [f"<details><summary><code>{name}</code></summary>", "", f"{fence}diff", r.diff.rstrip("\n"), fence, "", "</details>", ""]
    for ck in report.checkpoints:
        out += [f"### Checkpoint {_code(ck.get('checkpoint', '?'))}", "", f"**{'compatible' if ck.get('compatible') else 'incompatible'}**: {_cell(str(ck.get('verdict', '')))}", ""]
        pairs = [p for p in ck.get("pairs", []) if p.get("status") != "match"]
        if pairs:
            out += ["| Checkpoint | Model | Status | Shapes |", "|---|---|---|---|"]
            for p in pairs:
                out.append(f"| {_code(p.get('checkpoint_name'))} | {_code(p.get('model_name'))} | {_cell(p.get('status'))} | {_cell(p.get('checkpoint_shape'))} → {_cell(p.get('model_shape'))} |")
            out.append("")
    for v in report.validations:
        out += [f"### Validation: {'passed' if v.get('passed') else 'FAILED'} on {_cell(v.get('device'))}", "", "| Stage | Result | Seconds | Detail |", "|---|---|---|---|"]
        for st in v.get("stages", []):
            out.append(f"| {_cell(st.get('name'))} | {'✅' if st.get('passed') else '❌'} | {st.get('seconds', 0):.2f} | {_cell(str(st.get('detail', '')))} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
