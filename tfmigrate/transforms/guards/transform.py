"""The guards family's transform: version guards simplified to the branch TF 2.15 runs (TFM140), and the
TF 0.x names with an exact TF 2.15 twin (TFM141: ``tf.concat_v2``, ``tf.nn.deconv2d``).

The decisions come from :func:`.branches.decide` (``ast``, on the module's text); this transform finds the
same statements by their first line (an expression by line and column) and replaces them. A guard is
replaced by its live branch's statements in the block that held it; the comments above the guard, on the
live branch's header line and inside it stay. A dead block this transform cannot remove (a handler that
binds ``as e``, a fallback that can only fail) stays as written: :func:`.branches.quiet_lines` keeps every
rule away from it.
"""

from __future__ import annotations

from typing import TypeVar

import libcst as cst
from libcst.metadata import PositionProvider

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.rule_ids import TFM140, TFM141
from tfmigrate.transforms.guards.branches import Decisions, TryVerdict, decide

_Block = cst.IndentedBlock | cst.SimpleStatementSuite
_Body = TypeVar("_Body", cst.Module, cst.IndentedBlock)  # what holds a body of statements and a footer
# TF 0.x names with an exact TF 2.15 twin: legacy (relative to tensorflow) -> (new, keyword renames, the
# legacy positional parameters, the new function's positional parameters they map to by name).
TWINS = {
    "concat_v2": ("concat", {}, ("values", "axis", "name"), ("values", "axis")),
    "nn.deconv2d": ("nn.conv2d_transpose", {"value": "input", "filter": "filters"},
                    ("value", "filter", "output_shape", "strides", "padding", "name"),
                    ("input", "filters", "output_shape", "strides", "padding")),
}


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _statements(block: _Block) -> list[cst.BaseStatement]:
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body, trailing_whitespace=block.trailing_whitespace)]
    return list(block.body)


def _header_lines(block: _Block) -> list[cst.EmptyLine]:
    header = block.header if isinstance(block, cst.IndentedBlock) else block.trailing_whitespace
    return [cst.EmptyLine(comment=header.comment)] if header.comment is not None else []


def _footer(block: _Block) -> list[cst.EmptyLine]:
    return [line for line in block.footer if line.comment is not None] if isinstance(block, cst.IndentedBlock) else []


