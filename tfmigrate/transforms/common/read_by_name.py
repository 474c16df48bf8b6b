"""Can a module read an imported name without a Name node that shows it? (For the families that
remove unused imports of modules TF 2.15 lacks: TFM552, TFM601.)

A name may be read while no code writes it out: listed in ``__all__`` or another string (looked up
by ``globals()["name"]``, ``getattr(module, "name")``, ``__import__``), or re-exported by an
``__init__.py``; and an import inside a ``try`` may be a version guard meant to fail. Where the module
shows such a sign, the import is reported instead of removed.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import TreeIndex

_DYNAMIC = frozenset({"globals", "locals", "vars", "eval", "exec", "getattr", "__import__", "importlib"})


def doubts(index: TreeIndex, filename: str, names: set[str]) -> dict[str, str]:
    """For each of ``names`` the module may read without writing it out: the reason, in words."""
    if not names:
        return {}
    if filename.replace("\\", "/").rsplit("/", 1)[-1] == "__init__.py":
        return {n: "an __init__.py may import it to re-export it" for n in names}
    parents = index.parents
    for name in index.nodes(cst.Name):
        parent = parents.get(name)
        if name.value in _DYNAMIC and (type(parent) is cst.Call and parent.func is name
                                       or type(parent) is cst.Attribute and parent.value is name):
            return {n: f"the module calls {name.value}, which may read it by its name" for n in names}
    out: dict[str, str] = {}
    for string in index.nodes(cst.SimpleString):
        value = string.evaluated_value
        if not isinstance(value, str):
            continue
        for n in names:
            if n in value and n not in out:
                out[n] = f"its name appears in a string ({string.value[:40]})"
    return out


def in_try(index: TreeIndex, statement: cst.CSTNode) -> str | None:
    """The reason when ``statement`` sits in a ``try`` (a guard that may mean the import to fail)."""
    node = index.parents.get(statement)
    while node is not None:
        if isinstance(node, (cst.Try, cst.TryStar)):
            return "it is imported inside a try (a guard may expect it to fail)"
        node = index.parents.get(node)
    return None
