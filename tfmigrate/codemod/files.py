"""Finding the files to process, reading them as bytes and writing them back safely.

Source bytes are never decoded here: libcst parses bytes (PEP 263 cookie, BOM) and renders the
module back to bytes in the same encoding with the same newlines, so a file is only ever
touched when its content really changes, and then atomically with its mode bits kept.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tfmigrate.regular_files import NotRegular, kind, open_regular

if TYPE_CHECKING:
    import pathspec

SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "build", "dist",
     "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tfmigrate_cache", ".eggs", ".ipynb_checkpoints"}
)


SOURCE_SUFFIXES = (".py", ".ipynb")


class SourceError(Exception):
    """A file could not be read, parsed or written; ``str()`` is the one-line message."""

    def __init__(self, path: str, message: str, line: int = 0, col: int = 0) -> None:
        self.path, self.line, self.col, self.message = path, line, col, message
        where = f"{path}:{line}:{col}" if line else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Discovered:
    files: list[Path]
    errors: list[SourceError]


def display_path(path: Path) -> str:
    """Paths relative to the current directory where possible, always with forward slashes."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = str(path)
    return Path(rel).as_posix() if not rel.startswith("..") else path.as_posix()


def _is_virtualenv(directory: Path) -> bool:
    try:
        return (directory / "pyvenv.cfg").is_file()
    except OSError:  # an unreadable directory: os.walk reports it
        return False


# A wildcard run (`*` or `**`) costs pathspec's regular expression (and git) a factor of the path's
# length in backtracking: `**/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b` never finishes on one long name. Real
# .gitignore patterns have one or two (`**/*.pyc`, `docs/**/*.md`); more than three is refused.
MAX_GITIGNORE_WILDCARDS = 3


def _wildcard_runs(line: str) -> int:
    text = re.sub(r"\\.", "", line.strip())  # an escaped `\*` is a literal star
    if text.endswith("/**"):  # matches the rest of the path in one step: no backtracking
        text = text[:-3]
    return len(re.findall(r"\*+", text))


def _gitignore(directory: Path, errors: list[SourceError] | None = None) -> pathspec.PathSpec | None:
    ignore = directory / ".gitignore"
    if not ignore.is_file():  # absent, or a FIFO that would block
        return None
    import pathspec  # only where a .gitignore is (a tenth of a start otherwise)

    try:
        lines = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    kept = []
    for number, line in enumerate(lines, 1):
        runs = 0 if line.lstrip().startswith("#") else _wildcard_runs(line)
        if runs > MAX_GITIGNORE_WILDCARDS:
            if errors is not None:
                errors.append(SourceError(display_path(ignore), f"pattern with {runs} wildcards (more than {MAX_GITIGNORE_WILDCARDS}) not used: "
                                                                f"matching it could take hours", line=number, col=1))
            continue
        kept.append(line)
    return pathspec.GitIgnoreSpec.from_lines(kept)


def _excluded(relative: str, name: str, excludes: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(name, g) for g in excludes)


def discover(paths: Iterable[str | Path], excludes: tuple[str, ...] = ()) -> Discovered:
    """Expand files and directories into a sorted list of Python files and notebooks (.ipynb).

    Files named explicitly are always taken, but a symlink only when it points inside the current
    directory. Directories are walked without following symlinked directories (no loops), and a
    symlinked file is taken only when it points inside the directory given (never a write out of
    the tree; one line says so otherwise), honouring ``.gitignore`` files on the way and skipping VCS folders, virtualenvs,
    build output and caches.
    """
    found: set[Path] = set()
    errors: list[SourceError] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            kind = "broken symlink" if path.is_symlink() else "no such file or directory"
            errors.append(SourceError(str(given), kind))
        elif path.is_dir():
            found.update(_walk(path, excludes, errors))
        elif path.is_symlink() and not _inside(os.path.realpath(path), os.getcwd()):
            errors.append(_outside(path, "the current directory"))
        elif (odd := not_regular(path)) is not None:
            errors.append(odd)
        else:
            found.add(path)
    unique = {str(e): e for e in errors}  # a .gitignore above several given directories is reported once
    return Discovered(_one_name_per_file(found), list(unique.values()))


def _inside(real: str, root: str) -> bool:
    root = os.path.realpath(root)
    return os.path.commonpath([root, real]) == root


def _outside(link: Path, root: str) -> SourceError:
    return SourceError(display_path(link), f"symlink to {os.path.realpath(link)}, outside {root}: not followed")


