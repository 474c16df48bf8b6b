"""One self-contained HTML file a reviewer opens in a browser (inline CSS, no scripts, no network).

Summary cards, per-file diffs with Python syntax highlighting (pygments), findings grouped by rule
with the rule's explanation from the catalog, checkpoint tables with mismatches highlighted, and
the validation stages, and last the commands that follow (next steps). Everything that comes from the user's code or checkpoints is escaped.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from collections import defaultdict
from importlib import resources
from typing import Any

from tfmigrate import __version__
from tfmigrate.report.next_steps import next_steps
from tfmigrate.results import FIX_MEANING, Concern, FileStatus, Finding, Fix, Mode, Outcome, Report, map_text, shape_text
from tfmigrate.visible import undecodable_written_out

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
DASH = "—"  # an absent shape or name
ROW_CLASS = {Concern.BAD: "row-bad", Concern.WARN: "row-warn", Concern.OK: "row-ok"}


def e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def path(value: Any) -> str:
    """A path, a location (``dir/file.py:20:18``) or a tensor name, escaped, that a line may break
    only after a ``/``: each part between slashes is kept whole (``expect ed.py`` or ``estimator-
    v2`` cannot happen)."""
    return "/<wbr>".join(f'<span class="nw">{part}</span>' if part else "" for part in e(value).split("/"))


_TICKS = re.compile(r"`([^`\n]+)`")


def prose(value: Any) -> str:
    """Text with inline code in backticks (a message, a rule's explanation), escaped; each
    ``code`` span shown as code, never as raw backticks; a path in it may break after a ``/``."""
    return _TICKS.sub(lambda m: f"<code>{m.group(1)}</code>", e(value).replace("/", "/<wbr>"))


def _css() -> str:
    from pygments.formatters import HtmlFormatter

    own = resources.files("tfmigrate.report").joinpath("report.css").read_text(encoding="utf-8")
    return own + "\n" + HtmlFormatter(style="default").get_style_defs(".diff .tfm-c")


def _highlighter():
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    lexer = PythonLexer(stripnl=False, stripall=False, ensurenl=False)
    formatter = HtmlFormatter(nowrap=True)

    def code(text: str) -> str:
        if not text.strip():
            return e(text)
        return highlight(text, lexer, formatter).rstrip("\n")

    return code


def diff_stats(diff: str) -> tuple[int, int]:
    adds = dels = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            adds += 1
        elif line.startswith("-") and not line.startswith("---"):
            dels += 1
    return adds, dels


def render_diff(diff: str, code) -> str:
    rows = []
    old = new = 0
    for line in diff.splitlines():
        if line.startswith(("--- ", "+++ ")):
            continue
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(2))
            rows.append(f'<div class="tfm-l hunk"><span class="tfm-n"></span><span class="tfm-n"></span><span class="tfm-s"></span><span class="tfm-c">{e(line)}</span></div>')
            continue
        if line.startswith("\\"):
            rows.append(f'<div class="tfm-l hunk"><span class="tfm-n"></span><span class="tfm-n"></span><span class="tfm-s"></span><span class="tfm-c">{e(line)}</span></div>')
            continue
        sign, text = line[:1], line[1:]
        if sign == "+":
            rows.append(f'<div class="tfm-l add"><span class="tfm-n"></span><span class="tfm-n">{new}</span><span class="tfm-s">+</span><span class="tfm-c">{code(text)}</span></div>')
            new += 1
        elif sign == "-":
            rows.append(f'<div class="tfm-l del"><span class="tfm-n">{old}</span><span class="tfm-n"></span><span class="tfm-s">−</span><span class="tfm-c">{code(text)}</span></div>')
            old += 1
        else:
            rows.append(f'<div class="tfm-l ctx"><span class="tfm-n">{old}</span><span class="tfm-n">{new}</span><span class="tfm-s"></span><span class="tfm-c">{code(text)}</span></div>')
            old += 1
            new += 1
    return '<div class="diff">' + "\n".join(rows) + "</div>"


def _card(num: Any, label: str, tone: str = "") -> str:
    return f'<div class="card {tone}"><span class="num">{e(num)}</span><span class="label">{e(label)}</span></div>'


def _fix_badge(f: Finding) -> str:
    return f'<span class="badge {f.fix}" title="{e(FIX_MEANING[f.fix])}">{f.fix}</span>'


def render(report: Report, *, title: str = "tfmigrate report", subject: str = "", generated: str | None = None,
           notes: list[str] | tuple[str, ...] = (), validated: bool | None = None) -> str:
    """The self-contained page; it ends with the next commands (``next_steps`` over ``subject``, the
    path the report was made of; ``validated``: whether it was asked to validate)."""
    # a file name that is not UTF-8 has its bytes written out (caf\xe9.py): the file is valid UTF-8
    report, subject, notes = map_text((report, subject, tuple(notes)), undecodable_written_out)
    rules_info = report.rules
    code = _highlighter()
    s = report.summary()
    checkpoints = report.checkpoints
    validations = report.validations
    notes = [*report.notes, *notes]
    steps = next_steps(report, (subject or ".",), validated=validated)
    generated = generated or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out: list[str] = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}{(' — ' + e(subject)) if subject else ''}</title>",
        f"<style>\n{_css()}\n</style></head><body><main>",
        f'<header><h1>{e(title)}</h1><p class="meta">{e(subject) + " · " if subject else ""}tfmigrate {e(__version__)} · '
        f'<span class="target">target {e(report.target_label)}</span> · {e(generated)}</p></header>',
        '<nav><a href="#summary">Summary</a><a href="#changes">Changes</a><a href="#findings">Findings</a>'
        '<a href="#checkpoints">Checkpoints</a><a href="#validation">Validation</a>'
        + ('<a href="#keras-conversion">Keras conversion</a>' if report.keras_conversions else '')
        + ('<a href="#next-steps">Next steps</a>' if steps else '') + '</nav>',
    ]

    # ---------------------------------------------------------------- summary
    out.append('<section id="summary"><h2>Summary</h2><div class="cards">')
    out.append(_card(s.files, "files scanned"))
    out.append(_card(s.changed, f"files {report.changed_label}", "warn" if s.changed else "good"))
    out.append(_card(s.findings, "findings"))
    for fix, count, tone in ((Fix.FIXED, s.fixed, ""), (Fix.FIXABLE, s.fixable, "warn" if s.fixable else "good"),
                             (Fix.MANUAL, s.manual, "bad" if s.manual else "good")):
        if fix is Fix.FIXED and report.mode is not Mode.WRITE and not count:
            continue  # a report that writes nothing fixes nothing: no "0 fixed" card
        out.append(_card(count, f"{fix}: {FIX_MEANING[fix]}", tone))
    out.append(_card(s.errors, "errors", "bad" if s.errors else "good"))
    if checkpoints:
        out.append(_card(f"{s.checkpoints - s.incompatible}/{s.checkpoints}", "checkpoints compatible", "bad" if s.incompatible else "good"))
    else:
        out.append(_card("—", "no checkpoints analysed"))
    if validations:
        ran = s.validations - s.validations_not_run
        out.append(_card(f"{ran - s.validations_failed}/{ran}", "validations passed", "bad" if s.validations_failed else "good"))
        if s.validations_not_run:
            out.append(_card(s.validations_not_run, "could not be validated", "warn"))
    else:
        out.append(_card("—", "not validated: not asked for (tfmigrate report --validate)"))
    if s.keras_conversions:
        out.append(_card(f"{s.keras_conversions - s.keras_conversions_failed}/{s.keras_conversions}", "Keras conversions verified",
                         "bad" if s.keras_conversions_failed else "good"))
    out.append(_card(report.target, "target"))
    out.append("</div>")
    for note in notes:
        out.append(f'<p class="muted">{prose(note)}</p>')
    shown = [r for r in report.files if r.status is not FileStatus.SKIPPED or r.findings]
    if shown:
        out.append('<div class="scroll"><table class="files"><thead><tr><th>file</th><th>status</th><th class="num">+/−</th>'
                   '<th class="num">findings</th><th class="num">manual</th></tr></thead><tbody>')
        for i, r in enumerate(shown):
            adds, dels = diff_stats(r.diff) if r.diff else (0, 0)
            name = f'<a href="#file-{i}">{path(r.path)}</a>' if r.diff else path(r.path)
            status = report.changed_label if r.status is FileStatus.CHANGED else r.status
            out.append(
                f'<tr><td class="mono">{name}</td><td><span class="badge {e(r.status)}">{e(status)}</span></td>'
                f'<td class="num"><span class="add-n">+{adds}</span> <span class="del-n">−{dels}</span></td>'
                f'<td class="num">{len(r.findings)}</td><td class="num">{sum(f.fix is Fix.MANUAL for f in r.findings)}</td></tr>'
            )
        out.append("</tbody></table></div>")
    skipped = sum(r.status is FileStatus.SKIPPED and not r.findings for r in report.files)
    if skipped:
        out.append(f'<p class="muted">{skipped} file(s) use no legacy TensorFlow API and are not listed.</p>')
    errors = [r.error for r in report.files if r.status is FileStatus.ERROR] + list(report.errors)
    if errors:
        out.append('<h3>Errors</h3><ul class="errors">' + "".join(f'<li class="mono">{prose(x)}</li>' for x in errors) + "</ul>")
    out.append("</section>")

    # ---------------------------------------------------------------- diffs
    out.append('<section id="changes"><h2>Changes</h2>')
    changed = [(i, r) for i, r in enumerate(shown) if r.diff]
    anchors = {r.path: i for i, r in changed}
    if not changed:
        out.append('<p class="muted">Nothing to rewrite.</p>')
    for i, r in changed:
        adds, dels = diff_stats(r.diff or "")
        rules = sorted({f.rule for f in r.findings if f.automatic})
        out.append(
            f'<details class="file" id="file-{i}" open><summary><span class="mono">{path(r.path)}</span>'
            f'<span class="stat"><span class="add-n">+{adds}</span> <span class="del-n">−{dels}</span>'
            f'{" · " + e(", ".join(rules)) if rules else ""}</span></summary>'
        )
        out.append(render_diff(r.diff or "", code))
        out.append("</details>")
    out.append("</section>")

    # ---------------------------------------------------------------- findings
    out.append('<section id="findings"><h2>Findings</h2>')
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in report.findings:
        groups[f.rule].append(f)
    if not groups:
        out.append('<p class="muted">No findings.</p>')
    # manual work first: that is what a reviewer must act on
    order = sorted(groups, key=lambda rid: (all(f.automatic for f in groups[rid]), rid))
    for rid in order:
        fs = groups[rid]
        rule = rules_info.get(rid)
        manual = sum(f.fix is Fix.MANUAL for f in fs)
        head = f"{e(rid)} {e(rule.title) if rule else ''}"
        sev = rule.severity if rule else fs[0].severity
        out.append(f'<article class="rule" id="rule-{e(rid)}"><h3>{head} <span class="badge {e(sev)}">{e(sev)}</span> '
                   f'<span class="badge {"manual" if manual else "auto"}">{len(fs)} × {"manual" if manual else "auto-fix"}</span></h3>')
        if rule:
            out.append(f'<p class="why">{prose(rule.why)}</p>')
        out.append('<div class="scroll"><table class="findings"><thead><tr><th>location</th><th>message</th><th>fix</th></tr></thead><tbody>')
        for f in fs:
            where = path(f.location)
            if f.path in anchors:
                where = f'<a href="#file-{anchors[f.path]}">{where}</a>'
            out.append(f'<tr><td class="mono loc">{where}</td><td>{prose(f.message)}</td><td>{_fix_badge(f)}</td></tr>')
        out.append("</tbody></table></div></article>")
    out.append("</section>")

    # ---------------------------------------------------------------- checkpoints
    out.append('<section id="checkpoints"><h2>Checkpoints</h2>')
    if not checkpoints:
        out.append('<p class="muted">No checkpoint analysed (no estimator model_dir holds one; use --checkpoint DIR).</p>')
    for ck in checkpoints:
        label = "compatible" if ck.compatible else "incompatible"
        out.append(f'<h3><span class="mono">{path(ck.checkpoint)}</span> '
                   f'<span class="badge {label}">{label}</span></h3>')
        facts = [f'against <span class="mono">{path(ck.model.target)}</span>']
        if ck.origin:
            facts.append(f"from {prose(ck.origin)}")
        if ck.writer:
            facts.append(f'written by <span class="mono">{path(ck.writer)}</span>')
        out.append(f'<p class="muted">{" · ".join(facts)}</p>')
        out.append(f'<p class="verdict {"ok" if ck.compatible else "bad"}">{prose(ck.verdict)}</p>')
        renames = ck.renames
        if renames:
            out.append('<details class="file"><summary>name map: ' + e(len(renames)) + ' tensor(s) renamed</summary>'
                       '<div class="scroll"><table><thead><tr><th>in the checkpoint</th><th>in the model</th></tr></thead><tbody>'
                       + "".join(f'<tr><td class="mono">{path(k)}</td><td class="mono">{path(v)}</td></tr>' for k, v in sorted(renames.items()))
                       + "</tbody></table></div></details>")
        if ck.notes:
            out.append('<ul class="notes">' + "".join(f"<li>{prose(n)}</li>" for n in ck.notes) + "</ul>")
        if ck.pairs:
            order = {Concern.BAD: 0, Concern.WARN: 1, Concern.OK: 2}
            out.append('<div class="scroll"><table class="ckpt"><thead><tr><th>checkpoint variable</th><th>model variable</th><th>status</th>'
                       '<th>checkpoint shape</th><th>model shape</th></tr></thead><tbody>')
            for p in sorted(ck.pairs, key=lambda p: order[p.concern]):
                out.append(
                    f'<tr class="{ROW_CLASS[p.concern]}"><td class="mono">{path(p.checkpoint_name or "—")}</td>'
                    f'<td class="mono">{path(p.model_name or "—")}</td><td class="status">{e(p.status_text)}</td>'
                    f'<td class="mono">{e(shape_text(p.checkpoint_shape, DASH))}</td><td class="mono">{e(shape_text(p.model_shape, DASH))}</td></tr>'
                )
            out.append("</tbody></table></div>")
    out.append("</section>")

    # ---------------------------------------------------------------- validation
    out.append('<section id="validation"><h2>Validation</h2>')
    if not validations:
        out.append('<p class="muted">Not validated: run <code>tfmigrate report PATH --validate</code> or <code>tfmigrate validate TARGET</code>.</p>')
    badge = {Outcome.PASSED: "passed", Outcome.FAILED: "failed", Outcome.NOT_RUN: "warning"}
    for v in validations:
        out.append(f'<h3><span class="mono">{path(v.target)}</span> <span class="badge {badge[v.outcome]}">{e(v.outcome)}</span></h3>')
        if v.stages:
            facts = [f"device {v.device_label}", f"{v.steps} steps"] + ([v.runtime] if v.runtime else [])
            if v.steps_per_second:
                facts.append(f"{v.steps_per_second} steps/s")
            if v.seconds is not None:
                facts.append(f"{v.seconds} s in all")
            out.append(f'<p class="muted">{e(" · ".join(facts))}</p>')
        if v.error:
            out.append(f'<p class="verdict {"warn" if v.outcome is Outcome.NOT_RUN else "bad"}">could not run: {prose(v.error)}</p>')
        if v.stages:
            out.append('<div class="scroll"><table class="stages"><thead><tr><th>stage</th><th>result</th><th class="num">seconds</th><th>detail</th></tr></thead><tbody>')
            for st in v.stages:
                out.append(
                    f'<tr class="{"row-ok" if st.passed else "row-bad"}"><td>{e(st.name)}</td>'
                    f'<td class="status"><span class="badge {"passed" if st.passed else "failed"}">{"passed" if st.passed else "FAILED"}</span></td>'
                    f'<td class="num">{st.seconds:.2f}</td><td>{prose(st.detail)}</td></tr>'
                )
            out.append("</tbody></table></div>")
    out.append("</section>")
    if report.keras_conversions:
        out.append('<section id="keras-conversion"><h2>Keras conversion</h2>')
        for k in report.keras_conversions:
            out.append(f'<h3><span class="mono">{path(k.checkpoint)}</span> <span class="badge {"passed" if k.passed else "failed"}">'
                       f'{"verified" if k.passed else "failed"}</span></h3>')
            facts = [f"for {k.model}"] + ([f"from {k.origin}"] if k.origin else []) + ([f"written to {k.out}"] if k.out else []) + (
                [f"max difference {k.max_difference:.3g}"] if k.max_difference is not None else [])
            out.append(f'<p class="muted">{e(" · ".join(facts))}</p>')
            out.append(f'<p class="verdict {"ok" if k.passed else "bad"}">{prose(k.verdict)}</p>')
            for note in k.notes:
                out.append(f'<p class="muted">{prose(note)}</p>')
        out.append("</section>")
    if steps:  # the commands that follow, last
        out.append('<section id="next-steps"><h2>Next steps</h2><table class="steps"><tbody>')
        for step in steps:
            out.append(f'<tr><td><code>{e(step.command)}</code></td><td>{prose(step.why)}</td></tr>')  # copied whole
        out.append("</tbody></table></section>")
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"
