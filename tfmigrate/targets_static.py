"""Find the ``tf.estimator`` constructions of a migrated source file and build them (in a TF process).

The one static reader behind ``tfmigrate validate``/``report`` (``tfmigrate.validate.targets``),
``tfmigrate ckpt diff --model file.py`` (``tfmigrate.checkpoint.targets``) and ``ckpt convert --to keras``.

What ``tfmigrate rewrite`` writes must be buildable: ``optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(...)``,
``loss_reduction=tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE``, module-level constants such as
``FEATURES = [tf.feature_column.numeric_column("x", shape=(4,))]`` or ``UNITS = [10, 10]``, and the
same assigned once in the function that builds the estimator (``cols = [...]`` inside ``main()``).
An argument is read in a closed grammar (:mod:`tfmigrate.static_values`): literals, arithmetic on them,
constants (assigned exactly once, in the enclosing function or at module level, and never changed
afterwards: no ``cols.append(...)``, ``cols[0] = ...``, ``cols += ...``) and a fixed table of TensorFlow
constructors matched by their full names. Nothing the file names is imported, looked up or called: the
plan read here is built in the TensorFlow process by tfmigrate's own code. Anything else is refused in
one line naming the file and line, and what to write instead.

``find``/``select`` are static (``ast``, no TensorFlow); ``build`` runs in the TensorFlow process.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfmigrate import static_values as values

CANNED = (
    "DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor", "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor", "BaselineClassifier", "BaselineRegressor", "DNNEstimator", "LinearEstimator",
    "BoostedTreesClassifier", "BoostedTreesRegressor", "Estimator",
)
ESTIMATOR_MODULES = ("tensorflow.estimator", "tensorflow.compat.v1.estimator", "tensorflow.compat.v2.estimator", "tensorflow_estimator")
# methods that change a list/dict/set in place: a name they are called on is not a constant
MUTATORS = frozenset({"append", "extend", "insert", "update", "pop", "remove", "clear", "setdefault", "add", "sort",
                      "reverse", "discard", "popitem"})


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
    uses: list[str] = field(default_factory=list)  # constants it needs (enclosing function's, then module's)
    args: dict[str, str] = field(default_factory=dict)  # keyword -> its source text
    plans: dict[str, Any] = field(default_factory=dict, repr=False)  # keyword -> its plan (static_values), model_dir excepted
    positional: list[Any] = field(default_factory=list, repr=False)  # canned_keras_model: the plans of its arguments after the first

    @property
    def short(self) -> str:
        return self.cls


class _Scope:
    """The names one scope (the module, or a function) binds: constants (assigned once by a plain
    assignment), other bindings (parameters, loops, imports, defs...) and in-place changes."""

    def __init__(self, body: list[ast.stmt], params: ast.arguments | None = None) -> None:
        self.assigned: dict[str, list[ast.AST]] = {}
        self.changed: dict[str, str] = {}  # name -> "`name.append` on line 16" / "line 16"
        self.function = params is not None
        if params is not None:
            for a in [*params.posonlyargs, *params.args, *params.kwonlyargs, params.vararg, params.kwarg]:
                if a is not None:
                    self.assigned.setdefault(a.arg, []).append(a)
        for stmt in body:
            for node in _walk_scope(stmt):
                self._note(node)

    def _bind(self, name: str, node: ast.AST) -> None:
        self.assigned.setdefault(name, []).append(node)

    def _note(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    self._bind(t.id, node.value)
                else:
                    self._targets(t, node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            self._bind(node.target.id, node.value if node.value is not None else node)
        elif isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):
                self._bind(node.target.id, node)
            else:
                self._targets(node.target, node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._targets(node.target, node)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._targets(node.optional_vars, node.optional_vars)
        elif isinstance(node, ast.NamedExpr):
            self._bind(node.target.id, node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self._bind(node.name, node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            library = {local for local, _ in _library_imports(node)}  # TensorFlow/numpy/math: evaluated as imported
            for a in node.names:
                local = a.asname or a.name.split(".")[0]
                if local not in library:
                    self._bind(local, node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._bind(node.name, node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for n in node.names:
                self._bind(n, node)
        elif isinstance(node, ast.Delete):
            for t in node.targets:
                self._targets(t, node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            if isinstance(node.func.value, ast.Name):
                n = node.func.value.id
                self.changed.setdefault(n, f"`{n}.{node.func.attr}` on line {node.lineno}")

    def _targets(self, target: ast.AST, node: ast.AST) -> None:
        """Names a store target binds (``a, b = ...``) or changes in place (``cols[0] = ...``, ``x.y = ...``)."""
        if isinstance(target, ast.Name):
            self._bind(target.id, node)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for el in target.elts:
                self._targets(el, node)
        elif isinstance(target, ast.Starred):
            self._targets(target.value, node)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            base = target.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                self.changed.setdefault(base.id, f"line {getattr(target, 'lineno', 0)}")


def _library_imports(node: ast.AST) -> list[tuple[str, str]]:
    """(local name, dotted name) for each TensorFlow, numpy or math name an import statement binds."""
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.name in ("tensorflow", "numpy", "math") or a.name.startswith(("tensorflow.", "tensorflow_estimator", "numpy.")):
                out.append((a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0]))
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        if node.module in ("tensorflow", "numpy") or node.module.startswith(("tensorflow.", "tensorflow_estimator", "numpy.")):
            out.extend((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*")
    return out


def _walk_scope(node: ast.AST):
    """``ast.walk`` that does not enter nested functions, classes or lambdas (their own scopes)."""
    yield node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        for d in node.decorator_list:
            yield from _walk_scope(d)
        return
    if isinstance(node, ast.Lambda):
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk_scope(child)


def _returns_value(fn: ast.AST) -> bool:
    """A ``return VALUE`` of the function itself (not of a function or lambda nested in it)."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def snippet(node: ast.AST, limit: int = 100) -> str:
    """The expression's source, whole when short, else cut after a whole token with an ellipsis."""
    text = ast.unparse(node)
    if len(text) <= limit:
        return text
    cut = max(text.rfind(c, 0, limit) for c in " (,[")
    return text[: cut if cut > limit // 2 else limit].rstrip(" ([,") + " ..."


class _Module:
    call: ast.Call | None = None  # the construction being analysed

    def remedy(self) -> str:
        """What to name instead: the function around the construction when it returns something (an
        estimator, or (estimator, TrainSpec, EvalSpec)), else a function to write."""
        line = self.call.lineno if self.call is not None else 0
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or 0):
                returns = _returns_value(node)
                if returns and node.name != "main":
                    return f"name the function that returns it: {self.path}:{node.name}"
                break
        program = ""
        if self.trains():
            program = f"; or validate the program itself, run up to its first train: tfmigrate validate --program {self.path}"
        return (f"write a function that returns the estimator (def build_estimator(model_dir): return tf.estimator....) "
                f"and name it: {self.path}:build_estimator{program}")

    def trains(self) -> bool:
        """Whether the module is a program that trains an estimator: it runs something when run as
        ``__main__`` (a ``__name__`` guard or a call at module level) and calls ``.train(``,
        ``train_and_evaluate``, ``learn_runner.run`` or ``.fit(``. Then ``validate --program`` can run it."""
        runs = any(
            (isinstance(node, ast.If) and "__name__" in ast.unparse(node.test))
            or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))
            for node in self.tree.body
        )
        if not runs:
            return False
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
                if name in ("train", "train_and_evaluate", "fit") or (name == "run" and "learn_runner" in ast.unparse(node.func)):
                    return True
        return False

    def __init__(self, source: str, path: str):
        self.path = path
        self.tree = ast.parse(source, filename=path)
        # local name -> dotted module/attribute (tensorflow, numpy, math only), from imports anywhere in the
        # file (`import tensorflow as tf` inside main() names the same module); a name bound to two differs is dropped
        self.aliases: dict[str, str] = {}
        clashes: set[str] = set()
        for node in ast.walk(self.tree):
            for local, dotted in _library_imports(node):
                if self.aliases.setdefault(local, dotted) != dotted:
                    clashes.add(local)
        for local in clashes:
            del self.aliases[local]
        self.scope = _Scope(self.tree.body)
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(self.tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        self._function_scopes: dict[ast.AST, _Scope] = {}
        for node in ast.walk(self.tree):  # `FEATURES.append(...)` inside a function changes the module's FEATURES
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for name, how in self._function_scope(node).changed.items():
                    if name not in self._function_scopes[node].assigned:
                        self.scope.changed.setdefault(name, how)

    def dotted(self, node: ast.expr) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ".".join([self.aliases[node.id], *reversed(parts)])
        return None

    def scopes_of(self, node: ast.AST) -> tuple[_Scope, ...]:
        """The scopes a name at ``node`` is looked up in: enclosing functions (innermost first), then the module."""
        chain: list[_Scope] = []
        p = self.parents.get(node)
        while p is not None:
            if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
                chain.append(self._function_scope(p))
            p = self.parents.get(p)
        return (*chain, self.scope)

    def _function_scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> _Scope:
        if node not in self._function_scopes:
            self._function_scopes[node] = _Scope(node.body, node.args)
        return self._function_scopes[node]

    def plan(self, node: ast.expr, reading: _Reading, scopes: tuple[_Scope, ...], keyword: str | None = None) -> Any:
        """The plan of an argument (:mod:`tfmigrate.static_values`: literals, this file's constants and the
        constructors of a fixed table, read, never run); StaticError (one line naming file and line) for
        anything else. The constants it reads are added to ``reading.uses`` (name -> the expression assigned
        to it): one ``_Reading`` for all the arguments of a call."""
        reading.keyword = keyword
        value = self.value(node, reading, scopes)
        try:
            return values.plan(value, node)
        except values.Refused as refused:
            raise StaticError(self._refusal(refused, keyword)) from None

    def value(self, node: ast.expr, reading: _Reading, scopes: tuple[_Scope, ...]) -> Any:
        reader = values.Reader(self.dotted, lambda n: self._binding(n.id, scopes) is not None,
                               lambda n: self._constant(n, reading, scopes))
        try:
            return reader.read(node)
        except values.Refused as refused:
            raise StaticError(self._refusal(refused, reading.keyword)) from None
        except RecursionError:
            raise StaticError(f"{self.path}:{node.lineno}: expression too deeply nested; {self.remedy()}") from None

    def _refusal(self, refused: values.Refused, keyword: str | None) -> str:
        node = refused.node
        instead = f"pass {keyword}= as a literal instead" if keyword else "pass a literal instead"
        return (f"{self.path}:{getattr(node, 'lineno', 0)}: `{snippet(node)}` cannot be evaluated statically: {refused.why} "
                f"(tfmigrate reads {values.WHAT_IS_READ}, and never runs them); {instead}, or {self.remedy()}")

    def _binding(self, name: str, scopes: tuple[_Scope, ...]) -> tuple[_Scope, int] | None:
        for i, scope in enumerate(scopes):
            if name in scope.assigned:
                return scope, i
        return None

    def _constant(self, node: ast.Name, reading: _Reading, scopes: tuple[_Scope, ...]) -> Any:
        """The value of a name bound once by a plain assignment, never changed (read in the scope it is bound in)."""
        name = node.id
        found = self._binding(name, scopes)
        assert found is not None
        scope, index = found
        assigned = scope.assigned[name]
        if len(assigned) > 1:
            kind = "in its function" if scope.function else "at module level"
            raise StaticError(f"{self.path}:{node.lineno}: `{name}` is assigned more than once {kind}; {self.remedy()}")
        value = assigned[0]
        if not isinstance(value, ast.expr):
            why = ("not bound by a plain assignment (a parameter, loop variable, import...)" if scope.function
                   else "not a module-level constant")
            raise StaticError(f"{self.path}:{node.lineno}: `{name}` is {why}; {self.remedy()}")
        if name in scope.changed:
            raise StaticError(f"{self.path}:{node.lineno}: `{name}` is changed after its assignment ({scope.changed[name]}); "
                              f"{self.remedy()}")
        if name in reading.uses:
            if reading.uses[name] is not value:
                raise StaticError(f"{self.path}:{node.lineno}: `{name}` names both a local and a module-level value; "
                                  f"{self.remedy()}")
            if name not in reading.memo:
                raise StaticError(f"{self.path}:{node.lineno}: `{name}` is defined through itself; {self.remedy()}")
            return reading.memo[name]
        if len(reading.uses) - len(reading.memo) > 50:
            raise StaticError(f"{self.path}:{node.lineno}: constants nested too deeply; {self.remedy()}")
        reading.uses[name] = value
        reading.memo[name] = self.value(value, reading, scopes[index:])
        return reading.memo[name]


@dataclass
class _Reading:
    """The constants one argument's reading has met: their expressions (``uses``, in the order met) and values."""

    uses: dict[str, ast.expr]
    memo: dict[str, Any] = field(default_factory=dict)
    keyword: str | None = None  # the argument being read (the refusal says to pass it as a literal)


def _constructions(mod: _Module) -> list[tuple[ast.Call, str]]:
    out = []
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call):
            name = mod.dotted(node.func)
            if name and name.rsplit(".", 1)[-1] in CANNED and name.rsplit(".", 1)[0].startswith(ESTIMATOR_MODULES):
                out.append((node, name))
    return sorted(out, key=lambda x: (x[0].lineno, x[0].col_offset))