def _one_name_per_file(found: set[Path]) -> list[Path]:
    """Sorted, and a file reached by several names (symlinks, hard links) only once, by its own name
    where one is a symlink (two names for one file would be rewritten twice, or concurrently)."""
    by_file: dict[object, Path] = {}
    for path in sorted(found, key=lambda p: (p.is_symlink(), p.as_posix())):
        try:
            st = os.stat(path)
            key: object = (st.st_dev, st.st_ino)  # hard links too
        except OSError:
            key = path  # reported when it is read
        by_file.setdefault(key, path)
    return sorted(by_file.values(), key=lambda p: p.as_posix())


def _walk(root: Path, excludes: tuple[str, ...], errors: list[SourceError]) -> Iterator[Path]:
    specs: list[tuple[Path, pathspec.PathSpec]] = []
    for parent in [root.resolve(), *root.resolve().parents]:  # .gitignore files above the root
        spec = _gitignore(parent, errors)
        if spec:
            specs.append((parent, spec))
        if (parent / ".git").exists():
            break

    def ignored(path: Path, is_dir: bool) -> bool:
        if not specs:
            return False
        resolved = path.resolve() if not path.is_symlink() else path.parent.resolve() / path.name
        for base, spec in specs:
            try:
                rel = resolved.relative_to(base).as_posix()
            except ValueError:
                continue
            if spec.match_file(rel + ("/" if is_dir else "")):
                return True
        return False

    def onerror(exc: OSError) -> None:
        errors.append(SourceError(display_path(Path(exc.filename or root)), f"cannot read directory: {exc.strerror}"))

    for dirpath, dirnames, filenames in walk_tree(root, onerror):
        here = Path(dirpath)
        spec = _gitignore(here, errors) if here != root else None
        if spec and here.resolve() not in [b for b, _ in specs]:
            specs.append((here.resolve(), spec))
        keep = []
        for name in sorted(dirnames):
            sub = here / name
            rel = display_path(sub) if excludes else ""
            if name in SKIP_DIRS or _is_virtualenv(sub) or (excludes and _excluded(rel, name, excludes)) or ignored(sub, True):
                continue
            keep.append(name)
        dirnames[:] = keep
        for name in filenames:
            if not name.endswith((".py", ".ipynb")):
                continue
            path = here / name
            if (excludes and _excluded(display_path(path), name, excludes)) or ignored(path, False):
                continue
            if path.is_symlink():
                if not path.exists():
                    errors.append(SourceError(display_path(path), "broken symlink"))
                    continue
                if not _inside(os.path.realpath(path), str(root)):
                    errors.append(_outside(path, display_path(root)))
                    continue
            odd = not_regular(path)
            if odd is not None:
                errors.append(odd)
                continue
            yield path


