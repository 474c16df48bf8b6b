"""The closed grammar in which tfmigrate reads a model's arguments from the user's source: it never runs them.

What ``ckpt diff --model file.py:LINE``, ``ckpt convert --to keras`` and ``report`` (and ``validate`` of a
construction) build is described by a *plan*, read from the ``ast`` by :class:`Reader` and built by
:func:`materialize` in the TensorFlow child. A plan holds only

* literals: numbers, strings, booleans, None, and lists, tuples and dicts of plans;
* ``{"call": NAME, "args": [...], "kwargs": [[key, plan], ...]}``: a constructor of :data:`CONSTRUCTORS`
  (``tf.feature_column.*``, the optimizers and their schedules, ``tf.estimator.RunConfig``...);
* ``{"ref": NAME}``: a value of :data:`REFS` (dtypes, activations, ``losses.Reduction`` members, or a
  constructor itself);
* ``{"factory": plan}``: ``lambda: PLAN`` (an ``optimizer=`` the estimator calls for each graph).

NAME is the full qualified name the source spells through its imports (``fc.numeric_column`` after
``from tensorflow import feature_column as fc`` is ``tensorflow.feature_column.numeric_column``), matched
exactly against the tables below; nothing else the source names is ever looked up, imported or called.
Arithmetic (``10 * 2``, ``[10] * 3``, ``-3 + 6``), ``len``/``min``/``max``/``int``... of literals, subscripts of
literals and the shapes of numpy arrays made by ``np.random.rand(120, 4)`` (a tuple: the array is never
made) are computed here, with bounds on sizes. Anything else is :class:`Refused` with what to write instead.

Imports nothing of tfmigrate; ``materialize`` gets the modules to build from (TensorFlow, numpy) as arguments.
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Any, Callable

# ------------------------------------------------------------------------------------------------ the tables


def _names(prefixes: tuple[str, ...], names: str) -> frozenset[str]:
    return frozenset(f"{p}.{n}" for p in prefixes for n in names.split())


_TF = ("tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2")
CONSTRUCTORS: frozenset[str] = frozenset().union(
    _names(tuple(f"{p}.feature_column" for p in _TF),
           "numeric_column bucketized_column categorical_column_with_vocabulary_list categorical_column_with_identity "
           "categorical_column_with_hash_bucket embedding_column indicator_column crossed_column weighted_categorical_column "
           "shared_embeddings shared_embedding_columns"),
    _names(("tensorflow.keras.optimizers", "tensorflow.keras.optimizers.legacy", "tensorflow.optimizers", "tensorflow.optimizers.legacy",
            "tensorflow.compat.v1.keras.optimizers", "tensorflow.compat.v2.keras.optimizers", "tensorflow.compat.v2.keras.optimizers.legacy"),
           "Adadelta Adagrad Adam Adamax AdamW Ftrl Nadam RMSprop SGD"),
    _names(("tensorflow.keras.optimizers.schedules", "tensorflow.optimizers.schedules"),
           "ExponentialDecay InverseTimeDecay PiecewiseConstantDecay PolynomialDecay CosineDecay CosineDecayRestarts"),
    _names(("tensorflow.train", "tensorflow.compat.v1.train"),
           "AdadeltaOptimizer AdagradOptimizer AdamOptimizer FtrlOptimizer GradientDescentOptimizer MomentumOptimizer "
           "ProximalAdagradOptimizer ProximalGradientDescentOptimizer RMSPropOptimizer"),
    _names(("tensorflow.estimator", "tensorflow.compat.v1.estimator"), "RunConfig WarmStartSettings"),
    _names(("tensorflow", "tensorflow.compat.v1"), "fixed_size_partitioner min_max_variable_partitioner"),
    _names(("tensorflow.keras.initializers",), "Zeros Ones Constant RandomNormal RandomUniform TruncatedNormal GlorotUniform "
                                               "GlorotNormal HeNormal HeUniform"),
    _names(("tensorflow.compat.v1",), "zeros_initializer ones_initializer constant_initializer random_normal_initializer "
                                      "random_uniform_initializer truncated_normal_initializer glorot_uniform_initializer "
                                      "glorot_normal_initializer"),
)
_DTYPES = "float16 bfloat16 float32 float64 int8 int16 int32 int64 uint8 uint16 string bool"
REFS: frozenset[str] = CONSTRUCTORS | frozenset().union(
    _names(_TF + tuple(f"{p}.dtypes" for p in _TF), _DTYPES),
    _names(("numpy",), "float16 float32 float64 int8 int16 int32 int64 uint8 bool_ str_"),
    _names(("tensorflow.nn", "tensorflow.compat.v1.nn", "tensorflow.compat.v2.nn"),
           "relu relu6 elu selu tanh sigmoid softplus softsign leaky_relu swish silu gelu crelu"),
    _names(("tensorflow.math",), "tanh sigmoid softplus"),
    _names(("tensorflow.keras.activations",), "relu elu selu tanh sigmoid softplus softsign swish gelu linear"),
    _names(("tensorflow.keras.losses.Reduction", "tensorflow.losses.Reduction", "tensorflow.compat.v2.keras.losses.Reduction"),
           "AUTO NONE SUM SUM_OVER_BATCH_SIZE"),
    _names(("tensorflow.compat.v1.losses.Reduction",), "NONE SUM SUM_OVER_BATCH_SIZE MEAN SUM_BY_NONZERO_WEIGHTS SUM_OVER_NONZERO_WEIGHTS"),
)
WHAT_IS_READ = ("literals (numbers, strings, lists, dicts), this file's constants, and tf.feature_column.*, "
                "tf.keras.optimizers.*, tf.estimator.RunConfig, dtypes, activations and losses.Reduction by their full names")

MATH = {"math.pi": math.pi, "math.e": math.e, "math.inf": math.inf, "math.tau": math.tau}
MATH_FUNCTIONS: dict[str, Callable[..., Any]] = {"math.sqrt": math.sqrt, "math.exp": math.exp, "math.log": math.log,
                                                 "math.ceil": math.ceil, "math.floor": math.floor}
NUMPY_ARRAYS = frozenset({"rand", "randn", "random", "random_sample", "uniform", "normal", "randint", "zeros", "ones", "empty",
                          "full"})
MAX_ITEMS = 100_000  # the longest string, list or range computed
MAX_BITS = 256  # the largest integer computed
MAX_NODES = 100_000  # the largest plan


class Refused(ValueError):
    """An expression outside the grammar: ``node`` is the part refused, ``why`` says what it is."""

    def __init__(self, node: ast.AST, why: str):
        super().__init__(why)
        self.node = node
        self.why = why


# ------------------------------------------------------------------------------------------------ values


@dataclass(frozen=True)
class Built:
    name: str
    args: tuple
    kwargs: tuple  # ((key, value), ...)


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Factory:
    value: Any


@dataclass(frozen=True)
class Path_:
    """A module path the source names (``tf.feature_column``): only ever the start of a longer name."""

    name: str


@dataclass(frozen=True)
class Shaped:
    """A numpy array of known shape (``np.random.rand(120, 4)``): only its ``shape``/``ndim``/``size`` are read."""

    shape: tuple


class Rng:
    """``np.random.RandomState(seed)``: its ``rand``/``normal``... make :class:`Shaped` values."""


LITERAL = (int, float, str, bool, type(None))


# ------------------------------------------------------------------------------------------------ the reader


BUILTINS = frozenset({"dict", "list", "tuple", "len", "range", "int", "float", "str", "bool", "abs", "round", "min", "max",
                      "sorted", "sum"})


class Reader:
    """ast -> value, for one expression. ``qualify(node)``: the full dotted name a Name/Attribute chain spells
    through the file's library imports (TensorFlow, numpy, math), else None; ``bound(name)``: whether the file
    binds the name where it is read; ``constant(name_node)``: the value of such a name (read by the caller,
    with its own scope rules, through this reader; raises Refused)."""

    def __init__(self, qualify: Callable[[ast.AST], str | None], bound: Callable[[ast.Name], bool],
                 constant: Callable[[ast.Name], Any]):
        self.qualify = qualify
        self.bound = bound
        self.constant = constant

    def read(self, node: ast.AST, depth: int = 0) -> Any:
        if depth > 60:
            raise Refused(node, "nested too deeply")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, LITERAL):
                return node.value
            raise Refused(node, f"a {type(node.value).__name__} literal")
        if isinstance(node, (ast.List, ast.Tuple)):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                raise Refused(node, "a * unpacking")
            items = [self.read(e, depth + 1) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise Refused(node, "a ** unpacking")
            return self._dict([(self.read(k, depth + 1), self.read(v, depth + 1)) for k, v in zip(node.keys, node.values)], node)
        if isinstance(node, ast.UnaryOp):
            return _unary(node, self.read(node.operand, depth + 1))
        if isinstance(node, ast.BinOp):
            return _binary(node, self.read(node.left, depth + 1), self.read(node.right, depth + 1))
        if isinstance(node, ast.Subscript):
            return _subscript(node, self.read(node.value, depth + 1), self._index(node.slice, depth + 1))
        if isinstance(node, ast.Lambda):
            a = node.args
            if a.posonlyargs or a.args or a.kwonlyargs or a.vararg or a.kwarg:
                raise Refused(node, "a function of its arguments, which is code")
            return Factory(self.read(node.body, depth + 1))
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self._name(node, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        kind = {ast.ListComp: "a comprehension", ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
                ast.GeneratorExp: "a generator", ast.IfExp: "a condition", ast.Compare: "a comparison", ast.BoolOp: "a condition",
                ast.JoinedStr: "an f-string", ast.NamedExpr: "an assignment"}.get(type(node), "an expression of code")
        raise Refused(node, kind)

    def _dict(self, pairs: list[tuple[Any, Any]], node: ast.AST) -> dict:
        out = {}
        for k, v in pairs:
            if not isinstance(k, (*LITERAL, tuple)):
                raise Refused(node, "a dict key that is not a literal")
            out[k] = v
        return out

    def _index(self, node: ast.AST, depth: int) -> Any:
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.read(p, depth) for p in (node.lower, node.upper, node.step)]
            if not all(p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in parts):
                raise Refused(node, "a slice that is not of integers")
            return slice(*parts)
        return self.read(node, depth)

    def _qualified(self, node: ast.AST, depth: int) -> tuple[str | None, Any]:
        """(the full name a Name/Attribute chain spells, through imports or a constant bound to a module
        path such as ``fc = tf.feature_column``; else None, and the value of an Attribute's base)."""
        dotted = self.qualify(node)
        if dotted is not None or not isinstance(node, ast.Attribute):
            return dotted, None
        base = self.read(node.value, depth + 1)
        return (f"{base.name}.{node.attr}", None) if isinstance(base, Path_) else (None, base)

    def _name(self, node: ast.Name | ast.Attribute, depth: int) -> Any:
        dotted, base = self._qualified(node, depth)
        if dotted is not None:
            if dotted in REFS:
                return Ref(dotted)
            if dotted in MATH:
                return MATH[dotted]
            if not any(r.startswith(dotted + ".") for r in (*REFS, *MATH, *MATH_FUNCTIONS, "numpy.random.RandomState")):
                raise Refused(node, f"`{ast.unparse(node)}` is not one of the names tfmigrate reads")
            return Path_(dotted)
        if isinstance(node, ast.Name):
            if not self.bound(node):
                raise Refused(node, f"`{node.id}` is not defined in this file")
            return self.constant(node)
        if isinstance(base, Shaped):
            if node.attr == "shape":
                return base.shape
            if node.attr == "ndim":
                return len(base.shape)
            if node.attr == "size":
                return math.prod(base.shape)
        raise Refused(node, f"`.{node.attr}` of a value")

    def _call(self, node: ast.Call, depth: int) -> Any:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise Refused(node, "* or ** arguments")
        func = node.func
        if isinstance(func, (ast.Name, ast.Attribute)):
            dotted, base = self._qualified(func, depth)
            if dotted is None and isinstance(func, ast.Name):
                if self.bound(func) or func.id not in BUILTINS:
                    raise Refused(node, f"`{func.id}(...)` is the program's own code, not TensorFlow")
                return self._builtin(node, func.id, depth)
            if dotted is None and isinstance(func, ast.Attribute):
                return self._method(node, base, func.attr, depth)
            args = [self.read(a, depth + 1) for a in node.args]
            kwargs = tuple((k.arg, self._keyword(k, func, depth)) for k in node.keywords)
            if dotted in CONSTRUCTORS:
                return Built(dotted, tuple(args), kwargs)
            if dotted in MATH_FUNCTIONS:
                return _compute(node, MATH_FUNCTIONS[dotted], *_literals(node, args), **dict(_literals_kw(node, kwargs)))
            if dotted == "numpy.random.RandomState":
                return Rng()
            if dotted is not None and dotted.startswith("numpy.") and dotted.rsplit(".", 1)[-1] in NUMPY_ARRAYS:
                return Shaped(_array_shape(node, dotted.rsplit(".", 1)[-1], args, dict(kwargs)))
            raise Refused(node, f"`{ast.unparse(func)}(...)` is not one of the constructors tfmigrate builds")
        raise Refused(node, "a call of a computed function")

    def _keyword(self, keyword: ast.keyword, func: ast.expr, depth: int) -> Any:
        try:
            return self.read(keyword.value, depth + 1)
        except Refused as refused:
            if refused.node is keyword.value:  # say which argument it is: `normalizer_fn=` of numeric_column(...)
                refused.why += f" (the {keyword.arg}= of `{ast.unparse(func)}(...)`)"
            raise

    def _method(self, node: ast.Call, base: Any, name: str, depth: int) -> Any:
        args = [self.read(a, depth + 1) for a in node.args]
        kwargs = {k.arg: self.read(k.value, depth + 1) for k in node.keywords}
        if isinstance(base, Rng) and name in NUMPY_ARRAYS:
            return Shaped(_array_shape(node, name, args, kwargs))
        if isinstance(base, Shaped) and name == "astype":
            return base
        if isinstance(base, Shaped) and name == "reshape":
            return Shaped(_reshape(node, base.shape, args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args))
        raise Refused(node, f"`.{name}(...)` of a value is a call tfmigrate does not make")

    def _builtin(self, node: ast.Call, name: str, depth: int) -> Any:
        args = [self.read(a, depth + 1) for a in node.args]
        kwargs = {k.arg: self.read(k.value, depth + 1) for k in node.keywords}
        if name == "dict" and not args:
            return kwargs
        if name in ("list", "tuple") and len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)):
            return list(args[0]) if name == "list" else tuple(args[0])
        if name == "len" and len(args) == 1 and isinstance(args[0], (list, tuple, dict, str)):
            return len(args[0])
        if name == "range" and not kwargs and 1 <= len(args) <= 3 and all(type(a) is int for a in args):
            r = range(*args)
            if len(r) > MAX_ITEMS:
                raise Refused(node, f"more than {MAX_ITEMS:,} items")
            return list(r)
        pure = {"int": int, "float": float, "str": str, "bool": bool, "abs": abs, "round": round, "min": min, "max": max,
                "sorted": sorted, "sum": sum}
        if name in pure:
            literal_args = [a for a in args if isinstance(a, LITERAL) or (isinstance(a, (list, tuple)) and all(isinstance(x, LITERAL) for x in a))]
            if len(literal_args) == len(args) and all(isinstance(v, LITERAL) for v in kwargs.values()) and not (name == "str" and any(isinstance(a, (list, tuple)) for a in args)):
                return _compute(node, pure[name], *args, **kwargs)
        raise Refused(node, f"`{name}(...)` is not one of the constructors tfmigrate builds")


