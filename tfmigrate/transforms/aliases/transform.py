"""TFM551: a module alias of a legacy TensorFlow module that nothing reads any more is removed.

Real 2016-2018 programs name contrib modules once at the top (``learn = tf.contrib.learn``,
``slim = tf.contrib.slim``) and call through the alias. The index resolves such aliases like
imports (``TreeIndex.module_aliases``), so the other families rewrite ``learn.DNNClassifier`` as
they rewrite ``tf.contrib.learn.DNNClassifier``. Once they have, the assignment itself is left
reading a module TensorFlow 2.15 does not have: the program would die on it at import time. This
family runs after the others and before the catch-all; it removes the alias statement when no
code reads the name any more and its target does not exist in TF 2.15 (an alias still in use is
left for the catch-all, TFM503, to report on its line).
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import attribute_or_keyword, dotted
from tfmigrate.rule_ids import TFM551
from tfmigrate.transforms.aliases.screen import SCREEN
from tfmigrate.transforms.aliases.unused_imports import UnusedLegacyImports


class LegacyAliases(UnusedLegacyImports, FamilyTransform):
    FAMILY = "TFM55"
    SCREEN = SCREEN

    def visit_Module(self, node: cst.Module) -> bool:
        self.doomed: dict[cst.Assign, str] = {}
        self.drop_unused_legacy_imports(node)  # TFM552
        aliases = self.index.module_aliases
        if not aliases:
            return False
        parents = self.index.parents
        read: dict[str, int] = {}  # reads of each alias, its own assignment target included
        for name in self.index.nodes(cst.Name):
            if name.value in aliases and not attribute_or_keyword(name, parents.get(name)):
                read[name.value] = read.get(name.value, 0) + 1
        statements: dict[str, cst.Assign] = {}
        for assign in self.index.nodes(cst.Assign):
            if len(assign.targets) == 1 and type(assign.targets[0].target) is cst.Name:
                local = assign.targets[0].target.value
                if local in aliases and _missing_in_tf215(aliases[local]):
                    statements[local] = assign
        # an alias read only by another alias that goes (`fc = layers.real_valued_column`) goes too
        changed = True
        while changed:
            changed = False
            for local, assign in statements.items():
                if assign not in self.doomed and read.get(local) == 1:
                    self.doomed[assign] = aliases[local]
                    head = dotted(assign.value).partition(".")[0]  # type: ignore[union-attr]
                    if head in read:
                        read[head] -= 1
                    changed = True
        return bool(self.doomed)

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.RemovalSentinel:
        if len(original.body) != 1 or original.body[0] not in self.doomed:
            return updated
        assign = original.body[0]
        local = assign.targets[0].target.value  # type: ignore[attr-defined]
        target = self.doomed[assign]
        if not self.fix(assign, TFM551, f"`{local} = ...` names {target}, which TensorFlow 2.15 does not have, "
                        f"and nothing reads `{local}` any more: the alias is removed"):
            return updated
        self.remove_imports_of(assign.value)
        return cst.RemoveFromParent()


def _missing_in_tf215(target: str) -> bool:
    """Is the dotted ``target`` a name TF 2.15 lacks (so the alias would fail at import time)?"""
    root, _, rel = target.partition(".")
    if root == "skflow":
        return True
    from tfmigrate.transforms.common.tf_names import UNKNOWN, names

    return names().status(rel) == UNKNOWN
