"""Builders of new code that several rule families share (one copy each).

Reading a node as code (:func:`code_of`), writing a keyword argument (:func:`kwarg`), a call
(:func:`build_call`) and laying a long one out one argument a line (:func:`layout_call`), adding
arguments in the call's own style (:func:`append_args`), binding legacy arguments by position and
keyword (:func:`bind_args`), literal values (:func:`int_value`, :func:`str_value`, :func:`is_none`),
filling a code template's placeholder names with nodes (:class:`Substitute`), and swapping planned
nodes into a tree in one pass (:class:`ReplaceById`). The lower-level helpers
(``expression``, ``keyword_arg``, ``join_args``, ``is_docstring``, ``is_import_block``) are in
:mod:`tfmigrate.codemod.tree`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from tfmigrate.codemod.positions import code_lengths
from tfmigrate.codemod.tree import expression, without_comments


def code_of(node: cst.CSTNode) -> str:
    """The code of ``node`` on its own."""
    return cst.Module(body=[]).code_for_node(node)


def kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value`` (no spaces around ``=``)."""
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def build_call(func: str, args: list[cst.Arg]) -> cst.Call:
    """``func(a, b, ...)`` with ``", "`` between the arguments (``func`` is code: ``tf.estimator.X``)."""
    fixed = []
    for i, arg in enumerate(args):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        fixed.append(arg.with_changes(comma=comma))
    return cst.Call(func=expression(func), args=fixed)


