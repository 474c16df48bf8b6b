"""JSON: the Report model itself, versioned with ``"schema": 1``.

Laid out for people and tools alike: the top level indented, one line for each file and each
finding (a run over thousands of files stays greppable, and is encoded by ``json``'s C encoder
record by record: indenting every field went through its pure-Python one, a second per 2,000
files), the rest (summary, checkpoints, validations) indented as usual.
"""

from __future__ import annotations

import json
from typing import Any

from tfmigrate.report.model import Report

_ONE_LINE_EACH = ("files", "findings")


def render(report: Report) -> str:
    fields = []
    for key, value in report.to_dict().items():
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
