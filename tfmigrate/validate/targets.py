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
    syntax_error = _syntax_error(path)
    if syntax_error:
        raise TargetError(syntax_error)


def _syntax_error(path: Path) -> str | None:
    """A file Python 3 cannot compile (Python 2 code: ``print "x"``) is said in one line here, before any
    TensorFlow child starts; None when it compiles (or cannot be read: the child says why)."""
    import ast

    try:
        from tfmigrate.regular_files import open_regular

        with open_regular(path) as f:  # never blocks on a FIFO named like a file
            source = f.read()
    except Exception:  # noqa: BLE001 - not readable here: the child reports it
        return None
    try:
        ast.parse(source, str(path))
    except SyntaxError as exc:
        py2 = " (Python 2 code: port it to Python 3 first)" if "Missing parentheses" in str(exc.msg) or _looks_py2(source) else ""
        return f"{path}:{exc.lineno}: SyntaxError: {exc.msg}{py2}; validate runs the code with Python 3"
    except ValueError as exc:  # a NUL byte
        return f"{path}: cannot parse: {exc}"
    return None


def _looks_py2(source: bytes) -> bool:
    import re

    return bool(re.search(rb"^\s*(print\s+[\"'\w]|exec\s+[\"'\w])|except\s+\w+\s*,\s*\w+\s*:|\bur[\"']|^\s*raise\s+\w+\s*,", source, re.M))


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


def refuse_early(target: str, program: bool = False) -> None:
    """The refusal of a ``file.py`` with no tf.estimator construction in sight, made without TensorFlow (the
    parent makes it before starting a child): the same one line ``factory_for`` gives."""
    path, func = split(target)
    if program or func is not None:
        return
    from tfmigrate import targets_static as static

    if not static.find(path.read_bytes(), str(path)):
        try:
            static.select([], str(path), None)
        except static.StaticError as exc:
            raise TargetError(_no_estimator(str(exc), path)) from None


def _no_estimator(message: str, path: Path) -> str:
    return (f"{message} (validate trains tf.estimator estimators and compiled Keras models; a program that "
            f"builds one in another module: tfmigrate validate --program {path})")


def factory_for(target: str, program: bool = False, program_args: list[str] | None = None) -> tuple[Callable[[str], Any], str]:
    """``program``: run the file itself as ``__main__`` (with ``program_args`` as its flags) and take the
    estimator it trains. A plain ``file.py`` whose construction cannot be built statically falls back to
    that when the file has an ``if __name__ == "__main__":`` block."""
    check(target)
    path, func = split(target)
    if program:
        if func is not None:
            raise TargetError(f"{target}: --program runs the file itself as __main__: give the file only ({path})")
        return _program_factory(path, program_args or []), target
    if func is None:
        try:
            return _static_factory(target), target
        except TargetError as exc:
            from tfmigrate import targets_static as static

            if not static.find(path.read_bytes(), str(path)):  # no estimator in sight: never run the program blind
                raise TargetError(_no_estimator(str(exc), path)) from None
            # a program (a main() block, or a script that trains at import): run it up to its first train
            factory = _program_factory(path, program_args or [])
            factory.note = f"its construction cannot be built statically ({str(exc).split(': ', 1)[-1]}), so the program ran as __main__"  # type: ignore[attr-defined]
            return factory, target
    if func.isdigit():
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


# the program's copy (tfmigrate.validate.scratch), set by the validation child from its config: the program runs
# there, in the working directory the parent gave the child (the copy's root), never among the user's files
PROGRAM_COPY: str | None = None


def runs_program(target: str, program: bool = False) -> bool:
    """Whether validating TARGET runs the program itself (``--program``, or a ``file.py`` whose construction
    cannot be built statically): the parent then gives the child a copy to run it in. Static, no TensorFlow."""
    path, func = split(target)
    if program:
        return True
    if func is not None or not path.is_file():
        return False
    from tfmigrate import targets_static as static

    sites = static.find(path.read_bytes(), str(path))
    try:
        static.select(sites, str(path), None)
    except static.StaticError:
        return bool(sites)
    return False


# seconds the program may run before its first Estimator.train (TFMIGRATE_PROGRAM_LIMIT overrides it, for tests)
PROGRAM_LIMIT = float(os.environ.get("TFMIGRATE_PROGRAM_LIMIT") or 300)


class _Joined(BaseException):
    """Raised when the program makes its process a parameter server (``Server.join()`` serves forever)."""


class _TooLong(BaseException):
    """Raised in the program's main thread when it has run PROGRAM_LIMIT seconds without training."""


class _Trained(BaseException):
    """Raised at the program's first ``Estimator.train``: the program stops there, nothing trained yet.
    A BaseException, so the program's own ``except Exception`` does not swallow it."""

    def __init__(self, estimator: Any, input_fn: Any):
        super().__init__("captured")
        self.estimator = estimator
        self.input_fn = input_fn


