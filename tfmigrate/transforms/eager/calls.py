"""TFM418-TFM420, TFM425-TFM427: code in eager modules whose TF 1.x form TF 2.15 reads differently or refuses.

An *eager module* (one that imports ``tf.contrib.eager`` or calls ``enable_eager_execution``) is
TF 1.x code for certain: those names existed only in TF 1.x. Its calls of TF ops therefore have
their TF 1.x meaning, and the names that TF 2.15 still has (``tf.nn.dropout``, ``tf.reduce_sum``)
are the 2.x functions, run eagerly, so the renames family cannot pin them to ``tf.compat.v1`` as it
does in graph code:

- TFM418: ``tfe.run(main, argv)`` enabled eager execution and called ``tf.app.run``; TF 2 is eager,
  so it is ``tf.compat.v1.app.run(main, argv)`` (same parameters).
- TFM419: ``tf.nn.dropout(x, keep_prob)``: TF 1.x's second parameter is ``keep_prob`` (the share
  of units kept), TF 2.15's is ``rate`` (the share dropped): ``tf.nn.dropout(x, rate=1 - keep_prob)``.
- TFM420: keyword arguments TF 1.x accepted and TF 2.15 rejects with TypeError
  (``reduction_indices``, ``keep_dims``, ``dimension``, ``dim``, ``squeeze_dims``, ``seq_dim``,
  ``batch_dim``): the TF 2 keyword of the same meaning (signatures compared in TF 2.15.1 between
  ``tf.compat.v1.X`` and ``tf.X``).
- TFM426: ``tfe.get_optimizer_variables(opt)`` is ``opt.variables()``, ``tfe.in_graph_mode()`` is
  ``not tf.executing_eagerly()`` (``tfe.make_template`` and ``tfe.TensorSpec``, plain renames, are in
  eager.py's rename table).
- TFM427: ``enable_eager_execution(config=...)`` is kept as ``tf.compat.v1.enable_eager_execution``,
  which still applies the session config to the eager context in TF 2.15.
- TFM425: ``x.shape[i].value`` / ``x.get_shape()[i].value``: a TF 1.x shape's entries were
  ``Dimension`` objects; TF 2's are ``int`` (or ``None``, which ``Dimension.value`` also gave), so
  ``.value`` raises AttributeError and is dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.rule_ids import TFM418, TFM419, TFM420, TFM425, TFM426, TFM427
from tfmigrate.transforms.eager.rnn import cudnn_call, cudnn_class

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.eager.context import EagerContext

_REDUCE = {"reduction_indices": "axis", "keep_dims": "keepdims"}
# TF 2 function (relative to tensorflow.) -> (TF1 keyword -> TF 2 keyword, positional arguments that mean the same)
KEYWORD_RENAMES: dict[str, tuple[dict[str, str], int]] = {}
for _op in ("sum", "mean", "max", "min", "prod", "all", "any", "logsumexp"):
    KEYWORD_RENAMES[f"reduce_{_op}"] = KEYWORD_RENAMES[f"math.reduce_{_op}"] = (_REDUCE, 4)
for _op in ("argmax", "argmin"):
    KEYWORD_RENAMES[_op] = KEYWORD_RENAMES[f"math.{_op}"] = ({"dimension": "axis"}, 2)
KEYWORD_RENAMES.update(
    {
        "math.count_nonzero": ({**_REDUCE, "input_tensor": "input"}, 5),
        "expand_dims": ({"dim": "axis"}, 3),
        "squeeze": ({"squeeze_dims": "axis"}, 3),
        "nn.softmax": ({"dim": "axis"}, 3),
        "math.softmax": ({"dim": "axis"}, 3),
        "nn.log_softmax": ({"dim": "axis"}, 3),
        "math.log_softmax": ({"dim": "axis"}, 3),
        "norm": ({"keep_dims": "keepdims"}, 5),
        "nn.moments": ({"keep_dims": "keepdims"}, 3),
        "reverse_sequence": ({"seq_dim": "seq_axis", "batch_dim": "batch_axis"}, 5),
    }
)
_DROPOUT_PARAMS = ("x", "keep_prob", "noise_shape", "seed", "name")


def tfe_call(
    transform: EagerContext, symbol: str, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression | None:
    """TFM418/TFM426 on ``tfe.<symbol>(...)``; None when it is not this module's call."""
    if symbol in ("get_optimizer_variables", "in_graph_mode"):
        return _tfe_other(transform, symbol, original, updated)
    if symbol != "run" or any(a.star for a in original.args) or len(original.args) > 2:
        return None
    if not transform.fix(
        original,
        TFM418,
        "tfe.run(main, argv) enabled eager execution and ran tf.app.run; TF 2 executes eagerly: "
        "tf.compat.v1.app.run(main, argv)",
    ):
        return None
    transform.changed = True
    return updated.with_changes(func=transform._tf("compat.v1.app.run"))


