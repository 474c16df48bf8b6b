"""JSON: the results model as data, versioned with ``"schema"`` (README, "JSON schema").

Laid out for people and tools alike: the top level indented, one line for each file and each
finding (a run over thousands of files stays greppable, and is encoded by ``json``'s C encoder
record by record: indenting every field went through its pure-Python one, a second per 2,000
files), the rest (summary, checkpoints, validations) indented as usual.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from tfmigrate import __version__
from tfmigrate.results import SCHEMA, CheckpointComparison, Finding, Fix, KerasConversion, Report, Validation, map_text
from tfmigrate.visible import undecodable_written_out

_ONE_LINE_EACH = ("files", "findings")


def finding_data(f: Finding) -> dict[str, Any]:
    data: dict[str, Any] = {
        "rule": f.rule, "severity": f.severity, "path": f.path, "line": f.line, "col": f.col, "message": f.message,
        "fix": f.fix, "fix_safety": f.safety,
        # schema 1's two booleans, kept so that readers of schema 1 (scripts, CI checks) go on working
        "fixable": f.fix is not Fix.MANUAL, "fixed": f.fix is Fix.FIXED,
    }
    if f.cell is not None:
        data["cell"] = f.cell
    return data


def checkpoint_data(c: CheckpointComparison) -> dict[str, Any]:
    model = {"target": c.model.target, "kind": c.model.kind, "class": c.model.cls, "api": c.model.api, "model_dir": c.model.model_dir}
    data = {
        "checkpoint": c.checkpoint, "model": model, "compatible": c.compatible, "verdict": c.verdict, "writer": c.writer,
        "name_map": c.name_map, "notes": c.notes, "pairs": [asdict(p) for p in c.pairs],
    }
    if c.origin:  # where the path came from (tfmigrate report), absent where the user gave it (ckpt diff)
        data["origin"] = c.origin
    return data


def validation_data(v: Validation) -> dict[str, Any]:
    data = asdict(v)
    data["passed"] = v.passed
    return data


def keras_conversion_data(k: KerasConversion) -> dict[str, Any]:
    data = asdict(k)
    if not k.origin:
        data.pop("origin")
    return data


def data(report: Report) -> dict[str, Any]:
    """The JSON object of ``report``: schema, tool, version, mode, target, files, findings, summary, and
    checkpoints, keras_conversions, validations, errors, notes when there are any."""
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "tool": "tfmigrate",
        "version": __version__,
        "mode": report.mode,
        "target": report.target,
        "files": [{"path": r.path, "status": r.status, "error": r.error} for r in report.files],
        "findings": [finding_data(f) for f in report.findings],
        "summary": asdict(report.summary()),
    }
    if report.checkpoints:
        out["checkpoints"] = [checkpoint_data(c) for c in report.checkpoints]
    if report.keras_conversions:
        out["keras_conversions"] = [keras_conversion_data(k) for k in report.keras_conversions]
    if report.validations:
        out["validations"] = [validation_data(v) for v in report.validations]
    if report.errors:
        out["errors"] = report.errors
    if report.notes:
        out["notes"] = report.notes
    return out


def render(report: Report) -> str:
    fields = []
    # a file name that is not UTF-8 has its bytes written out (caf\xe9.py): the file is valid UTF-8
    for key, value in map_text(data(report), undecodable_written_out).items():
        if key in _ONE_LINE_EACH and value:
            # One C-encoded list, broken before each record: a record opens with its first key,
            # and `}, {"key": ` cannot occur inside a string value, whose quotes are escaped.
            first = json.dumps(next(iter(value[0])))
            records = json.dumps(value)[1:-1].replace("}, {" + first + ": ", "},\n    {" + first + ": ")
            fields.append(f"  {json.dumps(key)}: [\n    {records}\n  ]")
        else:
            fields.append(f"  {json.dumps(key)}: {_indented(value)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def _indented(value: Any) -> str:
    return json.dumps(value, indent=2).replace("\n", "\n  ")
