"""TFM17: ``tf.contrib.learn`` input functions, metrics and exports around the canned estimators.

- TFM170 ``learn.io.numpy_input_fn`` / ``pandas_input_fn`` -> ``tf.compat.v1.estimator.inputs.*``.
  The contrib versions are thin wrappers of the core ones that default to ``shuffle=True``
  (tensorflow/contrib/learn/python/learn/learn_io/{numpy,pandas}_io.py, TF 1.x); the core versions
  take ``shuffle=None`` and raise, so the legacy default is written out.

Names are matched by qualified name (every import form); what cannot be proven is flagged.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import expression

_LEARN = "tensorflow.contrib.learn."
# legacy positional orders (identical in every TF 1.x release of learn_io)
INPUT_FNS = {
    "numpy_input_fn": ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads"),
    "pandas_input_fn": ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads",
                        "target_column"),
}


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def learn_io_function(qualified: str | None) -> str | None:
    """``numpy_input_fn`` / ``pandas_input_fn`` when ``qualified`` names the contrib.learn version."""
    if not qualified or not qualified.startswith(_LEARN):
        return None
    parts = qualified[len(_LEARN):].split(".")
    if parts[-1] not in INPUT_FNS:
        return None
    # learn.io.numpy_input_fn, learn.learn_io.numpy_input_fn, learn.python.learn.learn_io.numpy_io.numpy_input_fn
    if set(parts[:-1]) <= {"io", "learn_io", "python", "learn", "numpy_io", "pandas_io"} and (
        {"io", "learn_io"} & set(parts[:-1])
    ):
        return parts[-1]
    return None


class LearnIOTransform(FamilyTransform):
    FAMILY = "TFM17"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tf = "tf"

    def visit_Module(self, node: cst.Module) -> bool:
        self._tf = _tensorflow_alias(node)
        return True

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = learn_io_function(self.qualified_name(original.func))
        if name is not None:
            return self._input_fn(name, original, updated)
        return updated

    # --- TFM170 -----------------------------------------------------------------------------------
    def _input_fn(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        order = INPUT_FNS[name]
        given: set[str] = set()
        for i, arg in enumerate(updated.args):
            if arg.star:
                self.flag(original, "TFM170", f"tf.contrib.learn.io.{name}(*args/**kwargs): spell the arguments "
                          f"out, or call tf.compat.v1.estimator.inputs.{name} with shuffle=True (the legacy "
                          "default; the core function has no default and raises)")
                return updated
            if arg.keyword is None:
                if i >= len(order):
                    self.flag(original, "TFM170", f"tf.contrib.learn.io.{name}: too many positional arguments")
                    return updated
                given.add(order[i])
            else:
                given.add(arg.keyword.value)
        unknown = given - set(order)
        if unknown:
            self.flag(original, "TFM170", f"tf.contrib.learn.io.{name}({', '.join(sorted(unknown))}=...): not an "
                      f"argument of the legacy function; rewrite by hand as tf.compat.v1.estimator.inputs.{name}")
            return updated
        note = "" if "shuffle" in given else " and shuffle=True written out (the legacy default; the core function raises without it)"
        if not self.fix(original, "TFM170", f"tf.contrib.learn.io.{name} is tf.compat.v1.estimator.inputs.{name}"
                        + note):
            return updated
        self.remove_imports_of(original.func)
        self.imports.add("tensorflow", asname=None if self._tf == "tensorflow" else self._tf)
        args = list(updated.args)
        if "shuffle" not in given:
            keyword = cst.Arg(
                value=cst.Name("True"), keyword=cst.Name("shuffle"),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")),
            )
            if args:
                last = args[-1]
                comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                if isinstance(last.comma, cst.Comma) and len(args) > 1 and isinstance(args[-2].comma, cst.Comma):
                    comma = args[-2].comma  # one argument a line: the new one on a line of its own
                elif isinstance(last.comma, cst.Comma):
                    comma = last.comma
                args[-1] = last.with_changes(comma=comma)
                keyword = keyword.with_changes(comma=cst.MaybeSentinel.DEFAULT if not isinstance(last.comma, cst.Comma)
                                               else last.comma)
            args.append(keyword)
        return updated.with_changes(func=expression(f"{self._tf}.compat.v1.estimator.inputs.{name}"), args=args)


def _tensorflow_alias(module: cst.Module) -> str:
    """The name new code spells TensorFlow with: ``import tensorflow as X`` at module level, else ``tf``."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if _code(alias.name) == "tensorflow":
                            return alias.asname.name.value if alias.asname else "tensorflow"  # type: ignore[union-attr]
    return "tf"
