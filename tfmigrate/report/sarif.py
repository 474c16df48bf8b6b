"""SARIF 2.1.0 for code-scanning services: stable ruleIds, rule metadata, fingerprints."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from urllib.parse import quote

from tfmigrate import __version__
from tfmigrate.results import FileStatus, Report, map_text
from tfmigrate.visible import undecodable_written_out

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def uri(path: str) -> str:
    """A path as an RFC 3986 relative reference (``artifactLocation.uri``): every byte but unreserved
    characters and ``/`` percent-encoded (a space, ``#``, ``?``, ``%``, ``:``); a non-ASCII name as its
    UTF-8 bytes, one that is not UTF-8 as its own bytes (``caf%E9.py``)."""
    return quote(os.fsencode(path), safe="/")


def render(report: Report) -> str:
    findings = report.findings
    rules = [
        {
            "id": rule.id,
            "name": rule.title,
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.why},
            "help": {"text": rule.why, "markdown": f"**{rule.title}**\n\n{rule.why}"},
            "defaultConfiguration": {"level": _LEVEL[rule.severity]},
            "properties": {"fix_safety": rule.fix_safety, "family": rule.family},
        }
        for rule in report.rules.values()
    ]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for f in findings:
        where = f.path if f.cell is None else f"{f.path}:cell {f.cell}"
        digest = hashlib.sha256(f"{f.rule}:{where}:{f.message}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": index.get(f.rule, -1),
                "level": _LEVEL.get(f.severity, "warning"),
                "message": {"text": f.message if f.cell is None else f"cell {f.cell}: {f.message}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": uri(f.path), "uriBaseId": "%SRCROOT%"},
                            "region": {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)},
                        }
                    }
                ],
                "partialFingerprints": {"tfmigrate/v1": digest},
                "properties": {"fix": f.fix, "fix_safety": f.safety, **({} if f.cell is None else {"cell": f.cell})},
            }
        )
    notifications = [
        {"level": "error", "message": {"text": r.error or r.path},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(r.path), "uriBaseId": "%SRCROOT%"}}}]}
        for r in report.files if r.status is FileStatus.ERROR
    ] + [{"level": "error", "message": {"text": error}} for error in report.errors]
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tfmigrate",
                        "version": __version__,
                        "informationUri": "https://tfmigrate.invalid",
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": "./"}},
                "invocations": [
                    {"executionSuccessful": not notifications, "toolExecutionNotifications": notifications}
                ],
                "results": results,
                "properties": {"target": report.target, "summary": asdict(report.summary())},
            }
        ],
    }
    # the URIs are ASCII; in the messages a file name that is not UTF-8 has its bytes written out (caf\xe9.py)
    return json.dumps(map_text(sarif, undecodable_written_out), indent=2) + "\n"