def enable_with_config(
    transform: EagerContext, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression | None:
    """TFM427: ``enable_eager_execution(config=...)`` -> ``tf.compat.v1.enable_eager_execution(config=...)``."""
    if len(original.args) != 1 or original.args[0].star:
        return None
    arg = original.args[0]
    if arg.keyword is not None and arg.keyword.value != "config":
        return None  # device_policy / execution_mode: TFM401 reports them
    if not transform.fix(
        original,
        TFM427,
        "enable_eager_execution(config=...) applied a session config (soft placement, GPU memory growth, threads) "
        "to eager execution; TF 2.15's tf.compat.v1.enable_eager_execution does the same at program start",
    ):
        return None
    transform.changed = True
    return updated.with_changes(func=transform._tf("compat.v1.enable_eager_execution"))


def _tfe_other(
    transform: EagerContext, symbol: str, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression | None:
    if symbol == "get_optimizer_variables":
        if len(original.args) != 1 or original.args[0].keyword is not None or original.args[0].star:
            return None
        if not transform.fix(
            original,
            TFM426,
            "tfe.get_optimizer_variables(optimizer) was optimizer.variables(): written out (Keras optimizers have it too)",
        ):
            return None
        transform.changed = True
        receiver = updated.args[0].value
        if not isinstance(receiver, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not receiver.lpar:
            receiver = receiver.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("variables")))
    if original.args or not transform.fix(
        original, TFM426, "tfe.in_graph_mode() was `not tf.executing_eagerly()`: written out"
    ):
        return None
    return cst.UnaryOperation(
        operator=cst.Not(),
        expression=cst.Call(func=transform._tf("executing_eagerly")),
        lpar=[cst.LeftParen()],
        rpar=[cst.RightParen()],
    )


def eager_call(transform: EagerContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    """TFM419/TFM420 on a call in an eager module; None when neither applies."""
    func = original.func
    if not isinstance(func, (cst.Name, cst.Attribute)):
        return None
    qname = transform.qualified_name(func) or ""
    if not qname.startswith("tensorflow."):
        return None
    legacy = cudnn_class(qname)
    if legacy is not None:
        return cudnn_call(transform, legacy, original, updated)
    rel = qname.removeprefix("tensorflow.")
    if rel == "nn.dropout":
        return _dropout(transform, original, updated)
    if rel in KEYWORD_RENAMES:
        return _keywords(transform, rel, original, updated)
    return None


def _keywords(transform: EagerContext, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    renames, positional = KEYWORD_RENAMES[rel]
    if any(a.star for a in original.args) or sum(1 for a in original.args if a.keyword is None) > positional:
        return None
    given = {a.keyword.value for a in original.args if a.keyword is not None}
    old = [k for k in given if k in renames]
    if not old or any(renames[k] in given for k in old) or len({renames[k] for k in old}) != len(old):
        return None  # nothing to do, or both spellings given (TF 1.x raised for that too)
    pairs = ", ".join(f"{k}= -> {renames[k]}=" for k in sorted(old))
    if not transform.fix(
        original,
        TFM420,
        f"tf.{rel} in TF 2.15 has no {', '.join(sorted(old))} (TypeError): the TF 2 keyword of the same meaning "
        f"({pairs})",
    ):
        return None
    args = [
        a.with_changes(keyword=cst.Name(renames[a.keyword.value]))
        if a.keyword is not None and a.keyword.value in renames
        else a
        for a in updated.args
    ]
    transform.changed = True
    return updated.with_changes(args=args)


def _dropout(transform: EagerContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    if any(a.star for a in original.args) or len(original.args) > len(_DROPOUT_PARAMS):
        return None
    keys = []
    for i, arg in enumerate(original.args):
        keys.append(arg.keyword.value if arg.keyword is not None else _DROPOUT_PARAMS[i])
    if "keep_prob" not in keys or "rate" in keys:
        return None
    if not transform.fix(
        original,
        TFM419,
        "tf.nn.dropout's second parameter is keep_prob in TF 1.x (the share of units kept) and rate in TF 2.15 "
        "(the share dropped): written as rate=1 - keep_prob",
    ):
        return None
    args = []
    seen_keyword = False
    for key, orig, arg in zip(keys, original.args, updated.args):
        if key == "keep_prob":
            value = arg.value
            atomic = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)
            if not isinstance(value, atomic) and not value.lpar:
                value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            rate = cst.BinaryOperation(
                left=cst.Integer("1"),
                operator=cst.Subtract(
                    whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")
                ),
                right=value,
            )
            arg = arg.with_changes(keyword=cst.Name("rate"), value=rate, equal=_equal())
            seen_keyword = True
        elif orig.keyword is None and seen_keyword:
            arg = arg.with_changes(keyword=cst.Name(key), equal=_equal())
        args.append(arg)
    transform.changed = True
    return updated.with_changes(args=args)


def _equal() -> cst.AssignEqual:
    return cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))



_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_PATH_FUNCTIONS = frozenset({"os.path.join", "os.path.abspath", "os.path.expanduser", "os.path.normpath", "os.getcwd"})


def is_path(transform: EagerContext, node: cst.BaseExpression) -> bool:
    """Is ``node`` an expression that always gives a string (so never None)? ``os.path.join(...)``,
    ``str(...)``, ``"..." % x``, ``"...".format(...)``, ``"..." + x``."""
    if isinstance(node, _STRINGS):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, (cst.Name, cst.Attribute)) and transform.qualified_name(func) in _PATH_FUNCTIONS:
            return True
        if isinstance(func, cst.Name) and func.value == "str" and transform.is_builtin(func):
            return True
        return isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, _STRINGS)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Modulo, cst.Add)):
        if isinstance(node.left, _STRINGS):
            return True
        return isinstance(node.operator, cst.Add) and isinstance(node.right, _STRINGS)
    return False


