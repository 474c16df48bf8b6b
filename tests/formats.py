"""The counts each output format shows, read back from what it wrote (as a reader would see them).

Each reader returns the same keys: files, changed, errors, findings, fixed, fixable, manual, and,
where the report holds them, checkpoints and incompatible. Used by tests/test_formats.py (one
run in five formats) and tests/test_report.py (the `tfmigrate report` command's files).
"""

from __future__ import annotations

import html as htmllib
import json
import re
from collections import Counter

FIXES = ("fixed", "fixable", "manual")


def from_json(text: str) -> dict[str, int]:
    data = json.loads(text)
    fixes = Counter(f["fix"] for f in data["findings"])
    s = data["summary"]
    assert {k: fixes[k] for k in FIXES} == {k: s[k] for k in FIXES}, "the summary disagrees with the findings"
    assert s["findings"] == len(data["findings"]) and s["files"] == len(data["files"])
    out = {k: s[k] for k in ("files", "changed", "errors", "findings", *FIXES)}
    out["checkpoints"] = len(data.get("checkpoints", []))
    out["incompatible"] = sum(not c["compatible"] for c in data.get("checkpoints", []))
    return out


def from_sarif(text: str) -> dict[str, int]:
    run = json.loads(text)["runs"][0]
    fixes = Counter(r["properties"]["fix"] for r in run["results"])
    s = run["properties"]["summary"]
    assert {k: fixes[k] for k in FIXES} == {k: s[k] for k in FIXES} and s["findings"] == len(run["results"])
    assert s["errors"] == len(run["invocations"][0]["toolExecutionNotifications"])
    return {k: s[k] for k in ("files", "changed", "errors", "findings", *FIXES, "checkpoints", "incompatible")}


def from_markdown(text: str) -> dict[str, int]:
    files = re.search(r"\*\*(\d+)\*\* files scanned · \*\*(\d+)\*\* (?:to change|changed) · \*\*(\d+)\*\* errors", text)
    # a run that writes nothing shows no fixed count: it is 0
    fixes = re.search(r"\*\*(\d+)\*\* findings: (?:\*\*(\d+)\*\* fixed · )?\*\*(\d+)\*\* fixable \(would be fixed by rewrite\) · \*\*(\d+)\*\* manual", text)
    assert files and fixes, text[:500]
    ck = re.search(r"\*\*(\d+)\*\* checkpoint\(s\) analysed: \*\*(\d+)\*\* incompatible", text)
    out = dict(zip(("files", "changed", "errors"), map(int, files.groups())))
    out.update(zip(("findings", *FIXES), (int(n or 0) for n in fixes.groups())))
    out["checkpoints"], out["incompatible"] = map(int, ck.groups()) if ck else (0, 0)
    manual = re.search(r"### Manual steps \((\d+)\)", text)
    assert (int(manual.group(1)) if manual else 0) == out["manual"]
    return out


def from_html(text: str) -> dict[str, int]:
    cards = {htmllib.unescape(label): htmllib.unescape(num)
             for num, label in re.findall(r'<span class="num">([^<]*)</span><span class="label">([^<]*)</span>', text)}
    out = {"files": int(cards["files scanned"]), "changed": int(cards.get("files to change", cards.get("files changed", "-1"))),
           "errors": int(cards["errors"]), "findings": int(cards["findings"])}
    for fix in FIXES:
        values = [v for k, v in cards.items() if k.startswith(f"{fix}: ")]
        assert len(values) == 1 or (fix == "fixed" and not values), cards  # no "0 fixed" card on a report that never fixes
        out[fix] = int(values[0]) if values else 0
    compatible = cards.get("checkpoints compatible")
    if compatible:
        good, total = map(int, compatible.split("/"))
        out["checkpoints"], out["incompatible"] = total, total - good
    else:
        out["checkpoints"] = out["incompatible"] = 0
    badges = Counter(re.findall(r'<span class="badge (fixed|fixable|manual)" title=', text))
    assert {k: badges[k] for k in FIXES} == {k: out[k] for k in FIXES}, "the findings tables disagree with the cards"
    return out


def from_terminal(text: str) -> dict[str, int]:
    """The summary of ``tfmigrate report`` (shown first and last: both must agree)."""
    files = re.findall(r"files +(\d+) scanned, (\d+) (?:to change|changed), (\d+) error", text)
    fixes = re.findall(r"findings +(\d+): (?:(\d+) fixed, )?(\d+) fixable \(would be fixed by rewrite\), (\d+) manual", text)
    assert files and fixes and len(set(files)) == 1 and len(set(fixes)) == 1, text[:800]
    out = dict(zip(("files", "changed", "errors"), map(int, files[0])))
    out.update(zip(("findings", *FIXES), (int(n or 0) for n in fixes[0])))
    ck = re.search(r"checkpoints +(\d+) analysed, (?:(\d+) incompatible|all compatible)", text)
    out["checkpoints"], out["incompatible"] = (int(ck.group(1)), int(ck.group(2) or 0)) if ck else (0, 0)
    return out


def from_rewrite_terminal(text: str) -> dict[str, int]:
    """The summary table `tfmigrate rewrite` prints on stderr (a plain, piped table)."""
    header = next(ln for ln in text.splitlines() if "findings" in ln and "fixable" in ln and "files" in ln)
    row = text.splitlines()[text.splitlines().index(header) + 2]
    names = [c.strip() for c in re.split(r"[┃│]", header) if c.strip()]
    values = [int(c) for c in re.split(r"[┃│]", row) if c.strip()]
    got = dict(zip(names, values))
    got["changed"] = got.pop("to change", got.pop("changed", -1))
    return {k: got[k] for k in ("files", "changed", "errors", "findings", *FIXES)}