def _literals(node: ast.AST, values: list[Any]) -> list[Any]:
    if not all(isinstance(v, (int, float)) for v in values):
        raise Refused(node, "a function of values that are not numbers")
    return values


def _literals_kw(node: ast.AST, pairs: tuple) -> list[tuple[str, Any]]:
    _literals(node, [v for _, v in pairs])
    return list(pairs)


def _compute(node: ast.AST, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        value = fn(*args, **kwargs)
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise Refused(node, f"cannot be computed ({type(exc).__name__}: {exc})") from None
    return _bounded(node, value)


def _bounded(node: ast.AST, value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise Refused(node, f"an integer of more than {MAX_BITS} bits")
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_ITEMS:
        raise Refused(node, f"more than {MAX_ITEMS:,} items")
    return value


_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Invert: operator.invert}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}
NUMBER = (int, float)


def _unary(node: ast.UnaryOp, value: Any) -> Any:
    if not isinstance(value, NUMBER):
        raise Refused(node, "arithmetic on something that is not a number")
    return _compute(node, _UNARY[type(node.op)], value)


def _binary(node: ast.BinOp, left: Any, right: Any) -> Any:
    op = type(node.op)
    if isinstance(left, NUMBER) and isinstance(right, NUMBER):
        if op is ast.Pow and isinstance(left, int) and isinstance(right, int) and right > 0 \
                and max(1, abs(left).bit_length()) * right > MAX_BITS:
            raise Refused(node, f"an integer of more than {MAX_BITS} bits")
        if op is ast.LShift and isinstance(right, int) and right > MAX_BITS:
            raise Refused(node, f"an integer of more than {MAX_BITS} bits")
        return _compute(node, _BINARY[op], left, right)
    sequences = (str, list, tuple)
    if op is ast.Add and isinstance(left, sequences) and type(left) is type(right):
        if len(left) + len(right) > MAX_ITEMS:
            raise Refused(node, f"more than {MAX_ITEMS:,} items")
        return left + right
    if op is ast.Mult and (isinstance(left, sequences) and type(right) is int or isinstance(right, sequences) and type(left) is int):
        seq, n = (left, right) if isinstance(left, sequences) else (right, left)
        if len(seq) * max(n, 0) > MAX_ITEMS:
            raise Refused(node, f"more than {MAX_ITEMS:,} items")
        return seq * n
    raise Refused(node, "arithmetic on something that is not a number, string or list")


