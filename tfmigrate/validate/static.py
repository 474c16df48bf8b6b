"""Find the ``tf.estimator`` constructions of a migrated source file and build them (in the TF child).

What ``tfmigrate rewrite`` writes must be buildable: ``optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(...)``,
``loss_reduction=tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE``, module-level constants such as
``FEATURES = [tf.feature_column.numeric_column("x", shape=(4,))]`` or ``UNITS = [10, 10]``. An argument
is evaluated with Python itself, but only when every name it uses is TensorFlow, numpy or math (as
the file imports them), a module-level constant that is itself evaluable (``x = rng.rand(120, 5)``,
then ``shape=x.shape[1:]``), a lambda parameter, or a harmless builtin; calls of the program's own
functions and anything that reads or writes files (``np.load``, ``.tofile``...) are refused with the line.

``find`` is static (``ast``, no TensorFlow); ``build`` runs in the TensorFlow child.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANNED = (
    "DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor", "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor", "BaselineClassifier", "BaselineRegressor", "DNNEstimator", "LinearEstimator",
    "BoostedTreesClassifier", "BoostedTreesRegressor", "Estimator",
)
ESTIMATOR_MODULES = ("tensorflow.estimator", "tensorflow.compat.v1.estimator", "tensorflow.compat.v2.estimator", "tensorflow_estimator")
# numpy/TensorFlow functions and methods that touch files or the system are never evaluated
UNSAFE = {"save", "savez", "savez_compressed", "savetxt", "load", "loadtxt", "fromfile", "tofile", "memmap", "genfromtxt",
          "fromregex", "dump", "dumps", "open", "write", "remove", "unlink", "system", "exec", "eval", "train", "fit",
          "evaluate", "predict", "export_saved_model", "export_savedmodel", "save_weights", "load_weights", "run"}
SAFE_BUILTINS = {"True", "False", "None", "list", "tuple", "dict", "int", "float", "str", "bool", "range", "len", "min", "max", "abs", "round", "sorted"}


class StaticError(ValueError):
    """An argument cannot be evaluated statically; the message names file and line."""


@dataclass
class Site:
    path: str
    line: int
    cls: str  # "tf.estimator.DNNClassifier"
    model_dir: str | None = None
    error: str | None = None
    key: str = ""  # the construction's text with its constants: identical definitions share it
    uses: list[str] = field(default_factory=list)  # module-level constants it needs


class _Module:
    def __init__(self, source: str, path: str):
        self.path = path
        self.tree = ast.parse(source, filename=path)
        self.aliases: dict[str, str] = {}  # local name -> dotted module/attribute (tensorflow only)
        self.assigned: dict[str, list[ast.expr]] = {}
        for node in self.tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in ("tensorflow", "numpy", "math") or a.name.startswith(("tensorflow.", "tensorflow_estimator", "numpy.")):
                        if a.asname:
                            self.aliases[a.asname] = a.name
                        else:
                            self.aliases[a.name.split(".")[0]] = a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module in ("tensorflow", "numpy") or node.module.startswith(("tensorflow.", "tensorflow_estimator", "numpy.")):
                    for a in node.names:
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.assigned.setdefault(t.id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.assigned.setdefault(node.target.id, []).append(node.value)
        # names bound anywhere else at module level (for loops, defs, augmented assignments) are not constants
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.assigned.setdefault(node.name, []).append(node)  # type: ignore[arg-type]
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.assigned.setdefault(node.target.id, []).append(node)  # type: ignore[arg-type]

    def dotted(self, node: ast.expr) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ".".join([self.aliases[node.id], *reversed(parts)])
        return None

    def check(self, node: ast.AST, bound: frozenset[str], uses: list[str], depth: int = 0) -> None:
        """Raise StaticError unless ``node`` is evaluable from TensorFlow, constants and builtins."""
        if depth > 30:
            raise StaticError(f"{self.path}:{getattr(node, 'lineno', 0)}: expression too deeply nested")
        if isinstance(node, ast.Lambda):
            names = {a.arg for a in node.args.args + node.args.kwonlyargs}
            self.check(node.body, bound | names, uses, depth + 1)
            return
        if isinstance(node, ast.Name):
            if node.id in bound or node.id in self.aliases or (node.id in SAFE_BUILTINS and node.id not in self.assigned):
                return
            values = self.assigned.get(node.id, [])
            if len(values) == 1 and isinstance(values[0], ast.expr):
                if node.id not in uses:
                    uses.append(node.id)
                    self.check(values[0], frozenset(), uses, depth + 1)
                return
            why = "assigned more than once at module level" if len(values) > 1 else "not a module-level constant"
            raise StaticError(f"{self.path}:{node.lineno}: `{node.id}` is {why}; name a function instead: {self.path}:build_estimator")
        if isinstance(node, ast.Call):
            target = self.dotted(node.func)
            name = target.rsplit(".", 1)[-1] if target else getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in UNSAFE:
                raise StaticError(f"{self.path}:{node.lineno}: `{ast.unparse(node.func)}(...)` reads or writes files; name a function instead: {self.path}:build_estimator")
            method_of_value = isinstance(node.func, ast.Attribute) and target is None  # rng.rand(...), x.astype(...)
            if target is None and not method_of_value and not (isinstance(node.func, ast.Name) and node.func.id in SAFE_BUILTINS and node.func.id not in self.assigned):
                raise StaticError(f"{self.path}:{node.lineno}: `{ast.unparse(node.func)}(...)` is the program's own code, not TensorFlow; "
                                  f"name a function instead: {self.path}:build_estimator")
        if isinstance(node, ast.Attribute) and self.dotted(node) is None:
            self.check(node.value, bound, uses, depth + 1)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            raise StaticError(f"{self.path}:{node.lineno}: `{ast.unparse(node)[:60]}` cannot be evaluated statically")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
                continue
            if isinstance(child, ast.keyword):
                self.check(child.value, bound, uses, depth + 1)
            elif isinstance(child, ast.AST):
                self.check(child, bound, uses, depth + 1)


def _constructions(mod: _Module) -> list[tuple[ast.Call, str]]:
    out = []
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call):
            name = mod.dotted(node.func)
            if name and name.rsplit(".", 1)[-1] in CANNED and name.rsplit(".", 1)[0].startswith(ESTIMATOR_MODULES):
                out.append((node, name))
    return sorted(out, key=lambda x: (x[0].lineno, x[0].col_offset))


def find(source: str | bytes, path: str) -> list[Site]:
    """Every tf.estimator construction, each with its model_dir (when constant) or the reason it cannot be built."""
    if isinstance(source, bytes):
        source = source.decode("utf-8", errors="replace")
    try:
        mod = _Module(source, path)
    except SyntaxError as exc:
        return [Site(path, exc.lineno or 0, "?", error=f"{path}:{exc.lineno}: cannot parse: {exc.msg}")]
    sites = []
    for call, name in _constructions(mod):
        short = name.replace("tensorflow.", "tf.", 1)
        site = Site(path, call.lineno, short)
        uses: list[str] = []
        try:
            if name.endswith(".Estimator"):
                raise StaticError(f"{path}:{call.lineno}: {short}(model_fn=...) runs the program's own model_fn: "
                                  f"name a function that returns it: {path}:build_estimator")
            if call.args or any(k.arg is None for k in call.keywords):
                raise StaticError(f"{path}:{call.lineno}: {short}: positional or ** arguments; write them as keywords")
            for kw in call.keywords:
                if kw.arg == "model_dir":
                    continue
                mod.check(kw.value, frozenset(), uses)
        except StaticError as exc:
            site.error = str(exc)
        site.model_dir = _model_dir(mod, call)
        site.uses = uses
        consts = {u: ast.unparse(mod.assigned[u][0]) for u in uses}
        site.key = json.dumps([name, ast.unparse(call), consts], sort_keys=True) if not site.error else json.dumps([site.error.split(":", 2)[-1], ast.unparse(call)])
        sites.append(site)
    return sites


def _model_dir(mod: _Module, call: ast.Call) -> str | None:
    for kw in call.keywords:
        if kw.arg == "model_dir":
            value = kw.value
            if isinstance(value, ast.Name) and len(mod.assigned.get(value.id, [])) == 1:
                value = mod.assigned[value.id][0]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    return None


def build(path: str, line: int | None, model_dir: str) -> tuple[Any, str | None]:
    """Build the construction on ``line`` (or the first buildable one) with ``model_dir``; (estimator, code's model_dir).

    Runs in the TensorFlow child: the arguments are evaluated by Python with TensorFlow imported
    the way the file imports it and the module-level constants they use."""
    import importlib

    source = Path(path).read_text(encoding="utf-8", errors="replace")
    mod = _Module(source, path)
    sites = find(source, path)
    if not sites:
        raise StaticError(f"{path}: no tf.estimator construction found; name a function that returns the estimator: {path}:build_estimator")
    if line is not None:
        chosen = [s for s in sites if s.line == line]
        if not chosen:
            raise StaticError(f"{path}:{line}: no tf.estimator construction on that line (found on {', '.join(str(s.line) for s in sites)})")
    else:
        chosen = [s for s in sites if not s.error] or sites
    site = chosen[0]
    if site.error:
        raise StaticError(site.error)
    call = next(c for c, _ in _constructions(mod) if c.lineno == site.line)
    namespace: dict[str, Any] = {"__builtins__": {k: __builtins__[k] if isinstance(__builtins__, dict) else getattr(__builtins__, k)  # type: ignore[index]
                                                  for k in SAFE_BUILTINS if k not in ("True", "False", "None")}}
    for alias, dotted in mod.aliases.items():
        namespace[alias] = _resolve(importlib, dotted)
    for name in _ordered(site.uses, mod):
        namespace[name] = eval(compile(ast.Expression(mod.assigned[name][0]), path, "eval"), namespace)  # noqa: S307 - checked above
    call = ast.Call(func=call.func, args=[], keywords=[k for k in call.keywords if k.arg != "model_dir"])
    expr = ast.fix_missing_locations(ast.Expression(call))
    try:
        est = eval(compile(expr, path, "eval"), namespace)  # noqa: S307 - every name checked by find()
    except Exception as exc:  # noqa: BLE001 - the user's arguments
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StaticError(f"{path}:{site.line}: {site.cls}(...) fails: {type(exc).__name__}: {first[:300]}") from None
    est._tfmigrate_declared_model_dir = site.model_dir
    config = est._config
    est._model_dir = model_dir
    est._config = config.replace(model_dir=model_dir)
    return est, site.model_dir


def _ordered(uses: list[str], mod: _Module) -> list[str]:
    """Constants in dependency order."""
    done: list[str] = []

    def visit(name: str, stack: tuple[str, ...] = ()) -> None:
        if name in done or name in stack:
            return
        for node in ast.walk(mod.assigned[name][0]):
            if isinstance(node, ast.Name) and node.id in uses:
                visit(node.id, stack + (name,))
        done.append(name)

    for u in uses:
        visit(u)
    return done


def _resolve(importlib: Any, dotted: str) -> Any:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise StaticError(f"cannot import {dotted}")
