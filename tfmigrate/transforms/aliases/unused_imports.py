"""TFM552: an import of a TensorFlow module that TF 2.15 lacks, which the module never reads, is removed.

``from tensorflow.contrib.learn.python.learn import learn_runner`` or ``from
tensorflow.examples.tutorials.mnist import input_data`` left unused (the program stopped using it,
or the other families rewrote every use) still runs at import time: on TF 2.15 the program dies
there with ModuleNotFoundError before any of its code. Such an import goes, comments around it kept.

A name may be read where no Name node shows it: listed in ``__all__``, looked up by a string
(``globals()["input_data"]``, ``getattr(module, "learn_runner")``), re-exported by an
``__init__.py``. Where the module gives such a sign (the name in any string, a call of
``globals``/``locals``/``vars``/``eval``/``exec``/``getattr``/``__import__``, an ``__init__.py``),
or the import sits in a ``try`` (a guard that may mean to fail), it is reported instead of removed.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.imports import READ_ELSEWHERE
from tfmigrate.codemod.tree import dotted
from tfmigrate.rule_ids import TFM552

_DYNAMIC = frozenset({"globals", "locals", "vars", "eval", "exec", "getattr", "__import__", "importlib"})
TF = "tensorflow"


def missing_in_tf215(target: str) -> bool:
    """Does importing ``target`` (a dotted module or name under tensorflow) fail on TF 2.15?"""
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
            if isinstance(statement, cst.Import) and alias.asname is None:
                continue  # `import tensorflow.contrib.x` binds `tensorflow`: the renames family's
            if isinstance(statement, cst.ImportFrom) and (statement.relative or statement.module is None):
                continue
            candidates.append(binding)
        if not candidates:
            return
        doubt = self._doubt(module, {b.name for b in candidates})
        for binding in candidates:
            statement, alias = binding.statement, binding.alias
            reason = doubt.get(binding.name) or self._in_try(statement)
            shown = binding.target.replace(TF, "tf", 1)
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

    def _in_try(self, statement: cst.CSTNode) -> str | None:
        parents = self.index.parents  # type: ignore[attr-defined]
        node = parents.get(statement)
        while node is not None:
            if isinstance(node, (cst.Try, cst.TryStar)):
                return "it is imported inside a try (a guard may expect it to fail)"
            node = parents.get(node)
        return None

    def _doubt(self, module: cst.Module, names: set[str]) -> dict[str, str]:
        """Names that may be read without a Name node, with the reason."""
        out: dict[str, str] = {}
        filename = getattr(self.context, "filename", "") or ""  # type: ignore[attr-defined]
        if filename.replace("\\", "/").rsplit("/", 1)[-1] == "__init__.py":
            return {n: "an __init__.py may import it to re-export it" for n in names}
        index = self.index  # type: ignore[attr-defined]
        for name in index.nodes(cst.Name):
            if name.value in _DYNAMIC and isinstance(index.parents.get(name), (cst.Call, cst.Attribute)):
                return {n: f"the module calls {name.value}(), which may read it by its name" for n in names}
        for string in index.nodes(cst.SimpleString):
            value = string.evaluated_value
            if isinstance(value, bytes):
                continue
            for n in names:
                if n in value and n not in out:
                    out[n] = f"its name appears in a string ({string.value[:40]})"
        return out
