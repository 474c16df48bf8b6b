"""The results cache, in the style of ruff's: a file whose bytes are unchanged is not processed again.

A cache file holds, for each file path, the digest of the bytes last processed and the result
they gave. It is named after a fingerprint of everything else a result depends on: tfmigrate's
version and its own code and catalog (the size and modification time of every file of the
package), the enabled rules, the mode and whether diffs are made. So a result is reused only for
the very same bytes under the very same tool and options; anything else is processed again.

The cache never hides a change and never loses a write: results are stored only for files whose
bytes did not change while they were processed, and, when rewriting in place, only for files left
unchanged (a file that was rewritten is processed again next time, from its new bytes). A cache
file that cannot be read or has the wrong shape is ignored and rebuilt. The directory is
``.tfmigrate_cache/`` (with a ``.gitignore`` and a ``CACHEDIR.TAG``, as ruff's), or the one
``--cache-dir`` / ``cache-dir`` in ``[tool.tfmigrate]`` names; ``--no-cache`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from tfmigrate import __version__
from tfmigrate.codemod.rule import CATALOG_DIR
from tfmigrate.results import FileResult, Finding

DEFAULT_DIRECTORY = ".tfmigrate_cache"
FORMAT = 2  # 2: a finding's fix is one of fixed/fixable/manual, with its safety
KEEP = 4  # cache files kept (one per tool version and options); older ones are removed
_CACHE_NAME = re.compile(r"[0-9a-f]{32}\.json")
_PACKAGE = Path(__file__).resolve().parent.parent
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache made by tfmigrate.\n"


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@cache
def _code_fingerprint() -> str:
    """tfmigrate's version and the state of its own files (code, catalog, name tables)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT}:{__version__}".encode())
    for path in sorted(p for p in _PACKAGE.rglob("*") if p.suffix in (".py", ".toml", ".json")):
        stat = path.stat()
        h.update(f"{path.relative_to(_PACKAGE)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    if not CATALOG_DIR.is_relative_to(_PACKAGE):  # a checkout's top-level rules/ (installed: inside the package)
        for path in sorted(CATALOG_DIR.glob("*.toml")):
            stat = path.stat()
            h.update(f"rules/{path.name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()


def fingerprint(enabled: frozenset[str], mode: str, diffs: bool, catalog_dir: Path | None) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(_code_fingerprint().encode())
    h.update(",".join(sorted(enabled)).encode())
    h.update(f"|{mode}|{diffs}|{catalog_dir and Path(catalog_dir).resolve()}".encode())
    return h.hexdigest()


class ResultCache:
    """``get(path, digest)`` / ``put(path, digest, result)``, loaded once and saved once a run."""

    def __init__(self, directory: Path, key: str) -> None:
        self.directory = directory
        self.file = directory / f"{key}.json"
        self.entries: dict[str, list[Any]] = {} if self.refused() else self._load()
        self.dirty = False

    def refused(self) -> str | None:
        """Why this directory is not used as a cache (None: it is): a symlink (or a link among the
        directories above it that tfmigrate would create) could send the cache's writes anywhere."""
        if self.directory.is_symlink():
            return f"the cache directory {self.directory} is a symlink; not using it"
        if self.file.is_symlink():
            return f"the cache file {self.file} is a symlink; not using the cache"
        return None

    def _load(self) -> dict[str, list[Any]]:
        try:
            data = json.loads(self.file.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
            return {}
        return data["files"]

    def get(self, path: str, key: str) -> FileResult | None:
        entry = self.entries.get(path)
        if not isinstance(entry, list) or len(entry) != 2 or entry[0] != key:
            return None
        try:
            return _result(path, entry[1])
        except (KeyError, TypeError, ValueError):  # a damaged entry: processed again
            return None

    def put(self, path: str, key: str, result: FileResult) -> None:
        self.entries[path] = [key, _record(result)]
        self.dirty = True

    def save(self) -> None:
        """Write the cache file atomically (a concurrent run reads the old one or the new one);
        a cache that cannot be written is no error: the next run just does the work again."""
        if not self.dirty or self.refused():
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            if self.directory.is_symlink():  # made one since the run started
                return
            for name, text in ((".gitignore", "*\n"), ("CACHEDIR.TAG", _TAG)):
                _create(self.directory / name, text)
            descriptor, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                    json.dump({"format": FORMAT, "files": self.entries}, handle, separators=(",", ":"))
                os.replace(temporary, self.file)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()
        except OSError:
            pass

    def _prune(self) -> None:
        """Remove old cache files: only files named as this class names them (32 hex digits), so a
        ``--cache-dir`` pointed at a directory of the user's never loses its own ``.json`` files."""
        others = sorted(
            (p for p in self.directory.glob("*.json") if p != self.file and _CACHE_NAME.fullmatch(p.name) and p.is_file()),
            key=lambda p: p.stat().st_mtime, reverse=True,
        )
        for stale in others[KEEP - 1 :]:
            stale.unlink(missing_ok=True)


def _create(path: Path, text: str) -> None:
    """Write ``path`` if nothing is there, never through a symlink (a dangling one included)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)


def _record(result: FileResult) -> dict[str, Any]:
    return {
        "status": result.status,
        "error": result.error,
        "diff": result.diff,
        "findings": [vars(f) for f in result.findings],
    }


def _result(path: str, record: dict[str, Any]) -> FileResult:
    return FileResult(
        path=path,
        status=record["status"],
        error=record["error"],
        diff=record["diff"],
        findings=[Finding(**f) for f in record["findings"]],
    )