def _program_factory(path: Path, args: list[str]) -> Callable[[str], Any]:
    """Run PATH as ``__main__`` with ``sys.argv = [PATH, *args]`` (its own flags, defaults otherwise) in
    the working directory, until its first ``Estimator.train`` (``tf.estimator.train_and_evaluate``
    trains through it too). That call is not run: the program stops there and the estimator it built,
    with the input_fn it trains on, is what validation trains, for its own step count, in a scratch
    model_dir. Nothing is ever written into the model_dir the program names."""
    import copy
    import runpy

    import tensorflow_estimator.python.estimator.estimator as est_lib

    def capture(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        raise _Trained(self, input_fn)

    from tensorflow.python.training import server_lib

    def join(self):
        raise _Joined()

    original = est_lib.Estimator.train  # the base of tf.estimator.Estimator (V2) and tf.compat.v1.estimator.Estimator
    original_join = server_lib.Server.join  # tf.distribute.Server and tf.compat.v1.train.Server
    run_as = Path(PROGRAM_COPY) if PROGRAM_COPY else path  # messages name the user's file; the copy runs
    saved_argv, saved_path, cwd = sys.argv, list(sys.path), os.getcwd()
    sys.argv = [str(run_as), *args]
    sys.path.insert(0, str(run_as.resolve().parent))
    est_lib.Estimator.train = capture
    server_lib.Server.join = join
    captured: _Trained | None = None
    cluster = f"tfmigrate validate --cluster chief=1,worker=1,ps=1 {path}:FUNCTION (a function that returns the estimator)"
    alarm = _alarm(PROGRAM_LIMIT)
    try:
        runpy.run_path(str(run_as), run_name="__main__")
    except _Trained as got:
        captured = got
    except _Joined:
        raise TargetError(f"{path}: the program made this process a parameter server (Server.join() serves forever) "
                          f"before it trained a tf.estimator.Estimator; pass a worker's flags with --args, or validate "
                          f"the migrated estimator as a cluster: {cluster}") from None
    except _TooLong:
        raise TargetError(f"{path}: the program ran {PROGRAM_LIMIT:.0f} s without reaching its first Estimator.train "
                          f"(waiting for other processes? a server, a queue, input?); name a function that returns its "
                          f"estimator: tfmigrate validate {path}:FUNCTION, or for a distributed program {cluster}") from None
    except SystemExit as exc:
        raise TargetError(f"{path}: the program exited (sys.exit({exc.code!r})) before it trained a tf.estimator.Estimator"
                          + (f"; pass its flags with --args" if exc.code not in (0, None) else "")) from None
    except Exception as exc:  # noqa: BLE001 - the program's own error, one line
        text = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
        legacy = (isinstance(exc, ImportError) and (exc.name or "").startswith("tensorflow")) or \
            (isinstance(exc, AttributeError) and "module 'tensorflow" in text)
        hint = (f"; it still uses TensorFlow APIs 2.15 lacks: `tfmigrate rewrite {path}` migrates them or lists the "
                "manual findings left to finish") if legacy else ""
        raise TargetError(f"{path}: the program raised {type(exc).__name__}: {text[:300]} before it trained a tf.estimator.Estimator{hint}") from None
    finally:
        alarm()
        est_lib.Estimator.train = original
        server_lib.Server.join = original_join
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(cwd)
    if captured is None:
        raise TargetError(f"{path}: the program ran to its end without training a tf.estimator.Estimator "
                          "(validate checks estimators and Keras models: name a function that returns one: file.py:function)")
    first = captured.estimator
    cells = _optimizer_cells(first._model_fn)

    def factory(model_dir: str) -> Any:
        est = copy.copy(first)  # the program's own definition, pointed at model_dir
        est._model_dir = model_dir
        est._config = first.config.replace(model_dir=model_dir)
        if cells:
            # a Keras optimizer instance serves one graph only: each graph this estimator builds gets a fresh
            # one from the program's own (its config), as the program's own single run would
            call = type(est)._call_model_fn

            def fresh_optimizer_call(*args: Any, **kwargs: Any) -> Any:
                for cell, cls, config in cells:
                    cell.cell_contents = cls.from_config(config)
                return call(est, *args, **kwargs)

            est._call_model_fn = fresh_optimizer_call
        return est

    factory.input_fn = captured.input_fn  # type: ignore[attr-defined]
    factory.declared_model_dir = first.model_dir  # type: ignore[attr-defined]
    factory.note = "the program ran as __main__ up to its first Estimator.train"  # type: ignore[attr-defined]
    return factory


def _alarm(seconds: float) -> Callable[[], None]:
    """Raise _TooLong in the main thread after ``seconds`` (SIGALRM; in the program's subprocesses too,
    which inherit nothing of it: they end with the validation child's process group). Returns the cancel."""
    import signal

    if not hasattr(signal, "setitimer") or not threading_main():
        return lambda: None

    def ring(signum: int, frame: Any) -> None:
        raise _TooLong()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

    return cancel


def threading_main() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _optimizer_cells(fn: Any) -> list:
    """[(closure cell, class, config)] for every Keras optimizer instance a model_fn's closures hold."""
    try:
        from tensorflow import keras
    except ImportError:
        return {}
    kinds = tuple(k for k in (getattr(keras.optimizers, "Optimizer", None), getattr(getattr(keras.optimizers, "legacy", None), "Optimizer", None)) if k)
    found: list = []
    seen: set[int] = set()
    stack = [fn]
    while stack:
        f = stack.pop()
        f = getattr(f, "__func__", f)
        if id(f) in seen:
            continue
        seen.add(id(f))
        for cell in getattr(f, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if kinds and isinstance(value, kinds):
                found.append((cell, type(value), value.get_config()))
            elif callable(value) and getattr(value, "__closure__", None):
                stack.append(value)
            elif callable(getattr(value, "_model_fn", None)):  # an estimator a wrapper (add_metrics) calls
                stack.append(value._model_fn)
    return found
