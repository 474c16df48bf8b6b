"""TFM408/TFM411: statements that take gradients in eager code: tfe.implicit_gradients calls and
optimizer.minimize(loss_fn) / apply_gradients(global_step=) become tf.GradientTape blocks.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.tree import dotted as dotted_name, expression
from tfmigrate.rule_ids import TFM408, TFM411
from tfmigrate.transforms.common.builders import Substitute
from tfmigrate.transforms.eager.syntax import callee, is_method, is_name, is_name_pair, no_params, strip_comma
from tfmigrate.transforms.eager.tables import MANUAL


class GradientStatements:
    """A mixin of :class:`~tfmigrate.transforms.eager.transform.EagerTransform` (the libcst hooks stay there)."""

    def _implicit_def(self, stmt: cst.Assign) -> str | None:
        """``name = tfe.implicit_gradients(f)``: the gradient function is bound to a plain name."""
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Name):
            return None
        call = stmt.value
        if not isinstance(call, cst.Call) or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return None
        symbol = self.tfe_symbol(call.func)
        if symbol not in ("implicit_gradients", "implicit_value_and_gradients"):
            return None
        fn = call.args[0].value
        if isinstance(fn, cst.Lambda):
            return symbol
        if isinstance(fn, cst.Name):  # the def looks the name up at call time: it must never be rebound
            scope = self.scopes.scope_of(fn)
            if scope is not None and len(scope[fn.value]) == 1:
                return symbol
        return None

    def _implicit(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Call) and len(node.func.args) == 1:
            symbol = self.tfe_symbol(node.func.func)
            if symbol in ("implicit_gradients", "implicit_value_and_gradients") and not node.func.args[0].keyword:
                if not any(a.keyword for a in node.args):
                    return symbol
        return None

    def _minimize_shape(self, call: cst.Call) -> bool:
        if not is_method(call.func, "minimize") or not call.args:
            return False
        if call.args[0].keyword or call.args[0].star:
            return False
        keywords = {a.keyword.value for a in call.args[1:] if a.keyword}
        if len(keywords) != len(call.args) - 1 or not keywords <= {"global_step", "var_list", "name"}:
            return False
        receiver = dotted_name(call.func.value)
        return "global_step" in keywords or receiver in self.optimizer_names

    def _apply_shape(self, call: cst.Call) -> bool:
        if not is_method(call.func, "apply_gradients") or not call.args:
            return False
        if call.args[0].keyword or call.args[0].star:
            return False
        keywords = {a.keyword.value for a in call.args[1:] if a.keyword}
        if len(keywords) != len(call.args) - 1 or not keywords <= {"global_step", "name"}:
            return False
        return "global_step" in keywords or self._implicit(call.args[0].value) is not None

    def _remove(self, original: cst.SimpleStatementLine) -> cst.BaseStatement | cst.RemovalSentinel:
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementSuite)) and len(parent.body) == 1:
            return original.with_changes(body=[cst.Pass()])
        return cst.RemoveFromParent()

    def _tape(
        self, call: cst.Call, value_target: cst.BaseExpression | None
    ) -> tuple[list[cst.BaseStatement], tuple | None, cst.BaseExpression]:
        """Statements computing ``f(*args)`` under a tape; returns (statements, value names, grads_and_vars)."""
        tf = self._tfname()
        self.changed = True
        fn = call.func.args[0].value
        tape = self.fresh("tape")
        names = None
        if value_target is not None and is_name_pair(value_target):
            loss = value_target.elements[0].value.value
            names = (loss, value_target.elements[1].value)
        else:
            loss = self.fresh("loss_value")
        self._last_loss = loss
        variables = self.fresh("variables")
        value = cst.Call(func=callee(fn), args=strip_comma(list(call.args)))
        body = cst.parse_statement(f"with {tf}.GradientTape() as {tape}:\n    {loss} = LOSS\n")
        body = body.visit(Substitute({"LOSS": value}))
        stmts = [body, cst.parse_statement(f"{variables} = {tape}.watched_variables()\n")]
        grads = expression(f"list(zip({tape}.gradient({loss}, {variables}), {variables}))")
        return stmts, names, grads

    def _minimize(self, original: cst.SimpleStatementLine, call: cst.Call, updated: cst.Call):
        if not self.fix(
            call,
            TFM411,
            "optimizer.minimize(loss_fn, global_step=...) is a GradientTape step in TF 2 (Keras optimizers need the "
            "variables; the global step is incremented explicitly)",
        ):
            return None
        tf = self._tfname()
        self.changed = True
        fn = updated.args[0].value
        kwargs = {a.keyword.value: a.value for a in updated.args[1:]}
        tape = self.fresh("tape")
        loss = self.fresh("loss_value")
        if isinstance(fn, cst.Lambda) and no_params(fn):
            loss_expr = fn.body
        else:
            loss_expr = cst.Call(func=callee(fn))
        with_stmt = cst.parse_statement(f"with {tf}.GradientTape() as {tape}:\n    {loss} = LOSS\n").visit(
            Substitute({"LOSS": loss_expr})
        )
        out: list[cst.BaseStatement] = [with_stmt.with_changes(leading_lines=original.leading_lines)]
        if "var_list" in kwargs:
            variables_expr = kwargs["var_list"]
        else:
            variables = self.fresh("variables")
            out.append(cst.parse_statement(f"{variables} = {tape}.watched_variables()\n"))
            variables_expr = cst.Name(variables)
        apply = expression(f"OPT.apply_gradients(zip({tape}.gradient({loss}, VARS), VARS))").visit(
            Substitute({"OPT": updated.func.value, "VARS": variables_expr})
        )
        out.append(original.with_changes(body=[cst.Expr(apply)], leading_lines=[]))
        step = kwargs.get("global_step")
        if step is not None and not is_name(step, "None"):
            out.append(self._assign_add(step))
        return cst.FlattenSentinel(out)

    def _assign_add(self, step: cst.BaseExpression) -> cst.BaseStatement:
        return cst.SimpleStatementLine(
            [cst.Expr(cst.Call(func=cst.Attribute(value=step, attr=cst.Name("assign_add")), args=[cst.Arg(cst.Integer("1"))]))]
        )

    def _apply(self, original: cst.SimpleStatementLine, call: cst.Call, updated: cst.Call):
        grads_orig = call.args[0].value
        symbol = self._implicit(grads_orig)
        step = None
        args = list(updated.args)
        out: list[cst.BaseStatement] = []
        if any(a.keyword and a.keyword.value == "global_step" for a in call.args):
            if not self.fix(
                call,
                TFM411,
                "Keras optimizers' apply_gradients takes no global_step: the global step is incremented explicitly",
            ):
                return None
            step = next(a.value for a in args if a.keyword and a.keyword.value == "global_step")
            args = strip_comma([a for a in args if not (a.keyword and a.keyword.value == "global_step")])
        if symbol == "implicit_gradients" and self.fix(grads_orig, TFM408, f"tfe.{symbol} is tf.GradientTape in TF 2"):
            pre, _, grads = self._tape(args[0].value, None)
            out.extend(pre)
            args[0] = args[0].with_changes(value=grads)
        elif symbol is not None:
            self.flag(grads_orig, TFM408, MANUAL[symbol][1])
        self.changed = True
        out.append(original.with_changes(body=[cst.Expr(updated.with_changes(args=args))], leading_lines=[]))
        if step is not None and not is_name(step, "None"):
            out.append(self._assign_add(step))
        out[0] = out[0].with_changes(leading_lines=original.leading_lines)
        return cst.FlattenSentinel(out)
