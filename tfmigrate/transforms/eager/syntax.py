"""Small syntax helpers of the TFM4 family: argument lists and their commas, callees,
argument re-keying, and shape tests of names, methods and attribute names.
"""

from __future__ import annotations

import libcst as cst


def strip_comma(args: list[cst.Arg]) -> list[cst.Arg]:
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def with_commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """Give every argument but the last a comma (keeping existing comma whitespace)."""
    out = []
    for i, arg in enumerate(args):
        if i < len(args) - 1 and arg.comma is cst.MaybeSentinel.DEFAULT:
            arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        out.append(arg)
    return strip_comma(out)


def callee(fn: cst.BaseExpression) -> cst.BaseExpression:
    """``fn`` ready to be called: parenthesized unless it is a name, attribute, call or subscript."""
    if isinstance(fn, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or fn.lpar:
        return fn
    return fn.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def no_params(fn: cst.Lambda) -> bool:
    p = fn.params
    return not p.params and not p.kwonly_params and not isinstance(p.star_arg, cst.Param) and p.star_kwarg is None


def rekey(
    original: cst.Call,
    updated: cst.Call,
    params: tuple[str, ...],
    renames: dict[str, str],
    keep_positional: int,
    drop: tuple[str, ...] = (),
) -> list[cst.Arg]:
    """The call's arguments, the first ``keep_positional`` positional ones kept in place, the rest by
    (renamed) keyword; arguments named in ``drop`` left out. Each argument keeps its whitespace."""
    out = []
    for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
        key = orig.keyword.value if orig.keyword else params[i]
        if key in drop:
            continue
        new_key = renames.get(key, key)
        if orig.keyword is None and i < keep_positional:
            out.append(arg)
        elif orig.keyword is not None and new_key == key:
            out.append(arg)
        else:
            out.append(
                arg.with_changes(
                    keyword=cst.Name(new_key),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                )
            )
    return out


def is_name(node: cst.CSTNode | None, value: str | None = None) -> bool:
    return isinstance(node, cst.Name) and (value is None or node.value == value)


def is_method(func: cst.CSTNode, attr: str) -> bool:
    """``<anything>.attr`` (what ``m.Attribute(attr=m.Name(attr))`` matched)."""
    return isinstance(func, cst.Attribute) and func.attr.value == attr


def is_name_pair(node: cst.CSTNode) -> bool:
    """``(a, b)`` or ``[a, b]`` of two plain names."""
    return (
        isinstance(node, (cst.Tuple, cst.List))
        and len(node.elements) == 2
        and all(type(e) is cst.Element and isinstance(e.value, cst.Name) for e in node.elements)
    )


def is_attribute_name(name: cst.Name, parent: cst.CSTNode | None) -> bool:
    return isinstance(parent, cst.Attribute) and parent.attr is name


def given_args(original: cst.Call, updated: cst.Call, params: tuple[str, ...]) -> dict[str, cst.BaseExpression]:
    """The updated call's argument values by legacy parameter name (a positional one by its place)."""
    return {
        orig.keyword.value if orig.keyword else params[i]: arg.value
        for i, (orig, arg) in enumerate(zip(original.args, updated.args))
    }
