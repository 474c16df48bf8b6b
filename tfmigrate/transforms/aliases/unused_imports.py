"""TFM552: an import of a TensorFlow module that TF 2.15 lacks, which the module never reads, is removed.

``from tensorflow.contrib.learn.python.learn import learn_runner`` or ``from
tensorflow.examples.tutorials.mnist import input_data`` left unused (the program stopped using it,
or the other families rewrote every use) still runs at import time: on TF 2.15 the program dies
there with ModuleNotFoundError before any of its code. Such an import goes, comments around it kept.

A name may be read where no Name node shows it (``common/read_by_name.py``: ``__all__`` and other
strings, ``globals()``/``getattr``, an ``__init__.py``), and an import in a ``try`` may be a guard:
there the import is reported instead of removed.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.imports import READ_ELSEWHERE
from tfmigrate.codemod.tree import dotted
from tfmigrate.rule_ids import TFM552
from tfmigrate.transforms.common.read_by_name import doubts, in_try

TF = "tensorflow"
SKFLOW = "skflow"


def missing_in_tf215(target: str) -> bool:
    """Does importing ``target`` (a dotted module or name under tensorflow, or skflow) fail on TF 2.15?"""
    if target == SKFLOW or target.startswith(SKFLOW + "."):
        return True  # skflow became tf.contrib.learn in TF 0.9: no TensorFlow 2 installs it
    if not target.startswith(TF + "."):
        return False
    from tfmigrate.transforms.common.tf_names import UNKNOWN, names

    return names().status(target[len(TF) + 1 :]) == UNKNOWN


class UnusedLegacyImports:
    """A mixin of the aliases family's transform (it reads ``index``, ``context``, ``fix``, ``flag``, ``imports``)."""

    def drop_unused_legacy_imports(self, module: cst.Module) -> None:
        index = self.index  # type: ignore[attr-defined]
        read = index.read_names() | READ_ELSEWHERE.get()
        candidates = []
        for binding in index.imports:
            statement, alias = binding.statement, binding.alias
            if binding.name in read or not missing_in_tf215(binding.target):
                continue
            if isinstance(statement, cst.Import) and alias.asname is None and binding.target.startswith(TF):
                continue  # `import tensorflow.contrib.x` binds `tensorflow`: the renames family's
            if isinstance(statement, cst.ImportFrom) and (statement.relative or statement.module is None):
                continue
            candidates.append(binding)
        if not candidates:
            return
        filename = getattr(self.context, "filename", "") or ""  # type: ignore[attr-defined]
        doubt = doubts(index, filename, {b.name for b in candidates})
        for binding in candidates:
            statement, alias = binding.statement, binding.alias
            reason = doubt.get(binding.name) or in_try(index, statement)
            shown = binding.target.replace(TF, "tf", 1) if binding.target.startswith(TF) else binding.target
            if reason:
                self.flag(alias, TFM552, (  # type: ignore[attr-defined]
                    f"{shown} is imported as `{binding.name}`, which no code here reads, and the import fails on "
                    f"TF 2.15 (no such module); {reason}, so it is not removed: remove it if nothing uses it"))
                continue
            message = (f"{shown} is imported but never used, and TF 2.15 has no such module (the import would stop "
                       "the program): removed")
            if not self.fix(alias, TFM552, message):  # type: ignore[attr-defined]
                continue
            asname = alias.asname.name.value if alias.asname is not None else None  # type: ignore[union-attr]
            if isinstance(statement, cst.Import):
                self.imports.remove(dotted(alias.name) or "", None, asname)  # type: ignore[attr-defined]
            else:
                self.imports.remove(dotted(statement.module) or "", dotted(alias.name), asname)  # type: ignore[attr-defined]
