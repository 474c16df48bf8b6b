"""Where each rule is implemented: the functions and tables of the transforms that name its id.

The transforms report a rule through its constant from :mod:`tfmigrate.rule_ids` (never a string:
tests/test_rule_ids.py), so reading their source finds every place a rule lives, at call time and
without importing them: each function or method (or module-level table) that reads the id's
constant, or a module-level name bound to it (``RULE = TFM130``). ``tfmigrate rules TFM103`` shows
the list. The source is read with :mod:`ast` on demand; nothing here is maintained by hand.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.codemod.rule import Rule

PACKAGE = Path(__file__).resolve().parent.parent  # tfmigrate/
TRANSFORMS = PACKAGE / "transforms"
REGISTRY = "tfmigrate.rule_ids"
_ID = re.compile(r"^TFM\d{3}$")


@dataclass(frozen=True, order=True)
class Site:
    """One place that reports (or tabulates) a rule: a function, a method, or a module-level name."""

    path: str  # relative to the directory holding the tfmigrate package: tfmigrate/transforms/x.py
    line: int  # of the ``def`` (or of the module-level statement)
    name: str  # EstimatorTransform._optimizer, or the module-level name (_RENAMES)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}  {self.name}"


def sites(rule_id: str) -> list[Site]:
    """Every function, method or module-level table of the transforms that names ``rule_id``."""
    return sorted(_all_sites().get(rule_id, ()))


@cache
def _all_sites() -> dict[str, frozenset[Site]]:
    found: dict[str, set[Site]] = defaultdict(set)
    for path in sorted(TRANSFORMS.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        for rule_id, line, name in _module_sites(ast.parse(path.read_text(encoding="utf-8"))):
            found[rule_id].add(Site(relative, line, name))
    return {rule_id: frozenset(places) for rule_id, places in found.items()}


def _module_sites(module: ast.Module) -> list[tuple[str, int, str]]:
    """(rule id, line, name) of each function/method or top-level statement that reads an id."""
    ids = {  # local name -> rule id, for the names imported from the registry
        alias.asname or alias.name: alias.name
        for node in module.body
        if isinstance(node, ast.ImportFrom) and node.module == REGISTRY
        for alias in node.names
        if _ID.match(alias.name)
    }
    aliases = []  # module-level aliases, RULE = TFM130: their readers are the sites
    for node in module.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in ids:
            aliases.append(node)
            for target in node.targets:
                if isinstance(target, ast.Name):
                    ids[target.id] = ids[node.value.id]
    out: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, owner: tuple[int, str] | None, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, (child.lineno, f"{prefix}{child.name}"), f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, owner, f"{prefix}{child.name}.")
            else:
                if isinstance(child, ast.Name) and child.id in ids and isinstance(child.ctx, ast.Load):
                    out.append((ids[child.id], *(owner or (0, ""))))
                visit(child, owner, prefix)

    for statement in module.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)) or statement in aliases:
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            visit(ast.Module(body=[statement], type_ignores=[]), None, "")
        else:
            visit(statement, (statement.lineno, _statement_name(statement)), "")
    return out


def _statement_name(statement: ast.stmt) -> str:
    """The name a module-level statement binds (``_RENAMES``), or its kind."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return ", ".join(names) if names else f"<module-level {type(statement).__name__.lower()}>"


FIX_SAFETY_MEANING = {
    "safe": "safe: the automatic fix keeps what the code does (a rename, the same code elsewhere, legacy values written out)",
    "unsafe": "unsafe: an automatic fix onto another implementation or shape of the code; review it",
    "none": "none: findings only, the change is manual",
}


def explain(rule: Rule) -> list[str]:
    """Plain-text lines for ``tfmigrate rules ID``: fix safety, legacy API, where the code is."""
    lines = [f"Fix safety: {FIX_SAFETY_MEANING[rule.fix_safety]}", "Legacy API:"]
    lines += [f"  {name}" for name in rule.legacy_api]
    places = sites(rule.id)
    lines.append("Implemented in:" if places else "Implemented in: (no transform names this id)")
    lines += [f"  {place}" for place in places]
    return lines
