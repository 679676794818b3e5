"""Write a file so that it is either entirely old or entirely new, never half-written.

Writing in place loses data on a full disk (the file is truncated first, then the
write stops midway) and writes *through* a hard link, changing every other name of
the file, possibly one outside the workspace.  So the new content goes to a temp
file in the same folder, is fsynced, takes the old file's mode, and is renamed over
the target (atomic on POSIX); the folder is fsynced so the rename survives a crash.
A target with more than one link, or one that is not a regular file, is refused; so
is a read-only one (no write bit, or no write access for us): the rename needs only the
folder's permission, so without this check the user's write protection would be ignored.
So is a target that no longer holds the text the change was made from, checked just
before the rename (the user saved it while the new text was written and synced: the
rename would have dropped that save silently).
On any failure the temp file is removed and the message says the old file is intact.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from agent_tui.tools.workspace import WorkspaceError


def _check_target(target: Path, rel: str) -> os.stat_result | None:
    """The target's lstat (None when it does not exist yet); refuses links, special and read-only files."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise WorkspaceError(
            f"Refused: '{rel}' is a symbolic link; write to the file it points to instead."
        )
    if not stat.S_ISREG(st.st_mode):
        raise WorkspaceError(
            f"Refused: '{rel}' is not a regular file; only regular files are written."
        )
    if st.st_nlink > 1:
        raise WorkspaceError(
            f"Refused: '{rel}' has {st.st_nlink} hard links, so writing it would also change "
            "the same file under its other names (possibly outside the workspace). "
            "Ask the user to break the link (copy the file) if the change is needed."
        )
    if st.st_mode & 0o222 == 0 or not os.access(target, os.W_OK, follow_symlinks=False):
        raise WorkspaceError(
            f"Refused: '{rel}' is read-only (mode {stat.S_IMODE(st.st_mode):04o}), so it was not "
            "changed. The user may have protected it: ask the user to make it writable if the "
            "change is needed."
        )
    return st


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _failure(rel: str, existed: bool, exc: OSError) -> WorkspaceError:
    what = (
        f"the original '{rel}' is unchanged (its old content is intact)"
        if existed
        else f"'{rel}' was not created"
    )
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        reason = (
            "no space left on the device" if exc.errno != errno.EFBIG else "the file is too large"
        )
        return WorkspaceError(f"Write failed: {reason}; {what}. Free some space and try again.")
    return WorkspaceError(f"Write failed ({exc.strerror or exc}); {what}.")


def _changed_meanwhile(target: Path, rel: str, expected: bytes | None) -> WorkspaceError | None:
    """The refusal when ``target`` no longer holds ``expected`` (None: when it exists now), else None.
    Read without following a link, without blocking (a FIFO made there meanwhile would wait for a
    writer, holding up the app) and no further than ``expected`` and one byte: a link or anything
    but a regular file counts as a change."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    now: bytes | None
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        now = None
    except OSError as exc:
        if exc.errno != errno.ELOOP:  # (ELOOP: a symbolic link is there now)
            return _failure(rel, True, exc)
        now = b"\0 a link"  # never equal to the text expected
    else:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                now = b"\0 not a regular file"
            else:
                chunks: list[bytes] = []
                room = len(expected or b"") + 1
                while room > 0 and (chunk := os.read(fd, min(room, 1 << 20))):
                    chunks.append(chunk)
                    room -= len(chunk)
                now = b"".join(chunks)
        except OSError as exc:
            return _failure(rel, True, exc)
        finally:
            os.close(fd)
    if now == expected:
        return None
    what = "was created" if expected is None else "was deleted" if now is None else "changed on disk"
    return WorkspaceError(
        f"Refused: '{rel}' {what} while this write was being made (the user or another program "
        "saved it); it was left as it is now, nothing was overwritten. Read it again and redo the "
        "change against its current content."
    )


def atomic_write(target: Path, data: bytes, rel: str, *, expected: bytes | None) -> None:
    """Replace ``target`` (already resolved inside the workspace) with ``data`` atomically.

    Keeps the old file's permission bits; WorkspaceError (saying the old file is intact)
    on a hard-linked or special target, or on any write failure such as a full disk.
    ``expected``: the bytes the edit was made from (None: the file did not exist).  The
    target is compared with it just before the rename, so a save by the user while the new
    text was written and synced is refused, never overwritten.
    """
    st = _check_target(target, rel)
    mode = stat.S_IMODE(st.st_mode) if st else _new_file_mode()
    folder = target.parent
    try:
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".agent-tui-tmp", dir=folder
        )
    except OSError as exc:
        raise _failure(rel, st is not None, exc) from None
    tmp = Path(tmp_name)
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, mode)
            if st is not None:
                with contextlib.suppress(OSError):
                    os.fchown(fd, st.st_uid, st.st_gid)
            os.fsync(fd)
        finally:
            os.close(fd)
        if st is not None:
            _check_target(target, rel)  # swapped for a link while we wrote: still refuse
        refusal = _changed_meanwhile(target, rel, expected)
        if refusal is not None:
            raise refusal
        os.replace(tmp, target)
    except WorkspaceError:
        tmp.unlink(missing_ok=True)
        raise
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _failure(rel, st is not None, exc) from None
    _fsync_dir(folder)
