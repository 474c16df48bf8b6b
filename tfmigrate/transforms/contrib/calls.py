"""TFM602-TFM605: the call rewrites of the TFM6 family (initializers, regularizers, losses, metrics).

Each handler gets the legacy call (``original``) and the call with its children already rewritten
(``updated``), binds the arguments to the legacy parameter order (TF 1.x signatures, in
``contrib_tables``), and returns the TF 2.15 call with every legacy value written out, or None when
the form cannot be proven equal (the transform then keeps the legacy code through tf-slim).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tfmigrate.codemod.tree import expression, join_args, keyword_arg
from tfmigrate.rule_ids import TFM602, TFM603, TFM604, TFM605
from tfmigrate.transforms.contrib import tables as T


class Unsupported(Exception):
    """A call form the exact rewrite does not cover (the caller falls back or flags)."""


def bind(call: cst.Call, order: tuple[str, ...], renames: dict[str, str] | None = None) -> list[tuple[str, cst.Arg]]:
    """(legacy parameter name, arg) in call order."""
    bound = []
    names = set(order)
    for index, arg in enumerate(call.args):
        if arg.star:
            raise Unsupported("*args/**kwargs")
        if arg.keyword is None:
            if index >= len(order):
                raise Unsupported("too many positional arguments")
            bound.append((order[index], arg))
        else:
            name = arg.keyword.value
            if renames and name in renames:
                name = renames[name]
            elif name not in names:
                raise Unsupported(f"unknown keyword {name}")
            bound.append((name, arg))
    return bound


keyword = keyword_arg


def new_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return keyword(cst.Arg(value=value), name)


def _has_comment(comma: cst.Comma | cst.MaybeSentinel) -> bool:
    after = comma.whitespace_after if isinstance(comma, cst.Comma) else None
    return isinstance(after, cst.ParenthesizedWhitespace) and after.first_line.comment is not None


def code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def bool_literal(node: cst.BaseExpression | None, default: bool) -> bool | None:
    if node is None:
        return default
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def str_literal(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def float_literal(node: cst.BaseExpression) -> float | None:
    if isinstance(node, cst.Float):
        return float(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Float):
        return -float(node.expression.value)
    return None


def factor(code: str, node: cst.BaseExpression) -> str:
    """``code`` ready to be multiplied (parenthesized unless atomic)."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Call, cst.Subscript)):
        return code
    return f"({code})"


