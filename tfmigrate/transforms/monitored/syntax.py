"""Small syntax questions the TFM3 family asks of a tree: an argument of a call, the names a module
binds to tensorflow, the names a piece of code reads (NameUse), one-assignment and one-call
statements, receiver.method(...) calls.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.codemod.walk import walk
from tfmigrate.transforms.common.builders import code_of


def kwarg(call: cst.Call, name: str, position: int | None = None) -> cst.Arg | None:
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
        if arg.keyword is None and arg.star == "" and position is not None and i == position:
            return arg
    return None


def tensorflow_aliases(module: cst.Module) -> tuple[str | None, str | None]:
    """The names module-level imports bind to ``tensorflow`` and to ``tensorflow.compat.v1``."""
    alias = compat = None
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for name in small.names:
                    dotted = code_of(name.name)
                    if dotted == "tensorflow":
                        alias = name.asname.name.value if name.asname else "tensorflow"
                    elif dotted == "tensorflow.compat.v1" and name.asname:
                        compat = name.asname.name.value
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not isinstance(small.names, cst.ImportStar):
                if code_of(small.module) == "tensorflow.compat":
                    for name in small.names:
                        if code_of(name.name) == "v1":
                            compat = name.asname.name.value if name.asname else "v1"
    return alias, compat


class NameUse(cst.CSTVisitor):
    """Names read and bound in some code (syntactic and conservative: every Name that is not a
    binding, an attribute or a keyword counts as a read, nested functions included)."""

    VISITS_TRIVIA = False  # on_visit only prunes excluded subtrees; no hook looks at tokens

    def __init__(self, exclude: Iterable[cst.CSTNode] = (), index: TreeIndex | None = None) -> None:
        self._index = index  # of the tree the code is in, if any: children are read from it
        self.reads: set[str] = set()
        self.binds: set[str] = set()
        self.escapes = False  # return/yield/global/nonlocal/break/continue outside a nested def
        self._exclude = {id(n) for n in exclude}
        self._depth = 0  # nested def/lambda depth

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._exclude:
            return False
        return super().on_visit(node)

    def _bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.binds.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)
        else:
            walk(target, self, self._index)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._bind_target(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self._bind_target(node.target)
        if isinstance(node.target, cst.Name):
            self.reads.add(node.target.value)
        walk(node.value, self, self._index)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._bind_target(node.target)
        if node.value is not None:
            walk(node.value, self, self._index)
        return False

    def visit_For(self, node: cst.For) -> bool:
        self._bind_target(node.target)
        walk(node.iter, self, self._index)
        walk(node.body, self, self._index)
        if node.orelse:
            walk(node.orelse, self, self._index)
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        walk(node.iter, self, self._index)
        for cond in node.ifs:
            walk(cond, self, self._index)
        if node.inner_for_in:
            walk(node.inner_for_in, self, self._index)
        return False

    def visit_AsName(self, node: cst.AsName) -> bool:
        self._bind_target(node.name)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk(node.value, self, self._index)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(node.value, self, self._index)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            walk(node.default, self, self._index)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.binds.add(node.name.value)
        for deco in node.decorators:
            walk(deco, self, self._index)
        walk(node.params, self, self._index)
        self._depth += 1
        walk(node.body, self, self._index)
        self._depth -= 1
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._depth += 1
        walk(node.body, self, self._index)
        self._depth -= 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.binds.add(node.name.value)
        for base in node.bases:
            walk(base, self, self._index)
        walk(node.body, self, self._index)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.binds.add(alias.asname.name.value if alias.asname else code_of(alias.name).split(".")[0])
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self.binds.add(alias.asname.name.value if alias.asname else code_of(alias.name))
        return False

    def _escape(self, node: cst.CSTNode) -> bool:
        if self._depth == 0:
            self.escapes = True
        return True

    visit_Return = _escape
    visit_Yield = _escape
    visit_Await = _escape
    visit_Global = _escape
    visit_Nonlocal = _escape

    def visit_Break(self, node: cst.Break) -> bool:
        return self._escape(node)

    def visit_Continue(self, node: cst.Continue) -> bool:
        return self._escape(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.reads.add(node.value)


def uses(nodes: Iterable[cst.CSTNode], exclude: Iterable[cst.CSTNode] = (), index: TreeIndex | None = None) -> NameUse:
    visitor = NameUse(exclude, index)
    for node in nodes:
        walk(node, visitor, index)
    return visitor


def single_assign(stmt: cst.CSTNode) -> cst.Assign | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        if len(stmt.body[0].targets) == 1:
            return stmt.body[0]
    return None


def single_expr_call(stmt: cst.CSTNode) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        if isinstance(value, cst.Call):
            return value
    return None


def method_call(node: cst.CSTNode, receiver: str, method: str) -> cst.Call | None:
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value == receiver
        and node.func.attr.value == method
    ):
        return node
    return None
