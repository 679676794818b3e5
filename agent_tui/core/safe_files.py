"""Read only regular files, and only inside the workspace, with no window for a swap.

Opening a FIFO blocks until a writer appears (forever, on the event-loop thread); a
device or socket is no file at all.  So the type is checked with ``os.stat`` before
opening, the open itself is non-blocking, and the type is checked again on the open
descriptor (the path may have been swapped in between).  The same guard serves the
read tools and the engine's re-read of active files: a file swapped for a symlink to
something outside the workspace is refused, not re-read into the next request.

A file is read whole (edits need all of it), so its size is bounded: checked on the open
descriptor before reading, and the read itself stops past the bound (the file may grow
meanwhile).  A sandboxed command can make a 50 GB sparse file in an instant; read whole,
it would take minutes and all the memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TextIO

#: Largest file read whole, the size above which search skips a file (tools/search_backends).
MAX_READ_BYTES = 5_000_000
_CHUNK = 1 << 20


class UnsafeFileError(Exception):
    """The path is not a regular file inside the workspace; the message says what it is."""


class FileTooLargeError(UnsafeFileError):
    """The file is larger than the reader's bound; it was not read."""


def _too_large(shown: str, size: int | None, limit: int) -> FileTooLargeError:
    what = f"{size:,} bytes" if size is not None else "it grew while being read"
    return FileTooLargeError(
        f"'{shown}' is too large to read whole ({what}; the limit is {limit:,} bytes), so it "
        "was not read. Read a part of it with start_line/end_line, or look with search."
    )


def kind_of(mode: int) -> str:
    """A name for a non-regular file type (``a FIFO (named pipe)``, ``a directory``…)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def open_regular(path: Path, shown: str | None = None) -> int:
    """A descriptor of ``path`` opened for reading if it is a regular file (checked before and after the
    open, which never blocks); UnsafeFileError otherwise.  The caller closes it."""
    shown = shown or str(path)
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(
            f"'{shown}' is {kind_of(st.st_mode)}; only regular files can be read."
        )
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnsafeFileError(
            f"'{shown}' is {kind_of(st.st_mode)}; only regular files can be read."
        )
    return fd


def read_regular(path: Path, shown: str | None = None, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes.

    UnsafeFileError otherwise (FileTooLargeError when too large, found without reading
    more than ``limit + 1`` bytes); never blocks.
    """
    shown = shown or str(path)
    fd = open_regular(path, shown)
    try:
        st = os.fstat(fd)
        if st.st_size > limit:
            raise _too_large(shown, st.st_size, limit)
        chunks: list[bytes] = []
        room = limit + 1
        while room > 0:
            chunk = os.read(fd, min(_CHUNK, room))
            if not chunk:
                break
            chunks.append(chunk)
            room -= len(chunk)
        if room <= 0:
            raise _too_large(shown, None, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_append(path: Path) -> TextIO:
    """``path`` opened to append text (created 0600 if missing), never through a link (a repository can
    ship ``.agent-tui/logs/server.log -> ~/.bashrc``) and only if it is a regular file: UnsafeFileError
    otherwise."""
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        raise UnsafeFileError(f"'{path}' cannot be opened to append ({exc.strerror or exc}): a link?") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafeFileError(f"'{path}' is not a regular file")
    return os.fdopen(fd, "a", encoding="utf-8")


def inside(root: Path, rel: str) -> Path:
    """``root / rel`` with symlinks resolved; UnsafeFileError unless it stays inside ``root``."""
    base = root.resolve()
    real = Path(os.path.realpath(base / rel))
    if real != base and not real.is_relative_to(base):
        raise UnsafeFileError(f"'{rel}' now resolves to {real}, outside the workspace {base}.")
    return real


def read_inside(root: Path, rel: str) -> bytes:
    """The bytes of workspace file ``rel``: inside ``root`` after symlinks, and a regular file."""
    return read_regular(inside(root, rel), rel)
