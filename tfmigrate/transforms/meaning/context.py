"""What the parts of this family read from its transform (the transform implements it)."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from tfmigrate.codemod.scopes import Scopes
from tfmigrate.codemod.tree import TreeIndex


class MeaningContext(Protocol):
    index: TreeIndex
    facts: set[str]  # what earlier families learned about the module (Context.facts)

    @property
    def scopes(self) -> Scopes: ...

    def qualified_name(self, node: cst.CSTNode) -> str | None: ...

    def fix(self, node: cst.CSTNode, rule_id: str, message: str) -> bool: ...

    def flag(self, node: cst.CSTNode, rule_id: str, message: str) -> bool: ...

    def line_of(self, node: cst.CSTNode) -> int: ...
