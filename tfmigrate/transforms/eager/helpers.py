"""TFM417/TFM421/TFM422: tfe functions with no TF 2 name, written into the module as small TF 2 functions.

``tfe.implicit_gradients`` / ``tfe.implicit_value_and_gradients`` (as a decorator, or called on any
function), ``tfe.Saver`` and ``tfe.restore_variables_on_create`` have no TensorFlow 2 name, but each
is a few lines of TF 2 code with the same behaviour (read from ``tensorflow/contrib/eager/python``
at r1.5-r1.8: ``backprop.implicit_val_and_grad``, ``saver.Saver``,
``saver.restore_variables_on_create``). The eager transform (``transforms/eager.py``) asks this
module for a helper's name where a legacy use cannot be rewritten in place; the helper's definition
is inserted once, after the imports that precede its first use.

What the helpers keep from TF 1.x:

- implicit gradients: the function runs under a tape; the gradients are those of every trainable
  variable it read, in creation order (``tape.watched_variables()``), as ``(gradient, variable)``
  pairs, and ``ValueError`` when it read none;
- ``EagerSaver``: ``tf.compat.v1.train.Saver(var_list)`` used without a session, name-based
  checkpoints in the same format (``save(file_prefix, global_step=None)`` returns the path,
  ``restore(file_prefix)``), written from the CPU as tfe.Saver did;
- ``restore_variables_on_create(save_path, map_func=None)``: nothing when ``save_path`` is falsy;
  otherwise every variable created in the block takes the checkpoint's value of its name (mapped
  by ``map_func``) once, and a trainable floating-point variable (a weight) the checkpoint lacks
  raises ``NotFoundError``. Any other variable the checkpoint lacks keeps its initial value: TF 2
  creates variables TF 1 eager code never had (a Keras model's int64 step counters in its
  constructor, a Keras optimizer's ``iteration`` and slots on first use, where TF 1's
  ``GradientDescentOptimizer`` created none), and the legacy error would stop every resumed run.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.codemod.tree import is_docstring
from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.rule_ids import TFM415, TFM417, TFM421, TFM422, TFM424
from tfmigrate.transforms.eager.rnn import CUDNN_CLASSES
from tfmigrate.transforms.eager.rnn import template as cudnn_template

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.eager.context import EagerContext

# the docstring of a helper tfmigrate wrote: "tfe.implicit_gradients(f) in TF 2 (written by tfmigrate, TFM417)."
_WRITTEN = re.compile(r"(?:tfe|tf\.contrib\.cudnn_rnn)\.(\w+)\b[^\n]* in TF 2 \(written by tfmigrate")

# tfe symbol -> (helper base name, rule)
HELPER_SYMBOLS = {
    "implicit_gradients": ("implicit_gradients", TFM417),
    "implicit_value_and_gradients": ("implicit_value_and_gradients", TFM417),
    "Saver": ("EagerSaver", TFM421),
    "restore_variables_on_create": ("restore_variables_on_create", TFM422),
    "gradients_function": ("gradients_function", TFM424),
    "value_and_gradients_function": ("value_and_gradients_function", TFM424),
}

_GRADIENTS = '''\
def {name}(f):
    """tfe.{symbol}(f) in TF 2 (written by tfmigrate, TFM417)."""

    def {inner}(*args, **kwargs):
        with {tf}.GradientTape() as tape:
            value = f(*args, **kwargs)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was being computed.")
        return {ret}list(zip(tape.gradient(value, variables), variables))

    return {inner}
'''

_ARGUMENT_GRADIENTS = '''\
def {name}(f, params=None):
    """tfe.{symbol}(f, params) in TF 2 (written by tfmigrate: `tfmigrate rules TFM424`)."""

    def {inner}(*args, **kwargs):
        dy = kwargs.pop("dy", None)
        if kwargs:
            raise ValueError("Functions to be differentiated cannot receive keyword arguments.")
        if params is None:
            positions = range(len(args))
        elif all(isinstance(p, int) for p in params):
            positions = params
        else:
            import inspect

            names = inspect.getfullargspec(f).args
            positions = [names.index(p) for p in params]
        args = list(args)
        with {tf}.GradientTape() as tape:
            sources = []
            for i in positions:
                args[i] = {tf}.identity({tf}.convert_to_tensor(args[i]))
                tape.watch(args[i])
                sources.append(args[i])
            value = f(*args)
        if value is None:
            raise ValueError("Cannot differentiate a function that returns None: %s" % f)
        return {ret}tape.gradient(value, sources, output_gradients=dy)

    return {inner}
'''

_SAVER = '''\
class {name}(object):
    """tfe.Saver in TF 2 (written by tfmigrate, TFM421): tf.compat.v1.train.Saver without a session."""

    def __init__(self, var_list):
        self._saver = {tf}.compat.v1.train.Saver(var_list=var_list)

    def save(self, file_prefix, global_step=None):
        with {tf}.device("/device:CPU:0"):
            return self._saver.save(None, file_prefix, write_meta_graph=False, global_step=global_step)

    def restore(self, file_prefix):
        with {tf}.device("/device:CPU:0"):
            self._saver.restore(None, file_prefix)
'''

_RESTORE = '''\
@{contextlib}.contextmanager
def {name}(save_path, map_func=None):
    """tfe.restore_variables_on_create in TF 2 (written by tfmigrate, TFM422: `tfmigrate rules TFM422`)."""
    if not save_path:
        yield
        return
    reader = {tf}.train.load_checkpoint(save_path)
    pending = set(reader.get_variable_to_shape_map())

    def restore_on_create(next_creator, **kwargs):
        variable = next_creator(**kwargs)
        name = variable.name.split(":")[0]
        if map_func is not None:
            name = map_func(name)
        if reader.has_tensor(name):
            if name in pending:
                variable.assign(reader.get_tensor(name))
                pending.discard(name)
        elif variable.trainable and variable.dtype.is_floating:
            raise {tf}.errors.NotFoundError(None, None, "%s not found in checkpoint" % name)
        return variable

    with {tf}.variable_creator_scope(restore_on_create):
        yield
'''


@dataclass
class EagerHelpers:
    """The helpers one module needs: symbol -> name, and the first original node that uses each."""

    names: dict[str, str] = field(default_factory=dict)
    # helpers the module defines already (an earlier run wrote them: a chunk of a huge module rewritten
    # after another one, see tfmigrate.codemod.chunks): symbol -> name, used instead of a second copy
    existing: dict[str, str] = field(default_factory=dict)

    def find_existing(self, module: cst.Module) -> None:
        for statement in module.body:
            if type(statement) not in (cst.FunctionDef, cst.ClassDef) or not isinstance(statement.body, cst.IndentedBlock):
                continue
            first = statement.body.body[0] if statement.body.body else None
            if first is None or not is_docstring(first):
                continue
            doc = first.body[0].value.evaluated_value  # type: ignore[attr-defined]
            found = _WRITTEN.match(doc) if isinstance(doc, str) else None
            if found:
                self.existing.setdefault(found.group(1), statement.name.value)

    def name_for(self, transform: EagerContext, symbol: str) -> str:
        if symbol in self.existing:
            return self.existing[symbol]
        if symbol not in self.names:
            self.names[symbol] = transform.fresh(_base(symbol))
            if symbol == "restore_variables_on_create":
                transform.imports.add("contextlib")
        return self.names[symbol]

    def peek(self, transform: EagerContext, symbol: str) -> str:
        """The name ``name_for`` would give, without taking it."""
        if symbol in self.existing:
            return self.existing[symbol]
        if symbol in self.names:
            return self.names[symbol]
        base = _base(symbol)
        name, i = base, 1
        while name in transform.names_in_use:
            name, i = f"{base}_{i}", i + 1
        return name

    def definitions(self, tf: str, indent: str = "    ") -> list[cst.BaseStatement]:
        out = []
        for symbol, name in self.names.items():
            if symbol in CUDNN_CLASSES:
                code = cudnn_template(symbol, name, tf)
            elif symbol == "Saver":
                code = _SAVER.format(name=name, tf=tf)
            elif symbol in ("gradients_function", "value_and_gradients_function"):
                value = symbol.startswith("value")
                code = _ARGUMENT_GRADIENTS.format(
                    name=name,
                    symbol=symbol,
                    inner="value_and_gradients" if value else "gradients",
                    tf=tf,
                    ret="value, " if value else "",
                )
            elif symbol == "restore_variables_on_create":
                code = _RESTORE.format(name=name, tf=tf, contextlib="contextlib")
            else:
                value = symbol == "implicit_value_and_gradients"
                code = _GRADIENTS.format(
                    name=name,
                    symbol=symbol,
                    inner="value_and_gradients" if value else "gradients",
                    tf=tf,
                    ret="value, " if value else "",
                )
            if indent != "    ":  # the module's own indentation, continuation lines included
                code = "\n".join(_reindent(line, indent) for line in code.split("\n"))
            blank = [cst.EmptyLine(indent=False)] * 2
            out.append(cst.parse_statement(code).with_changes(leading_lines=blank))
        return out

    def insert(self, transform: EagerContext, updated: cst.Module) -> cst.Module:
        """The helper definitions placed after the last import before the first statement that uses one."""
        if not self.names:
            return updated
        wanted = set(self.names.values())
        body = list(updated.body)
        first = next(
            (
                i
                for i, statement in enumerate(body)
                if any(type(n) is cst.Name and n.value in wanted for n in iter_nodes(statement, trivia=False))
            ),
            len(body),
        )
        position = 0  # after the imports (and docstring) the module starts with, never after the first use
        for i, statement in enumerate(body[:first]):
            if not (_is_import(statement) or (i == 0 and is_docstring(statement))):
                break
            position = i + 1
        helpers = self.definitions(transform._tfname(), updated.default_indent)
        if position < len(body):  # two blank lines after a definition, as before it
            following = body[position]
            lines = list(following.leading_lines)
            blank = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
            if blank < 2:
                lines = [cst.EmptyLine(indent=False)] * (2 - blank) + lines
                body[position] = following.with_changes(leading_lines=lines)
        return updated.with_changes(body=body[:position] + helpers + body[position:])


def _reindent(line: str, indent: str) -> str:
    """A template line (indented by multiples of four spaces) indented with ``indent`` per level."""
    stripped = line.lstrip(" ")
    return indent * ((len(line) - len(stripped)) // 4) + stripped


def _base(symbol: str) -> str:
    """The helper's name before any suffix: the tfe helpers' own names, the legacy class name otherwise."""
    return HELPER_SYMBOLS[symbol][0] if symbol in HELPER_SYMBOLS else symbol


def _is_import(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body
    )


_MESSAGES = {
    "gradients_function": "tfe.gradients_function(f) has no TF 2 name: it is {name}(f), a function around "
    "tf.GradientTape written into this module (the gradients of f with respect to its arguments)",
    "value_and_gradients_function": "tfe.value_and_gradients_function(f) has no TF 2 name: it is {name}(f), a "
    "function around tf.GradientTape written into this module (f's value and its gradients with respect to its "
    "arguments)",
    "implicit_gradients": "tfe.implicit_gradients(f) has no TF 2 name: it is {name}(f), a function around "
    "tf.GradientTape written into this module (the same (gradient, variable) pairs)",
    "implicit_value_and_gradients": "tfe.implicit_value_and_gradients(f) has no TF 2 name: it is {name}(f), a "
    "function around tf.GradientTape written into this module (the same value and (gradient, variable) pairs)",
    "Saver": "tfe.Saver has no TF 2 name: it is {name}, a class written into this module around "
    "tf.compat.v1.train.Saver(var_list) used without a session (the same name-based checkpoints)",
    "restore_variables_on_create": "tfe.restore_variables_on_create has no TF 2 name: it is {name}, a context "
    "manager written into this module around tf.variable_creator_scope (the same name-based restore on creation)",
}


def helper_call(
    transform: EagerContext, symbol: str, original: cst.CSTNode, updated: cst.BaseExpression
) -> cst.BaseExpression | None:
    """``tfe.<symbol>(...)`` or a bare ``tfe.<symbol>`` -> the module's helper; None when not fixed."""
    rule = HELPER_SYMBOLS[symbol][1]
    name = transform.helpers.peek(transform, symbol)
    if not transform.fix(original, rule, _MESSAGES[symbol].format(name=name)):
        return None
    name = transform.helpers.name_for(transform, symbol)
    transform.changed = True
    if symbol in ("Saver", "restore_variables_on_create"):
        transform.flag(
            original,
            TFM415,
            f"tfe.{symbol} checkpoints are keyed by variable names, which TF 2 Keras layers may name otherwise: "
            "compare an old checkpoint with `tfmigrate ckpt diff OLD_CKPT --model NEW_CKPT` and rename with "
            "`tfmigrate ckpt convert OLD_CKPT OUT --map map.toml`",
        )
    if isinstance(updated, cst.Call):
        return updated.with_changes(func=cst.Name(name))
    return cst.Name(name, lpar=updated.lpar, rpar=updated.rpar)
