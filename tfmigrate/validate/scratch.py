"""The copy a program runs in (``validate --program``, and a program validate runs because its estimator
cannot be built statically): it never runs in, or writes through, the user's directories.

``program_copy(path)`` copies the tree the program runs in, the current directory when the program lies
inside it (so its relative data paths work as they do for ``python path``), else the program's own
directory, into a fresh temporary directory: regular files are copied, directories followed (a
symlink's target is copied too, never linked), hidden entries (``.git``, ``.venv``...), ``__pycache__``,
virtualenvs and special files (FIFOs, sockets, devices) left out. A tree larger than
:data:`LIMIT_BYTES` or :data:`LIMIT_FILES` is refused in one line. Returns the copy's root (its working
directory) and the program's path in it; the caller removes the copy.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

LIMIT_BYTES = int(os.environ.get("TFMIGRATE_PROGRAM_COPY_LIMIT") or 1 << 30)  # 1 GiB
LIMIT_FILES = 50_000


class TooLarge(ValueError):
    """The program's tree is larger than a copy may be: one line."""


def program_copy(path: Path, skip_top: frozenset[str] = frozenset(), skip_file: Callable[[str], bool] = lambda name: False,
                 prefix: str = "tfmigrate-program-") -> tuple[Path, Path]:
    """(the copy's root, the program in it). ``skip_top``: names left out at the top of the copy (a model_dir
    that must start fresh); ``skip_file``: file names left out anywhere."""
    program = path.resolve()
    cwd = Path.cwd().resolve()
    root = cwd if program.is_relative_to(cwd) else program.parent
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        _copy(root, work, skip_top, skip_file)
        inside = work / program.relative_to(root)
        if not inside.is_file():  # a hidden directory on the way, or the program itself skipped: it is always copied
            inside.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(program, inside)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return work, inside


def _copy(root: Path, dest: Path, skip_top: frozenset[str], skip_file: Callable[[str], bool]) -> None:
    size, files = 0, 0
    stack = [(str(root), dest, frozenset({os.path.realpath(root)}))]
    while stack:  # iterative: a deep tree costs no recursion
        source, target, chain = stack.pop()
        target.mkdir(exist_ok=True)
        try:
            entries = sorted(os.scandir(source), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name == "__pycache__" or (source == str(root) and name in skip_top):
                continue
            try:
                st = os.stat(entry.path)  # a symlink's target: what the program would read through it
            except OSError:
                continue  # dangling
            if stat.S_ISDIR(st.st_mode):
                real = os.path.realpath(entry.path)
                if real in chain or os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                    continue  # a link back up the tree, or a virtualenv
                stack.append((entry.path, target / name, chain | {real}))
            elif stat.S_ISREG(st.st_mode) and not skip_file(name):
                size += st.st_size
                files += 1
                if size > LIMIT_BYTES or files > LIMIT_FILES:
                    raise TooLarge(f"{root}: the program runs in a copy of this directory, which holds more than "
                                   f"{LIMIT_BYTES / (1 << 30):.1f} GiB or {LIMIT_FILES:,} files; run it from a smaller "
                                   "directory (the program's own), or name a function that returns its estimator: file.py:FUNCTION")
                shutil.copyfile(entry.path, target / name)
                os.chmod(target / name, stat.S_IMODE(st.st_mode))