class CallRewrites:
    """Mixed into ContribTransform: uses its ``fix`` and ``tf`` (the module's TensorFlow spelling)."""

    fix: Callable[[cst.CSTNode, str, str], bool]
    tf: Callable[[str], cst.BaseExpression]

    def _call(self, updated: cst.Call, func: cst.BaseExpression, args: list[cst.Arg]) -> cst.Call:
        trailing = bool(updated.args) and isinstance(updated.args[-1].comma, cst.Comma)
        separators = [a.comma for a in updated.args[:-1] if isinstance(a.comma, cst.Comma)]
        template = None
        if separators:
            after = separators[0].whitespace_after
            if isinstance(after, cst.ParenthesizedWhitespace):  # a new line: not the comment that ended it
                after = after.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
            template = cst.Comma(whitespace_after=after)
        return updated.with_changes(func=func, args=join_args(args, trailing, template))

    def _updated_args(self, original: cst.Call, updated: cst.Call, bound: list[tuple[str, cst.Arg]]) -> dict[str, cst.Arg]:
        position = {id(a): i for i, a in enumerate(original.args)}
        return {name: updated.args[position[id(arg)]] for name, arg in bound}

    def _xavier(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        bound = bind(original, T.XAVIER_ORDER)
        values = dict(bound)
        uniform = bool_literal(values["uniform"].value if "uniform" in values else None, True)
        if uniform is None:
            return None
        args = self._updated_args(original, updated, bound)
        rest = [keyword(args[name], name) for name, _ in bound if name != "uniform"]
        if uniform:
            message = (
                f"tf.contrib.{rel}() is tf.compat.v1.glorot_uniform_initializer: the same limit "
                "sqrt(6 / (fan_in + fan_out)) and random op (equal draws for a seed)"
            )
            func, extra = self.tf("compat.v1.glorot_uniform_initializer"), []
        else:
            message = (
                f"tf.contrib.{rel}(uniform=False) drew from a truncated normal of stddev sqrt(1.3 / fan_avg); "
                "tf.compat.v1.glorot_normal_initializer's differs (0.3% narrower): written as "
                "tf.compat.v1.variance_scaling_initializer with the legacy scale (equal draws for a seed)"
            )
            func = self.tf("compat.v1.variance_scaling_initializer")
            extra = [
                new_arg("scale", expression(T.TRUNCATED_SCALE)),
                new_arg("mode", cst.SimpleString('"fan_avg"')),
                new_arg("distribution", cst.SimpleString('"truncated_normal"')),
            ]
        if not self.fix(original, TFM602, message):
            return updated
        new = extra + rest
        dropped = args.get("uniform")
        if new and dropped is not None and _has_comment(dropped.comma):
            new[0] = new[0].with_changes(comma=dropped.comma)  # the comment on `uniform=...` stays
        return self._call(updated, func, new)

    def _variance_scaling(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        bound = bind(original, T.VARIANCE_SCALING_ORDER)
        values = {name: arg.value for name, arg in bound}
        uniform = bool_literal(values.get("uniform"), False)
        mode = "FAN_IN" if "mode" not in values else str_literal(values["mode"])
        if uniform is None or mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
            return None
        args = self._updated_args(original, updated, bound)
        factor_node = args["factor"].value if "factor" in args else None
        scaled = "2.0" if factor_node is None else factor(code(factor_node), factor_node)
        scale = scaled if uniform else f"{scaled} * {T.TRUNCATED_SCALE}"
        new = [
            new_arg("scale", expression(scale)),
            new_arg("mode", cst.SimpleString(f'"{mode.lower()}"')),
            new_arg("distribution", cst.SimpleString('"uniform"' if uniform else '"truncated_normal"')),
        ]
        new += [keyword(args[name], name) for name, _ in bound if name in ("seed", "dtype")]
        message = (
            f"tf.contrib.{rel}(factor, mode, uniform) is tf.compat.v1.variance_scaling_initializer(scale=factor"
            + ("" if uniform else " * 1.3 * 0.8796...**2, the legacy truncated-normal stddev sqrt(1.3 * factor / n)")
            + ", mode in lower case, distribution): legacy defaults (factor=2.0, FAN_IN, truncated normal) written out"
        )
        if not self.fix(original, TFM602, message):
            return updated
        return self._call(updated, self.tf("compat.v1.variance_scaling_initializer"), new)

    def _half(self, arg: cst.Arg) -> cst.BaseExpression | None:
        value = arg.value
        if isinstance(value, cst.Integer):
            return None  # the legacy regularizer raises for an integer scale
        number = float_literal(value)
        if number is not None:
            return cst.Float(repr(number * 0.5)) if number >= 0 else None
        return expression(f"0.5 * {factor(code(value), value)}")

    def _regularizer(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        bound = bind(original, T.REGULARIZER_ORDER)
        args = self._updated_args(original, updated, bound)
        if "scale" not in args:
            return None
        kind = "l2" if rel.endswith("l2_regularizer") else "l1"
        if kind == "l2":
            value = self._half(args["scale"])
            message = (
                "tf.contrib.layers.l2_regularizer(scale) adds scale * sum(w**2) / 2 (tf.nn.l2_loss); "
                "tf.keras.regularizers.l2(l) adds l * sum(w**2): written as l2(0.5 * scale), the same value"
            )
        else:
            if isinstance(args["scale"].value, cst.Integer):
                return None
            value = args["scale"].value
            message = "tf.contrib.layers.l1_regularizer(scale) is tf.keras.regularizers.l1(scale): scale * sum(|w|)"
        if value is None:
            return None
        if not self.fix(original, TFM603, message):
            return updated
        return self._call(updated, self.tf(f"keras.regularizers.{kind}"), [cst.Arg(value=value)])

    def _l1_l2(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        bound = bind(original, T.L1_L2_ORDER)
        args = self._updated_args(original, updated, bound)
        l1 = args["scale_l1"].value if "scale_l1" in args else cst.Float("1.0")
        if isinstance(l1, cst.Integer):
            return None
        l2 = self._half(args["scale_l2"]) if "scale_l2" in args else cst.Float("0.5")
        if l2 is None:
            return None
        message = (
            "tf.contrib.layers.l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0) is tf.keras.regularizers.l1_l2 with "
            "the legacy defaults written out (Keras': 0.01) and l2 halved (the legacy l2 term is scale * sum(w**2) / 2)"
        )
        if not self.fix(original, TFM603, message):
            return updated
        return self._call(updated, self.tf("keras.regularizers.l1_l2"), [new_arg("l1", l1), new_arg("l2", l2)])

    def _reordered(
        self, rule: str, original: cst.Call, updated: cst.Call, order: tuple[str, ...], target: str,
        renames: dict[str, str], message: str,
    ) -> cst.BaseExpression | None:
        bound = bind(original, order, renames)
        args = self._updated_args(original, updated, bound)
        new = [keyword(args[name], name) for name, _ in bound]  # (bind spelled the keywords the new way)
        if not self.fix(original, rule, message):
            return updated
        return self._call(updated, self.tf(target), new)

    def _loss(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        name = rel.split(".")[1]
        order = T.LOSSES[name]
        message = (
            f"tf.contrib.losses.{name}({', '.join(order[:2])}) is tf.compat.v1.losses.{name} (the same weighted mean), "
            "whose first arguments come in another order: every argument is passed by keyword in its legacy meaning"
        )
        return self._reordered(TFM604, original, updated, order, f"compat.v1.losses.{name}", T.LOSS_KEYWORDS, message)

    def _metric(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        name = rel.split(".")[1]
        target, order = T.METRICS[name]
        message = (
            f"tf.contrib.metrics.{name}({', '.join(order[:2])}) is tf.compat.v1.metrics.{target} (the same streaming metric), "
            "whose first arguments come in another order: every argument is passed by keyword in its legacy meaning"
        )
        return self._reordered(TFM605, original, updated, order, f"compat.v1.metrics.{target}", {}, message)