def _subscript(node: ast.Subscript, value: Any, index: Any) -> Any:
    if isinstance(value, (list, tuple, str)) and (type(index) is int or isinstance(index, slice)):
        return _compute(node, operator.getitem, value, index)
    if isinstance(value, dict) and isinstance(index, (*LITERAL, tuple)) and index in value:
        return value[index]
    raise Refused(node, "a subscript tfmigrate cannot compute")


def _dims(node: ast.AST, value: Any) -> tuple:
    dims = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    if not all(type(d) is int and d >= 0 for d in dims):
        raise Refused(node, "an array shape that is not of integers")
    return dims


def _array_shape(node: ast.AST, name: str, args: list[Any], kwargs: dict[str, Any]) -> tuple:
    """The shape of the array ``np.random.NAME(...)``/``np.zeros(...)``/``rng.NAME(...)`` would make."""
    if name in ("rand", "randn"):
        return _dims(node, args)
    if name in ("zeros", "ones", "empty", "full"):
        return _dims(node, args[0] if args else kwargs.get("shape", ()))
    size = kwargs.get("size", args[{"random": 0, "random_sample": 0, "uniform": 2, "normal": 2, "randint": 2}[name]]
                      if len(args) > {"random": 0, "random_sample": 0, "uniform": 2, "normal": 2, "randint": 2}[name] else None)
    return () if size is None else _dims(node, size)


