"""TFM620-TFM624: one finding at the first import of each TF 1.x-only library a module uses.

Pretty Tensor (TFM620), TFLearn (TFM621) and the others of TFM624 (Edward, Tensor2Tensor, TensorFlow
Fold) are reported wherever they are imported: ``import prettytensor as pt``, ``from prettytensor
import wrap``, ``import prettytensor.pretty_tensor_class``, in a ``try:`` or a function. TensorLayer
(TFM622) and Sonnet (TFM623) had a second major version that runs on TF 2: their import is reported
only when the module reads a name that only the TF 1.x version had (``tl.layers.DenseLayer``,
``snt.AbstractModule``), by its full name however it was imported. The code is left as it is.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import dotted
from tfmigrate.rule_ids import TFM620, TFM621, TFM622, TFM623, TFM624
from tfmigrate.transforms.libraries.table import BY_ROOT, PRETTYTENSOR, SONNET, TENSORLAYER, TFLEARN, Library, shows_legacy_api

RULE = {PRETTYTENSOR.root: TFM620, TFLEARN.root: TFM621, TENSORLAYER.root: TFM622, SONNET.root: TFM623}


def imported_modules(node: cst.Import | cst.ImportFrom) -> list[tuple[str, list[str]]]:
    """(module, [names imported from it]) of an import statement; relative imports name none."""
    if isinstance(node, cst.Import):
        return [(dotted(alias.name) or "", []) for alias in node.names]
    if node.relative or node.module is None:
        return []
    names = [] if isinstance(node.names, cst.ImportStar) else [dotted(a.name) or "" for a in node.names]
    return [(dotted(node.module) or "", names)]


class DeadLibraries(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM62"

    def visit_Module(self, node: cst.Module) -> bool:
        imports: dict[str, list[cst.CSTNode]] = {}  # root -> its import statements
        legacy: set[str] = set()  # roots whose TF 1.x API the module shows
        for statement in (*self.index.nodes(cst.Import), *self.index.nodes(cst.ImportFrom)):
            for module, names in imported_modules(statement):
                root, _, rel = module.partition(".")
                library = BY_ROOT.get(root)
                if library is None:
                    continue
                imports.setdefault(root, []).append(statement)
                if any(shows_legacy_api(library, f"{rel}.{n}" if rel else n) for n in names) or (rel and shows_legacy_api(library, rel)):
                    legacy.add(root)
        if not imports:
            return False  # a needle in a comment or a name: no position is computed
        first = {root: min(found, key=self._start) for root, found in imports.items()}
        versioned = {root for root in first if BY_ROOT[root].legacy_names and root not in legacy}
        if versioned:
            legacy |= self._legacy_reads(versioned)
        for root, statement in sorted(first.items(), key=lambda item: self._start(item[1])):
            library = BY_ROOT[root]
            if library.legacy_names and root not in legacy:
                continue  # TensorLayer 2 / Sonnet 2 code: it runs on TF 2
            self.flag(statement, RULE.get(root, TFM624), message(library))
        return False

    def _start(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.index.positions[node].start
        return (start.line, start.column)

    def _legacy_reads(self, roots: set[str]) -> set[str]:
        """The roots among ``roots`` whose TF 1.x-only names the module reads (full names, any import form)."""
        found: set[str] = set()
        parents = self.index.parents
        aliases = self._module_aliases(roots)
        for kind in (cst.Attribute, cst.Name):
            for node in self.index.nodes(kind):
                if isinstance(parents.get(node), cst.Attribute) and parents[node].value is node:
                    continue  # the chain is read whole at its outermost attribute
                name = self.qualified_name(node)
                if not name:
                    head, dot, rest = (dotted(node) or "").partition(".")
                    if head not in aliases:
                        continue
                    name = aliases[head] + dot + rest
                root, _, rel = name.partition(".")
                parts = rel.split(".") if rel else []
                if root in roots and any(shows_legacy_api(BY_ROOT[root], ".".join(parts[:i])) for i in range(1, len(parts) + 1)):
                    found.add(root)
        return found


    def _module_aliases(self, roots: set[str]) -> dict[str, str]:
        """``layers = tl.layers`` (in any scope; the name bound by that assignment alone): name -> full dotted target.
        Only evidence of which major version the module uses, never a rewrite, so a name bound once is enough."""
        assigns = [a for a in self.index.nodes(cst.Assign) if len(a.targets) == 1 and type(a.targets[0].target) is cst.Name]
        bound: dict[str, int] = {}
        for a in assigns:
            bound[a.targets[0].target.value] = bound.get(a.targets[0].target.value, 0) + 1  # type: ignore[attr-defined]
        out: dict[str, str] = {}
        for a in assigns:
            local = a.targets[0].target.value  # type: ignore[attr-defined]
            if bound[local] != 1 or self.index.binds_by_import(local):
                continue
            target = self.qualified_name(a.value) if isinstance(a.value, (cst.Name, cst.Attribute)) else None
            if target and target.partition(".")[0] in roots:
                out[local] = target
        return out


def message(library: Library) -> str:
    return f"{library.shown}: {library.status}; replace it with {library.replacement}"
