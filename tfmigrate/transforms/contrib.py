"""TFM6xx: the ``tensorflow.contrib`` utilities (layers, framework, losses, metrics, rnn, slim,
legacy_seq2seq, the TensorBoard projector) -> TF 2.15 or a maintained library with the same behaviour.

``contrib.learn``, ``contrib.eager``, ``contrib.summary`` and the ``contrib.layers`` feature columns
belong to other families. Names are matched by qualified name, so every import form is served:
``tf.contrib.rnn.X``, ``from tensorflow.contrib import rnn``, ``import tensorflow.contrib.slim as
slim``, ``from tensorflow.contrib.layers import xavier_initializer``. For each name, in order:

- TFM601-TFM605: TF 2.15 itself when it has the same behaviour, defaults included (legacy argument
  orders are written as keywords, legacy defaults and scales written out);
- TFM606: else tf-slim, the TF 1.15 contrib code kept as a package (``tf_slim``), when it has it;
- TFM607: modules kept whole elsewhere (the projector in ``tensorboard.plugins.projector``);
- TFM608: the small pure functions of ``contrib.legacy_seq2seq`` copied into the module;
- TFM609: else a finding on the line that says what to use instead.

Import statements are rewritten in place where a whole module moves (``import tf_slim as slim``),
and dropped when the rewritten references were their only use: ``import tensorflow.contrib...``
raises ModuleNotFoundError on TF 2.15, so none may remain.
"""

from __future__ import annotations

from typing import Callable, ClassVar

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import dotted as dotted_name
from tfmigrate.codemod.tree import expression
from tfmigrate.transforms import contrib_tables as T
from tfmigrate.transforms.contrib_vendored import NEEDS, helper_name, helper_source

CONTRIB = "tensorflow.contrib"
_SCOPED = ("layers", "framework", "rnn", "losses", "metrics", "legacy_seq2seq", "seq2seq")
SLIM_NOTE = "needs the tf-slim package (pip install tf-slim; 1.1.0 runs on TF 2.15)"


def contrib_rel(qualified: str | None) -> str | None:
    """``tensorflow.contrib.rnn.python.ops.core_rnn_cell.BasicLSTMCell`` -> ``rnn.BasicLSTMCell``."""
    if not qualified or not qualified.startswith(CONTRIB + "."):
        return None
    rel = qualified[len(CONTRIB) + 1 :]
    parts = rel.split(".")
    if len(parts) > 2 and parts[0] in _SCOPED and parts[1] == "python":
        return f"{parts[0]}.{parts[-1]}"
    return rel


def _module_of(rel: str) -> tuple[str, str] | None:
    """(module key, rest) when ``rel`` is a MODULES module or a name inside one."""
    for key in T.MODULES:
        if rel == key:
            return key, ""
        if rel.startswith(key + "."):
            return key, rel[len(key) + 1 :]
    return None


def _slim_name_ok(module_key: str, rest: str) -> bool:
    if module_key != "slim" or not rest:
        return True
    head = rest.split(".")[0]
    return head in T.SLIM_TOP or head in T.SLIM_MODULES


def slim_target(rel: str) -> str | None:
    """The tf_slim name implementing ``rel`` with the TF 1.15 contrib code, if any."""
    package, _, name = rel.partition(".")
    if "." in name:
        return None
    if package == "layers" and name in T.SLIM_TOP:
        return f"tf_slim.{name}"
    if package == "framework" and name in T.SLIM_FRAMEWORK:
        return f"tf_slim.{name}"
    if package == "losses" and name in T.SLIM_LOSSES:
        return f"tf_slim.losses.{name}"
    if package == "metrics" and name in T.SLIM_METRICS:
        return f"tf_slim.metrics.{name}"
    return None


def manual_message(rel: str) -> str | None:
    if rel in T.MANUAL:
        return T.MANUAL[rel].format(name=rel.split(".")[-1])
    package, _, name = rel.partition(".")
    if rel.startswith("slim.nets"):
        return T.MANUAL["slim.nets*"]
    key = f"{package}.*"
    if name and "." not in name and key in T.MANUAL:
        return T.MANUAL[key].format(name=name)
    return None


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


