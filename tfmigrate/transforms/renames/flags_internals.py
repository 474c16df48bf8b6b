"""TFM505: the internals of TF <= 1.4's ``tf.flags`` wrapper, which TF 2.15's absl flags lack.

TF 1.0-1.4's ``tensorflow/python/platform/flags.py`` was a thin argparse wrapper: ``FLAGS._parse_flags(args=None)``
ran ``parse_known_args(args)`` (``sys.argv[1:]`` when None), stored every value in the dict
``FLAGS.__dict__['__flags']`` (name -> parsed value, read as ``FLAGS.__flags`` outside a class) and returned
the unknown arguments. TF 1.5+ wraps absl, where neither exists: the renamed code raises AttributeError.

- ``FLAGS._parse_flags()`` -> ``FLAGS(sys.argv, known_only=True)`` (absl parses the known flags and returns the
  rest after the program name: ``[1:]`` where the value is used); ``_parse_flags(args)`` -> ``FLAGS([sys.argv[0],
  *args], known_only=True)[1:]``.
- ``FLAGS.__flags`` / ``FLAGS.__dict__['__flags']`` read (``.items()``, ``[name]``, a ``for``, ``sorted(...)``...)
  -> a dict of the flags the program defined (absl's and TensorFlow's own flags left out, as TF 1.4 had
  none of them); anything else (a store, a name bound to it, a computed use) is flagged on its line.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM505

FLAGS_OBJECTS = frozenset({
    "tensorflow.flags.FLAGS", "tensorflow.app.flags.FLAGS", "tensorflow.compat.v1.flags.FLAGS",
    "tensorflow.compat.v1.app.flags.FLAGS", "tensorflow.python.platform.flags.FLAGS",
})
READ_METHODS = frozenset({"items", "keys", "values", "get", "copy", "__contains__", "__getitem__", "__len__", "__iter__"})
READ_BUILTINS = frozenset({"sorted", "len", "dict", "list", "str", "repr", "print", "set", "tuple", "iter", "enumerate"})
VALUES = ('{{f.name: f.value for m, fs in {flags}.flags_by_module_dict().items() '
          'if not m.startswith(("absl.", "tensorflow.")) for f in fs}}')


def shown_code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


class FlagsInternals:
    """Mixin of ``CompatV1Renames``: ``leave_Call`` and the part of ``leave_Attribute`` for FLAGS internals."""

    def _is_flags(self, node: cst.CSTNode) -> bool:
        return self.qualified_name(node) in FLAGS_OBJECTS  # type: ignore[attr-defined]

    def flags_internal(self, original: cst.CSTNode) -> str | None:
        """``"parse"`` / ``"dict"`` when ``original`` is ``FLAGS._parse_flags`` / ``FLAGS.__flags`` /
        ``FLAGS.__dict__['__flags']`` on a tf.flags FLAGS, else None."""
        if type(original) is cst.Attribute and original.attr.value in ("_parse_flags", "__flags"):
            if self._is_flags(original.value):
                return "parse" if original.attr.value == "_parse_flags" else "dict"
        if (type(original) is cst.Subscript and type(original.value) is cst.Attribute
                and original.value.attr.value == "__dict__" and len(original.slice) == 1
                and type(original.slice[0].slice) is cst.Index
                and type(original.slice[0].slice.value) is cst.SimpleString
                and original.slice[0].slice.value.evaluated_value == "__flags"
                and self._is_flags(original.value.value)):
            return "dict"
        return None

    def _above_flags_internal(self, node: cst.Attribute) -> bool:
        """Is ``node`` a chain over a FLAGS internal (``FLAGS.__flags.items``)?"""
        below = node.value
        while type(below) in (cst.Attribute, cst.Subscript):
            if self.flags_internal(below) is not None:
                return True
            below = below.value  # type: ignore[attr-defined]
        return False

    def _parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.index.parents.get(node)  # type: ignore[attr-defined]

    def _read_only(self, node: cst.CSTNode) -> bool:
        """Is the dict only read where it stands (a snapshot reads the same)?"""
        parent = self._parent(node)
        if type(parent) is cst.Attribute and parent.value is node and parent.attr.value in READ_METHODS:
            call = self._parent(parent)
            return type(call) is cst.Call and call.func is parent
        if type(parent) is cst.Subscript and parent.value is node:
            above = self._parent(parent)
            return not (isinstance(above, (cst.AssignTarget, cst.Del)) or
                        (isinstance(above, (cst.AugAssign, cst.AnnAssign)) and above.target is parent))
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
            return True
        if type(parent) is cst.ComparisonTarget and parent.comparator is node:
            return type(parent.operator) in (cst.In, cst.NotIn)
        if type(parent) is cst.Arg and not parent.keyword and not parent.star:
            call = self._parent(parent)
            return (type(call) is cst.Call and type(call.func) is cst.Name and call.func.value in READ_BUILTINS
                    and self.is_builtin(call.func))  # type: ignore[attr-defined]
        return False

    def rewrite_flags_dict(self, original: cst.CSTNode, flags: cst.BaseExpression) -> cst.BaseExpression | None:
        """The new ``FLAGS.__flags`` read (``flags``: the FLAGS expression, renamed), or None (flagged)."""
        values = VALUES.format(flags=shown_code(flags))
        shown = f"{shown_code(flags)}.__flags"  # the same words in every pass (the FLAGS part renamed)
        if not self._read_only(original):
            self.flag(original, TFM505,  # type: ignore[attr-defined]
                      f"{shown} (TF <= 1.4's dict of flag values) does not exist in TensorFlow 2.15's absl flags: "
                      f"read the values as {values}, set one with {shown_code(flags)}.<name> = value")
            return None
        if not self.fix(original, TFM505,  # type: ignore[attr-defined]
                        f"{shown} (TF <= 1.4's dict of flag values) does not exist in TensorFlow 2.15: "
                        "the program's flags and their values are read from absl"):
            return None
        return cst.parse_expression(values)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if type(func) is not cst.Attribute or func.attr.value != "_parse_flags" or self.flags_internal(func) != "parse":
            return updated
        args = [a for a in original.args if not (type(a.value) is cst.Name and a.value.value == "None")]
        flags = updated.func.value  # type: ignore[attr-defined]
        if len(args) > 1 or any(a.star or (a.keyword and a.keyword.value != "args") for a in args):
            return updated  # not the legacy signature: leave_Attribute flags the name
        statement = type(self._parent(original)) is cst.Expr
        argv = "sys.argv" if not args else f"[sys.argv[0], *{shown_code(args[0].value)}]"
        new = f"{shown_code(flags)}({argv}, known_only=True)" + ("" if statement and not args else "[1:]")
        if statement and args:
            new = new[:-len("[1:]")]
        if not self.fix(original, TFM505,  # type: ignore[attr-defined]
                        f"{shown_code(flags)}._parse_flags() (TF <= 1.4's argparse wrapper) does not exist in TensorFlow 2.15's absl "
                        f"flags: {new} parses the known flags the same way and leaves the rest"):
            return updated
        self.imports.add("sys")  # type: ignore[attr-defined]
        return expression(new)
