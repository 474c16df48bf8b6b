"""The results cache, in the style of ruff's: a file whose bytes are unchanged is not processed again.

A cache file holds, for each file path, the digest of the bytes last processed and the result
they gave. It is named after a fingerprint of everything else a result depends on: tfmigrate's
version and its own code and catalog (the size and modification time of every file of the
package), the enabled rules, the mode and whether diffs are made. So a result is reused only for
the very same bytes under the very same tool and options; anything else is processed again.

The cache never hides a change and never loses a write: results are stored only for files whose
bytes did not change while they were processed, and, when rewriting in place, only for files left
unchanged (a file that was rewritten is processed again next time, from its new bytes).

The cache is not trusted. A cache file is used only when its first line holds an HMAC of the rest
made with the user's own key, kept outside the project (:mod:`tfmigrate.codemod.cache_key`): an
entry written by anyone without the key (a cloned repository, a commit) is a miss, so a result read
from the cache is one this user's tfmigrate made, and ``--check`` from the cache is as strict as a
fresh run. It is read without following a symlink or blocking on a FIFO, only when it is a regular
file of at most :data:`MAX_BYTES`, and each entry is checked against the shape this module writes;
anything else is a miss, processed again and rebuilt, silently.

The directory is ``.tfmigrate_cache/`` (with a ``.gitignore`` and a ``CACHEDIR.TAG``, as ruff's),
or the one ``--cache-dir`` / ``cache-dir`` in ``[tool.tfmigrate]`` names (where it may be:
``tfmigrate.cli.common.cache_directory``); ``--no-cache`` turns it off. It holds only what the
cache wrote: its ``MANIFEST`` lists the cache files it made, and only those are ever removed (the
oldest, beyond :data:`KEEP`); a directory that is not empty and has neither a ``MANIFEST`` nor
tfmigrate's ``CACHEDIR.TAG`` is not used (:func:`foreign`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import stat
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from tfmigrate import __version__
from tfmigrate.codemod.cache_key import sign, user_key, verify
from tfmigrate.codemod.files import read_regular
from tfmigrate.codemod.rule import CATALOG_DIR
from tfmigrate.results import FileResult, Finding, Fix, FixSafety, Severity

DEFAULT_DIRECTORY = ".tfmigrate_cache"
FORMAT = 3  # 3: authenticated (an HMAC line, then the JSON), in *.cache files a MANIFEST lists
KEEP = 4  # cache files kept (one per tool version and options); older ones are removed
MAX_BYTES = 256 << 20  # a larger cache file is a miss
MANIFEST = "MANIFEST"
_MANIFEST_BYTES = 1 << 20
_CACHE_NAME = re.compile(r"[0-9a-f]{32}\.cache")
_HEADER = b"tfmigrate-cache 3 hmac-sha256 "
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
        st = path.stat()
        h.update(f"{path.relative_to(_PACKAGE)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    if not CATALOG_DIR.is_relative_to(_PACKAGE):  # a checkout's top-level rules/ (installed: inside the package)
        for path in sorted(CATALOG_DIR.glob("*.toml")):
            st = path.stat()
            h.update(f"rules/{path.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def fingerprint(enabled: frozenset[str], mode: str, diffs: bool, catalog_dir: Path | None, helpers: str = "") -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(_code_fingerprint().encode())
    h.update(",".join(sorted(enabled)).encode())
    h.update(f"|{mode}|{diffs}|{catalog_dir and Path(catalog_dir).resolve()}".encode())
    if helpers:  # --target keras: the module the lowered code imports its helpers from
        h.update(f"|{helpers}".encode())
    return h.hexdigest()


def foreign(directory: Path) -> str | None:
    """Why ``directory`` is no place for the cache (None: it is): it exists and is not empty, yet
    it has neither the cache's ``MANIFEST`` nor tfmigrate's ``CACHEDIR.TAG`` (a directory of the
    user's, whose files the cache must never touch), or it is not a directory."""
    try:
        if directory.is_symlink() or not directory.exists():
            return None  # a symlink is refused where it is used (ResultCache.refused); a new one is made
        if not directory.is_dir():
            return "is not a directory"
        names = os.listdir(directory)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not names or MANIFEST in names or _our_tag(directory):
        return None
    return "is not empty and was not made by tfmigrate's cache (no MANIFEST, no CACHEDIR.TAG of tfmigrate)"


def _our_tag(directory: Path) -> bool:
    try:
        return read_regular(directory / "CACHEDIR.TAG", 4096) == _TAG.encode()
    except OSError:
        return False


class ResultCache:
    """``get(path, digest)`` / ``put(path, digest, result)``, loaded once and saved once a run.

    ``secret`` is the key of the HMAC (tests pass one; by default the user's key, made on first use)."""

    def __init__(self, directory: Path, key: str, secret: bytes | None = None) -> None:
        self.directory = directory
        self.name = f"{key}.cache"
        self.file = directory / self.name
        self.secret, self._no_key = (secret, None) if secret is not None else user_key()
        self.entries: dict[str, Any] = {} if self.refused() else self._load()
        self.dirty = False

    def refused(self) -> str | None:
        """Why this directory is not used as a cache (None: it is): a symlink (or a link among the
        directories above it that tfmigrate would create) could send the cache's writes anywhere;
        a directory of the user's holds files the cache must not touch; without the user's key
        nothing read could be trusted."""
        if self.directory.is_symlink():
            return f"the cache directory {self.directory} is a symlink; not using it"
        if self.file.is_symlink():
            return f"the cache file {self.file} is a symlink; not using the cache"
        why = foreign(self.directory)
        if why:
            return f"the cache directory {self.directory} {why}; not using it"
        if self.secret is None:
            return self._no_key
        return None

    def _load(self) -> dict[str, Any]:
        """The entries of an authentic cache file; {} for anything else (absent, not a regular file,
        too large, no valid HMAC, not the JSON this module writes)."""
        assert self.secret is not None
        try:
            raw = read_regular(self.file, MAX_BYTES)
        except OSError:
            return {}
        header, newline, body = raw.partition(b"\n")
        if not newline or not header.startswith(_HEADER):
            return {}
        mac = header[len(_HEADER):].decode("ascii", errors="replace")
        if not verify(self.secret, mac, self.name.encode(), body):
            return {}
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
            return {}
        return data["files"]

    def get(self, path: str, key: str) -> FileResult | None:
        entry = self.entries.get(path)
        if not isinstance(entry, list) or len(entry) != 2 or entry[0] != key or not _valid_record(entry[1], path):
            return None
        try:
            return _result(path, entry[1])
        except (KeyError, TypeError, ValueError):  # a damaged entry: processed again
            return None

    def put(self, path: str, key: str, result: FileResult) -> None:
        self.entries[path] = [key, _record(result)]
        self.dirty = True

    def save(self) -> None:
        """Write the cache file atomically (a concurrent run reads the old one or the new one),
        listed in the MANIFEST first; a cache that cannot be written is no error: the next run
        just does the work again."""
        if not self.dirty or self.refused():
            return
        assert self.secret is not None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            if self.directory.is_symlink():  # made one since the run started
                return
            for name, text in ((".gitignore", "*\n"), ("CACHEDIR.TAG", _TAG)):
                _create(self.directory / name, text)
            listed = self._listed()
            if self.name not in listed:  # listed before it exists: a crash leaves no file the MANIFEST lacks
                listed.append(self.name)
                self._write_manifest(listed)
            body = json.dumps({"format": FORMAT, "files": self.entries}, separators=(",", ":")).encode("utf-8")
            _replace(self.file, _HEADER + sign(self.secret, self.name.encode(), body).encode("ascii") + b"\n" + body)
            self._prune(listed)
        except OSError:
            pass

    def _listed(self) -> list[str]:
        """The cache files the MANIFEST lists (names of the cache's own pattern only)."""
        try:
            data = json.loads(read_regular(self.directory / MANIFEST, _MANIFEST_BYTES))
        except (OSError, ValueError, RecursionError):
            return []
        names = data.get("files") if isinstance(data, dict) else None
        if not isinstance(names, list):
            return []
        return list(dict.fromkeys(n for n in names if isinstance(n, str) and _CACHE_NAME.fullmatch(n)))

    def _write_manifest(self, names: list[str]) -> None:
        text = json.dumps({"written_by": "tfmigrate", "files": names}, indent=1) + "\n"
        _replace(self.directory / MANIFEST, text.encode("utf-8"))

    def _prune(self, listed: list[str]) -> None:
        """Remove the oldest cache files beyond KEEP: only files the MANIFEST lists (so nothing the
        cache did not write), each a regular file, never through a symlink."""
        others = []
        for name in listed:
            if name == self.name:
                continue
            try:
                st = os.lstat(self.directory / name)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                others.append((st.st_mtime_ns, name))
        others.sort(reverse=True)
        for _, name in others[KEEP - 1 :]:
            (self.directory / name).unlink(missing_ok=True)
        kept = [self.name, *(name for _, name in others[: KEEP - 1])]
        if sorted(kept) != sorted(listed):
            self._write_manifest(kept)


def _replace(path: Path, data: bytes) -> None:
    """``path`` replaced by ``data`` in one rename (a symlink there is replaced, never followed)."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".cache")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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


_STATUSES = frozenset({"changed", "unchanged", "skipped"})  # what is ever stored (see runner._remember)
_RECORD_KEYS = frozenset({"status", "error", "diff", "findings"})
_FINDING_KEYS = frozenset(f.name for f in dataclasses.fields(Finding))
_RULE = re.compile(r"TFM\d{3}")


def _count(value: Any, least: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _valid_finding(finding: Any, path: str) -> bool:
    return (
        isinstance(finding, dict) and finding.keys() == _FINDING_KEYS
        and isinstance(finding["rule"], str) and _RULE.fullmatch(finding["rule"]) is not None
        and finding["severity"] in tuple(Severity) and finding["fix"] in tuple(Fix) and finding["safety"] in tuple(FixSafety)
        and finding["path"] == path and isinstance(finding["message"], str)
        and _count(finding["line"]) and _count(finding["col"]) and (finding["cell"] is None or _count(finding["cell"], 1))
    )


def _valid_record(record: Any, path: str) -> bool:
    """Whether ``record`` has exactly the shape :func:`_record` writes, for ``path``."""
    return (
        isinstance(record, dict) and record.keys() == _RECORD_KEYS and record["status"] in _STATUSES
        and all(record[k] is None or isinstance(record[k], str) for k in ("error", "diff"))
        and isinstance(record["findings"], list) and all(_valid_finding(f, path) for f in record["findings"])
    )


def _result(path: str, record: dict[str, Any]) -> FileResult:
    return FileResult(
        path=path,
        status=record["status"],
        error=record["error"],
        diff=record["diff"],
        findings=[Finding(**f) for f in record["findings"]],
    )
