"""TARGET: the new model a checkpoint is compared with (``ckpt diff --model``) or validated (``validate``).

Three forms, one API. Parsing and the static search never import TensorFlow; loading does, so call
:func:`load` only inside a child process (see :func:`model_variables`, which runs one for you).

``file.py:function``
    ``function()`` returns a ``tf.estimator.Estimator`` (canned or custom), a Keras model, or a
    ``(model_fn, params)`` pair. Features for a custom ``model_fn`` come from
    ``params["feature_columns"]`` or from a module-level ``train_input_fn``/``input_fn``.
``file.py`` or ``file.py:LINE``
    A migrated source file: its ``tf.estimator.*`` constructions are found statically and their
    arguments evaluated by :mod:`tfmigrate.targets_static` (the evaluator ``tfmigrate validate``
    uses too: TensorFlow, numpy, constants, lambdas; never the program's own code or file access).
    The first buildable construction, or the one on LINE. Its ``config=`` is kept (its model_dir
    replaced); its ``warm_start_from=`` is dropped, so nothing the user has is read.
``CHECKPOINT``
    Another checkpoint (prefix, ``.index`` file or model_dir): its variables are read without TF.

Stable API (the validation run imports it)::

    t = parse_target("train.py:make_estimator")     # Target; TargetError on a bad spec
    find_constructions(Path("train.py"))            # [Construction] (targets_static.Site), static, no TF
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tfmigrate import targets_static as static
from tfmigrate.checkpoint.index import CheckpointError

CHILD_TIMEOUT_S = 300


class TargetError(CheckpointError):
    """A TARGET cannot be parsed, found, evaluated or loaded. One line."""


@dataclass(frozen=True)
class Target:
    kind: Literal["function", "source", "checkpoint"]
    spec: str
    path: str
    function: str | None = None  # "function" kind
    line: int | None = None  # "source" kind: the construction on this line


Construction = static.Site  # a tf.estimator construction found statically: .path, .line, .cls, .model_dir, .args, .error


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
    except index.MetaOnly as exc:  # only its .meta: the graph's variables stand in (names and shapes)
        prefix = exc.prefix
    except CheckpointError as exc:
        raise TargetError(f"{spec}: not file.py:function, a .py file or a checkpoint ({exc})") from None
    return Target("checkpoint", spec, prefix)


# --------------------------------------------------------------------------------------------
# static search (libcst, no TF)


def find_constructions(path: Path | str) -> list[Construction]:
    """Every ``tf.estimator.*`` construction in a source file; one that cannot be built statically has
    ``.error`` (one line naming its line)."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetError(f"{path}: cannot read: {exc}") from None
    return static.find(source, str(path))


def select_construction(target: Target) -> Construction:
    """The construction a ``source`` target means (first buildable, or the one on ``target.line``)."""
    try:
        return static.select(find_constructions(target.path), target.path, target.line)
    except static.StaticError as exc:
        raise TargetError(str(exc)) from None


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
        try:
            est, named_dir = static.build(target.path, c.line, workdir, drop=("warm_start_from",))
        except static.StaticError as exc:
            raise TargetError(str(exc)) from None
        return Loaded(target, estimator=est, feature_columns=canned_feature_columns(est), construction=c, model_dir=named_dir)
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

        try:
            ck = index.read(target.path, check_data=False)  # names and shapes only
        except index.MetaOnly as exc:
            from tfmigrate.checkpoint import meta

            ck = meta.read(exc.prefix)
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
    """Run ``python -m tfmigrate.checkpoint._tfchild ARGS`` (isolated, see :mod:`tfmigrate.childproc`);
    its JSON result, or TargetError."""
    from tfmigrate.childproc import child_env, json_answer, module_command
    from tfmigrate.warm import run

    # the child's temporary directory (the scratch model_dir of load(), what TensorFlow leaves there) is
    # removed when it ends: on success, on error, at the timeout and on Ctrl-C (subprocess.run kills it first)
    with tempfile.TemporaryDirectory(prefix="tfmigrate-tmp-", ignore_cleanup_errors=True) as child_tmp:
        env = child_env(dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", ABSL_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore"), tmpdir=child_tmp)
        try:
            proc = run(  # a fork of the user's warm TensorFlow server when $TFMIGRATE_WARM names one
                module_command("tfmigrate.checkpoint._tfchild", *args),
                input=stdin, capture_output=True, text=True, timeout=timeout, env=env, check=False,
            )
        except subprocess.TimeoutExpired:
            raise TargetError(f"TensorFlow child process ({' '.join(args[:2])}) took longer than {timeout:.0f} s") from None
    return json_answer(proc, "TensorFlow", TargetError)