def _analyse(mod: _Module, call: ast.Call, name: str) -> tuple[Site, dict[str, ast.expr]]:
    path = mod.path
    short = name.replace("tensorflow.", "tf.", 1)
    site = Site(path, call.lineno, short)
    uses: dict[str, ast.expr] = {}
    reading = _Reading(uses)
    scopes = mod.scopes_of(call)
    mod.call = call
    try:
        if name.endswith(".Estimator"):
            raise StaticError(f"{path}:{call.lineno}: {short}(model_fn=...) runs the program's own model_fn; {mod.remedy()}")
        if call.args or any(k.arg is None for k in call.keywords):
            raise StaticError(f"{path}:{call.lineno}: {short}: positional or ** arguments; write them as keywords")
        for kw in call.keywords:
            site.args[kw.arg] = ast.unparse(kw.value)  # type: ignore[index]
            if kw.arg == "model_dir":
                continue
            site.plans[kw.arg] = mod.plan(kw.value, reading, scopes, kw.arg)  # type: ignore[index]
    except StaticError as exc:
        site.error = str(exc)
    site.model_dir = _model_dir(mod, call, scopes)
    site.uses = list(uses)
    consts = {u: ast.unparse(v) for u, v in uses.items()}
    site.key = json.dumps([name, ast.unparse(call), consts], sort_keys=True) if not site.error else json.dumps([site.error.split(":", 2)[-1], ast.unparse(call)])
    return site, uses


