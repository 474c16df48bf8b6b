"""``libcst.parse_module``, with the parser's nodes built at less cost.

libcst's native parser builds every node by calling its class with keyword arguments, which runs
the dataclass ``__init__`` of a frozen dataclass: one ``object.__setattr__`` call per field (the
name looked up again each time) and ``__post_init__``, which validates the node. The parser's
output is valid by construction (libcst's own PERF note in ``CSTNode.__post_init__`` says as
much), so while :func:`parse_module` runs, each node class's ``__init__`` is one that stores the
same fields, with the same defaults and default factories, straight through the slot descriptors,
and validates nothing. libcst's own ``__init__`` of every class is put back before it returns
(parse error or not): nodes built anywhere else, before, after or by the rules, are libcst's own
and validated as usual. ``tests/test_fast_paths.py`` compares the trees with libcst's parse
(``deep_equals``, and the code) on every sample, catalog example and tricky source.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import libcst as cst

_FACTORY = object()  # "use the default factory", as dataclasses' own sentinel


def _member(kind: type, name: str) -> Any:
    for klass in kind.__mro__:
        if name in vars(klass):
            found = vars(klass)[name]
            return found if type(found).__name__ == "member_descriptor" else None
    return None


def _fast_init(kind: type) -> Callable[..., None] | None:
    """An ``__init__`` for a libcst node class that stores the fields as the dataclass's own does
    (same parameters, order, defaults and factories), without ``__post_init__``; None where the
    class is not the plain slotted frozen dataclass this is written for."""
    fields = dataclasses.fields(kind)
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    parameters, body = [], []
    for field in fields:
        name = field.name
        setter = _member(kind, name)
        if not field.init or field.kw_only is True or setter is None or not name.isidentifier():
            return None
        namespace[f"_set_{name}"] = setter.__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = field.default
            parameters.append(f"{name}=_default_{name}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = field.default_factory
            parameters.append(f"{name}=_FACTORY")
            body.append(f"    if {name} is _FACTORY:\n        {name} = _factory_{name}()")
        else:
            parameters.append(name)
        body.append(f"    _set_{name}(self, {name})")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - code made from libcst's own field names above
    return namespace["__init__"]


_SWAPS: list[tuple[type, Callable[..., None], Callable[..., None]]] | None = None  # (class, libcst's, ours)


def _swaps() -> list[tuple[type, Callable[..., None], Callable[..., None]]]:
    global _SWAPS
    if _SWAPS is None:
        found = []
        for kind in vars(cst).values():
            if isinstance(kind, type) and issubclass(kind, cst.CSTNode) and "__init__" in vars(kind):
                ours = _fast_init(kind)
                if ours is not None:
                    found.append((kind, vars(kind)["__init__"], ours))
        _SWAPS = found
    return _SWAPS


def _no_validation(node: cst.CSTNode) -> None:
    pass


def parse_module(data: bytes) -> cst.Module:
    """``libcst.parse_module(data)``: the same tree, built without re-validating each node (the
    node classes' own ``__init__`` and ``CSTNode.__post_init__`` are back in place when this
    returns; a class this module has no ``__init__`` for still skips the validation)."""
    swaps = _swaps()
    validate = cst.CSTNode.__post_init__
    try:
        cst.CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
        for kind, _, ours in swaps:
            kind.__init__ = ours  # type: ignore[misc]
        return cst.parse_module(data)
    finally:
        for kind, own, _ in swaps:
            kind.__init__ = own  # type: ignore[misc]
        cst.CSTNode.__post_init__ = validate  # type: ignore[method-assign]
