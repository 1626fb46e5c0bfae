"""Opening a file the user named for setlab to write (``setlab advise --plot``, a classroom CSV).

A path the user gives may already be a symbolic link — planted in a shared directory such as
``/tmp`` by another user, or left over — and ``open(path, "w")`` writes through it to whatever it
points at: a PNG over the user's ``~/.bashrc``, or a file of passwords into a directory someone
else can read. :func:`open_output` opens with ``O_NOFOLLOW``, so the kernel itself refuses a link
in the last component of the path (no gap between a check and the open for another process to
slip a link into), and raises ``ValueError`` with one line naming the path. A file that holds
secrets is opened ``private``: created with mode 0600, and an existing file is set to 0600
through its descriptor (``fchmod``) before anything is written to it.

Pure standard library: ``os`` only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO


def open_output(path: str | Path, *, private: bool = False) -> BinaryIO:
    """``path`` opened to be written from its start (binary), refusing a symbolic link.

    ``private``: readable and writable by its owner only (mode 0600), also when the file
    already existed with a wider mode; otherwise a new file gets mode 0666 less the umask, as
    ``open`` gives it. Anything but a regular file (a directory, a FIFO, a device) is refused
    too. Every refusal is a ``ValueError`` naming the path."""
    name = os.fspath(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, 0o600 if private else 0o666)
    except OSError as err:
        if err.errno == errno.ELOOP:  # O_NOFOLLOW's answer for a link
            raise ValueError(
                f"{name} is a symbolic link: setlab does not write through one (name the file "
                "itself, or remove the link)"
            ) from None
        raise ValueError(f"cannot write {name}: {err.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{name} is not a regular file: setlab writes only plain files")
        if private:
            os.fchmod(fd, 0o600)
        os.set_blocking(fd, True)
        os.ftruncate(fd, 0)  # only now: a refused path is left as it was
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise
