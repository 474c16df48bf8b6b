"""TFM707's lowering of more pieces of a contrib.learn model_fn (a mixin of :class:`model_fn_lower.ModelFnLowering`):

- ``tf_slim.stack(inputs, tf_slim.fully_connected, [units, ...], **kwargs)`` (``tf.contrib.layers.stack``):
  one Keras layer group per element, created once in ``__init__`` (``self.<name> = [...]``) and applied in
  order by the ``slim_stack`` helper. A ``fully_connected`` with ``normalizer_fn=tf_slim.dropout`` (or the name
  of a local bound once to it, with ``normalizer_params`` a dict of its ``keep_prob``) is TF 1.x's: the matmul
  without bias, then the dropout (slim's ``is_training=True`` default: at every call, predict included, as in
  the legacy graph), then the activation. The same normalizer is read on a ``fully_connected`` called alone.
- ``is_optimize_loss``: which calls are ``optimize_loss`` (tf.contrib.layers, tf_slim, or the
  ``legacy_optimize_loss`` copy TFM608 writes, known by its marker); ``ModelFnLowering._optimize_loss`` lowers them.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.transforms.common.builders import code_of, str_value
from tfmigrate.transforms.keras_target import model_fn_layers as tables

STACK_PARAMS = ("inputs", "layer", "stack_args", "scope")
SLIM_DROPOUT = ("tf_slim.dropout", "tf_slim.layers.dropout", "tensorflow.contrib.layers.dropout", "tensorflow.contrib.slim.dropout")
SLIM_FULLY_CONNECTED = ("tf_slim.fully_connected", "tf_slim.layers.fully_connected", "tensorflow.contrib.layers.fully_connected",
                        "tensorflow.contrib.slim.fully_connected")


def is_optimize_loss(t, call: cst.Call) -> bool:
    """``tf.contrib.layers.optimize_loss`` / ``tf_slim.optimize_loss``, or the module's TFM608 copy."""
    qn = t.qualified_name(call.func) or ""
    if qn.startswith(tables.SLIM_MODULES) and qn.rpartition(".")[2] == "optimize_loss":
        return True
    if not (isinstance(call.func, cst.Name) and call.func.value == "legacy_optimize_loss"):
        return False
    defs = [f for f in t.index.nodes(cst.FunctionDef) if f.name.value == "legacy_optimize_loss"]
    return len(defs) == 1 and "copied by tfmigrate" in code_of(defs[0])


