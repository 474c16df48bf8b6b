"""TARGET: the new model a checkpoint is compared with (``ckpt diff --model``) or validated (``validate``).

Three forms, one API. Parsing and the static search never import TensorFlow; loading does, so call
:func:`load` only inside a child process (see :func:`model_variables`, which runs one for you).

``file.py:function``
    ``function()`` returns a ``tf.estimator.Estimator`` (canned or custom), a Keras model, or a
    ``(model_fn, params)`` pair. Features for a custom ``model_fn`` come from
    ``params["feature_columns"]`` or from a module-level ``train_input_fn``/``input_fn``.
``file.py`` or ``file.py:LINE``
    A migrated source file: its ``tf.estimator.*`` constructions are found with libcst and their
    literal arguments evaluated (``feature_columns=[tf.feature_column.numeric_column("x", shape=[4])]``,
    ``hidden_units=[10, 10]``, module-level constants...). The first construction, or the one on LINE.
``CHECKPOINT``
    Another checkpoint (prefix, ``.index`` file or model_dir): its variables are read without TF.

Stable API (the validation run imports it)::

    t = parse_target("train.py:make_estimator")     # Target; TargetError on a bad spec
    find_constructions(Path("train.py"))            # [Construction], static, no TF
    loaded = load(t)                                # in a TF process: Loaded(.estimator|.keras_model, ...)
    model_variables(t)                              # runs a TF child; {"model": {...}, "variables": [...]}

Errors are :class:`TargetError` (a :class:`~tfmigrate.checkpoint.index.CheckpointError`): one line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tfmigrate.checkpoint.index import CheckpointError

ESTIMATOR_CLASSES = (
    "DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor",
    "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor", "BaselineClassifier",
    "BaselineRegressor", "DNNEstimator", "LinearEstimator", "Estimator",
)
ESTIMATOR_MODULES = ("tensorflow.estimator.", "tensorflow.compat.v1.estimator.", "tensorflow.compat.v2.estimator.")
# Calls and attributes an argument may use (everything else is not evaluated statically).
ALLOWED_PREFIXES = (
    "tensorflow.feature_column.", "tensorflow.compat.v1.feature_column.", "tensorflow.keras.optimizers.",
    "tensorflow.compat.v1.train.", "tensorflow.nn.", "tensorflow.keras.activations.", "tensorflow.estimator.RunConfig",
    "tensorflow.estimator.WarmStartSettings", "tensorflow.float32", "tensorflow.float64", "tensorflow.int64",
    "tensorflow.int32", "tensorflow.string", "tensorflow.estimator.experimental.", "tensorflow.keras.initializers.",
)
CHILD_TIMEOUT_S = 300
MUTATORS = frozenset({"append", "extend", "insert", "update", "pop", "remove", "clear", "setdefault", "add", "sort",
                      "reverse", "discard", "popitem"})


class TargetError(CheckpointError):
    """A TARGET cannot be parsed, found, evaluated or loaded. One line."""


@dataclass(frozen=True)
class Target:
    kind: Literal["function", "source", "checkpoint"]
    spec: str
    path: str
    function: str | None = None  # "function" kind
    line: int | None = None  # "source" kind: the construction on this line


@dataclass
class Construction:
    """A ``tf.estimator.X(...)`` call found statically. ``kwargs`` values are expression trees:
    ``{"lit": v}``, ``{"list": [...]}``, ``{"tuple": [...]}``, ``{"dict": [[k, v], ...]}``,
    ``{"ref": "tensorflow.nn.relu"}``, ``{"call": "tensorflow.feature_column.numeric_column",
    "args": [...], "kwargs": {...}}``."""

    cls: str  # qualified, e.g. "tensorflow.estimator.DNNClassifier"
    line: int
    kwargs: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    @property
    def short(self) -> str:
        return self.cls.replace("tensorflow.", "tf.", 1)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_target(spec: str) -> Target:
    """Classify a TARGET string. Does not import TensorFlow."""
    spec = str(spec)
    base, sep, tail = spec.rpartition(":")
    if sep and base.endswith(".py"):
        if not Path(base).is_file():
            raise TargetError(f"{base}: no such file")
        if tail.isdigit():
            return Target("source", spec, base, line=int(tail))
        if _IDENT.match(tail):
            return Target("function", spec, base, function=tail)
        raise TargetError(f"{spec}: expected file.py:function or file.py:LINE")
    if spec.endswith(".py"):
        if not Path(spec).is_file():
            raise TargetError(f"{spec}: no such file")
        return Target("source", spec, spec)
    from tfmigrate.checkpoint import index

    try:
        prefix, _fmt, _files = index.resolve(spec)
    except CheckpointError as exc:
        raise TargetError(f"{spec}: not file.py:function, a .py file or a checkpoint ({exc})") from None
    return Target("checkpoint", spec, prefix)


# --------------------------------------------------------------------------------------------
# static search (libcst, no TF)


class _Unevaluable(Exception):
    def __init__(self, node: Any, why: str) -> None:
        super().__init__(why)
        self.node = node
        self.why = why


def find_constructions(path: Path | str) -> list[Construction]:
    """Every ``tf.estimator.*`` construction in a source file, arguments evaluated.

    Raises :class:`TargetError` naming the line when an argument cannot be evaluated statically."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, QualifiedNameProvider, ScopeProvider

    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8")
        module = cst.parse_module(source)
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetError(f"{path}: cannot read: {exc}") from None
    except cst.ParserSyntaxError as exc:
        raise TargetError(f"{path}:{exc.raw_line}: cannot parse: {exc.message}") from None
    wrapper = MetadataWrapper(module)
    qnames = wrapper.resolve(QualifiedNameProvider)
    positions = wrapper.resolve(PositionProvider)

    def qname(node: cst.CSTNode) -> str | None:
        names = _lazy(qnames.get(node)) or set()
        for q in sorted(names, key=lambda q: q.name):
            return q.name
        return None

    scopes = wrapper.resolve(ScopeProvider)
    parents = wrapper.resolve(ParentNodeProvider)

    def resolve_name(node: cst.Name) -> cst.BaseExpression:
        """The one value a name is bound to in its scope (module constant or function local),
        provided nothing mutates it afterwards (``cols.append(...)``, ``cols += ...``, loops)."""
        name = node.value
        scope = _lazy(scopes.get(node))
        assignments = list(scope[name]) if scope is not None else []
        if not assignments:
            raise _Unevaluable(node, f"`{name}` is not defined in this file")
        if len(assignments) > 1:
            raise _Unevaluable(node, f"`{name}` is assigned more than once")
        a = assignments[0]
        target = getattr(a, "node", None)
        parent = _lazy(parents.get(target)) if target is not None else None
        value = None
        if isinstance(parent, cst.AssignTarget):
            assign = _lazy(parents.get(parent))
            value = assign.value if isinstance(assign, cst.Assign) else None
        elif isinstance(parent, cst.AnnAssign):
            value = parent.value
        if value is None:
            raise _Unevaluable(node, f"`{name}` is not bound by a plain assignment (parameter, loop, import...)")
        for ref in getattr(a, "references", ()):
            up = _lazy(parents.get(ref.node))
            if isinstance(up, cst.Attribute) and up.attr.value in MUTATORS:
                raise _Unevaluable(node, f"`{name}` is changed after its assignment (`{name}.{up.attr.value}` on line {line_of(up)})")
            if isinstance(up, cst.SubscriptElement) or isinstance(up, cst.Subscript) and isinstance(_lazy(parents.get(up)), cst.AssignTarget):
                raise _Unevaluable(node, f"`{name}` is changed after its assignment (line {line_of(up)})")
        return value

    def line_of(node: cst.CSTNode) -> int:
        pos = _lazy(positions.get(node))
        return pos.start.line if pos else 0

    def ev(node: cst.BaseExpression, depth: int = 0) -> Any:
        if depth > 20:
            raise _Unevaluable(node, "too deeply nested")
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
            return {"lit": node.evaluated_value}
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = ev(node.expression, depth + 1)
            if "lit" in inner and isinstance(inner["lit"], (int, float)):
                return {"lit": -inner["lit"]}
            raise _Unevaluable(node, "unary minus of a non-number")
        if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return {"lit": {"True": True, "False": False, "None": None}[node.value]}
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            items = []
            for el in node.elements:
                if isinstance(el, (cst.StarredElement,)):
                    raise _Unevaluable(el, "starred element")
                items.append(ev(el.value, depth + 1))
            return {"tuple" if isinstance(node, cst.Tuple) else "list": items}
        if isinstance(node, cst.Dict):
            pairs = []
            for el in node.elements:
                if not isinstance(el, cst.DictElement):
                    raise _Unevaluable(el, "** in a dict")
                pairs.append([ev(el.key, depth + 1), ev(el.value, depth + 1)])
            return {"dict": pairs}
        q = qname(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if q and q.startswith("tensorflow.") and q.startswith(ALLOWED_PREFIXES):
            return {"ref": q}
        if isinstance(node, cst.Name):
            return ev(resolve_name(node), depth + 1)
        if isinstance(node, cst.Call):
            fq = qname(node.func)
            if not fq or not fq.startswith(ALLOWED_PREFIXES):
                shown = cst.Module([]).code_for_node(node.func)
                raise _Unevaluable(node, f"call of `{shown}` cannot be evaluated statically")
            args, kwargs = [], {}
            for a in node.args:
                if a.star:
                    raise _Unevaluable(a, "*args/**kwargs")
                if a.keyword is None:
                    args.append(ev(a.value, depth + 1))
                else:
                    kwargs[a.keyword.value] = ev(a.value, depth + 1)
            return {"call": fq, "args": args, "kwargs": kwargs}
        raise _Unevaluable(node, f"`{cst.Module([]).code_for_node(node)}` is not a literal")

    found: list[Construction] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            fq = qname(node.func)
            if not fq or not fq.startswith(ESTIMATOR_MODULES) or fq.rsplit(".", 1)[-1] not in ESTIMATOR_CLASSES:
                return
            line = line_of(node)
            cls = fq.rsplit(".", 1)[-1]
            kwargs: dict[str, Any] = {}
            try:
                if cls == "Estimator":
                    raise _Unevaluable(node, "a custom tf.estimator.Estimator(model_fn=...) needs its code: use file.py:function")
                for a in node.args:
                    if a.star or a.keyword is None:
                        raise _Unevaluable(a, "positional arguments: write them as keywords")
                    kwargs[a.keyword.value] = ev(a.value)
            except _Unevaluable as exc:
                where = line_of(exc.node) or line
                found.append(Construction(fq, line, {"__error__": f"{path}:{where}: {fq.replace('tensorflow.', 'tf.', 1)}: {exc.why}"}, str(path)))
                return
            found.append(Construction(fq, line, kwargs, str(path)))

    wrapper.visit(Finder())
    return found


def _lazy(value: Any) -> Any:
    """libcst >= 1.5 may hand out lazily computed metadata values."""
    return value() if callable(value) else value


def select_construction(target: Target) -> Construction:
    """The construction a ``source`` target means (first, or the one on ``target.line``)."""
    found = find_constructions(target.path)
    if not found:
        raise TargetError(f"{target.path}: no tf.estimator.* construction found (use file.py:function)")
    if target.line is not None:
        chosen = [c for c in found if c.line == target.line]
        if not chosen:
            lines = ", ".join(str(c.line) for c in found)
            raise TargetError(f"{target.path}:{target.line}: no tf.estimator construction on that line (found on {lines})")
        c = chosen[0]
    else:
        good = [c for c in found if "__error__" not in c.kwargs]
        c = good[0] if good else found[0]
    if "__error__" in c.kwargs:
        raise TargetError(c.kwargs["__error__"])
    return c


# --------------------------------------------------------------------------------------------
# loading (imports TensorFlow: call in a child process)


@dataclass
class Loaded:
    """What a TARGET builds. Exactly one of ``estimator``/``keras_model`` is set."""

    target: Target
    estimator: Any = None
    keras_model: Any = None
    feature_columns: list[Any] | None = None
    input_fn: Any = None  # a module-level train_input_fn/input_fn, when the file has one
    construction: Construction | None = None
    model_dir: str | None = None  # the model_dir the code names (the estimator itself uses a temp dir)
    info: dict[str, Any] = field(default_factory=dict)


def _tf() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf  # noqa: PLC0415

    tf.get_logger().setLevel("ERROR")
    return tf


def build_value(tree: Any) -> Any:
    """Evaluate a Construction expression tree (needs TF for ``ref``/``call``)."""
    if "lit" in tree:
        return tree["lit"]
    if "list" in tree:
        return [build_value(x) for x in tree["list"]]
    if "tuple" in tree:
        return tuple(build_value(x) for x in tree["tuple"])
    if "dict" in tree:
        return {build_value(k): build_value(v) for k, v in tree["dict"]}
    tf = _tf()
    dotted = tree.get("ref") or tree.get("call")
    obj: Any = tf
    for part in dotted.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"{dotted.replace('tensorflow.', 'tf.', 1)} does not exist in TensorFlow {tf.__version__}") from None
    if "ref" in tree:
        return obj
    return obj(*[build_value(a) for a in tree["args"]], **{k: build_value(v) for k, v in tree["kwargs"].items()})


