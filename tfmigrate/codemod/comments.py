"""The comments between a call's arguments survive a rule that rebuilds the call (README: comments
are kept; nothing is lost).

A comment inside a call's parentheses lives in the whitespace libcst keeps around the arguments:
the comma after an argument (``a,  # note``, and the own-line comments below it, which belong to
the next argument), the whitespace after the ``(`` and after the last argument. A rule that builds
a new call from the old one's values drops those. :func:`kept` is called by the tree walk
(:func:`tfmigrate.codemod.walk.transform`) whenever a hook replaces a node: each comment of a call
in the old node that is not in the new one goes back beside its argument's value where the new
node still holds that value (the same node, else the same code), laying that call out one
argument a line if it was on one line; a comment whose argument is gone, or whose call became
something else, is handed back to go above the statement (never lost). A node without such
comments costs one walk of its expressions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.codemod.tree import child_fields, child_nodes, is_indexed, is_node

OWN_LINE = "own line"  # the comment stands on its own line before the argument
TRAILING = "trailing"  # the comment ends the argument's line
OPENING = "opening"  # after the "("
CLOSING = "closing"  # on its own line before the ")"


@dataclass
class _Note:
    """One comment of a call: where it was (``where``), the argument (its index, its values: the
    updated and the original node) and the libcst node carrying it (a line or a line's end)."""

    where: str
    index: int
    owners: tuple[cst.CSTNode, ...]
    carrier: cst.EmptyLine | cst.TrailingWhitespace
    keyword: str | None = None  # the argument's keyword, if it has one
    comment: cst.Comment = field(init=False)

    def __post_init__(self) -> None:
        self.comment = self.carrier.comment  # type: ignore[assignment]


def _after(arg: cst.Arg) -> cst.BaseParenthesizableWhitespace:
    """The whitespace that ends an argument: after its comma, else after its value."""
    return arg.comma.whitespace_after if isinstance(arg.comma, cst.Comma) else arg.whitespace_after_arg


def _notes(call: cst.Call, original: cst.Call | None) -> list[_Note]:
    """The comments in ``call``'s own whitespace (not in its arguments' values)."""
    notes: list[_Note] = []
    args = call.args
    before = call.whitespace_before_args
    if isinstance(before, cst.ParenthesizedWhitespace):
        if before.first_line.comment is not None:
            notes.append(_Note(OPENING, -1, (call,), before.first_line))
        for line in before.empty_lines:
            if line.comment is not None:
                notes.append(_Note(OWN_LINE, 0, (), line) if args else _Note(CLOSING, -1, (), line))
    for i, arg in enumerate(args):
        owners = (arg.value,)
        if original is not None and len(original.args) == len(args) and original.args[i].value is not arg.value:
            owners += (original.args[i].value,)
        spaces = [arg.whitespace_after_arg, arg.comma.whitespace_after if isinstance(arg.comma, cst.Comma) else None]
        for space in spaces:
            if not isinstance(space, cst.ParenthesizedWhitespace):
                continue
            if space.first_line.comment is not None:
                notes.append(_Note(TRAILING, i, owners, space.first_line))
            for line in space.empty_lines:
                if line.comment is not None:
                    notes.append(_Note(OWN_LINE, i + 1, (), line) if i + 1 < len(args) else _Note(CLOSING, -1, (), line))
    for note in notes:
        if note.index >= 0 and note.where in (OWN_LINE, TRAILING) and args[note.index].keyword is not None:
            note.keyword = args[note.index].keyword.value
        if note.where == OWN_LINE:  # an own-line comment belongs to the argument below it
            value = args[note.index].value
            note.owners = (value,) + ((original.args[note.index].value,) if original is not None and len(original.args) == len(args) else ())
    return notes


_BLOCKS = (cst.BaseCompoundStatement, cst.BaseSuite, cst.Module)


def _nodes_of(result: object) -> list[cst.CSTNode]:
    if type(result) is cst.FlattenSentinel:
        return list(result.nodes)
    return [] if isinstance(result, cst.RemovalSentinel) else [result]  # type: ignore[list-item]


def _expressions(node: cst.CSTNode, blocks: bool = False, skip: set[int] | None = None) -> list[cst.CSTNode]:
    """``node`` and the expressions under it, not entering indented blocks (their statements are
    replaced, and so checked, on their own) unless ``blocks``; nor the nodes in ``skip``."""
    out, stack = [], [node]
    while stack:
        item = stack.pop()
        if skip is not None and id(item) in skip:
            continue
        out.append(item)
        if not blocks and isinstance(item, (cst.BaseSuite, cst.Module)):
            continue
        stack.extend(reversed(child_nodes(item, trivia=False)))
    return out


def _notes_in(old: list[cst.CSTNode], original: cst.CSTNode, updated: cst.CSTNode) -> list:
    notes = []
    for node in old:
        if type(node) is cst.Call:
            notes += _notes(node, original if node is updated and type(original) is cst.Call else None)
    return notes


def _kept_statements(updated: cst.CSTNode, result: object) -> set[int]:
    """The statements of a module or suite that its replacement holds too, the same objects in its
    own body: what is under them is in both, so they are skipped whole on both sides."""
    body = getattr(updated, "body", None)
    new_body = getattr(result, "body", None)
    if type(result) is not type(updated) or not isinstance(body, (tuple, list)) or not isinstance(new_body, (tuple, list)):
        return set()
    return {id(s) for s in body} & {id(s) for s in new_body}


def _in_place(old: cst.CSTNode, new: object) -> set[int]:
    """The ids of the nodes (not tokens or whitespace) of ``old`` that are in ``new`` as they are,
    found by walking the two trees side by side where they differ: an identical child ends the
    walk there (its whole subtree is in ``new``); in a child list of another length (a statement
    inserted or removed) the children found in both are, and each other child is compared with the
    next other one of its type. Each id is of a node of ``new`` (how children are paired decides
    only where to look, never what is added)."""
    out: set[int] = set()
    if type(new) is not type(old):
        return out
    stack: list[tuple[object, object]] = [(old, new)]
    while stack:
        a, b = stack.pop()
        if a is b:
            if is_indexed(type(a)):
                out.add(id(a))
            continue
        if type(a) is not type(b) or not is_node(type(a)):
            continue
        for name in child_fields(a):  # type: ignore[arg-type]
            x, y = getattr(a, name), getattr(b, name)
            if type(x) in (tuple, list) and type(y) in (tuple, list):
                if len(x) == len(y):
                    stack.extend(zip(x, y))
                else:  # the items in both; the others paired in order, each with the next of its type
                    there = {id(item) for item in y}
                    here = {id(item) for item in x}
                    out.update(id(item) for item in x if id(item) in there and is_indexed(type(item)))
                    rest = [item for item in y if id(item) not in here]
                    k = 0
                    for item in x:
                        if id(item) in there:
                            continue
                        for j in range(k, len(rest)):
                            if type(rest[j]) is type(item):
                                stack.append((item, rest[j]))
                                k = j + 1
                                break
            else:
                stack.append((x, y))
    return out


def _comments_in(nodes: list[cst.CSTNode], own: bool = False) -> dict[int, tuple[int, cst.Comment]]:
    """How many times each comment (by identity) is in the nodes (``own``: in a call's own
    whitespace only, not in its arguments)."""
    found: dict[int, tuple[int, cst.Comment]] = {}
    stack = list(nodes)
    if own:
        stack = [n for call in nodes for n in (call.whitespace_before_args, *(x for a in call.args for x in (a.whitespace_after_arg, a.comma)))]
    while stack:
        item = stack.pop()
        if type(item) is cst.Comment:
            found[id(item)] = (found.get(id(item), (0,))[0] + 1, item)
        elif is_node(type(item)):
            stack.extend(child_nodes(item))
    return found


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def kept(original: cst.CSTNode, updated: cst.CSTNode, result: object) -> tuple[object, list[cst.Comment]]:
    """``result`` (what a hook made of ``updated``) with the argument comments of ``updated``'s
    calls put back where it dropped them, and the comments it could not place (for the lines above
    the statement)."""
    if isinstance(updated, _BLOCKS):  # the statements it kept as they were need no look
        # First the nodes of ``updated`` that ``result`` holds in the same place (found by walking
        # both along what differs): a hook that changed a few nodes deep in a module (a family's
        # leave_Module replacing its planned nodes) left everything else where it was, and only the
        # paths to its changes are looked at. Each of those nodes is in ``result``, and so is
        # skipped by the look below too: no note here, none there (the answer is the same).
        if not _notes_in(_expressions(updated, blocks=True, skip=_in_place(updated, result)), original, updated):
            return result, []
        # nor a look inside, first: each is in both, whole (a module's helper text). Only where that
        # finds argument comments is the look made over everything (a node of a kept statement
        # could also be in a changed one, which the full look skips): the same notes either way.
        same = _kept_statements(updated, result)
        # The nodes of ``updated`` outside the kept statements hold every note the look below can
        # find (skipping more nodes finds fewer): where they hold none, as in most rewrites, the new
        # tree need not be walked at all.
        if not _notes_in(_expressions(updated, blocks=True, skip=same), original, updated):
            return result, []
        shared = {id(n) for top in _nodes_of(result) for n in _expressions(top, blocks=True, skip=same)} | same
        notes = _notes_in(_expressions(updated, blocks=True, skip=shared), original, updated)
        if notes and same:
            shared = {id(n) for top in _nodes_of(result) for n in _expressions(top, blocks=True)}
            notes = _notes_in(_expressions(updated, blocks=True, skip=shared), original, updated)
    else:
        notes = _notes_in(_expressions(updated), original, updated)
    if not notes:
        return result, []
    new_nodes = _nodes_of(result)
    present = _comments_in(new_nodes)
    copied = {id(n.comment) for n in notes if present.get(id(n.comment), (0,))[0] > 1}
    if copied:  # a builder copied a separator, comment and all: the comment goes back to its own argument only
        new_nodes = _without(new_nodes, copied)
    # a comment copied with its code (deep_clone) is there under another identity: it is kept
    mine = {id(n.comment) for n in notes}
    others = Counter(present[key][1].value for key in present if key not in mine)
    lost = []
    for note in notes:
        if id(note.comment) in copied:
            lost.append(note)
        elif id(note.comment) not in present:
            if others[note.comment.value] > 0:
                others[note.comment.value] -= 1
            else:
                lost.append(note)
    if not lost:
        return result, []
    if copied and type(result) is cst.FlattenSentinel:
        result = cst.FlattenSentinel(new_nodes)
    elif copied:
        result = new_nodes[0]
    return _place(lost, new_nodes, result, updated)


def _without(new_nodes: list[cst.CSTNode], copied: set[int]) -> list[cst.CSTNode]:
    """The nodes with the ``copied`` comments taken out of their calls' whitespace."""
    parents: dict[int, cst.CSTNode] = {}
    plan: dict[int, list] = {}
    for top in new_nodes:
        for node in _expressions(top):
            for child in child_nodes(node, trivia=False):
                parents[id(child)] = node
            if type(node) is cst.Call and any(c in copied for c in _comments_in([node], own=True)):
                plan[id(node)] = []

    def strip(call: cst.Call, notes: list, inner: str, outer: str) -> cst.Call:
        def clean(space):
            if not isinstance(space, cst.ParenthesizedWhitespace):
                return space
            first = space.first_line
            if first.comment is not None and id(first.comment) in copied:
                first = cst.TrailingWhitespace(newline=first.newline)
            lines = [line for line in space.empty_lines if line.comment is None or id(line.comment) not in copied]
            return space.with_changes(first_line=first, empty_lines=lines)

        args = [
            a.with_changes(
                whitespace_after_arg=clean(a.whitespace_after_arg),
                comma=a.comma.with_changes(whitespace_after=clean(a.comma.whitespace_after)) if isinstance(a.comma, cst.Comma) else a.comma,
            )
            for a in call.args
        ]
        return call.with_changes(whitespace_before_args=clean(call.whitespace_before_args), args=args)

    return [_rebuild(top, plan, parents, ("", ""), fix=strip) for top in new_nodes]


def _place(lost: list[_Note], new_nodes: list[cst.CSTNode], result: object, updated: cst.CSTNode) -> tuple[object, list[cst.Comment]]:
    parents: dict[int, cst.CSTNode] = {}
    where: dict[int, cst.CSTNode] = {}
    for top in new_nodes:
        for node in _expressions(top):
            where.setdefault(id(node), node)
            for child in child_nodes(node, trivia=False):
                parents[id(child)] = node
    by_code: dict[str, cst.Arg] | None = None
    plan: dict[int, list[tuple[_Note, int]]] = {}  # id(call) -> (note, argument index)
    orphans: list[cst.Comment] = []
    calls = [n for top in new_nodes for n in _expressions(top) if type(n) is cst.Call]
    for note in lost:
        if note.where == OPENING or note.where == CLOSING:
            target = _top_call(calls, updated)
            if target is None:
                orphans.append(note.comment)
            else:
                plan.setdefault(id(target), []).append((note, -1))
            continue
        arg = next((_arg_above(where[id(o)], parents) for o in note.owners if id(o) in where), None)
        if arg is None:
            if by_code is None:
                by_code = {}
                for call in calls:
                    for a in call.args:
                        by_code.setdefault(_code(a.value), a)
            arg = next((by_code.get(_code(o)) for o in note.owners if _code(o) in by_code), None)
        if arg is None and note.keyword is not None:  # its value was rewritten: the argument of that name
            top = _top_call(calls, updated)
            arg = next((a for a in top.args if a.keyword is not None and a.keyword.value == note.keyword), None) if top else None
        call = parents.get(id(arg)) if arg is not None else None
        if call is None or type(call) is not cst.Call:
            orphans.append(note.comment)
            continue
        plan.setdefault(id(call), []).append((note, next(i for i, a in enumerate(call.args) if a is arg)))
    if not plan:
        return result, orphans
    indent = _indent(updated)
    placed = [_rebuild(top, plan, parents, indent) for top in new_nodes]
    if type(result) is cst.FlattenSentinel:
        return cst.FlattenSentinel(placed), orphans
    return placed[0], orphans


def _top_call(calls: list[cst.Call], updated: cst.CSTNode) -> cst.Call | None:
    """The call that took the place of the old call (the outermost one of the new node)."""
    return calls[0] if calls and type(updated) is cst.Call else None


def _arg_above(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> cst.Arg | None:
    while node is not None and type(node) is not cst.Arg:
        node = parents.get(id(node))
    return node


def _indent(updated: cst.CSTNode) -> tuple[str, str]:
    """The indentation (of the arguments, of the ``)``) of the first laid-out call of the old node."""
    for node in _expressions(updated):
        if type(node) is cst.Call and node.args:
            before, end = node.whitespace_before_args, _after(node.args[-1])
            if isinstance(end, cst.ParenthesizedWhitespace):
                outer = end.last_line.value
                inner = before.last_line.value if isinstance(before, cst.ParenthesizedWhitespace) else outer + "    "
                return inner, outer
    return "    ", ""


def _newline(indent: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True, last_line=cst.SimpleWhitespace(indent)
    )


def _laid_out(call: cst.Call) -> bool:
    return isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace) or any(
        isinstance(_after(a), cst.ParenthesizedWhitespace) for a in call.args
    )


def _rebuild(
    node: cst.CSTNode, plan: dict[int, list], parents: dict[int, cst.CSTNode], indent: tuple[str, str], depth: int = 0, fix=None
) -> cst.CSTNode:
    """``node`` with the planned calls given their comments; only the nodes on the way are new."""
    changes = {}
    planned_here = type(node) is cst.Call and id(node) in plan
    inner_depth = depth + (1 if planned_here or (type(node) is cst.Call and _laid_out(node)) else 0)
    for name in child_fields(node):
        value = getattr(node, name)
        if isinstance(value, (tuple, list)):
            items = [_rebuild(v, plan, parents, indent, inner_depth, fix) if is_node(type(v)) and _holds(v, plan, parents) else v for v in value]
            if any(a is not b for a, b in zip(items, value)):
                changes[name] = items
        elif is_node(type(value)) and _holds(value, plan, parents):
            new = _rebuild(value, plan, parents, indent, inner_depth, fix)
            if new is not value:
                changes[name] = new
    out = node.with_changes(**changes) if changes else node
    if planned_here:
        inner, outer = indent[0] + "    " * depth, indent[1] + "    " * depth
        out = (fix or _with_comments)(out, plan[id(node)], inner, outer)
    return out


def _holds(node: cst.CSTNode, plan: dict[int, list], parents: dict[int, cst.CSTNode]) -> bool:
    """Is a planned call ``node`` or below it?"""
    return any(_is_within(call_id, node, parents) for call_id in plan)


def _is_within(call_id: int, node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> bool:
    current = call_id
    while True:
        if current == id(node):
            return True
        parent = parents.get(current)
        if parent is None:
            return False
        current = id(parent)


def _open(space: cst.BaseParenthesizableWhitespace, indent: str) -> cst.ParenthesizedWhitespace:
    return space if isinstance(space, cst.ParenthesizedWhitespace) else _newline(indent)


def _with_comments(call: cst.Call, notes: list[tuple[_Note, int]], inner: str, outer: str) -> cst.Call:
    args = list(call.args)
    if not _laid_out(call):  # one argument a line, as the original was
        args = [_with_after(a, _newline(inner if i < len(args) - 1 else outer)) for i, a in enumerate(args)]
        call = call.with_changes(whitespace_before_args=_newline(inner if args else outer), args=args)
    elif call.whitespace_before_args is not None and not isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        inner = next((_after(a).last_line.value for a in args[:-1] if isinstance(_after(a), cst.ParenthesizedWhitespace)), inner)
    before = call.whitespace_before_args

    def set_after(i: int, space: cst.ParenthesizedWhitespace) -> None:
        args[i] = _with_after(args[i], space)

    for note, i in notes:
        if note.where == OPENING:
            space = _open(before, inner if args else outer)
            if space.first_line.comment is None:
                before = space.with_changes(first_line=note.carrier)
            else:
                before = space.with_changes(empty_lines=[_line(note, inner), *space.empty_lines])
        elif note.where == TRAILING:
            space = _open(_after(args[i]), inner if i < len(args) - 1 else outer)
            if space.first_line.comment is None:
                set_after(i, space.with_changes(first_line=note.carrier))
            else:
                set_after(i, space.with_changes(empty_lines=[_line(note, inner), *space.empty_lines]))
        elif note.where == OWN_LINE and i > 0:
            space = _open(_after(args[i - 1]), inner)
            set_after(i - 1, space.with_changes(empty_lines=[*space.empty_lines, _line(note, inner)]))
        elif note.where == OWN_LINE:
            space = _open(before, inner)
            before = space.with_changes(empty_lines=[*space.empty_lines, _line(note, inner)])
        elif args:  # CLOSING
            space = _open(_after(args[-1]), outer)
            set_after(len(args) - 1, space.with_changes(empty_lines=[*space.empty_lines, _line(note, inner)]))
        else:
            space = _open(before, outer)
            before = space.with_changes(empty_lines=[*space.empty_lines, _line(note, inner)])
    return call.with_changes(whitespace_before_args=before, args=args)


def _with_after(arg: cst.Arg, space: cst.ParenthesizedWhitespace) -> cst.Arg:
    if isinstance(arg.comma, cst.Comma):
        return arg.with_changes(comma=arg.comma.with_changes(whitespace_after=space))
    return arg.with_changes(whitespace_after_arg=space)


def _line(note: _Note, indent: str) -> cst.EmptyLine:
    if isinstance(note.carrier, cst.EmptyLine):
        return note.carrier
    return cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(indent), comment=note.comment)


def lines_for(comments: list[cst.Comment]) -> list[cst.EmptyLine]:
    """Comments a rewrite could not keep beside their argument, as lines above the statement."""
    return [cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(""), comment=c) for c in comments]