def keyword(arg: cst.Arg, name: str) -> cst.Arg:
    if arg.keyword is not None and arg.keyword.value == name:
        return arg
    return arg.with_changes(
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def new_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return keyword(cst.Arg(value=value), name)


def join_args(args: list[cst.Arg], trailing: bool) -> list[cst.Arg]:
    """Commas between the args (keeping existing ones and their whitespace)."""
    out = []
    for i, arg in enumerate(args):
        last = i == len(args) - 1
        has = isinstance(arg.comma, cst.Comma)
        if last:
            if has and not trailing:
                arg = arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        elif not has:
            arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        out.append(arg)
    return out


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _bool_literal(node: cst.BaseExpression | None, default: bool) -> bool | None:
    if node is None:
        return default
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def _str_literal(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def _float_literal(node: cst.BaseExpression) -> float | None:
    if isinstance(node, cst.Float):
        return float(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Float):
        return -float(node.expression.value)
    return None


def _factor(code: str, node: cst.BaseExpression) -> str:
    """``code`` ready to be multiplied (parenthesized unless atomic)."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Call, cst.Subscript)):
        return code
    return f"({code})"


class ContribTransform(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM6"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tf = "tf"
        self._need_tf = False
        self._in_place: set[int] = set()  # ids of ImportAlias / Import(From) rewritten in place
        self._in_place_names: set[str] = set()  # local names those imports bind
        self._helpers: list[str] = []  # vendored legacy_seq2seq functions, in first-use order
        self._handlers: dict[str, Callable[[str, cst.Call, cst.Call], cst.BaseExpression | None]] = {
            "layers.xavier_initializer": self._xavier,
            "layers.xavier_initializer_conv2d": self._xavier,
            "layers.variance_scaling_initializer": self._variance_scaling,
            "layers.l1_regularizer": self._regularizer,
            "layers.l2_regularizer": self._regularizer,
            "layers.l1_l2_regularizer": self._l1_l2,
            **{f"losses.{name}": self._loss for name in T.LOSSES},
            **{f"metrics.{name}": self._metric for name in T.METRICS},
        }

    # --- helpers ---------------------------------------------------------------------------------
    def tf(self, rel: str) -> cst.BaseExpression:
        self._need_tf = True
        return expression(f"{self._tf}.{rel}")

    def external(self, target: str) -> cst.BaseExpression:
        """``tf_slim.x`` / ``tensorboard.plugins.projector``: imports the package (plainly)."""
        module = target if target in T.MODULES.values() else target.split(".")[0]
        if target.startswith("tf_slim"):
            module = "tf_slim"
        self.imports.add(module)
        return expression(target)

    def visit_Module(self, node: cst.Module) -> bool:
        self._tf = self._tensorflow_alias(node)
        self._plan_imports()
        return True

    def _tensorflow_alias(self, module: cst.Module) -> str:
        aliases = []
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Import):
                for alias in stmt.body[0].names:
                    if _code(alias.name) == "tensorflow":
                        aliases.append(alias.asname.name.value if alias.asname else "tensorflow")
        if aliases:
            name = aliases[0]
            if name == "tensorflow" or self.index.module_binding_count(name) in (1, None):
                return name
        if self.index.module_binding_count("tf") != 0:
            return "tensorflow"
        return "tf"

    # --- imports ---------------------------------------------------------------------------------
    def _plan_imports(self) -> None:
        """Which import statements move whole (their names keep working after the rewrite)."""
        for statement in self.index.import_statements:
            if isinstance(statement, cst.Import):
                for alias in statement.names:
                    rel = contrib_rel(dotted_name(alias.name))
                    if rel in T.MODULES and alias.asname is not None:
                        self._in_place.add(id(alias))
                        self._in_place_names.add(alias.asname.name.value)  # type: ignore[union-attr]
                continue
            if statement.relative or statement.module is None or isinstance(statement.names, cst.ImportStar):
                continue
            module = dotted_name(statement.module) or ""
            module_rel = contrib_rel(module)
            names = [dotted_name(a.name) or "" for a in statement.names]
            if len(names) == 1 and contrib_rel(f"{module}.{names[0]}") in T.MODULES:
                self._in_place.add(id(statement))  # `from tensorflow.contrib import slim`
            elif module_rel is not None:
                found = _module_of(module_rel)
                if found and all(_slim_name_ok(found[0], ".".join(filter(None, [found[1], n]))) for n in names):
                    self._in_place.add(id(statement))  # `from tensorflow.contrib.slim import arg_scope`
            if id(statement) in self._in_place:
                for alias in statement.names:
                    self._in_place_names.add(alias.evaluated_alias or dotted_name(alias.name) or "")

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        aliases = list(updated.names)
        changed = False
        for i, alias in enumerate(original.names):
            if id(alias) not in self._in_place:
                continue
            rel = contrib_rel(dotted_name(alias.name)) or ""
            target = T.MODULES[rel]
            if self.fix(alias, self._module_rule(rel), self._module_message(rel)):
                aliases[i] = aliases[i].with_changes(name=expression(target))
                changed = True
        return updated.with_changes(names=aliases) if changed else updated

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.BaseSmallStatement:
        if id(original) not in self._in_place:
            return updated
        module = dotted_name(original.module) or ""
        rel = contrib_rel(module)
        assert not isinstance(original.names, cst.ImportStar)
        name = dotted_name(original.names[0].name) or ""
        full_rel = contrib_rel(f"{module}.{name}") or ""
        if len(original.names) == 1 and full_rel in T.MODULES:  # `from tensorflow.contrib import slim`
            target = T.MODULES[full_rel]
            if not self.fix(original, self._module_rule(full_rel), self._module_message(full_rel)):
                return updated
            parent, _, leaf = target.rpartition(".")
            if parent:
                return updated.with_changes(module=expression(parent), names=[updated.names[0].with_changes(name=cst.Name(leaf))])
            local = original.names[0].evaluated_alias or name
            asname = None if local == target else cst.AsName(name=cst.Name(local))
            return cst.Import(names=[cst.ImportAlias(name=expression(target), asname=asname)], semicolon=updated.semicolon)
        key, rest = _module_of(rel or "") or ("", "")
        target = T.MODULES[key] + (f".{rest}" if rest else "")
        if not self.fix(original, self._module_rule(key), self._module_message(key)):
            return updated
        return updated.with_changes(module=expression(target))

    def _module_rule(self, key: str) -> str:
        return "TFM606" if key == "slim" else "TFM607"

    def _module_message(self, key: str) -> str:
        if key == "slim":
            return f"tf.contrib.slim is tf_slim, the same TF 1.15 code kept as a package: this module {SLIM_NOTE}"
        return (
            f"tf.contrib.{key} lives on as {T.MODULES[key]} (the same protos and functions; "
            "visualize_embeddings takes the FileWriter or its logdir)"
        )

    # --- references ------------------------------------------------------------------------------
    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._reference(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._reference(original, updated)

    def _call_of(self, node: cst.CSTNode) -> cst.Call | None:
        parent = self.index.parents.get(node)
        return parent if isinstance(parent, cst.Call) and parent.func is node else None

    def _reference(self, original: cst.Name | cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(original, cst.Attribute) and dotted_name(original) is None:
            return updated  # `f(...).x`: libcst names it after f, but it is a value's attribute
        rel = contrib_rel(self.qualified_name(original))
        if rel is None:
            return updated
        parent = self.index.parents.get(original)
        outermost = not (isinstance(parent, cst.Attribute) and parent.value is original)
        call = self._call_of(original)
        found = _module_of(rel)
        if found is not None:
            return self._module_reference(original, updated, rel, *found, outermost)
        if call is not None and rel in self._handlers:
            return updated  # leave_Call rewrites the whole call
        if rel in T.RENAMES:
            limit = T.POSITIONAL_LIMIT.get(rel)
            if call is not None and limit is not None:
                positional = sum(1 for a in call.args if a.keyword is None and not a.star)
                if positional > limit or any(a.star for a in call.args):
                    self.flag(
                        original, "TFM609",
                        f"tf.contrib.{rel}: its positional arguments after the first {limit} meant different "
                        f"parameters across TF 1.x releases; pass them by keyword, then tfmigrate rewrites it to "
                        f"tf.{T.RENAMES[rel]}",
                    )
                    return updated
            if self.fix(original, "TFM601", f"tf.contrib.{rel} is tf.{T.RENAMES[rel]} in TF 2.15 (same behaviour)"):
                self.remove_imports_of(original)
                return self.tf(T.RENAMES[rel])
            return updated
        if rel in T.VENDORED:
            return self._vendored(original, updated, rel, call)
        name = rel.rpartition(".")[2]
        if rel.startswith("layers.") and name in T.SLIM_BROKEN:
            if outermost:
                self.flag(original, "TFM609", T.SLIM_BROKEN[name].format(name=f"tf.contrib.{rel}"))
            return updated
        target = slim_target(rel)
        if target is not None:
            if self.fix(original, "TFM606", f"tf.contrib.{rel} is {target}, the same TF 1.15 code kept as a package: this module {SLIM_NOTE}"):
                self.remove_imports_of(original)
                return self.external(target)
            return updated
        if outermost:
            message = manual_message(rel)
            if message is not None:
                self.flag(original, "TFM609", message)
        return updated

    def _vendored(
        self, original: cst.CSTNode, updated: cst.BaseExpression, rel: str, call: cst.Call | None
    ) -> cst.BaseExpression:
        name = T.VENDORED[rel]
        if name == "embed_sequence":
            unique = None
            if call is not None and not any(a.star for a in call.args):
                unique = False
                for i, a in enumerate(call.args):
                    if (a.keyword is None and i == 3) or (a.keyword is not None and a.keyword.value == "unique"):
                        unique = _bool_literal(a.value, False)
            if unique is not False:
                self.flag(original, "TFM609", T.MANUAL["layers.embed_sequence"])
                return updated
        if name == "optimize_loss":
            if call is None or any(a.star for a in call.args) or any(
                (a.keyword is not None and a.keyword.value in T.OPTIMIZE_LOSS_UNSUPPORTED)
                or (a.keyword is None and i in T.OPTIMIZE_LOSS_UNSUPPORTED.values())
                for i, a in enumerate(call.args)
            ):
                self.flag(
                    original, "TFM609",
                    f"tf.contrib.{rel}: tf-slim 1.1.0's copy fails on TF 2.15 and tfmigrate copies the TF 1.15 code "
                    "only for calls without gradient_noise_scale/gradient_multipliers (or *args): build the train op "
                    "with a tf.compat.v1.train optimizer's compute_gradients/apply_gradients",
                )
                return updated
            message = (
                f"tf.contrib.{rel} is gone and tf-slim 1.1.0's copy fails on TF 2.15 (ops.Tensor): its TF 1.15 code is "
                f"copied into this module as {helper_name(name)} (the same OptimizeLoss/learning_rate variable, "
                "optimizers by name, clipping, decay and summaries)"
            )
        elif name == "embed_sequence":
            message = (
                f"tf.contrib.{rel} is in neither TF 2.15 nor tf-slim: its TF 1.15 code is copied into this module as "
                f"{helper_name(name)} (the same EmbedSequence/embeddings model variable and lookup)"
            )
        else:
            message = (
                f"tf.contrib.{rel} is gone in TF 2: its TF 1.15 code is copied into this module as "
                f"{helper_name(name)} (tf.compat.v1 ops, the same variables and results)"
            )
        if not self.fix(original, "TFM608", message):
            return updated
        self.remove_imports_of(original)
        for needed in (*NEEDS.get(name, ()), name):
            if needed not in self._helpers:
                self._helpers.append(needed)
        self._need_tf = True
        return cst.Name(helper_name(name))

    def _module_reference(
        self, original: cst.CSTNode, updated: cst.BaseExpression, rel: str, key: str, rest: str, outermost: bool
    ) -> cst.BaseExpression:
        """A name in a module that moved whole: the module node of the chain is replaced (an import
        rewritten in place already serves its names)."""
        if isinstance(original, cst.Name) and (
            original.value in self._in_place_names or not self.index.binds_by_import(original.value)
        ):
            return updated  # an import rewritten in place, or an alias (`slim = tf.contrib.slim`) rewritten itself
        if key == "slim" and rel in T.VENDORED and isinstance(original, cst.Attribute):
            return self._vendored(original, updated, rel, self._call_of(original))
        if key == "slim" and rest in T.SLIM_BROKEN:
            if outermost:
                self.flag(original, "TFM609", T.SLIM_BROKEN[rest].format(name=f"slim.{rest}"))
            return updated
        if isinstance(original, cst.Attribute) and rest:
            if outermost and not _slim_name_ok(key, rest):
                self.flag(original, "TFM609", manual_message(rel) or f"tf.contrib.{rel} is not part of tf-slim: port it by hand")
            return updated  # its module node (tf.contrib.slim, or a name bound to it) is replaced
        if not _slim_name_ok(key, rest):
            if outermost:
                self.flag(original, "TFM609", manual_message(rel) or f"tf.contrib.{rel} is not part of tf-slim: port it by hand")
            return updated
        target = T.MODULES[key] + (f".{rest}" if rest else "")
        if self.fix(original, self._module_rule(key), self._module_message(key)):
            self.remove_imports_of(original)
            self.imports.add(T.MODULES[key])
            return expression(target)
        return updated

    # --- calls -----------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if dotted_name(original.func) is None:
            return updated  # `xavier_initializer()(shape)` calls what the inner call returned
        rel = contrib_rel(self.qualified_name(original.func))
        if rel is None or rel not in self._handlers:
            return updated
        try:
            new = self._handlers[rel](rel, original, updated)
        except Unsupported:
            new = None
        if new is not None:
            self.remove_imports_of(original.func)
            return new
        target = slim_target(rel)  # the exact rewrite cannot prove this form: tf-slim runs the legacy code
        if target is not None and self.fix(
            original.func, "TFM606", f"tf.contrib.{rel} is {target}, the same TF 1.15 code kept as a package: this module {SLIM_NOTE}"
        ):
            self.remove_imports_of(original.func)
            return updated.with_changes(func=self.external(target))
        return updated

    def _call(self, updated: cst.Call, func: cst.BaseExpression, args: list[cst.Arg]) -> cst.Call:
        trailing = bool(updated.args) and isinstance(updated.args[-1].comma, cst.Comma)
        return updated.with_changes(func=func, args=join_args(args, trailing))

    def _updated_args(self, original: cst.Call, updated: cst.Call, bound: list[tuple[str, cst.Arg]]) -> dict[str, cst.Arg]:
        position = {id(a): i for i, a in enumerate(original.args)}
        return {name: updated.args[position[id(arg)]] for name, arg in bound}

    def _xavier(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        bound = bind(original, T.XAVIER_ORDER)
        values = dict(bound)
        uniform = _bool_literal(values["uniform"].value if "uniform" in values else None, True)
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
        if not self.fix(original, "TFM602", message):
            return updated
        return self._call(updated, func, extra + rest)

    def _variance_scaling(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        bound = bind(original, T.VARIANCE_SCALING_ORDER)
        values = {name: arg.value for name, arg in bound}
        uniform = _bool_literal(values.get("uniform"), False)
        mode = "FAN_IN" if "mode" not in values else _str_literal(values["mode"])
        if uniform is None or mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
            return None
        args = self._updated_args(original, updated, bound)
        factor_node = args["factor"].value if "factor" in args else None
        factor = "2.0" if factor_node is None else _factor(_code(factor_node), factor_node)
        scale = factor if uniform else f"{factor} * {T.TRUNCATED_SCALE}"
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
        if not self.fix(original, "TFM602", message):
            return updated
        return self._call(updated, self.tf("compat.v1.variance_scaling_initializer"), new)

    def _half(self, arg: cst.Arg) -> cst.BaseExpression | None:
        value = arg.value
        if isinstance(value, cst.Integer):
            return None  # the legacy regularizer raises for an integer scale
        number = _float_literal(value)
        if number is not None:
            return cst.Float(repr(number * 0.5)) if number >= 0 else None
        return expression(f"0.5 * {_factor(_code(value), value)}")

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
        if not self.fix(original, "TFM603", message):
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
        if not self.fix(original, "TFM603", message):
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
        return self._reordered("TFM604", original, updated, order, f"compat.v1.losses.{name}", T.LOSS_KEYWORDS, message)

    def _metric(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        name = rel.split(".")[1]
        target, order = T.METRICS[name]
        message = (
            f"tf.contrib.metrics.{name}({', '.join(order[:2])}) is tf.compat.v1.metrics.{target} (the same streaming metric), "
            "whose first arguments come in another order: every argument is passed by keyword in its legacy meaning"
        )
        return self._reordered("TFM605", original, updated, order, f"compat.v1.metrics.{target}", {}, message)

    # --- the module ------------------------------------------------------------------------------
    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self._need_tf:
            self.imports.add("tensorflow", asname=None if self._tf == "tensorflow" else self._tf)
        if not self._helpers:
            return updated
        source = "\n\n".join(helper_source(name, self._tf) for name in self._helpers)
        helpers = list(cst.parse_module(source, config=updated.config_for_parsing).body)
        helpers[0] = helpers[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine()))
        body = list(updated.body)
        at = _after_imports(body)
        rest = body[at:]
        if rest:
            rest[0] = rest[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine(), *_strip_blank(rest[0].leading_lines)))
        return updated.with_changes(body=(*body[:at], *helpers, *rest))


def _strip_blank(lines) -> tuple:  # type: ignore[no-untyped-def]
    lines = list(lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return tuple(lines)


def _is_import_line(statement: cst.CSTNode) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
    if isinstance(statement, (cst.Try, cst.If)):
        inner = statement.body.body
        return bool(inner) and all(_is_import_line(s) for s in inner)
    return False


def _after_imports(body: list[cst.BaseStatement]) -> int:
    """Index after the module's docstring and its first block of imports (the helpers are only
    called later, so they need nothing that comes after)."""
    at = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 and isinstance(
        body[0].body[0], cst.Expr
    ) and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        at = 1
    while at < len(body) and _is_import_line(body[at]):
        at += 1
    return at