def _reshape(node: ast.AST, shape: tuple, new: Any) -> tuple:
    dims = list(new) if isinstance(new, (list, tuple)) else [new]
    if not all(type(d) is int for d in dims) or dims.count(-1) > 1:
        raise Refused(node, "a reshape that is not of integers")
    total = math.prod(shape)
    if -1 in dims:
        rest = math.prod(d for d in dims if d != -1)
        dims[dims.index(-1)] = total // rest if rest else 0
    return _dims(node, dims)


# ------------------------------------------------------------------------------------------------ plans


def plan(value: Any, node: ast.AST) -> Any:
    """The JSON-able plan of a value the reader made (see the module docstring); Refused for what has none
    (a module path, an array: tfmigrate computes only their shapes)."""
    budget = [MAX_NODES]

    def enc(v: Any) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise Refused(node, f"more than {MAX_NODES:,} values")
        if isinstance(v, float) and not math.isfinite(v):
            return {"float": repr(v)}
        if isinstance(v, LITERAL):
            return v
        if isinstance(v, list):
            return {"list": [enc(x) for x in v]}
        if isinstance(v, tuple):
            return {"tuple": [enc(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[enc(k), enc(x)] for k, x in v.items()]}
        if isinstance(v, Built):
            return {"call": v.name, "args": [enc(x) for x in v.args], "kwargs": [[k, enc(x)] for k, x in v.kwargs]}
        if isinstance(v, Ref):
            return {"ref": v.name}
        if isinstance(v, Factory):
            return {"factory": enc(v.value)}
        if isinstance(v, Shaped):
            raise Refused(node, "an array (tfmigrate computes only its .shape)")
        if isinstance(v, Path_):
            raise Refused(node, f"the module `{v.name}`")
        raise Refused(node, "not a literal, a constant or a constructor")

    return enc(value)


def unlegacy(p: Any) -> Any:
    """A plan with ``...optimizers.legacy.X`` as ``...optimizers.X`` (Keras 3 has no legacy optimizers)."""
    if isinstance(p, list):
        return [unlegacy(x) for x in p]
    if not isinstance(p, dict):
        return p
    out = {k: unlegacy(v) for k, v in p.items()}
    for key in ("call", "ref"):
        if key in out and ".optimizers.legacy." in out[key]:
            out[key] = out[key].replace(".optimizers.legacy.", ".optimizers.")
    return out


def materialize(p: Any, modules: dict[str, Any]) -> Any:
    """Build a plan (in the TensorFlow process): ``modules`` maps ``"tensorflow"``/``"numpy"`` to the modules.
    Only names of :data:`CONSTRUCTORS`/:data:`REFS` are looked up, along the table's own spelling."""
    if isinstance(p, LITERAL):
        return p
    if isinstance(p, list):
        return [materialize(x, modules) for x in p]
    if not isinstance(p, dict) or len({"list", "tuple", "dict", "call", "ref", "factory", "float"} & p.keys()) != 1:
        raise ValueError(f"not a plan: {str(p)[:80]}")
    if "float" in p:
        return float(p["float"]) if p["float"] in ("inf", "-inf", "nan") else _bad(p)
    if "list" in p:
        return [materialize(x, modules) for x in p["list"]]
    if "tuple" in p:
        return tuple(materialize(x, modules) for x in p["tuple"])
    if "dict" in p:
        return {_hashable(materialize(k, modules)): materialize(v, modules) for k, v in p["dict"]}
    if "factory" in p:
        inner = p["factory"]
        return lambda: materialize(inner, modules)
    if "ref" in p:
        return _lookup(p["ref"], REFS, modules)
    fn = _lookup(p["call"], CONSTRUCTORS, modules)
    return fn(*[materialize(x, modules) for x in p.get("args", [])], **{str(k): materialize(v, modules) for k, v in p.get("kwargs", [])})


def _bad(p: Any) -> Any:
    raise ValueError(f"not a plan: {str(p)[:80]}")


def _hashable(v: Any) -> Any:
    return tuple(_hashable(x) for x in v) if isinstance(v, list) else v


def _lookup(name: str, table: frozenset[str], modules: dict[str, Any]) -> Any:
    own = next((n for n in table if n == name), None)  # the table's own string: nothing else is ever looked up
    if own is None:
        raise ValueError(f"`{name}` is not one of the names tfmigrate builds")
    root, *attrs = own.split(".")
    obj = modules[root]
    for attr in attrs:
        obj = getattr(obj, attr)
    return obj
