"""Resolve a validation TARGET to a factory ``factory(model_dir) -> Estimator | keras.Model | (model_fn, params)``.

``file.py:function``: the function is called (with ``model_dir=`` when it accepts that keyword);
``file.py``: the ``tf.estimator`` constructions found statically in a migrated source file, built
by the static evaluator shared with the checkpoint analyser (``tfmigrate.targets_static``).

This module is imported in the child (where TensorFlow runs); ``split`` is also used by the parent.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


class TargetError(ValueError):
    """TARGET cannot be loaded; the message is one line naming the file (and line)."""


def split(target: str) -> tuple[Path, str | None]:
    path, sep, func = target.rpartition(":")
    if not sep or not path or "/" in func or func.endswith(".py") or not (func.isidentifier() or func.isdigit()):
        return Path(target), None
    return Path(path), func


def check(target: str) -> None:
    """Cheap checks the parent can make without TensorFlow."""
    path, _ = split(target)
    if not path.is_file():
        raise TargetError(f"{path}: no such file (TARGET is file.py:function or a migrated file.py)")


def _import(path: Path):
    directory = str(path.resolve().parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = f"_tfmigrate_target_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"{path}: cannot import")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    cwd = os.getcwd()
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise TargetError(f"{path}:{exc.lineno}: cannot import: {exc.msg}") from None
    finally:
        os.chdir(cwd)
    return module


def factory_for(target: str) -> tuple[Callable[[str], Any], str]:
    check(target)
    path, func = split(target)
    if func is None or func.isdigit():
        return _static_factory(target), target
    module = _import(path)
    fn = getattr(module, func, None)
    if fn is None or not callable(fn):
        raise TargetError(f"{path}: no function {func}()")
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    # the function names where checkpoints go: model_dir=, or output_dir= (a contrib.learn experiment_fn)
    dir_kw = next((k for k in ("model_dir", "output_dir") if k in params), None)

    def factory(model_dir: str) -> Any:
        return fn(**{dir_kw: model_dir}) if dir_kw else fn()

    # def build(model_dir="models/iris"): the directory the user's own runs train into
    default = params[dir_kw].default if dir_kw else None
    factory.declared_model_dir = default if isinstance(default, (str, os.PathLike)) and str(default) else None  # type: ignore[attr-defined]

    # a custom model_fn without feature columns trains on the module's own input function
    factory.input_fn = getattr(module, "train_input_fn", None) or getattr(module, "input_fn", None)  # type: ignore[attr-defined]
    return factory, target


def _static_factory(spec: str) -> Callable[[str], Any]:
    """A migrated source file (or file.py:LINE): its tf.estimator construction, evaluated statically."""
    from tfmigrate import targets_static as static

    path, _, line = spec.rpartition(":") if spec.rpartition(":")[2].isdigit() else (spec, "", "")
    try:
        chosen_line = static.select(static.find(Path(path).read_bytes(), path), path, int(line) if line else None).line
    except static.StaticError as exc:
        raise TargetError(str(exc)) from None

    def factory(model_dir: str) -> Any:
        try:
            return static.build(path, chosen_line, model_dir)[0]
        except static.StaticError as exc:
            raise TargetError(str(exc)) from None

    return factory
