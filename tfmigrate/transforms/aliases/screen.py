"""The aliases family's screen (codemod/screen.py). No word tells it: TFM551 needs a module alias
(``learn = tf.contrib.learn``: ``TreeIndex.module_aliases``), TFM552 an import whose target is a
module under tensorflow (not ``tensorflow`` itself, which TF 2.15 has) or skflow. Both are read from
the index's tables, without a walk."""

from __future__ import annotations

from tfmigrate.codemod.screen import Screen
from tfmigrate.codemod.tree import TreeIndex


def may_drop(index: TreeIndex) -> bool:
    """Does the module hold a module alias, or an import of a name below tensorflow (or of skflow)?"""
    return bool(index.module_aliases) or any(
        b.target.startswith(("tensorflow.", "skflow.")) or b.target == "skflow" for b in index.imports)


SCREEN = Screen([], also=may_drop)