def shape_value(
    transform: EagerContext, original: cst.Attribute, updated: cst.Attribute
) -> cst.BaseExpression | None:
    """TFM425: ``<x>.shape[i].value`` -> ``<x>.shape[i]`` (and ``get_shape()``); None when not that."""
    if original.attr.value != "value" or not isinstance(original.value, cst.Subscript):
        return None
    subscript = original.value
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    shape = subscript.value
    is_shape = isinstance(shape, cst.Attribute) and shape.attr.value == "shape"
    is_get_shape = (
        isinstance(shape, cst.Call)
        and not shape.args
        and isinstance(shape.func, cst.Attribute)
        and shape.func.attr.value == "get_shape"
    )
    if not (is_shape or is_get_shape):
        return None
    if not transform.fix(
        original,
        TFM425,
        "a TF 1.x shape entry was a Dimension (its .value the int or None); in TF 2 it is the int or None itself: "
        ".value is dropped",
    ):
        return None
    transform.changed = True
    return updated.value.with_changes(lpar=updated.lpar, rpar=updated.rpar)


_VARIABLE_FACTORIES = frozenset(
    {
        "tensorflow.Variable",
        "tensorflow.compat.v1.Variable",
        "tensorflow.get_variable",
        "tensorflow.compat.v1.get_variable",
        "tensorflow.contrib.eager.Variable",
        "tensorflow.contrib.eager.python.tfe.Variable",
    }
)


def holds_variable(transform: EagerContext, node: cst.BaseExpression) -> bool:
    """Is ``node`` a tf.Variable: a ``tf.Variable(...)`` call, or a name every binding of which is one?"""
    if isinstance(node, cst.Call):
        func = node.func
        return isinstance(func, (cst.Name, cst.Attribute)) and transform.qualified_name(func) in _VARIABLE_FACTORIES
    if not isinstance(node, cst.Name):
        return False
    scope = transform.scopes.scope_of(node)
    assignments = scope[node.value] if scope is not None else []
    if not assignments:
        return False
    parents = transform.index.parents
    for assignment in assignments:
        target = parents.get(assignment.node) if assignment.node is not None else None
        assign = parents.get(target) if isinstance(target, cst.AssignTarget) else None
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.value, cst.Call)):
            return False
        if not holds_variable(transform, assign.value):
            return False
    return True
