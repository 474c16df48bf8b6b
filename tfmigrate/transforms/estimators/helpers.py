"""Functions the TFM1 rules write into a user's module (TFM119 ``skcompat_predict``, TFM120 ``legacy_conv2d``):
each once, after the module's imports (and docstring), in the order asked, as TFM175/TFM608 do."""

from __future__ import annotations

import libcst as cst


def insert_after_imports(module: cst.Module, codes: list[str]) -> cst.Module:
    """``module`` with each function of ``codes`` (source text, four-space indents) after its imports."""
    if not codes:
        return module
    body = list(module.body)
    position = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
            position = i + 1
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            position = 1  # the docstring
        elif position or not isinstance(stmt, cst.SimpleStatementLine):
            break
    for code in reversed(codes):
        if module.default_indent != "    ":
            code = code.replace("    ", module.default_indent)
        helper = cst.parse_statement(code, config=module.config_for_parsing)
        body.insert(position, helper.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]))
    return module.with_changes(body=body)


def defines(index, name: str) -> bool:
    """The module already has a function or class of that name (the helper would clash with it)."""
    return any(d.name.value == name for d in (*index.nodes(cst.FunctionDef), *index.nodes(cst.ClassDef)))
