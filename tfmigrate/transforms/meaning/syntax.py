"""Small readers of call and assignment shapes, shared by the parts of this family."""

from __future__ import annotations

import libcst as cst

from tfmigrate.transforms.common.builders import code_of


def argument(call: cst.Call, position: int, keyword: str) -> cst.Arg | None:
    """The argument passed at ``position`` or as ``keyword=``, else None."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    if position < len(positional) and not any(a.star == "*" for a in call.args[: call.args.index(positional[position])]):
        return positional[position]
    return None


def positional_count(call: cst.Call) -> int:
    return sum(1 for a in call.args if a.keyword is None and not a.star)


def has_keyword(call: cst.Call, keyword: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == keyword for a in call.args)


def has_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)


def compact(node: cst.CSTNode) -> str:
    """The code of ``node`` without spaces (``2 * n`` and ``2*n`` read alike)."""
    plain = _plain_chain(node)  # a name or a dotted chain of names: its text, without generating code
    return plain if plain is not None else "".join(code_of(node).split())


def _plain_chain(node: cst.CSTNode) -> str | None:
    """``a`` or ``a.b.c`` for a Name or an Attribute chain of Names with no parentheses and nothing
    but spaces around its dots (what ``compact`` would make of its code); None for anything else."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        dot = node.dot
        if node.lpar or node.rpar or type(dot) is not cst.Dot or not _blank(dot.whitespace_before) or not _blank(dot.whitespace_after):
            return None
        parts.append(node.attr.value)  # an attribute's Name has no parentheses of its own
        node = node.value
    if type(node) is not cst.Name or node.lpar or node.rpar:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _blank(whitespace: object) -> bool:
    return type(whitespace) is cst.SimpleWhitespace and not whitespace.value.strip()


def shown(node: cst.CSTNode) -> str:
    """The code of ``node`` on one line, for a message."""
    return " ".join(code_of(node).split())


def factors(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a product ``a * b * c`` (parentheses and nesting flattened)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return factors(node.left) + factors(node.right)
    return [node]


def assigned_value(name: cst.Name, parents: dict[cst.CSTNode, cst.CSTNode]) -> cst.BaseExpression | None:
    """For the bound Name of ``name = value`` (one target, no tuple), ``value``."""
    target = parents.get(name)
    if not isinstance(target, cst.AssignTarget):
        return None
    assign = parents.get(target)
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.targets[0].target is name:
        return assign.value
    return None
