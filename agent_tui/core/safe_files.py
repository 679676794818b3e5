"""Read only regular files, and only inside the workspace, with no window for a swap.

Opening a FIFO blocks until a writer appears (forever, on the event-loop thread); a
device or socket is no file at all.  So the type is checked with ``os.stat`` before
opening, the open itself is non-blocking, and the type is checked again on the open
descriptor (the path may have been swapped in between).  The same guard serves the
read tools and the engine's re-read of active files: a file swapped for a symlink to
something outside the workspace is refused, not re-read into the next request.

A workspace path is checked once (resolved, links followed, then compared with the root)
and opened a moment later.  A process the agent started can swap a folder on that path for
a link to ``~/.ssh`` in between; opened by name, the file behind the link would be read into
the next request, or written.  So a path already resolved is opened ``exact``: one folder
at a time from ``/``, none of them followed if it is a link now (``open_folder``), and the
file itself not followed either.  The resolved path holds no links, so anything that makes
this walk meet one is a swap, and it is refused.

A file is read whole (edits need all of it), so its size is bounded: checked on the open
descriptor before reading, and the read itself stops past the bound (the file may grow
meanwhile).  A sandboxed command can make a 50 GB sparse file in an instant; read whole,
it would take minutes and all the memory.
"""

from __future__ import annotations

import contextlib
import errno
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


def _swapped(shown: str) -> UnsafeFileError:
    return UnsafeFileError(
        f"'{shown}' changed while it was being opened: it, or a folder on its way, is now a symbolic link "
        "or no longer a folder (another program swapped it). It was not used; look at it again."
    )


_WALK = getattr(os, "O_PATH", os.O_RDONLY)
"""How the folders on a path are opened: only to name what is in them (a folder we may pass through but
not list, such as a 0711 home, is reached too)."""


def open_folder(folder: Path, *, create: bool = False, shown: str | None = None) -> int:
    """A descriptor of ``folder`` (absolute, links already resolved), opened one level at a time from
    ``/`` following no link, for use as ``dir_fd`` only (``O_PATH``); with ``create``, the missing levels
    are made on the way (0777 less the umask).
    UnsafeFileError when a level is a link or not a folder now; FileNotFoundError when one is missing."""
    flags = _WALK | os.O_DIRECTORY | os.O_CLOEXEC
    fd = os.open("/", flags)
    try:
        for part in folder.parts[1:]:
            flags |= os.O_NOFOLLOW
            try:
                inner = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
                inner = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = inner
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _swapped(shown or str(folder)) from None
        raise
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_exact(path: Path, flags: int, mode: int = 0o600, shown: str | None = None) -> int:
    """``os.open(path, flags, mode)`` for an absolute ``path`` whose links are already resolved, with no
    link followed on the way or at the end (``open_folder``); UnsafeFileError when one is met."""
    folder = open_folder(path.parent, shown=shown or str(path))
    try:
        return os.open(path.name, flags | os.O_NOFOLLOW, mode, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _swapped(shown or str(path)) from None
        raise
    finally:
        os.close(folder)


def open_regular(path: Path, shown: str | None = None, *, exact: bool = False) -> int:
    """A descriptor of ``path`` opened for reading if it is a regular file (checked before and after the
    open, which never blocks); UnsafeFileError otherwise.  ``exact``: ``path`` is resolved already and is
    opened without following any link (``open_exact``), so a swap since it was resolved is refused.
    The caller closes it."""
    shown = shown or str(path)
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(
            f"'{shown}' is {kind_of(st.st_mode)}; only regular files can be read."
        )
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = open_exact(path, flags, shown=shown) if exact else os.open(path, flags)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnsafeFileError(
            f"'{shown}' is {kind_of(st.st_mode)}; only regular files can be read."
        )
    return fd


def read_regular(path: Path, shown: str | None = None, limit: int = MAX_READ_BYTES, *, exact: bool = False) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes (``exact``: as in ``open_regular``).

    UnsafeFileError otherwise (FileTooLargeError when too large, found without reading
    more than ``limit + 1`` bytes); never blocks.
    """
    shown = shown or str(path)
    fd = open_regular(path, shown, exact=exact)
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
    return read_regular(inside(root, rel), rel, exact=True)