def _import_file(path: str) -> Any:
    import importlib.util

    p = Path(path).resolve()
    sys.path.insert(0, str(p.parent))
    spec = importlib.util.spec_from_file_location(f"_tfmigrate_target_{p.stem}", p)
    if spec is None or spec.loader is None:
        raise TargetError(f"{path}: cannot import")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _closure_value(fn: Any, name: str) -> Any:
    code = getattr(fn, "__code__", None)
    if code is None or not fn.__closure__:
        return None
    for var, cell in zip(code.co_freevars, fn.__closure__):
        if var == name:
            try:
                return cell.cell_contents
            except ValueError:
                return None
    return None


def canned_feature_columns(estimator: Any) -> list[Any] | None:
    """The feature columns a canned estimator was built with (from its model_fn closure)."""
    fn = getattr(estimator, "_model_fn", None)
    cols: list[Any] = []
    found = False
    for name in ("feature_columns", "linear_feature_columns", "dnn_feature_columns"):
        value = _closure_value(fn, name)
        if value:
            found = True
            cols.extend(list(value))
    if found:
        return cols
    params = getattr(estimator, "params", None) or {}
    if isinstance(params, dict) and params.get("feature_columns"):
        return list(params["feature_columns"])
    return None


def load(target: Target, model_dir: str | None = None) -> Loaded:
    """Build the TARGET's model (imports TensorFlow). The estimator gets ``model_dir`` (default: a
    fresh temp dir; the model_dir the code names is in ``Loaded.model_dir``)."""
    tf = _tf()
    workdir = model_dir or tempfile.mkdtemp(prefix="tfmigrate-model-")
    if target.kind == "checkpoint":
        raise TargetError(f"{target.spec}: a checkpoint is not a model to build")
    if target.kind == "source":
        c = select_construction(target)
        kwargs = {k: build_value(v) for k, v in c.kwargs.items()}
        named_dir = kwargs.pop("model_dir", None)
        kwargs.pop("warm_start_from", None)
        kwargs.pop("config", None)
        cls = build_value({"ref": c.cls})
        try:
            est = cls(model_dir=workdir, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the user's arguments
            raise TargetError(f"{c.path}:{c.line}: {c.short}(...) fails: {type(exc).__name__}: {_first_line(exc)}") from None
        return Loaded(target, estimator=est, feature_columns=canned_feature_columns(est), construction=c,
                      model_dir=named_dir if isinstance(named_dir, str) else None)
    module = _import_file(target.path)
    fn = getattr(module, target.function or "", None)
    if not callable(fn):
        raise TargetError(f"{target.path}: no function {target.function!r}")
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001
        raise TargetError(f"{target.spec}: {target.function}() raised {type(exc).__name__}: {_first_line(exc)}") from None
    input_fn = getattr(module, "train_input_fn", None) or getattr(module, "input_fn", None)
    if isinstance(value, tf.keras.Model):
        return Loaded(target, keras_model=value)
    if isinstance(value, tuple) and len(value) == 2 and callable(value[0]):
        model_fn, params = value
        est = tf.estimator.Estimator(model_fn=model_fn, params=params, model_dir=workdir)
        cols = list(params.get("feature_columns") or []) if isinstance(params, dict) else []
        return Loaded(target, estimator=est, feature_columns=cols or None, input_fn=input_fn)
    if isinstance(value, (tf.estimator.Estimator, tf.compat.v1.estimator.Estimator)):
        named = value.model_dir
        est = value
        try:  # rebuild it on a temp dir so nothing the user has is read or written
            est = type(value).__new__(type(value))
            est.__dict__.update(value.__dict__)
            est._model_dir = workdir  # noqa: SLF001
            est._config = value.config.replace(model_dir=workdir)  # noqa: SLF001
        except Exception:  # noqa: BLE001
            est = value
        return Loaded(target, estimator=est, feature_columns=canned_feature_columns(value), input_fn=input_fn, model_dir=named)
    raise TargetError(f"{target.spec}: returned {type(value).__name__}, expected an Estimator, a Keras model or (model_fn, params)")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def model_variables(target: Target | str, timeout: float = CHILD_TIMEOUT_S) -> dict[str, Any]:
    """The variables TARGET will create: ``{"model": {...}, "variables": [{"name", "dtype", "shape",
    "kind", "resource"}]}``. Checkpoints are read here without TF; models in a TF child process."""
    if isinstance(target, str):
        target = parse_target(target)
    if target.kind == "checkpoint":
        from tfmigrate.checkpoint import classify, index

        ck = index.read(target.path)
        writer = classify.writer(ck.entries)
        api = {"estimator-v1": "v1", "object-based": "keras"}.get(writer, "v2")
        return {
            "model": {"kind": "checkpoint", "checkpoint": ck.prefix, "writer": writer, "api": api},
            "variables": [{"name": e.name, "dtype": e.dtype, "shape": e.shape} for e in ck.entries],
        }
    if target.kind == "source":
        select_construction(target)  # static errors surface here, before any TF process starts
    return run_child(["variables", target.spec], timeout=timeout)


def model_variables_many(specs: list[str], timeout: float = CHILD_TIMEOUT_S) -> list[dict[str, Any]]:
    """:func:`model_variables` for several TARGETs with ONE TF child process. Each result is
    ``{"ok": True, "model", "variables"}`` or ``{"ok": False, "error": "one line"}``."""
    results: list[dict[str, Any] | None] = []
    todo: list[str] = []
    for spec in specs:
        try:
            t = parse_target(spec)
            if t.kind == "checkpoint":
                results.append({"ok": True, **model_variables(t)})
                continue
            if t.kind == "source":
                select_construction(t)
        except CheckpointError as exc:
            results.append({"ok": False, "error": str(exc)})
            continue
        results.append(None)
        todo.append(spec)
    if todo:
        child = iter(run_child(["variables-many", json.dumps(todo)], timeout=timeout)["results"])
        results = [r if r is not None else next(child) for r in results]
    return results  # type: ignore[return-value]


def run_child(args: list[str], stdin: str | None = None, timeout: float = CHILD_TIMEOUT_S) -> dict[str, Any]:
    """Run ``python -m tfmigrate.checkpoint._tfchild ARGS``; its JSON result, or TargetError."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", ABSL_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tfmigrate.checkpoint._tfchild", *args],
            input=stdin, capture_output=True, text=True, timeout=timeout, env=env, check=False,
        )
    except subprocess.TimeoutExpired:
        raise TargetError(f"TensorFlow child process ({' '.join(args[:2])}) took longer than {timeout:.0f} s") from None
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        raise TargetError(f"TensorFlow child process failed (exit {proc.returncode}): {tail[-1][:300] if tail else 'no output'}")
    result = json.loads(lines[-1])
    if not result.get("ok"):
        raise TargetError(result.get("error") or "TensorFlow child process failed")
    return result
