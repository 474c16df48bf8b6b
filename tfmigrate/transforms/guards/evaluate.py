"""Version guards decided against TensorFlow 2.15, read from the ``ast`` in a closed grammar (never run).

A guard is code that picks a branch by the TensorFlow it runs on: ``if "concat_v2" in dir(tf):``,
``hasattr(tf.nn, "deconv2d")``, ``getattr(tf, "x", None)``, ``tf.__version__`` comparisons (``int(
tf.__version__.split('.')[0]) < 1``, ``LooseVersion(tf.__version__) >= "1.0"``, ``tf.VERSION``), and
``try: X = tf.legacy_name / from tensorflow.contrib import X`` with an ``except AttributeError /
ImportError`` fallback. :func:`decide` reads every such guard of a module and says which branch TensorFlow
2.15 takes, from the name tables of ``common.tf_names`` (what ``tf`` and its modules hold in 2.15.1);
anything outside the grammar is undecided and left to the other rules, as any code.

The grammar: literals; the names the file binds to ``tensorflow`` modules by import; ``tf.__version__``,
``tf.version.VERSION``, ``tf.VERSION`` (which the renames family writes as ``tf.compat.v1.VERSION``: the
guard is read as it will run after the rewrite) as ``"2.15.1"``; ``hasattr``/``getattr``/``dir`` of a
TensorFlow module; ``int``/``float``/``str``/``len``/``tuple``/``list``/``map(int, ...)``; the string
methods ``split``/``startswith``/``endswith``/``strip``; subscripts and slices; ``LooseVersion``,
``StrictVersion``, ``packaging.version.parse``/``Version`` and ``pkg_resources.parse_version`` of a
version string; comparisons, ``not``/``and``/``or``; a name bound once in the file to such an expression
(module or function scope), a ``self.X`` attribute bound once in its class, and a call of a module-level
function without parameters whose body is one ``return`` of one. Nothing the file names is imported,
looked up or called.
"""

from __future__ import annotations

import ast
import builtins
import operator
import re
from dataclasses import dataclass, field

from tfmigrate.transforms.common.tf_names import PRIVATE, V1, names

VERSION = "2.15.1"  # the TensorFlow the rewrite targets (tfmigrate/data/tf215_names.json's "tensorflow")
TF = "tensorflow"
MAX_DEPTH = 20  # names read through names, functions through functions

# The module paths whose first part below ``tensorflow`` TF 2.15 has no package for (import fails).
_VERSION_ATTRS = frozenset({"__version__", "VERSION", "version.VERSION", "compat.v1.VERSION", "compat.v2.__version__",
                            "compat.v1.__version__", "version.__version__"})
_LOOSE = frozenset({"distutils.version.LooseVersion", "looseversion.LooseVersion", "setuptools._distutils.version.LooseVersion"})
_STRICT = frozenset({"distutils.version.StrictVersion", "packaging.version.parse", "packaging.version.Version",
                     "pkg_resources.parse_version", "setuptools._distutils.version.StrictVersion"})
# An exception a handler names -> the exceptions it catches (of the three a guard raises).
_CATCHES = {
    "BaseException": {"AttributeError", "ImportError", "ModuleNotFoundError"},
    "Exception": {"AttributeError", "ImportError", "ModuleNotFoundError"},
    "AttributeError": {"AttributeError"},
    "ImportError": {"ImportError", "ModuleNotFoundError"},
    "ModuleNotFoundError": {"ModuleNotFoundError"},
}
_BUILTIN_EXCEPTIONS = frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
                                and issubclass(getattr(builtins, n), BaseException))


class Undecided(Exception):
    """Outside the grammar, or not known for TF 2.15: the guard is left to the other rules."""


