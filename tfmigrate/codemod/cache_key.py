"""The per-user key that authenticates the results cache.

A cache file lives in the project (``.tfmigrate_cache/``), where anyone who can write the project
(a cloned repository, a commit, a pull request) can put one, and its results decide what
``--check`` says. So a cache file is used only when it carries an HMAC made with this key, which
lives outside every project, in the user's own cache directory: ``$XDG_CACHE_HOME/tfmigrate/cache-key``
(``~/.cache/tfmigrate/cache-key`` without it), 32 random bytes in a file of mode 0600 in a
directory of mode 0700, both the user's. A cache file written by anyone without the key is a miss.

A key that is not such a file (another owner, open to others, a symlink, the wrong size) is not
used, and then neither is the cache: one note says why.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from pathlib import Path

KEY_BYTES = 32
KEY_NAME = "cache-key"


class UnusableKey(OSError):
    """Why the key file is not used (str(): one line)."""


def key_path() -> Path:
    """Where the key is: ``$XDG_CACHE_HOME/tfmigrate/cache-key``, else ``~/.cache/tfmigrate/cache-key``
    (a relative ``$XDG_CACHE_HOME`` is ignored, as the XDG specification asks)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "tfmigrate" / KEY_NAME


def _private(st: os.stat_result, what: str) -> None:
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnusableKey(f"{what} belongs to another user")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH | (0 if stat.S_ISDIR(st.st_mode) else stat.S_IRGRP | stat.S_IROTH)):
        raise UnusableKey(f"{what} is open to other users (mode {stat.S_IMODE(st.st_mode):04o})")


def _read(path: Path) -> bytes:
    _private(os.stat(path.parent), f"{path.parent}")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnusableKey(f"{path} is not a regular file")
        _private(st, f"{path}")
        key = handle.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise UnusableKey(f"{path} does not hold a key of {KEY_BYTES} bytes")
    return key


def _create(path: Path) -> None:
    """A new random key, made whole beside its place and linked there (another run making one at
    the same time wins or loses whole: never half a key)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cache-key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:  # another run made it first: that one is the key
            pass
        except OSError:  # a file system without hard links: renamed there instead
            os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def user_key() -> tuple[bytes | None, str | None]:
    """``(key, None)``, made on first use; ``(None, why)`` when there is no usable key."""
    try:
        path = key_path()
    except RuntimeError:  # no home directory
        return None, "no home directory for the cache key ($XDG_CACHE_HOME or $HOME); not using the cache"
    try:
        try:
            return _read(path), None
        except FileNotFoundError:
            _create(path)
            return _read(path), None
    except UnusableKey as exc:
        return None, f"the cache key {exc}; not using the cache"
    except OSError as exc:
        return None, f"cannot use the cache key {path}: {exc.strerror or exc}; not using the cache"


def sign(key: bytes, *parts: bytes) -> str:
    """The HMAC-SHA256 of ``parts`` (each with its length, so that no two sequences read alike)."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for part in parts:
        mac.update(len(part).to_bytes(8, "big"))
        mac.update(part)
    return mac.hexdigest()


def verify(key: bytes, mac: str, *parts: bytes) -> bool:
    return hmac.compare_digest(sign(key, *parts), mac)
