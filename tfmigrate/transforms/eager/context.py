"""What the eager family's parts read of the family's transform: the ``EagerContext`` protocol.

``calls``, ``helpers`` and ``rnn`` take the transform as an argument typed by this protocol (the entry
module's ``EagerTransform`` satisfies it), so none of them imports the entry back.
"""

from __future__ import annotations

from typing import Any, Protocol

import libcst as cst

from tfmigrate.codemod.imports import ImportEdits
from tfmigrate.codemod.scopes import Scopes
from tfmigrate.codemod.tree import TreeIndex


class EagerContext(Protocol):
    changed: bool
    helpers: Any  # helpers.EagerHelpers: the TF 2 helper functions this module needs written into it
    names_in_use: set[str]  # every name the module binds or reads (``fresh`` avoids them)
    imports: ImportEdits
    index: TreeIndex
    scopes: Scopes

    def _tfname(self) -> str: ...  # the module's name for tensorflow, adding the import where needed
    def _tf(self, path: str) -> cst.BaseExpression: ...  # ``tf.<path>`` under that name
    def fresh(self, base: str) -> str: ...  # a new module-level name from ``base``
    def qualified_name(self, node: cst.CSTNode) -> str | None: ...
    def is_builtin(self, node: cst.CSTNode) -> bool: ...
    def fix(self, node: cst.CSTNode, rule_id: str, message: str) -> bool: ...
    def flag(self, node: cst.CSTNode, rule_id: str, message: str) -> bool: ...
    def remove_imports_of(self, node: cst.CSTNode) -> None: ...