def walk_tree(top: Path, onerror: Callable[[OSError], None]) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top, onerror=onerror)`` (top-down, symlinked directories listed but not entered, the
    caller may prune ``dirnames``) without recursion: Python 3.11's os.walk recurses once a level and
    raises RecursionError on a chain of about 1,000 directories. This is the loop Python 3.12's
    os.walk became; same order, same results."""
    stack: list[str] = [os.fspath(top)]
    while stack:
        directory = stack.pop()
        dirs: list[str] = []
        nondirs: list[str] = []
        try:
            entries = os.scandir(directory)
        except OSError as error:
            onerror(error)
            continue
        with entries:
            try:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else nondirs).append(entry.name)
            except OSError as error:
                onerror(error)
                continue
        yield directory, dirs, nondirs
        for name in reversed(dirs):
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                stack.append(path)


def clobbered_input(output: Path, inputs: Iterable[str | Path]) -> str | None:
    """Why writing a report to ``output`` would destroy an input, or None.

    ``output`` must not be one of the given paths, nor an existing source file (``.py``,
    ``.ipynb``) inside a given directory: that file is being processed, and a report written over
    it would replace the code. Names are compared with symlinks resolved, and files by
    ``(st_dev, st_ino)``: an existing ``output`` that is a hard link to a given file, or to any file
    inside a given directory, is the same file under another name (a report written through it
    replaces that file's bytes too)."""
    real = os.path.realpath(output)
    try:
        st = os.stat(output)
        key: tuple[int, int] | None = (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None
    except OSError:  # not there yet: only its name can be an input's
        key = None
    for given in inputs:
        root = os.path.realpath(given)
        if real == root:
            return f"{output} is an input of this run; writing the report there would destroy it"
        if key is not None and _file_key(given) == key:
            return f"{output} is a hard link to the input {given}; writing the report there would destroy it"
        if (
            os.path.isdir(root) and os.path.isfile(real) and real.endswith(SOURCE_SUFFIXES)
            and os.path.commonpath([root, real]) == root
        ):
            return f"{output} is a source file inside {given}; writing the report there would destroy it"
        if key is not None and st.st_nlink > 1 and os.path.isdir(root):
            other = _other_name(root, key, real)
            if other is not None:
                shown = display_path(Path(other))
                return f"{output} is a hard link to {shown}, inside {given}; writing the report there would destroy it"
    return None


def _file_key(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _other_name(root: str, key: tuple[int, int], own: str) -> str | None:
    """A path under ``root`` other than ``own`` that is the file ``key`` (symlinks not followed;
    iterative, so a deep tree is no RecursionError; unreadable directories are passed over)."""
    pending = [root]
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
                        elif entry.is_file(follow_symlinks=False) and entry.path != own:
                            found = entry.stat(follow_symlinks=False)
                            if (found.st_dev, found.st_ino) == key:
                                return entry.path
                    except OSError:
                        continue
        except OSError:
            continue
    return None


def not_regular(path: Path) -> SourceError | None:
    """The one-line message for a FIFO, socket or device named like a source (reading one would
    block or never end), or None for a regular file (or one that cannot be stat'ed: reported
    when it is read)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return SourceError(display_path(path), f"{kind(mode)}, not a regular file: skipped")


def read_source(path: Path) -> bytes:
    """The file's bytes. Opened without blocking (a FIFO would wait for a writer forever) and
    checked to be a regular file before anything is read."""
    try:
        with open_regular(path) as handle:
            data = handle.read()
    except NotRegular as exc:
        raise SourceError(display_path(path), f"{exc.kind}, not a regular file: skipped") from None
    except FileNotFoundError:
        raise SourceError(display_path(path), "file vanished before it could be read") from None
    except IsADirectoryError:
        raise SourceError(display_path(path), "is a directory") from None
    except OSError as exc:
        raise SourceError(display_path(path), f"cannot read: {exc.strerror or exc}") from None
    wide = _wide_encoding(data)
    if wide:
        raise SourceError(display_path(path), f"{wide} encoded: Python source must use an ASCII-compatible encoding (convert it to UTF-8); not processed")
    return data


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file ``path``, for files tfmigrate keeps itself (the
    cache, its key): never through a symlink (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK),
    checked to be a regular file (fstat) of at most ``limit`` bytes before anything is read.
    Raises OSError for anything else."""
    with open_regular(path, follow_symlinks=False) as handle:
        if os.fstat(handle.fileno()).st_size > limit:
            raise OSError(f"larger than {limit} bytes")
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew while it was read
        raise OSError(f"larger than {limit} bytes")
    return data


_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _wide_encoding(data: bytes) -> str | None:
    """"UTF-16" or "UTF-32" for a file in one of them (a BOM, or ASCII text with every other or
    three of four bytes NUL), which neither Python nor tfmigrate reads; else None."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:64]
    if len(head) >= 8 and b"\x00" in head:
        if not head[1::4].strip(b"\x00") and not head[2::4].strip(b"\x00") and (not head[3::4].strip(b"\x00") or not head[0::4].strip(b"\x00")):
            return "UTF-32"
        if not head[1::2].strip(b"\x00") or not head[0::2].strip(b"\x00"):
            return "UTF-16"
    return None


def write_output(path: Path, data: bytes) -> None:
    """Write a report or ``--output`` file in one step: a temporary file in the same directory,
    renamed over ``path`` (through a symlink, the link kept), so that a crash, a full disk or
    Ctrl-C never leaves a half-written report. An existing file keeps its mode and owner (see
    :func:`write_atomic`); a new one gets the mode ``open()`` would give it. Raises OSError."""
    target = Path(os.path.realpath(path))
    if target.exists():
        try:
            write_atomic(path, data)
        except SourceError as exc:
            raise OSError(exc.message) from None
        return
    umask = os.umask(0)
    os.umask(umask)
    with interrupts_deferred():
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tfmigrate", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                os.fchmod(handle.fileno(), 0o666 & ~umask)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def write_atomic(path: Path, data: bytes, original: bytes | None = None) -> None:
    """Replace ``path`` with ``data`` in one step; keeps mode, owner and group, never half-written.

    ``original``: the bytes the new ones were made from. The file is read again just before it is
    replaced, and when it no longer holds them (an editor saved it while tfmigrate worked on it) it
    is left as it is and SourceError says so: an edit made during the run is never overwritten.

    The new bytes go to a temporary file in the same directory, are flushed to disk, given the
    original's owner, group and mode bits and then renamed over the original. Ctrl-C is held back
    from the moment the temporary file is made until it has replaced the original (or been
    removed), then delivered: an interrupt leaves the old file or the new one, and no temporary
    file.

    A rename would give the file a new inode. Where that loses something, the file is rewritten in
    place instead (see :func:`_write_in_place`): when it has other hard links (they would keep the
    old content), and when the temporary file cannot be given the original's owner (not running
    as root, the file owned by someone else).
    """
    target = Path(os.path.realpath(path))  # write through a symlink, keep the link
    shown = display_path(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        raise SourceError(shown, "file vanished before it could be written") from None
    except OSError as exc:
        raise SourceError(shown, f"cannot write: {exc.strerror or exc}") from None
    with interrupts_deferred():
        if st.st_nlink > 1:
            _write_in_place(target, data, shown, original)
            return
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tfmigrate", dir=target.parent)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                made = os.fstat(handle.fileno())
            if (made.st_uid, made.st_gid) != (st.st_uid, st.st_gid):
                try:
                    os.chown(tmp, st.st_uid, st.st_gid)
                except PermissionError:  # only root may give a file away: keep the original inode
                    os.unlink(tmp)
                    tmp = None
                    _write_in_place(target, data, shown, original)
                    return
            os.chmod(tmp, stat.S_IMODE(st.st_mode))  # after chown, which clears set-id bits
            if not _holds(target, original):
                os.unlink(tmp)
                tmp = None
                raise SourceError(shown, CHANGED_DURING_RUN)
            os.replace(tmp, target)
        except OSError as exc:
            if tmp is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
            raise SourceError(shown, f"cannot write: {exc.strerror or exc}") from None


CHANGED_DURING_RUN = "changed while tfmigrate worked on it: left as it is, with that change (run tfmigrate again)"


def _holds(target: Path, original: bytes | None) -> bool:
    """Whether ``target`` still holds exactly ``original`` (None: nothing to compare); read
    without blocking, at most one byte more than ``original``."""
    if original is None:
        return True
    try:
        with open_regular(target) as handle:
            return handle.read(len(original) + 1) == original
    except OSError:  # NotRegular too
        return False


def _write_in_place(target: Path, data: bytes, shown: str, original: bytes | None = None) -> None:
    """Overwrite ``target``'s own inode (hard links, owner and mode stay as they are).

    Not a single rename, so a copy of the original bytes is first written and flushed beside it
    (``.NAME.XXXX.tfmigrate-original``) and removed only once the new bytes are on disk: Ctrl-C is
    held back throughout (the caller's ``interrupts_deferred``), and after a crash or power loss
    mid-write that copy holds the original."""
    backup = None
    try:
        with open(target, "rb") as handle:
            now = handle.read()
        if original is not None and now != original:
            raise SourceError(shown, CHANGED_DURING_RUN)
        fd, backup = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tfmigrate-original", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(now)
            handle.flush()
            os.fsync(handle.fileno())
        with open(os.open(target, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "wb") as handle:
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        os.unlink(backup)
    except OSError as exc:
        raise SourceError(shown, f"cannot write: {exc.strerror or exc}") from None


DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT (Ctrl-C), SIGTERM and SIGHUP back for the duration of the block, then deliver them.

    Python raises KeyboardInterrupt between any two bytecodes, including inside ``tempfile``
    after the file exists but before its name is returned, where no ``try`` can clean up. While
    the block runs such a signal is only noted; afterwards the previous handlers are put back and
    given the signal (the default SIGINT one raises KeyboardInterrupt there, tfmigrate's SIGTERM and
    SIGHUP ones too). Outside the main thread Python delivers no signals, so nothing needs holding
    back (nor where a handler installed outside Python cannot be put back).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {}
    for sig in DEFERRED_SIGNALS:
        handler = signal.getsignal(sig)
        if handler is not None and handler != signal.SIG_IGN:
            previous[sig] = signal.signal(sig, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(held):
            handler = previous[sig]
            if callable(handler):
                handler(sig, sys._getframe())
            elif handler == signal.SIG_DFL:
                signal.raise_signal(sig)