class Raised(Exception):
    """Evaluating the expression raises ``kind`` (``AttributeError``...) on TF 2.15."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


# ------------------------------------------------------------------------------------------------ values


@dataclass(frozen=True)
class Module:
    """A TensorFlow module: ``rel`` below ``tensorflow`` ("" for tf itself)."""

    rel: str


@dataclass(frozen=True)
class Present:
    """Something TF 2.15 has that is not a module (a function, a class): only its existence is known."""

    rel: str


@dataclass(frozen=True)
class Listing:
    """``dir(module)``: only ``in`` / ``not in`` are read."""

    rel: str


@dataclass(frozen=True)
class Version:
    """A parsed version: ``loose`` compares as distutils' LooseVersion (component lists), else as
    StrictVersion/packaging (numbers, zero-padded)."""

    parts: tuple
    loose: bool

    def key(self, length: int) -> tuple:
        return self.parts if self.loose else self.parts + (0,) * (length - len(self.parts))


def read_from_compat_v1(rel: str) -> bool:
    """``tf.<rel>`` is missing from TF 2.15's ``tf`` but kept in ``tf.compat.v1``: a read of it written in
    code raises as written, not after the rewrite (TFM501 moves it there), so a guard on it is the rewrite's
    to decide, never the branch for older TensorFlow."""
    return names().status(rel) == V1


def attribute(rel: str, name: str) -> Module | Present | None:
    """What ``getattr(tf.<rel>, name)`` is on TF 2.15 (None: missing); Undecided when the tables cannot say."""
    if name.startswith("_") or (not rel and name in PRIVATE):
        raise Undecided(f"tf.{name}: private")
    table = names()
    node = table.modules[table.v2_root]
    for part in [p for p in rel.split(".") if p]:
        value = node.get(part)
        if not value:
            raise Undecided(f"tf.{rel}: not a module of the tables")
        node = table.modules[value]
    value = node.get(name)
    if value is None:
        return None
    full = f"{rel}.{name}" if rel else name
    return Module(full) if value else Present(full)


def module_import(path: str) -> str | None:
    """Importing the module ``path`` on TF 2.15: None when it works, else the exception (Undecided when
    the tables cannot say: only ``tensorflow.<public module>...`` and paths whose first part TF 2.15 lacks
    are decided)."""
    if path != TF and not path.startswith(TF + "."):
        raise Undecided(path)
    parts = path.split(".")[1:]
    if not parts:
        return None
    if parts[0] in PRIVATE or parts[0].startswith("_"):
        raise Undecided(path)
    rel = ""
    for part in parts:
        found = attribute(rel, part)
        if found is None:
            return "ModuleNotFoundError"
        if not isinstance(found, Module):
            raise Undecided(path)
        rel = found.rel
    return None


# ------------------------------------------------------------------------------------------------ the file's names


@dataclass
class Bindings:
    """Who binds each name of a module: imports (name -> the dotted names it is bound to), other
    bindings, the scope of every node, single assignments, ``self`` attributes and small functions."""

    imports: dict[str, set[str]] = field(default_factory=dict)
    others: dict[str, int] = field(default_factory=dict)  # name -> bindings other than imports
    assigned: dict[str, list[tuple[ast.AST, ast.expr]]] = field(default_factory=dict)  # name -> (scope, value)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    attributes: dict[str, list[tuple[ast.AST, ast.expr]]] = field(default_factory=dict)  # attr -> (class, value)
    attribute_stores: dict[str, int] = field(default_factory=dict)
    scope: dict[int, ast.AST] = field(default_factory=dict)  # id(node) -> the function/class/module it is in
    candidates: list[ast.AST] = field(default_factory=list)  # If, Try, IfExp and Call nodes, in source order

    @classmethod
    def of(cls, tree: ast.Module) -> Bindings:
        self = cls()
        self._walk(tree, tree)
        return self

    def _bind(self, name: str) -> None:
        self.others[name] = self.others.get(name, 0) + 1

    def _walk(self, node: ast.AST, scope: ast.AST) -> None:
        stack = [(node, scope)]
        candidates = self.candidates
        while stack:
            node, scope = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                self.scope[id(node)] = scope
                if type(node.ctx) is not ast.Load:
                    self._bind(node.id)
                continue
            if kind is ast.Constant or kind is ast.Load or kind is ast.Store:
                continue
            self.scope[id(node)] = scope
            if kind is ast.If or kind is ast.Try or kind is ast.IfExp or kind is ast.Call:
                candidates.append(node)
            inner = scope
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if not isinstance(node, ast.Lambda):
                    self._bind(node.name)
                    if (scope is not None and isinstance(scope, ast.Module) and not node.decorator_list
                            and not (node.args.args or node.args.posonlyargs or node.args.kwonlyargs or node.args.vararg
                                     or node.args.kwarg)):
                        self.functions[node.name] = node
                    for decorator in node.decorator_list:
                        stack.append((decorator, scope))
                    if node.returns is not None:
                        stack.append((node.returns, scope))
                for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg):
                    if arg is not None:
                        self._bind(arg.arg)
                for default in (*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]):
                    stack.append((default, scope))
                body = node.body if isinstance(node.body, list) else [node.body]
                for child in body:
                    stack.append((child, node))
                continue
            if isinstance(node, ast.ClassDef):
                self._bind(node.name)
                for child in (*node.decorator_list, *node.bases, *node.keywords):
                    stack.append((child, scope))
                for child in node.body:
                    stack.append((child, node))
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports.setdefault(alias.asname, set()).add(alias.name)
                    else:
                        head = alias.name.partition(".")[0]
                        self.imports.setdefault(head, set()).add(head)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    bound = alias.asname or alias.name
                    if node.level or not node.module or alias.name == "*":
                        self._bind(bound)
                        if alias.name == "*":
                            self._bind("*")
                    else:
                        self.imports.setdefault(bound, set()).add(f"{node.module}.{alias.name}")
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for name in node.names:
                    self._bind(name)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self._bind(node.name)
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                self.attribute_stores[node.attr] = self.attribute_stores.get(node.attr, 0) + 1
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    self.assigned.setdefault(target.id, []).append((scope, node.value))
                elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
                      and isinstance(scope, ast.FunctionDef)):
                    self.attributes.setdefault(target.attr, []).append((scope, node.value))
            children = []
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    children.extend((item, inner) for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    children.append((value, inner))
            stack.extend(reversed(children))  # popped in source order

    def qualified(self, name: str) -> str | None:
        """The dotted name an imported name stands for, when it is bound once, by import only."""
        targets = self.imports.get(name)
        if not targets or len(targets) != 1 or name in self.others:
            return None  # (a `from m import *` is taken not to rebind an imported name, as every family takes it)
        return next(iter(targets))


# ------------------------------------------------------------------------------------------------ the reader


_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
            ast.NotEq: operator.ne}
_SCALARS = (str, int, float, bool, type(None))


class Reader:
    """Evaluates guard expressions of one module (see the module docstring for the grammar)."""

    def __init__(self, tree: ast.Module, bindings: Bindings | None = None):
        self.tree = tree
        self.bindings = bindings or Bindings.of(tree)
        self.depth = 0
        self.touched = False  # did the last truth() read anything of TensorFlow?

    # --- names
    def qualify(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.bindings.qualified(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualify(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def _builtin(self, node: ast.expr, name: str) -> bool:
        return (isinstance(node, ast.Name) and node.id == name and name not in self.bindings.imports
                and name not in self.bindings.others)

    def _tensorflow(self, qualified: str, node: ast.expr) -> object:
        self.touched = True
        rel = qualified[len(TF) + 1:] if qualified != TF else ""
        if rel in _VERSION_ATTRS or rel.replace("compat.v1.", "", 1).replace("compat.v2.", "", 1) in _VERSION_ATTRS:
            return VERSION
        value: object = Module("")
        for part in [p for p in rel.split(".") if p]:
            if not isinstance(value, Module):
                raise Undecided(ast.unparse(node))
            found = attribute(value.rel, part)
            if found is None:
                if read_from_compat_v1(rel):  # tflearn's `try: tf.variable_scope(...) except: tf.variable_op_scope(...)`
                    raise Undecided(f"tf.{rel}: tf.compat.v1 after the rewrite")
                raise Raised("AttributeError")
            value = found
        return value

    # --- expressions
    def value(self, node: ast.expr) -> object:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Undecided("too deep")
            return self._value(node)
        finally:
            self.depth -= 1

    def _value(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, _SCALARS):
                return node.value
            raise Undecided("constant")
        if isinstance(node, (ast.Tuple, ast.List)):
            items = tuple(self.value(e) for e in node.elts)
            return items if isinstance(node, ast.Tuple) else list(items)
        if isinstance(node, (ast.Name, ast.Attribute)):
            qualified = self.qualify(node)
            if qualified is not None:
                if qualified == TF or qualified.startswith(TF + "."):
                    return self._tensorflow(qualified, node)
                raise Undecided(qualified)
            if isinstance(node, ast.Name):
                return self._name(node)
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                return self._self_attribute(node)
            base = self.value(node.value)
            if isinstance(base, Module):
                found = attribute(base.rel, node.attr)
                if found is None:
                    raise Raised("AttributeError")
                return found
            raise Undecided(ast.unparse(node))
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.BoolOp):
            result: object = None
            for operand in node.values:
                result = self.value(operand)
                truth = self.truth_of(result)
                if isinstance(node.op, ast.And) and not truth:
                    return result
                if isinstance(node.op, ast.Or) and truth:
                    return result
            return result
        if isinstance(node, ast.UnaryOp):
            operand = self.value(node.operand)
            if isinstance(node.op, ast.Not):
                return not self.truth_of(operand)
            if isinstance(node.op, ast.USub) and isinstance(operand, (int, float)) and not isinstance(operand, bool):
                return -operand
            raise Undecided("unary")
        if isinstance(node, ast.Subscript):
            base = self.value(node.value)
            if not isinstance(base, (str, tuple, list)):
                raise Undecided("subscript")
            if isinstance(node.slice, ast.Slice):
                bounds = [None if b is None else self.value(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
                if not all(b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in bounds) or bounds[2] == 0:
                    raise Undecided("slice")
                return base[slice(*bounds)]
            index = self.value(node.slice)
            if not isinstance(index, int) or isinstance(index, bool):
                raise Undecided("index")
            try:
                return base[index]
            except IndexError:
                raise Undecided("index out of range") from None
        if isinstance(node, ast.IfExp):
            return self.value(node.body if self.truth(node.test) else node.orelse)
        raise Undecided(type(node).__name__)

    def _name(self, node: ast.Name) -> object:
        """A name the file binds once, by ``name = <guard expression>``, seen where it is read."""
        bound = self.bindings.assigned.get(node.id)
        if not bound or len(bound) != 1 or self.bindings.others.get(node.id, 0) != 1 or node.id in self.bindings.imports:
            raise Undecided(node.id)
        scope, value = bound[0]
        here = self.bindings.scope.get(id(node))
        if scope is not here and not isinstance(scope, ast.Module):
            raise Undecided(node.id)
        if isinstance(scope, ast.Module) and here is scope and value.lineno >= node.lineno:
            raise Undecided(node.id)  # read before it is bound
        return self.value(value)

    def _self_attribute(self, node: ast.Attribute) -> object:
        """``self.X``, bound once in the file (``self.X = <guard expression>`` in a method of the same class)."""
        bound = self.bindings.attributes.get(node.attr)
        if not bound or len(bound) != 1 or self.bindings.attribute_stores.get(node.attr, 0) != 1:
            raise Undecided(node.attr)
        method, value = bound[0]
        here = self.bindings.scope.get(id(node))
        if not isinstance(here, ast.FunctionDef) or self.bindings.scope.get(id(here)) is not self.bindings.scope.get(id(method)):
            raise Undecided(node.attr)
        if not isinstance(self.bindings.scope.get(id(method)), ast.ClassDef):
            raise Undecided(node.attr)
        for fn in (here, method):
            first = fn.args.posonlyargs[:1] or fn.args.args[:1]
            if not first or first[0].arg != "self":
                raise Undecided(node.attr)
        return self.value(value)

    def _call(self, node: ast.Call) -> object:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise Undecided("*args")
        func = node.func
        args = node.args
        if node.keywords:
            raise Undecided("keywords")
        if isinstance(func, ast.Name) and func.id in ("hasattr", "getattr", "dir") and self._builtin(func, func.id):
            return self._reflection(func.id, args)
        if isinstance(func, ast.Name) and func.id == "map" and self._builtin(func, "map") and len(args) == 2:
            convert = args[0]
            if not (isinstance(convert, ast.Name) and convert.id in ("int", "float", "str") and self._builtin(convert, convert.id)):
                raise Undecided("map")
            items = self.value(args[1])
            if not isinstance(items, (list, tuple)):
                raise Undecided("map")
            return [_builtin_call(convert.id, [item]) for item in items]
        if isinstance(func, ast.Name) and self._builtin(func, func.id):
            values = [self.value(a) for a in args]
            return _builtin_call(func.id, values)
        qualified = self.qualify(func)
        if qualified in _LOOSE or qualified in _STRICT:
            if len(args) != 1:
                raise Undecided(qualified)
            return _version(self.value(args[0]), qualified in _LOOSE)
        if qualified is not None and not qualified.startswith(TF + "."):
            raise Undecided(qualified)
        if isinstance(func, ast.Attribute):
            base = self.value(func.value)
            if isinstance(base, str):
                return _string_method(base, func.attr, [self.value(a) for a in args])
            raise Undecided(ast.unparse(func))
        if isinstance(func, ast.Name) and not args:
            return self._function(func)
        raise Undecided(ast.unparse(func))

    def _function(self, func: ast.Name) -> object:
        """``f()`` of a module-level ``def f(): return <guard expression>`` (a docstring allowed)."""
        definition = self.bindings.functions.get(func.id)
        if definition is None or self.bindings.others.get(func.id, 0) != 1 or func.id in self.bindings.imports:
            raise Undecided(func.id)
        body = list(definition.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body = body[1:]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            raise Undecided(func.id)
        return self.value(body[0].value)

    def _reflection(self, name: str, args: list[ast.expr]) -> object:
        if name == "dir":
            if len(args) != 1:
                raise Undecided("dir")
            target = self.value(args[0])
            if not isinstance(target, Module):
                raise Undecided("dir")
            return Listing(target.rel)
        if len(args) not in ((2,) if name == "hasattr" else (2, 3)):
            raise Undecided(name)
        target = self.value(args[0])
        attr = self.value(args[1])
        if not isinstance(target, Module) or not isinstance(attr, str):
            raise Undecided(name)
        found = attribute(target.rel, attr)
        if name == "hasattr":
            return found is not None
        if found is not None:
            return found
        if len(args) == 3:
            return self.value(args[2])
        raise Raised("AttributeError")

    def _compare(self, node: ast.Compare) -> object:
        left = self.value(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node)
            if isinstance(op, (ast.In, ast.NotIn)):
                if isinstance(right, Listing) and isinstance(left, str):
                    result = _listed(right.rel, left)
                elif isinstance(right, (str, tuple, list)) and isinstance(left, _SCALARS) and (
                        not isinstance(right, str) or isinstance(left, str)) and all(
                        isinstance(x, _SCALARS) for x in (right if not isinstance(right, str) else ())):
                    result = left in right
                else:
                    raise Undecided("in")
                result = result if isinstance(op, ast.In) else not result
            elif isinstance(op, (ast.Is, ast.IsNot)):
                if left is not None and right is not None:
                    raise Undecided("is")
                result = (left is None and right is None) if isinstance(op, ast.Is) else not (left is None and right is None)
            else:
                result = _ordered(_COMPARE[type(op)], left, right)
            if not result:
                return False
            left = right
        return True

    # --- truth
    @staticmethod
    def truth_of(value: object) -> bool:
        if isinstance(value, (Module, Present)):
            return True
        if isinstance(value, (Listing, Version)):
            raise Undecided("truth")
        return bool(value)

    def truth(self, node: ast.expr) -> bool:
        """The truth of a guard on TF 2.15; Undecided for a test that reads nothing of TensorFlow (``if DEBUG:``)."""
        self.touched = False
        value = self.truth_of(self.value(node))
        if not self.touched:
            raise Undecided("not a TensorFlow guard")
        return value


def _listed(rel: str, name: str) -> bool:
    if name.startswith("_"):
        raise Undecided("dir: private name")
    return attribute(rel, name) is not None


def _version(value: object, loose: bool) -> Version:
    if isinstance(value, Version):
        return value
    if not isinstance(value, str):
        raise Undecided("version of a non-string")
    if loose:
        parts = []
        for piece in re.split(r"(\d+|[a-z]+|\.)", value.strip()):
            if piece and piece != ".":
                parts.append(int(piece) if piece.isdigit() else piece)
        return Version(tuple(parts), True)
    if not re.fullmatch(r"\d+(\.\d+)*", value.strip()):
        raise Undecided(f"version {value!r}")
    return Version(tuple(int(p) for p in value.strip().split(".")), False)


def _ordered(op, left: object, right: object) -> bool:
    if isinstance(left, Version) or isinstance(right, Version):
        loose = left.loose if isinstance(left, Version) else right.loose  # type: ignore[union-attr]
        if not loose and not (isinstance(left, Version) and isinstance(right, Version)):
            if op in (operator.eq, operator.ne):
                return op(0, 1)  # packaging's Version == str is False
            raise Undecided("Version compared with a string")
        a, b = _version(left, loose), _version(right, loose)
        length = max(len(a.parts), len(b.parts))
        try:
            return op(a.key(length), b.key(length))
        except TypeError:
            raise Undecided("version parts") from None
    plain = (str, int, float, bool, tuple, list, type(None))
    if not isinstance(left, plain) or not isinstance(right, plain):
        raise Undecided("compare")
    try:
        return bool(op(left, right))
    except TypeError:
        raise Undecided("compare") from None


def _builtin_call(name: str, values: list) -> object:
    try:
        if name in ("int", "float", "str", "bool", "len", "tuple", "list", "abs") and len(values) == 1:
            value = values[0]
            if not isinstance(value, (str, int, float, bool, tuple, list)):
                raise Undecided(name)
            if name in ("tuple", "list") and not isinstance(value, (tuple, list, str)):
                raise Undecided(name)
            return getattr(builtins, name)(value)
    except (ValueError, TypeError):
        raise Undecided(name) from None
    raise Undecided(name)


def _string_method(base: str, name: str, args: list) -> object:
    if not all(isinstance(a, (str, int)) or a is None for a in args):
        raise Undecided(name)
    if name in ("split", "rsplit", "startswith", "endswith", "strip", "lstrip", "rstrip", "lower", "upper", "replace",
                "partition", "count", "find"):
        try:
            result = getattr(base, name)(*args)
        except (TypeError, ValueError):
            raise Undecided(name) from None
        return list(result) if isinstance(result, list) else result
    raise Undecided(name)