# --target keras: the Keras model `tfmigrate rewrite --target keras` writes for a canned estimator is a call of
# the helper it writes into the module (tfmigrate.keras_runtime): canned_keras_model("DNNClassifier", ...)
KERAS_BUILDER = "canned_keras_model"


def _keras_constructions(mod: _Module) -> list[tuple[ast.Call, str]]:
    """``canned_keras_model("DNNClassifier", ...)`` calls, each with the estimator it stands for."""
    out = []
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name != KERAS_BUILDER:
                continue
            first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "estimator"), None)
            estimator = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else "?"
            out.append((node, estimator))
    return sorted(out, key=lambda x: (x[0].lineno, x[0].col_offset))


def _analyse_keras(mod: _Module, call: ast.Call, estimator: str) -> tuple[Site, dict[str, ast.expr]]:
    path = mod.path
    site = Site(path, call.lineno, f'{KERAS_BUILDER}("{estimator}")')
    uses: dict[str, ast.expr] = {}
    reading = _Reading(uses)
    scopes = mod.scopes_of(call)
    mod.call = call
    try:
        if estimator == "?":
            raise StaticError(f"{path}:{call.lineno}: {KERAS_BUILDER}(...): its first argument must name the estimator as a string")
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            raise StaticError(f"{path}:{call.lineno}: {site.cls}: * or ** arguments; write them as keywords")
        for arg in call.args[1:]:
            site.positional.append(mod.plan(arg, reading, scopes))
        for kw in call.keywords:
            site.args[kw.arg] = ast.unparse(kw.value)  # type: ignore[index]
            if kw.arg not in ("model_dir", "estimator"):
                site.plans[kw.arg] = mod.plan(kw.value, reading, scopes, kw.arg)  # type: ignore[index]
    except StaticError as exc:
        site.error = str(exc)
    site.model_dir = _model_dir(mod, call, scopes)
    site.uses = list(uses)
    consts = {u: ast.unparse(v) for u, v in uses.items()}
    site.key = json.dumps([KERAS_BUILDER, ast.unparse(call), consts], sort_keys=True) if not site.error else json.dumps([site.error.split(":", 2)[-1], ast.unparse(call)])
    return site, uses


