"""Write a file so that it is either entirely old or entirely new, never half-written.

Writing in place loses data on a full disk (the file is truncated first, then the
write stops midway) and writes *through* a hard link, changing every other name of
the file, possibly one outside the workspace.  So the new content goes to a temp
file in the same folder, is fsynced, takes the old file's mode, and is renamed over
the target (atomic on POSIX); the folder is fsynced so the rename survives a crash.
The new file is a new inode, so the old one's metadata is carried over on purpose
(``_keep_metadata``): its owner, then its extended attributes (user.* ones, the POSIX ACL in
``system.posix_acl_access``, file capabilities), then every mode bit: in that order, as the
kernel clears setuid/setgid on a chown and file capabilities on a write.  Metadata that
cannot be carried over never fails the write.
A target with more than one link, or one that is not a regular file, is refused; so
is a read-only one (no write bit, or no write access for us): the rename needs only the
folder's permission, so without this check the user's write protection would be ignored.
So is a target that no longer holds the text the change was made from, checked just
before the rename (the user saved it while the new text was written and synced: the
rename would have dropped that save silently).
On any failure the temp file is removed and the message says the old file is intact.

Every step works on the target's folder through one descriptor, opened from ``/`` without
following a link (``core.safe_files.open_folder``): the target was checked inside the
workspace a moment before, and a folder on its path swapped for a link meanwhile (by a
command still running) would otherwise have the temp file, and the rename, land outside.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from agent_tui.core.safe_files import UnsafeFileError, open_folder
from agent_tui.tools.workspace import WorkspaceError


def _check_target(folder: int, name: str, rel: str) -> os.stat_result | None:
    """The lstat of ``name`` in the folder ``folder`` (None when it does not exist yet); refuses links,
    special and read-only files."""
    try:
        st = os.lstat(name, dir_fd=folder)
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
    if st.st_mode & 0o222 == 0 or not os.access(name, os.W_OK, dir_fd=folder, follow_symlinks=False):
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


def _temp_file(folder: int, name: str) -> tuple[int, str]:
    """A new empty file (0600) beside ``name`` in the folder ``folder``: (its descriptor, its name)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        tmp = f".{name}.{secrets.token_hex(4)}.agent-tui-tmp"
        try:
            return os.open(tmp, flags, 0o600, dir_fd=folder), tmp
        except FileExistsError:
            continue


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


def _changed_meanwhile(folder: int, name: str, rel: str, expected: bytes | None) -> WorkspaceError | None:
    """The refusal when ``target`` no longer holds ``expected`` (None: when it exists now), else None.
    Read without following a link, without blocking (a FIFO made there meanwhile would wait for a
    writer, holding up the app) and no further than ``expected`` and one byte: a link or anything
    but a regular file counts as a change."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    now: bytes | None
    try:
        fd = os.open(name, flags, dir_fd=folder)
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
    text was written and synced is refused, never overwritten.  Missing folders on the way
    are made.
    """
    try:
        folder = open_folder(target.parent, create=True, shown=rel)
    except UnsafeFileError as exc:
        raise WorkspaceError(f"Refused: {exc} Nothing was written.") from None
    except OSError as exc:
        raise _failure(rel, expected is not None, exc) from None
    try:
        _replace_in(folder, target.name, data, rel, expected)
        _fsync_folder(folder)
    finally:
        os.close(folder)


def _fsync_folder(folder: int) -> None:
    """Make the rename in ``folder`` (an ``O_PATH`` descriptor) survive a crash, if the folder can be opened."""
    with contextlib.suppress(OSError):
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _keep_metadata(fd: int, folder: int, name: str, st: os.stat_result) -> int:
    """Give the new file ``fd`` the owner and extended attributes of the old file ``name`` (lstat ``st``);
    the mode to set last.  A setuid/setgid bit is dropped when the owner/group could not be kept (a user
    editing another's file): it meant the old owner's rights, and chown would clear it too."""
    mode = stat.S_IMODE(st.st_mode)
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except OSError:
        now = os.fstat(fd)
        if now.st_uid != st.st_uid:
            mode &= ~stat.S_ISUID
        if now.st_gid != st.st_gid:
            mode &= ~stat.S_ISGID
    _copy_xattrs(fd, folder, name, st)
    return mode


def _copy_xattrs(fd: int, folder: int, name: str, st: os.stat_result) -> None:
    """Copy the extended attributes of the old file ``name`` onto ``fd``, one by one, skipping any the
    filesystem or our rights refuse; drop those the new file got that the old one lacks (an ACL inherited
    from the folder's default), except security.* ones (the label the system gave it)."""
    if not hasattr(os, "listxattr"):
        return
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        old = os.open(name, flags, dir_fd=folder)
    except OSError:
        return
    try:
        same = os.fstat(old)
        if (same.st_dev, same.st_ino) != (st.st_dev, st.st_ino):
            return  # (swapped meanwhile: not the file whose metadata this is)
        wanted: dict[str, bytes] = {}
        for attr in os.listxattr(old):
            with contextlib.suppress(OSError):
                wanted[attr] = os.getxattr(old, attr)
    except OSError:
        return
    finally:
        os.close(old)
    with contextlib.suppress(OSError):
        for attr in os.listxattr(fd):
            if attr not in wanted and not attr.startswith("security."):
                with contextlib.suppress(OSError):
                    os.removexattr(fd, attr)
    for attr, value in wanted.items():
        with contextlib.suppress(OSError):
            os.setxattr(fd, attr, value)


def _replace_in(folder: int, name: str, data: bytes, rel: str, expected: bytes | None) -> None:
    st = _check_target(folder, name, rel)
    try:
        fd, tmp = _temp_file(folder, name)
    except OSError as exc:
        raise _failure(rel, st is not None, exc) from None
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, _new_file_mode() if st is None else _keep_metadata(fd, folder, name, st))
            os.fsync(fd)
        finally:
            os.close(fd)
        if st is not None:
            _check_target(folder, name, rel)  # swapped for a link while we wrote: still refuse
        refusal = _changed_meanwhile(folder, name, rel, expected)
        if refusal is not None:
            raise refusal
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except WorkspaceError:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        raise
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        raise _failure(rel, st is not None, exc) from None