def layout_call(
    call: cst.Call, depth: int = 1, limit: int = 100, nested: bool = True, lengths: dict[int, int] | None = None
) -> cst.Call:
    """One argument a line when the call is long (the block's own indentation is added by libcst)."""
    lengths = lengths or code_lengths(call)  # of the call and everything in it, one-line
    if lengths[id(call)] <= limit or not call.args:
        return call

    def newline(indent: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(
            first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True, last_line=cst.SimpleWhitespace(indent)
        )

    inner, outer = "    " * depth, "    " * (depth - 1)
    args = []
    for i, arg in enumerate(call.args):
        value = arg.value
        if nested and isinstance(value, cst.Call) and lengths[id(value)] + len(inner) + 12 > limit:
            value = layout_call(value, depth + 1, limit, lengths=lengths)
        last = i == len(call.args) - 1
        args.append(arg.with_changes(value=value, comma=cst.Comma(whitespace_after=newline(outer if last else inner))))
    return call.with_changes(whitespace_before_args=newline(inner), args=args)


def append_args(call: cst.Call, replaced: list[cst.Arg], extra: list[cst.Arg]) -> cst.Call:
    """``call`` with ``replaced`` args (same count as call.args) plus ``extra``, keeping the layout."""
    old = list(call.args)
    commas = [a.comma for a in old if isinstance(a.comma, cst.Comma)]
    style = commas[-1] if commas else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if commas and not isinstance(old[-1].comma, cst.Comma) and len(commas) == len(old) - 1:
        style = commas[-1]
    last_comma = old[-1].comma if old else cst.MaybeSentinel.DEFAULT
    if isinstance(last_comma, cst.Comma) and len(commas) >= 2:  # a trailing comma before ")": lay out as the others
        style = commas[-2]
    style = without_comments(style)  # the layout, not the comment of the argument it was copied from
    own = style
    end = last_comma.whitespace_after if isinstance(last_comma, cst.Comma) else old[-1].whitespace_after_arg if old else None
    if extra and isinstance(end, cst.ParenthesizedWhitespace) and end.first_line.comment is not None:
        # the last argument's comment stays on its line; the lines before ")" stay before it
        inner = style.whitespace_after.last_line if isinstance(style.whitespace_after, cst.ParenthesizedWhitespace) else None
        own = style.with_changes(whitespace_after=end.with_changes(empty_lines=[], last_line=inner or end.last_line))
        end = end.with_changes(first_line=cst.TrailingWhitespace(newline=end.first_line.newline))
        if isinstance(last_comma, cst.Comma):
            last_comma = last_comma.with_changes(whitespace_after=end)
    out = []
    for i, arg in enumerate(replaced):
        if i < len(replaced) - 1:
            out.append(arg)
        elif own is not style:
            out.append(arg.with_changes(comma=own, whitespace_after_arg=cst.SimpleWhitespace("")))
        else:
            out.append(arg.with_changes(comma=style))
    for i, arg in enumerate(extra):
        if i < len(extra) - 1:
            out.append(arg.with_changes(comma=style))
        elif own is not style and not isinstance(last_comma, cst.Comma):
            out.append(arg.with_changes(comma=last_comma, whitespace_after_arg=end))
        else:
            out.append(arg.with_changes(comma=last_comma))
    return call.with_changes(args=out)


def int_value(node: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal, else None."""
    if isinstance(node, cst.Integer):
        return int(node.value)
    return None


def str_value(node: cst.CSTNode | None) -> str | None:
    """The value of a plain (not bytes, not f-) string literal, else None."""
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def bind_args(call: cst.Call, params: tuple[str, ...]) -> tuple[dict[str, cst.BaseExpression], list[str]]:
    """Legacy arguments by name; problems (``*args``, unknown keywords, too many positionals)."""
    bound: dict[str, cst.BaseExpression] = {}
    problems: list[str] = []
    position = 0
    for arg in call.args:
        if arg.star:
            problems.append(f"{arg.star}{code_of(arg.value)}")
        elif arg.keyword is None:
            if position >= len(params):
                problems.append(f"positional argument {position + 1}")
            else:
                bound[params[position]] = arg.value
            position += 1
        elif arg.keyword.value in params:
            bound[arg.keyword.value] = arg.value
        else:
            problems.append(f"{arg.keyword.value}=")
    return bound, problems


class Substitute(cst.CSTTransformer):
    """Fills a code template: each name of ``table`` becomes its node (a copy from the second use on,
    as a node appears once in a tree). ``template.visit(Substitute({"LOSS": loss}))``."""

    def __init__(self, table: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.table = table
        self.used: set[str] = set()

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.table.get(original.value)
        if value is None:
            return updated
        if original.value in self.used:
            return value.deep_clone()
        self.used.add(original.value)
        return value


def is_none(node: cst.CSTNode | None) -> bool:
    """Is the expression the name ``None``?"""
    return isinstance(node, cst.Name) and node.value == "None"


class ReplaceById(cst.CSTTransformer):
    """Replaces nodes by the identity of the node in the tree, in one pass (``walk.transform``):
    with the node the table gives, or with what the function it gives makes of the updated node.
    Only expressions and statements are replaced: tokens and whitespace are never visited.

    ``around``: nodes of the tree of the index the walk is given (``walk.transform(tree, ..., index)``),
    at or under which every node to replace is, where it stands in ``tree`` (that tree itself, or one a
    transform made from it: a replaced node is where its original was, or under a node built anew).
    The walk then leaves alone every node of the index's tree off the paths to them, instead of
    visiting the whole module for a few replacements."""

    VISITS_TRIVIA = False

    def __init__(
        self, table: dict[int, cst.CSTNode | Callable[[cst.CSTNode], cst.CSTNode]], around: Iterable[cst.CSTNode] | None = None,
    ) -> None:
        super().__init__()
        self.table = table
        self.around = around

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[override]
        new = self.table.get(id(original))
        if new is None:
            return updated
        return new if isinstance(new, cst.CSTNode) else new(updated)


def unique(base: str, used: set[str]) -> str:
    """``base``, or ``base_1``, ``base_2``... the first not in ``used``; added to ``used``."""
    name, i = base, 1
    while name in used:
        name, i = f"{base}_{i}", i + 1
    used.add(name)
    return name
