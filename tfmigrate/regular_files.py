"""Opening a file that must be a regular file, without ever blocking on one that is not.

A FIFO named like a source, a cache entry or a checkpoint file would make ``open()`` wait for a writer
for ever; a device or socket would never end. Every reader of such a path opens it here: O_NONBLOCK,
then ``fstat`` on the descriptor (no race with a rename), and :class:`NotRegular` for anything but a
regular file, with the kind of thing it is. Imports nothing of tfmigrate.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"))


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words ("a FIFO"); "not a regular file" for anything else."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


class NotRegular(OSError):
    """The path names something other than a regular file; ``kind`` says what."""

    def __init__(self, mode: int) -> None:
        self.mode = mode
        self.kind = kind(mode)
        super().__init__(f"{self.kind}, not a regular file")


def open_regular(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> BinaryIO:
    """``open(path, "rb")`` of a regular file, never blocking: NotRegular for anything else, OSError when
    it cannot be opened (with ``follow_symlinks=False``, a symlink too). The file reads in blocking mode."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow_symlinks else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "rb")
