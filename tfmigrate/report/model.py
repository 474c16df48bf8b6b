"""The one Report model every stage writes into and every renderer reads.

Data flows one way: sources -> findings + fixes (codemod) -> Report -> renderers. The checkpoint
analyser and the validation run add their results here too, as the JSON-shaped dictionaries
their own commands print (``{"schema": 1, ...}``), so each output format sees everything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from tfmigrate import __version__

SCHEMA = 1
FileStatus = Literal["changed", "unchanged", "error", "skipped"]


@dataclass
class Finding:
    rule: str
    severity: str
    path: str
    line: int
    col: int
    message: str
    fixable: bool
    fixed: bool = False
    cell: int | None = None  # in a notebook: the cell (numbered from 1, as editors show them); line is in the cell

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.col, self.rule, self.message)

    @property
    def position(self) -> str:
        """``line:col``, or ``cell N:line:col`` in a notebook."""
        return f"{self.line}:{self.col}" if self.cell is None else f"cell {self.cell}:{self.line}:{self.col}"

    @property
    def location(self) -> str:
        return f"{self.path}:{self.position}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON record: the schema's keys, and "cell" for a notebook's findings."""
        data = dict(vars(self))  # flat: no need for asdict's deep copy
        if self.cell is None:
            del data["cell"]
        return data


@dataclass
class FileResult:
    path: str
    status: FileStatus
    error: str | None = None
    findings: list[Finding] = field(default_factory=list)
    diff: str | None = None  # unified diff of the change (changed files only)


@dataclass
class Report:
    files: list[FileResult] = field(default_factory=list)
    checkpoints: list[dict[str, Any]] = field(default_factory=list)  # `tfmigrate ckpt diff` JSON objects
    validations: list[dict[str, Any]] = field(default_factory=list)  # `tfmigrate validate` JSON objects
    errors: list[str] = field(default_factory=list)  # one-line errors that belong to no file
    mode: str = "check"  # check | diff | write

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=Finding.sort_key)

    def summary(self) -> dict[str, int]:
        findings = self.findings
        fixed = sum(f.fixed for f in findings)
        return {
            "files": len(self.files),
            "changed": sum(r.status == "changed" for r in self.files),
            "errors": sum(r.status == "error" for r in self.files) + len(self.errors),
            "findings": len(findings),
            "fixed": fixed,
            "manual": sum(not f.fixable for f in findings),
        }

    def by_rule(self) -> Counter[str]:
        return Counter(f.rule for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema": SCHEMA,
            "tool": "tfmigrate",
            "version": __version__,
            "files": [{"path": r.path, "status": r.status, "error": r.error} for r in self.files],
            "findings": [f.to_dict() for f in self.findings],
            "summary": self.summary(),
        }
        if self.checkpoints:
            data["checkpoints"] = self.checkpoints
        if self.validations:
            data["validations"] = self.validations
        if self.errors:
            data["errors"] = self.errors
        return data