class SlimPieces:
    """The mixin; it reads ModelFnLowering's ``t``, ``plan_``, ``locals`` and its helpers (its argument binder and
    its ``Blocked`` exception are the class attributes ``bind_args_`` and ``blocked_``: this module does not import
    model_fn_lower, which imports it)."""

    def _slim_tools(self):  # type: ignore[no-untyped-def]
        return type(self).bind_args_, type(self).blocked_  # type: ignore[attr-defined]

    # --- a local bound once to a value (normalizer_fn = tf_slim.dropout) ------------------------------------
    def _value_of(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(expr, cst.Name) and expr.value in self.locals:  # type: ignore[attr-defined]
            value = self._assigned(expr)  # type: ignore[attr-defined]
            if value is None:
                _, Blocked = self._slim_tools()
                raise Blocked(f"{expr.value} (assigned more than once in the model_fn)")
            return value
        return expr

    def _drop_local(self, expr: cst.BaseExpression, fn: cst.FunctionDef, user: cst.CSTNode) -> None:
        """``normalizer_fn = tf_slim.dropout`` read only by ``user`` (a call lowered away): the statement goes."""
        if not (isinstance(expr, cst.Name) and expr.value in self.locals):  # type: ignore[attr-defined]
            return
        reads = [n for n in iter_nodes(fn.body, trivia=False) if isinstance(n, cst.Name) and n.value == expr.value]
        outside = [n for n in reads if not self.t.index.is_within(n, user)  # type: ignore[attr-defined]
                   and not isinstance(self.t.index.parents.get(n), cst.AssignTarget)]  # type: ignore[attr-defined]
        if outside:
            return
        value = self._assigned(expr)  # type: ignore[attr-defined]
        if value is not None:
            self._remove_statement(value, "normalizer")  # type: ignore[attr-defined]

    # --- fully_connected's normalizer ---------------------------------------------------------------------------
    def _normalizer(self, args: dict, fn_locals: set[str], what: str) -> str | None:
        """The Keras layer of ``normalizer_fn=``/``normalizer_params=`` (None without a normalizer)."""
        _, Blocked = self._slim_tools()
        if "normalizer_fn" not in args or code_of(args["normalizer_fn"].value) == "None":
            if "normalizer_params" in args and code_of(args["normalizer_params"].value) != "None":
                raise Blocked(f"{what}(normalizer_params=...) without normalizer_fn")
            return None
        normalizer = self._value_of(args["normalizer_fn"].value)
        qn = self.t.qualified_name(normalizer) or ""  # type: ignore[attr-defined]
        if qn not in SLIM_DROPOUT:
            raise Blocked(f"{what}(normalizer_fn={code_of(normalizer)}) (only tf_slim.dropout is lowered)")
        keep = "0.5"  # slim.dropout's default keep_prob
        if "normalizer_params" in args and code_of(args["normalizer_params"].value) != "None":
            params = self._value_of(args["normalizer_params"].value)
            if not isinstance(params, cst.Dict):
                raise Blocked(f"{what}(normalizer_params={code_of(params)}) (not a dict tfmigrate can read)")
            for element in params.elements:
                key = str_value(element.key) if isinstance(element, cst.DictElement) else None
                if key == "keep_prob":
                    keep = self._hoistable(element.value, fn_locals, f"{what}(normalizer_params=...)")  # type: ignore[attr-defined]
                elif key != "scope":
                    raise Blocked(f"{what}(normalizer_params={{{key!r}: ...}}) (no Keras argument with the same effect)")
        return f"tf.keras.layers.Dropout(rate=1 - {keep})"

    def _fully_connected_group(self, units: str, kwargs: dict, fn_locals: set[str], what: str) -> tuple[str, bool]:
        """The Keras layers of one ``fully_connected(x, units, **kwargs)`` as a list's text; whether it holds a
        dropout (called with training=True: slim's is_training default)."""
        _, Blocked = self._slim_tools()
        form = tables.SLIM_FUNCTIONS["fully_connected"]
        normalizer = self._normalizer(kwargs, fn_locals, what)
        keywords, activation = [], "tf.nn.relu"
        for key, arg in kwargs.items():
            if key in ("normalizer_fn", "normalizer_params") or key in form.dropped:
                continue
            if key == "activation_fn":
                activation = self._hoistable(arg.value, fn_locals, f"{what}(activation_fn=...)")  # type: ignore[attr-defined]
                continue
            if key not in form.rename or key == "num_outputs":
                raise Blocked(f"{what}({key}=...) (no Keras argument with the same effect)")
            if normalizer is not None and key in ("biases_initializer", "biases_regularizer"):
                continue  # TF 1.x: no bias where a normalizer_fn is given
            keywords.append(f"{form.rename[key]}={self._hoistable(arg.value, fn_locals, f'{what}({key}=...)')}")  # type: ignore[attr-defined]
        if normalizer is None:
            return f"[tf.keras.layers.Dense({', '.join([units, *keywords, f'activation={activation}'])})]", False
        layers = [f"tf.keras.layers.Dense({', '.join([units, 'use_bias=False', *keywords])})", normalizer]
        if activation != "None":
            layers.append(f"tf.keras.layers.Activation({activation})")
        return f"[{', '.join(layers)}]", True

    # --- tf_slim.stack ----------------------------------------------------------------------------------------
    def _slim_stack(self, node: cst.Call, owner: str, fn_locals: set[str], fn: cst.FunctionDef) -> None:
        _bind, Blocked = self._slim_tools()
        if self._in_loop(node):  # type: ignore[attr-defined]
            raise Blocked("stack called in a loop (one layer per iteration)")
        args = {}
        for position, arg in enumerate(node.args):
            if arg.star:
                raise Blocked(f"stack(*...) ({' '.join(code_of(node).split())[:60]})")
            key = arg.keyword.value if arg.keyword is not None else STACK_PARAMS[position] if position < len(STACK_PARAMS) else None
            if key is None:
                raise Blocked("stack(...) with positional arguments after scope")
            args[key] = arg
        if not {"inputs", "layer", "stack_args"} <= set(args):
            raise Blocked("stack(...) without inputs, layer and stack_args")
        layer = self._value_of(args["layer"].value)
        if (self.t.qualified_name(layer) or "") not in SLIM_FULLY_CONNECTED:  # type: ignore[attr-defined]
            raise Blocked(f"stack(layer={code_of(layer)}) (only tf_slim.fully_connected is lowered in a stack)")
        units = self._hoistable(args["stack_args"].value, fn_locals, "stack(stack_args=...)")  # type: ignore[attr-defined]
        kwargs = {k: a for k, a in args.items() if k not in STACK_PARAMS}
        group, dropout = self._fully_connected_group("units", kwargs, fn_locals, "stack")
        scope = str_value(args["scope"].value) if "scope" in args else None
        attr = self._attr(node, "stack", scope)  # type: ignore[attr-defined]
        self.plan_.init.append(f"self.{attr} = [{group} for units in {units}]")  # type: ignore[attr-defined]
        self.plan_.layers.append("stack(fully_connected) -> Dense" + (", Dropout, Activation" if dropout else ""))  # type: ignore[attr-defined]
        self.plan_.helpers.add("slim_stack")  # type: ignore[attr-defined]

        def replace(updated: cst.CSTNode) -> cst.CSTNode:
            now = {}
            for position, arg in enumerate(updated.args):  # type: ignore[attr-defined]
                now[arg.keyword.value if arg.keyword is not None else STACK_PARAMS[position]] = arg
            return cst.parse_expression(f"slim_stack({code_of(now['inputs'].value)}, {owner}.{attr})")

        self.plan_.table[id(node)] = replace  # type: ignore[attr-defined]
        self.plan_.readers.append(node.func)  # type: ignore[attr-defined]
        for key in ("layer", "normalizer_fn", "normalizer_params"):
            if key in args:
                self._drop_local(args[key].value, fn, node)
