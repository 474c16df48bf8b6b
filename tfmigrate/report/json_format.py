"""JSON: the Report model itself, versioned with ``"schema": 1``."""

from __future__ import annotations

import json

from tfmigrate.report.model import Report


def render(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, sort_keys=False) + "\n"
