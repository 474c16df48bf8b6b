"""The Keras helpers module of ``rewrite --target keras``: written once a directory, not into each module.

A module lowered to Keras imports the helpers it calls (``from legacy_estimators import
canned_keras_model, input_dataset``; ``from .legacy_estimators import ...`` in a package). After the
files of a run are processed, each directory where a module imports them gets (write) or is checked
for (check, diff) ``<name>.py``: every helper of :mod:`tfmigrate.keras_runtime`, the text this
tfmigrate writes. It is written whole where it is missing or holds an older text, so a module
rewritten alone still imports what exists, and a second run changes nothing. A file of that name
that tfmigrate did not write (no marker on its first line) is never touched: the run reports it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tfmigrate import keras_runtime
from tfmigrate.codemod.files import SourceError, display_path, read_source
from tfmigrate.results import FileResult

def import_source(path: Path, name: str) -> str:
    """What the module at ``path`` imports the helpers from: ``.name`` in a package (an
    ``__init__.py`` beside it, whose modules import their neighbours relatively), else ``name``."""
    return f".{name}" if (path.parent / "__init__.py").is_file() else name


def generated(data: bytes) -> bool:
    """Is this a helpers module tfmigrate wrote (its first line the marker)? Never migrated."""
    return data.startswith(keras_runtime.HELPERS_MARKER.encode())


def _imports_helpers(data: bytes, name: str) -> bool:
    return re.search(rb"(?m)^\s*from\s+\.?" + re.escape(name.encode()) + rb"\s+import\b", data) is not None \
        or re.search(rb'"\s*from\s+\.?' + re.escape(name.encode()) + rb"\s+import\b", data) is not None  # a notebook cell


def update(results: list[FileResult], mode: str, name: str) -> list[FileResult]:
    """The results of the helpers modules the run's modules import: written (``write``) or due
    (``check``/``diff``: reported as changed) where missing or out of date, an error where a file of
    that name is not tfmigrate's. ``results``: the run's files (their text is read from disk: in write
    mode the rewritten text; a module that would change is reported on its own in the other modes)."""
    directories: dict[Path, None] = {}
    for result in results:
        if result.status not in ("changed", "unchanged") or not result.path.endswith((".py", ".ipynb")):
            continue
        path = Path(result.path)
        if path.name == f"{name}.py":
            continue
        try:
            data = read_source(path)
        except SourceError:
            continue
        if _imports_helpers(data, name):
            directories.setdefault(path.parent)
    text = keras_runtime.helpers_module_text().encode()
    out = []
    for directory in directories:
        target = directory / f"{name}.py"
        shown = display_path(target)
        try:
            old = read_source(target) if target.exists() else None
        except SourceError as exc:
            out.append(FileResult(shown, "error", error=str(exc)))
            continue
        if old == text:
            continue
        if old is not None and not generated(old):
            out.append(FileResult(shown, "error", error=f"{shown}: the migrated modules beside it import the Keras helpers "
                                  "from it, but tfmigrate did not write it (no marker on its first line): rename it, or "
                                  "choose another module with --keras-helpers NAME"))
            continue
        if mode == "write":
            try:
                _write_new(target, text, old)
            except SourceError as exc:
                out.append(FileResult(shown, "error", error=str(exc)))
                continue
            except OSError as exc:
                out.append(FileResult(shown, "error", error=f"{shown}: cannot write: {exc.strerror or exc}"))
                continue
        out.append(FileResult(shown, "changed"))
    return out


def _write_new(target: Path, text: bytes, old: bytes | None) -> None:
    """The helpers module, in one step (a temporary file renamed over it)."""
    if old is not None:
        from tfmigrate.codemod.files import write_atomic

        write_atomic(target, text, original=old)
        return
    tmp = target.with_name(f".{target.name}.tfmigrate")
    tmp.write_bytes(text)
    os.replace(tmp, target)
