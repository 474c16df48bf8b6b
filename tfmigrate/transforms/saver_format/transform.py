"""TFM570: ``os.path.exists(P)`` (``isfile``, ``tf.gfile.Exists``) of the path a Saver saves to or restores from.

TF <= 0.11 wrote a checkpoint as one file at the save path (V1); TF 0.12 made V2 the default
(release notes 0.12.0: ``P.index`` and ``P.data-00000-of-00001``, no file ``P``), and TF 2.15 writes
V2. A legacy program that tests the path before restoring (``if os.path.exists("model.ckpt"):
saver.restore(...)``) silently trains from scratch on every run. The path is recognised by its code:
the same expression as the path argument of a ``save``/``restore`` call on a name bound to
``tf.train.Saver(...)`` in the module. ``tf.compat.v1.train.checkpoint_exists(P)`` reads both formats;
the rule reports the test rather than rewriting it, since a TF 0.12+ program with this test never
restored, and rewriting it would start restoring (the user decides which was meant).
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.rule_ids import TFM570
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.common.tf_names import tf_rel

_EXISTS = frozenset({"os.path.exists", "os.path.isfile", "genericpath.exists", "genericpath.isfile"})
_TF_EXISTS = frozenset({"gfile.Exists", "io.gfile.exists", "gfile.exists"})
_SAVER = frozenset({"train.Saver", "compat.v1.train.Saver"})


def _compact(node: cst.CSTNode) -> str:
    return "".join(code_of(node).split())


class CheckpointFormat(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM57"

    def visit_Module(self, node: cst.Module) -> bool:
        calls = [c for c in self.index.nodes(cst.Call) if isinstance(c.func, (cst.Name, cst.Attribute))]
        savers = self._saver_names(calls)
        if not savers:
            return False
        paths: set[str] = set()
        for call in calls:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("save", "restore") and _compact(func.value) in savers:
                positional = [a for a in call.args if a.keyword is None and not a.star]
                keyword = next((a for a in call.args if a.keyword is not None and a.keyword.value == "save_path"), None)
                arg = keyword or (positional[1] if len(positional) >= 2 else None)
                if arg is not None:
                    paths.add(_compact(arg.value))
        for call in calls:
            name = self.qualified_name(call.func) or ""
            rel = tf_rel(name)
            if name not in _EXISTS and (rel is None or rel.removeprefix("compat.v1.") not in _TF_EXISTS):
                continue
            if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
                continue
            path = _compact(call.args[0].value)
            if path in paths:
                shown = f"tf.{rel.removeprefix('compat.v1.')}" if rel is not None else name  # the same in every pass
                self.flag(call, TFM570, f"{shown}({path}) tests the path a Saver saves to: TF <= 0.11 wrote "
                          f"one file there (V1); since TF 0.12 (and on TF 2.15) the checkpoint is {path} + \".index\" "
                          "and \".data-*\", so this is never true and the program never restores. "
                          f"tf.compat.v1.train.checkpoint_exists({path}) tests both formats")
        return False

    def _saver_names(self, calls: list[cst.Call]) -> set[str]:
        out = set()
        parents = self.index.parents
        for call in calls:
            if (tf_rel(self.qualified_name(call.func)) or "") not in _SAVER:
                continue
            assign = parents.get(call)
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                out.add(_compact(assign.targets[0].target))
        return out