class GuardTransform(FamilyTransform):
    FAMILY = "guards"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.decisions = Decisions()
        # An If/Try (the updated node) -> (the statements that replace it, comment lines for after them).
        self.spliced: dict[int, tuple[list[cst.BaseStatement], list[cst.EmptyLine]]] = {}

    def visit_Module(self, node: cst.Module) -> bool:
        self.decisions = decide(self.source or node.code)
        return True

    def planned_nodes(self) -> list[cst.CSTNode]:
        """The only nodes the hooks can change (see walk.transform): the decided guards (an ``elif``'s chain
        head), and the attributes and calls of the TF 0.x twins; the walk enters nothing else."""
        decisions, index, nodes = self.decisions, self.index, []
        for node in index.nodes(cst.If):
            if self._line(node) in decisions.ifs:
                head = node
                while isinstance(parent := index.parents.get(head), cst.If) and parent.orelse is head:
                    head = parent
                nodes.append(head)
        nodes += [n for n in index.nodes(cst.Try) if self._line(n) in decisions.tries]
        if decisions.conditionals:
            nodes += [n for n in index.nodes(cst.IfExp) if self._place(n) in decisions.conditionals]
        if decisions.getattrs:
            nodes += [n for n in index.nodes(cst.Call) if self._place(n) in decisions.getattrs]
        if "concat_v2" in self.source or "deconv2d" in self.source:
            for node in index.nodes(cst.Attribute):
                if node.attr.value in ("concat_v2", "deconv2d"):
                    parent = index.parents.get(node)
                    nodes += [node, parent] if isinstance(parent, cst.Call) else [node]
        return nodes

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _place(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.get_metadata(PositionProvider, node).start
        return start.line, start.column

    # --- if / elif / else
    def _fold(self, original: cst.If | cst.Else | None, updated: cst.If | cst.Else | None) -> cst.If | cst.Else | None:
        """An ``elif`` chain with its decided tests resolved."""
        if not isinstance(original, cst.If) or not isinstance(updated, cst.If):
            return updated
        truth = self.decisions.ifs.get(self._line(original))
        if truth is not None and self.fix(original.test, TFM140, self._if_message(original, truth)):
            if truth:
                return cst.Else(body=updated.body, leading_lines=updated.leading_lines)
            return self._fold(original.orelse, updated.orelse)
        rest = self._fold(original.orelse, updated.orelse)
        return updated if rest is updated.orelse else updated.with_changes(orelse=rest)

    def _if_message(self, node: cst.If, truth: bool) -> str:
        kept = "the branch under it" if truth else ("its else branch" if node.orelse is not None else "nothing: no else")
        return (f"version guard `{_code(node.test)}` is {truth} on TensorFlow 2.15: kept {kept}, removed the branch "
                "TensorFlow 2.15 never runs (no rule rewrites or reports dead legacy code)")

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        parent = self.index.parents.get(original)
        if isinstance(parent, cst.If) and parent.orelse is original:
            return updated  # an elif: its chain's head resolves it
        truth = self.decisions.ifs.get(self._line(original))
        if truth is None or not self.fix(original.test, TFM140, self._if_message(original, truth)):
            rest = self._fold(original.orelse, updated.orelse)
            return updated if rest is updated.orelse else updated.with_changes(orelse=rest)
        if truth:
            return self._splice(updated, updated.leading_lines, updated.body, [])
        rest = self._fold(original.orelse, updated.orelse)
        if rest is None:
            return self._splice(updated, updated.leading_lines, None, [])
        if isinstance(rest, cst.Else):
            return self._splice(updated, [*updated.leading_lines, *rest.leading_lines], rest.body, [])
        return rest.with_changes(leading_lines=[*updated.leading_lines, *rest.leading_lines])  # the elif becomes an if

    def _splice(self, node: cst.CSTNode, above: list, block: _Block | None, more: list[tuple[list, _Block]]) -> cst.CSTNode:
        """Plan ``node``'s replacement by ``block``'s statements (then each of ``more``'s, with its comment lines)."""
        statements: list[cst.BaseStatement] = []
        lines = [*above, *(_header_lines(block) if block is not None else [])]
        footer: list[cst.EmptyLine] = []
        for extra_lines, extra in [(lines, block), *more]:
            if extra is None:
                continue
            found = _statements(extra)
            if statements and extra is not block:
                extra_lines = [*extra_lines, *_header_lines(extra)]
            if footer or extra_lines:
                pending = [*footer, *extra_lines]
                if found:
                    found[0] = found[0].with_changes(leading_lines=[*pending, *found[0].leading_lines])
                    footer = []
                else:
                    footer = pending
            statements.extend(found)
            footer = [*footer, *_footer(extra)]
        if not statements:
            footer = [*lines, *footer]
        self.spliced[id(node)] = (statements, [line for line in footer if line.comment is not None])
        return node

    # --- try
    def leave_Try(self, original: cst.Try, updated: cst.Try) -> cst.Try:
        verdict: TryVerdict | None = self.decisions.tries.get(self._line(original))
        if verdict is None:
            return updated
        final = [([*updated.finalbody.leading_lines], updated.finalbody.body)] if updated.finalbody is not None else []
        if verdict.handler is not None:
            handler, live = original.handlers[verdict.handler], updated.handlers[verdict.handler]
            if handler.name is not None:
                return updated  # `except ... as e`: the body may read e; left as written (quiet)
            first = original.body.body[0] if isinstance(original.body, cst.IndentedBlock) else original.body
            message = (f"`{_code(first).strip()}` raises {verdict.raises} on TensorFlow 2.15: kept the "
                       f"`{_code(handler.type) if handler.type is not None else 'except:'}` branch it runs, removed the try "
                       "body TensorFlow 2.15 never runs (no rule rewrites or reports dead legacy code)")
            where = handler.type if handler.type is not None else handler
            if not self.fix(where, TFM140, message):
                return updated
            return self._splice(updated, [*updated.leading_lines, *live.leading_lines], live.body, final)
        if verdict.safe:
            message = ("the try body raises nothing on TensorFlow 2.15 (every name it reads exists there): kept it, "
                       "removed the except branches TensorFlow 2.15 never runs")
            if not self.fix(_statements(original.body)[0] if isinstance(original.body, cst.IndentedBlock) else original, TFM140, message):
                return updated
            more = [([*updated.orelse.leading_lines], updated.orelse.body)] if updated.orelse is not None else []
            return self._splice(updated, list(updated.leading_lines), updated.body, [*more, *final])
        return updated

    # --- blocks: the planned replacements go in
    def _spliced_body(self, body) -> tuple[list, list[cst.EmptyLine]] | None:
        if not any(id(statement) in self.spliced for statement in body):
            return None
        out: list = []
        carried: list[cst.EmptyLine] = []
        for statement in body:
            if id(statement) in self.spliced:
                statements, footer = self.spliced.pop(id(statement))
                if carried and statements:
                    statements = [statements[0].with_changes(leading_lines=[*carried, *statements[0].leading_lines]), *statements[1:]]
                    carried = []
                out.extend(statements)
                carried = [*carried, *footer]
                continue
            if carried:
                statement = statement.with_changes(leading_lines=[*carried, *statement.leading_lines])
                carried = []
            out.append(statement)
        return out, carried

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return self._spliced(updated)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return self._spliced(updated)

    def _spliced(self, updated: _Body) -> _Body:
        """``updated`` with its body spliced (:meth:`_spliced_body`), the comments carried into its footer."""
        found = self._spliced_body(updated.body)
        if found is None:
            return updated
        body, carried = found
        return updated.with_changes(body=body, footer=[*carried, *updated.footer])

    # --- expressions
    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        truth = self.decisions.conditionals.get(self._place(original))
        if truth is None or not self.fix(original.test, TFM140, (
                f"version guard `{_code(original.test)}` is {truth} on TensorFlow 2.15: kept the value it gives there")):
            return updated
        kept = updated.body if truth else updated.orelse
        if updated.lpar and not kept.lpar:
            kept = kept.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        return kept

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        place = self._place(original)
        if place in self.decisions.getattrs:
            name = self.decisions.getattrs[place]
            shown = _code(original).strip()
            if name is None:
                if self.fix(original, TFM140, f"`{shown}`: TensorFlow 2.15 lacks the name, so this is its default"):
                    value = updated.args[2].value
                    return value.with_changes(lpar=updated.lpar, rpar=updated.rpar) if updated.lpar and not value.lpar else value
                return updated
            if self.fix(original, TFM140, f"`{shown}`: TensorFlow 2.15 has the name; written as the attribute"):
                return cst.Attribute(value=updated.args[0].value, attr=cst.Name(name), lpar=updated.lpar, rpar=updated.rpar)
            return updated
        return self._twin_call(original, updated)

    # --- TFM141: TF 0.x names with an exact twin
    def _twin(self, node: cst.BaseExpression) -> str | None:
        name = self.qualified_name(node)
        if name is None or not name.startswith("tensorflow."):
            return None
        rel = name[len("tensorflow."):]
        return rel if rel in TWINS else None

    def _twin_call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        rel = self._twin(original.func) if isinstance(original.func, cst.Attribute) else None
        if rel is None:
            return updated
        new, renames, legacy_positional, new_positional = TWINS[rel]
        if any(a.star for a in original.args):
            self.flag(original, TFM141, f"tf.{rel}(*args / **kwargs): write it as tf.{new} with its keywords "
                      f"({', '.join(f'{k} -> {v}' for k, v in renames.items()) or 'the same arguments'})")
            return updated
        args = list(updated.args)
        positional = [i for i, a in enumerate(args) if a.keyword is None]
        for rank, i in enumerate(positional):
            if rank >= len(legacy_positional):
                return updated  # more arguments than the legacy function took: a TypeError there too
            legacy_name = legacy_positional[rank]
            if rank >= len(new_positional) or (rel == "concat_v2" and legacy_name == "axis"):
                # name= after the new function's positionals; concat's axis as a keyword, so that no later
                # rule reads tf.concat(values, axis) as TF 0.x's tf.concat(axis, values)
                keyword = renames.get(legacy_name, legacy_name)
                args[i] = args[i].with_changes(keyword=cst.Name(keyword), equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        for i, arg in enumerate(args):
            if arg.keyword is not None and arg.keyword.value in renames:
                args[i] = arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
        message = (f"tf.{rel} (TF 0.x) is tf.{new} in TensorFlow 2.15: the same operation and arguments"
                   + (f" ({', '.join(f'{k} -> {v}' for k, v in renames.items())})" if renames else ""))
        if not self.fix(original, TFM141, message):
            return updated
        return updated.with_changes(func=updated.func.with_changes(attr=cst.Name(new.rsplit(".", 1)[-1])), args=args)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        rel = self._twin(original)
        if rel is None:
            return updated
        parent = self.index.parents.get(original)
        if isinstance(parent, cst.Call) and parent.func is original:
            return updated  # the call's rewrite
        new = TWINS[rel][0]
        if rel == "concat_v2":
            if self.fix(original, TFM141, "tf.concat_v2 (TF 0.x) is tf.concat in TensorFlow 2.15: the same function"):
                return updated.with_changes(attr=cst.Name("concat"))
            return updated
        self.flag(original, TFM141, f"tf.{rel} (TF 0.x), not called here, is tf.{new} in TensorFlow 2.15, whose arguments "
                  f"are named input/filters and whose name= is not the 6th positional: call tf.{new} with keywords where it is called")
        return updated