def find_keras(source: str | bytes, path: str) -> list[Site]:
    """Every ``canned_keras_model(...)`` call (the Keras model of a canned estimator ``rewrite --target keras``
    writes), each with its model_dir (when constant) or the reason it cannot be built statically."""
    if isinstance(source, bytes):
        source = source.decode("utf-8", errors="replace")
    try:
        mod = _Module(source, path)
    except SyntaxError as exc:
        return [Site(path, exc.lineno or 0, "?", error=f"{path}:{exc.lineno}: cannot parse: {exc.msg}")]
    return [_analyse_keras(mod, call, estimator)[0] for call, estimator in _keras_constructions(mod)]


def select_keras(sites: list[Site], path: str, line: int | None) -> Site:
    """:func:`select` for ``canned_keras_model`` calls."""
    return _choose(sites, path, line, what=f"{KERAS_BUILDER}(...) call",
                   none=f"{path}: no {KERAS_BUILDER}(...) call found (the Keras model `tfmigrate rewrite --target keras` writes)")


def build_keras(path: str, line: int | None, model_dir: str, helpers: dict[str, Any]) -> tuple[Any, Site, dict[str, Any]]:
    """Build the ``canned_keras_model`` call on ``line`` (or the first buildable one) with ``model_dir``,
    calling ``helpers["canned_keras_model"]`` (the namespace ``keras_runtime.program_text()`` was executed in,
    TensorFlow 2.21); (model, its Site, the keyword arguments it was built with, model_dir excepted).

    The arguments are evaluated afresh at each call (an optimizer instance serves one model only)."""
    import numpy

    source = Path(path).read_text(encoding="utf-8", errors="replace")
    mod = _Module(source, path)
    pairs = _keras_constructions(mod)
    sites = [_analyse_keras(mod, call, estimator)[0] for call, estimator in pairs]
    site = select_keras(sites, path, line)
    estimator = pairs[sites.index(site)][1]
    modules = {"tensorflow": helpers["tf"], "numpy": numpy}
    try:
        args = [values.materialize(p, modules) for p in site.positional]
        kwargs = {k: values.materialize(p, modules) for k, p in site.plans.items()}
        model = helpers[KERAS_BUILDER](estimator, *args, model_dir=model_dir, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the user's arguments
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StaticError(f"{path}:{site.line}: {site.cls} fails: {type(exc).__name__}: {first[:300]}") from None
    return model, site, kwargs


def find(source: str | bytes, path: str) -> list[Site]:
    """Every tf.estimator construction, each with its model_dir (when constant) or the reason it cannot be built."""
    return find_with_builder(source, path, ())[0]


def find_with_builder(source: str | bytes, path: str, builders: tuple[str, ...]) -> tuple[list[Site], tuple[str, int] | None]:
    """:func:`find`, and the first module-level function named in ``builders`` (name, line) that the
    module defines, from the one parse."""
    if isinstance(source, bytes):
        source = source.decode("utf-8", errors="replace")
    try:
        mod = _Module(source, path)
    except SyntaxError as exc:
        return [Site(path, exc.lineno or 0, "?", error=f"{path}:{exc.lineno}: cannot parse: {exc.msg}")], None
    sites = [_analyse(mod, call, name)[0] for call, name in _constructions(mod)]
    defs = {n.name: n.lineno for n in mod.tree.body if isinstance(n, ast.FunctionDef)}
    builder = next(((name, defs[name]) for name in builders if name in defs), None)
    return sites, builder


def select(sites: list[Site], path: str, line: int | None) -> Site:
    """The construction a target means: the one on ``line``, else the first buildable one. StaticError
    (one line) when there is none or it cannot be built."""
    return _choose(sites, path, line, what="tf.estimator construction",
                   none=f"{path}: no tf.estimator construction found; write a function that returns the estimator "
                        f"(def build_estimator(model_dir): return tf.estimator....) and name it: {path}:build_estimator")


def _choose(sites: list[Site], path: str, line: int | None, what: str, none: str) -> Site:
    if not sites:
        raise StaticError(none)
    if line is not None:
        chosen = [s for s in sites if s.line == line]
        if not chosen:
            raise StaticError(f"{path}:{line}: no {what} on that line (found on {', '.join(str(s.line) for s in sites)})")
    else:
        chosen = [s for s in sites if not s.error] or sites
    if chosen[0].error:
        raise StaticError(chosen[0].error)
    return chosen[0]


def _model_dir(mod: _Module, call: ast.Call, scopes: tuple[_Scope, ...]) -> str | None:
    for kw in call.keywords:
        if kw.arg == "model_dir":
            value = kw.value
            if isinstance(value, ast.Name):
                found = mod._binding(value.id, scopes)  # noqa: SLF001
                if found and len(found[0].assigned[value.id]) == 1:
                    value = found[0].assigned[value.id][0]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    return None


def build(path: str, line: int | None, model_dir: str, drop: tuple[str, ...] = ()) -> tuple[Any, str | None]:
    """Build the construction on ``line`` (or the first buildable one) with ``model_dir``; (estimator, code's model_dir).

    Runs in the TensorFlow process: the arguments' plans (read statically, :mod:`tfmigrate.static_values`)
    are built from TensorFlow's own constructors; nothing of the file is run. Every argument is kept
    (``config=`` included; its model_dir is replaced) except ``model_dir`` and the keywords in ``drop``."""
    import numpy
    import tensorflow

    source = Path(path).read_text(encoding="utf-8", errors="replace")
    mod = _Module(source, path)
    pairs = _constructions(mod)
    sites = [_analyse(mod, call, name)[0] for call, name in pairs]
    site = select(sites, path, line)
    name = pairs[sites.index(site)][1]
    short = next(c for c in CANNED if c == name.rsplit(".", 1)[-1])  # our own name for the class, never the file's text
    # tf.estimator.X, or tf.compat.v1.estimator.X for the V1 classes
    cls = getattr(tensorflow.compat.v1.estimator if ".compat.v1." in name else tensorflow.estimator, short)
    modules = {"tensorflow": tensorflow, "numpy": numpy}
    try:
        kwargs = {k: values.materialize(p, modules) for k, p in site.plans.items() if k not in drop}
        est = cls(**kwargs)
    except Exception as exc:  # noqa: BLE001 - the user's arguments
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StaticError(f"{path}:{site.line}: {site.cls}(...) fails: {type(exc).__name__}: {first[:300]}") from None
    est._tfmigrate_declared_model_dir = site.model_dir
    config = est._config
    est._model_dir = model_dir
    est._config = config.replace(model_dir=model_dir)
    return est, site.model_dir
