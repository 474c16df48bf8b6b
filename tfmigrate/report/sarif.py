"""SARIF 2.1.0 for code-scanning services: stable ruleIds, rule metadata, fingerprints."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from tfmigrate import __version__
from tfmigrate.results import FileStatus, Report

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


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
        digest = hashlib.sha256(f"{f.rule}:{where}:{f.message}".encode()).hexdigest()[:32]
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": index.get(f.rule, -1),
                "level": _LEVEL.get(f.severity, "warning"),
                "message": {"text": f.message if f.cell is None else f"cell {f.cell}: {f.message}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
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
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": r.path, "uriBaseId": "%SRCROOT%"}}}]}
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
    return json.dumps(sarif, indent=2) + "\n"
