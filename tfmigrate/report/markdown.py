"""Markdown that fits a pull-request comment: summary, findings table, collapsed diffs."""

from __future__ import annotations

from tfmigrate.codemod.rule import load_catalog
from tfmigrate.report.model import Report


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


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
        out += [f"- `{r.error}`" for r in errors] + [f"- `{e}`" for e in report.errors]
        out.append("")
    if report.findings:
        out += ["### Findings", "", "| Rule | Location | Message | Fix |", "|---|---|---|---|"]
        for f in report.findings:
            fix = "fixed" if f.fixed else ("auto" if f.fixable else "manual")
            out.append(f"| `{f.rule}` | `{f.location}` | {_cell(f.message)} | {fix} |")
        out.append("")
        out += ["<details><summary>Rules</summary>", ""]
        for rule_id in sorted(report.by_rule()):
            rule = catalog.rules.get(rule_id)
            if rule:
                out.append(f"- **{rule.id}** {rule.title}: {rule.why}")
        out += ["", "</details>", ""]
    for r in report.files:
        if r.diff:
            out += [f"<details><summary><code>{r.path}</code></summary>", "", "```diff", r.diff.rstrip("\n"), "```", "", "</details>", ""]
    for ck in report.checkpoints:
        out += [f"### Checkpoint `{ck.get('checkpoint', '?')}`", "", f"**{'compatible' if ck.get('compatible') else 'incompatible'}**: {_cell(str(ck.get('verdict', '')))}", ""]
        pairs = [p for p in ck.get("pairs", []) if p.get("status") != "match"]
        if pairs:
            out += ["| Checkpoint | Model | Status | Shapes |", "|---|---|---|---|"]
            for p in pairs:
                out.append(f"| `{p.get('checkpoint_name')}` | `{p.get('model_name')}` | {p.get('status')} | {p.get('checkpoint_shape')} → {p.get('model_shape')} |")
            out.append("")
    for v in report.validations:
        out += [f"### Validation: {'passed' if v.get('passed') else 'FAILED'} on {v.get('device')}", "", "| Stage | Result | Seconds | Detail |", "|---|---|---|---|"]
        for st in v.get("stages", []):
            out.append(f"| {st.get('name')} | {'✅' if st.get('passed') else '❌'} | {st.get('seconds', 0):.2f} | {_cell(str(st.get('detail', '')))} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
