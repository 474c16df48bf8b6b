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
from functools import lru_cache
from types import CodeType, FunctionType
from typing import Any

import libcst as cst

_FACTORY = object()  # "use the default factory", as dataclasses' own sentinel


def _member(kind: type, name: str) -> Any:
    for klass in kind.__mro__:
        if name in vars(klass):
            found = vars(klass)[name]
            return found if type(found).__name__ == "member_descriptor" else None
    return None


_TEMPLATES: dict[tuple[str, ...], CodeType] = {}  # field shape -> the code of an __init__ for it


def _template(shape: tuple[str, ...]) -> CodeType:
    """The code of an ``__init__`` for fields of these kinds ("r" required, "d" a default, "f" a
    default factory), parameters ``a0, a1...``; compiled once per shape (classes share shapes:
    one compile each would cost more than a parse saves on a small tree)."""
    found = _TEMPLATES.get(shape)
    if found is None:
        parameters = [f"a{i}" if kind == "r" else f"a{i}=None" for i, kind in enumerate(shape)]
        body = [f"    if a{i} is _FACTORY:\n        a{i} = _factory_{i}()" for i, kind in enumerate(shape) if kind == "f"]
        body += [f"    _set_{i}(self, a{i})" for i in range(len(shape))]
        namespace: dict[str, Any] = {}
        exec(f"def __init__(self, {', '.join(parameters)}):\n" + ("\n".join(body) or "    pass") + "\n", namespace)  # noqa: S102
        found = _TEMPLATES[shape] = namespace["__init__"].__code__
    return found


def _fast_init(kind: type) -> Callable[..., None] | None:
    """An ``__init__`` for a libcst node class that stores the fields as the dataclass's own does
    (same parameters, order, defaults and factories), without ``__post_init__``; None where the
    class is not the plain slotted frozen dataclass this is written for."""
    fields = dataclasses.fields(kind)
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    shape, defaults = [], []
    for i, field in enumerate(fields):
        setter = _member(kind, field.name)
        if not field.init or field.kw_only is True or setter is None or not field.name.isidentifier():
            return None
        namespace[f"_set_{i}"] = setter.__set__
        if field.default is not dataclasses.MISSING:
            shape.append("d")
            defaults.append(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            shape.append("f")
            defaults.append(_FACTORY)
            namespace[f"_factory_{i}"] = field.default_factory
        else:
            if defaults:
                return None  # a required field after a defaulted one: not a dataclass as we know it
            shape.append("r")
    code = _template(tuple(shape)).replace(co_varnames=("self", *(f.name for f in fields)))
    return FunctionType(code, namespace, "__init__", tuple(defaults) or None)


_SWAPS: list[tuple[type, Callable[..., None], Callable[..., None]]] | None = None  # (class, libcst's, ours)


def _swaps() -> list[tuple[type, Callable[..., None], Callable[..., None]]]:
    global _SWAPS
    if _SWAPS is None:
        found = []
        for kind in vars(cst).values():
            # (CSTNode in the MRO: issubclass against libcst's abstract classes is slow)
            if isinstance(kind, type) and cst.CSTNode in kind.__mro__ and "__init__" in vars(kind):
                ours = _fast_init(kind)
                if ours is not None:
                    found.append((kind, vars(kind)["__init__"], ours))
        _SWAPS = found
    return _SWAPS


def _no_validation(node: cst.CSTNode) -> None:
    pass


# Below this many bytes, libcst's own parse: putting the ~170 ``__init__`` in place and back (and
# the method caches of those classes refilled afterwards) costs ~0.25 ms, more than skipping the
# validation saves on a small module (even at ~1 kB; from 2 kB on the swap saves 15-25%).
SWAP_FROM = 1500


def parse_module(data: bytes) -> cst.Module:
    """``libcst.parse_module(data)``: the same tree, built without re-validating each node (the
    node classes' own ``__init__`` and ``CSTNode.__post_init__`` are back in place when this
    returns; a class this module has no ``__init__`` for still skips the validation). A module
    under ``SWAP_FROM`` bytes is parsed by libcst as it is (the same tree, validated)."""
    if len(data) < SWAP_FROM:
        return cst.parse_module(data)
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


@lru_cache(maxsize=32)
def parse_helpers(source: str, config: cst.PartialParserConfig) -> cst.Module:
    """``libcst.parse_module(source, config=config)``, once per text and config in a process.

    The helpers a family writes into a user's module (TFM180's HParams, TFM608's vendored contrib
    functions) are the same few hundred lines in every module that needs them, spelled for the
    module's indent and newline (the config). Their tree is parsed once and its statements are put
    into each module as they are: nodes are immutable, and a module holds them once."""
    return cst.parse_module(source, config=config)
