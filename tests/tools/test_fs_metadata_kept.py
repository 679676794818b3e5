"""An edit or overwrite keeps the file's metadata: every mode bit (setuid, setgid and sticky
included), its owner, and its extended attributes (user.* ones and the POSIX ACL, kept in
``system.posix_acl_access``).  The new text goes to a temp file renamed over the old one, so
each of these must be carried over on purpose; the kernel clears setuid/setgid on a chown.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
from pathlib import Path

import pytest

from agent_tui.tools.fs_atomic import atomic_write

from .fakes import Call

SCRIPT = "#!/bin/sh\necho hi\n"
ACCESS_ACL = "system.posix_acl_access"
DEFAULT_ACL = "system.posix_acl_default"
_NO_ID = 0xFFFFFFFF


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A POSIX ACL in its xattr form: (tag, permission bits, id) entries, sorted by tag."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)


# user::rw- user:1234:r-- group::r-- mask::r-- other::r--  (mode 0644)
FILE_ACL = _acl((0x01, 6, _NO_ID), (0x02, 4, 1234), (0x04, 4, _NO_ID), (0x10, 4, _NO_ID), (0x20, 4, _NO_ID))
# default:user::rwx user:1234:rwx group::r-x mask::rwx other::r-x
FOLDER_DEFAULT_ACL = _acl((0x01, 7, _NO_ID), (0x02, 7, 1234), (0x04, 5, _NO_ID), (0x10, 7, _NO_ID), (0x20, 5, _NO_ID))


def _xattr_or_skip(path: Path, name: str, value: bytes) -> None:
    """Set an xattr, skipping the test where this filesystem (or platform) refuses that kind."""
    if not hasattr(os, "setxattr"):
        pytest.skip("no extended attributes on this platform")
    try:
        os.setxattr(path, name, value, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM, errno.EACCES):
            pytest.skip(f"{name.split('.')[0]}.* xattrs refused here: {exc}")
        raise


async def _change(ws: Path, call: Call, name: str, how: str) -> None:
    read = await call("read_file", path=name)
    assert not read.is_error, read.text
    if how == "edit":
        result = await call("edit_file", path=name, old_text="echo hi", new_text="echo bye")
        assert not result.is_error, result.text
    else:  # what write_file (and every other writer) calls
        target = ws / name
        atomic_write(target, b"#!/bin/sh\necho bye\n", name, expected=target.read_bytes())


@pytest.mark.parametrize("how", ["edit", "atomic_write"])
@pytest.mark.parametrize("mode", [0o4755, 0o2755, 0o2775, 0o6750, 0o1644, 0o7777], ids=oct)
async def test_special_mode_bits_survive(ws: Path, call: Call, how: str, mode: int) -> None:
    path = ws / "x.sh"
    path.write_text(SCRIPT)
    os.chmod(path, mode)
    if stat.S_IMODE(os.stat(path).st_mode) != mode:
        pytest.skip("this filesystem or user cannot set that mode")
    await _change(ws, call, "x.sh", how)
    assert path.read_text() == "#!/bin/sh\necho bye\n"
    assert oct(stat.S_IMODE(os.stat(path).st_mode)) == oct(mode)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
@pytest.mark.parametrize("how", ["edit", "atomic_write"])
async def test_owner_and_setuid_survive_together(ws: Path, call: Call, how: str) -> None:
    path = ws / "x.sh"
    path.write_text(SCRIPT)
    os.chown(path, 1234, 5678)
    os.chmod(path, 0o6755)
    await _change(ws, call, "x.sh", how)
    st = os.stat(path)
    assert (st.st_uid, st.st_gid, oct(stat.S_IMODE(st.st_mode))) == (1234, 5678, oct(0o6755))


async def test_setuid_is_not_given_to_a_new_owner(ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the owner cannot be kept (a user editing another's file), the file now belongs to whoever
    edited it; a setuid/setgid bit meant the old owner's rights, so it is dropped, as chown would."""
    path = ws / "x.sh"
    path.write_text(SCRIPT)
    os.chmod(path, 0o6755)
    st = os.stat(path)

    def refuse(fd: int, uid: int, gid: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", refuse)
    # the old file seems to belong to someone else: the temp file's owner differs from it
    real_lstat = os.lstat

    def other_owner(name: str, *args: object, **kwargs: object) -> os.stat_result:
        found = real_lstat(name, *args, **kwargs)  # type: ignore[arg-type]
        if str(name) == "x.sh":
            fields = list(found)
            fields[stat.ST_UID], fields[stat.ST_GID] = st.st_uid + 1, st.st_gid + 1
            return os.stat_result(fields)
        return found

    monkeypatch.setattr(os, "lstat", other_owner)
    await _change(ws, call, "x.sh", "edit")
    assert path.read_text() == "#!/bin/sh\necho bye\n"
    assert oct(stat.S_IMODE(os.stat(path).st_mode)) == oct(0o755)


@pytest.mark.parametrize("how", ["edit", "atomic_write"])
async def test_user_xattrs_survive(ws: Path, call: Call, how: str) -> None:
    path = ws / "x.sh"
    path.write_text(SCRIPT)
    _xattr_or_skip(path, "user.note", b"keep me")
    _xattr_or_skip(path, "user.empty", b"")
    await _change(ws, call, "x.sh", how)
    assert path.read_text() == "#!/bin/sh\necho bye\n"
    assert sorted(a for a in os.listxattr(path) if a.startswith("user.")) == ["user.empty", "user.note"]
    assert os.getxattr(path, "user.note") == b"keep me"
    assert os.getxattr(path, "user.empty") == b""


@pytest.mark.parametrize("how", ["edit", "atomic_write"])
async def test_posix_acl_survives(ws: Path, call: Call, how: str) -> None:
    path = ws / "x.sh"
    path.write_text(SCRIPT)
    os.chmod(path, 0o644)
    _xattr_or_skip(path, ACCESS_ACL, FILE_ACL)
    await _change(ws, call, "x.sh", how)
    assert os.getxattr(path, ACCESS_ACL) == FILE_ACL
    assert oct(stat.S_IMODE(os.stat(path).st_mode)) == oct(0o644)


async def test_no_acl_is_added_from_the_folder_default(ws: Path, call: Call) -> None:
    """A file made before its folder got a default ACL has none of its own; the temp file inherits the
    folder's, which must not end up on the edited file (it would grant access the file never gave)."""
    path = ws / "x.sh"
    path.write_text(SCRIPT)
    os.chmod(path, 0o640)
    _xattr_or_skip(ws, DEFAULT_ACL, FOLDER_DEFAULT_ACL)
    assert ACCESS_ACL not in os.listxattr(path)
    await _change(ws, call, "x.sh", "edit")
    assert path.read_text() == "#!/bin/sh\necho bye\n"
    assert ACCESS_ACL not in os.listxattr(path)
    assert oct(stat.S_IMODE(os.stat(path).st_mode)) == oct(0o640)


async def test_xattr_refused_on_the_temp_file_does_not_fail_the_write(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ws / "x.sh"
    path.write_text(SCRIPT)
    _xattr_or_skip(path, "user.note", b"keep me")
    _xattr_or_skip(path, "user.other", b"me too")
    real_setxattr = os.setxattr

    def picky(target: object, name: str, value: bytes, *args: object, **kwargs: object) -> None:
        if name == "user.note":
            raise OSError(errno.ENOTSUP, "Operation not supported")
        real_setxattr(target, name, value, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "setxattr", picky)
    await _change(ws, call, "x.sh", "edit")
    assert path.read_text() == "#!/bin/sh\necho bye\n"
    assert os.getxattr(path, "user.other") == b"me too"
    assert "user.note" not in os.listxattr(path)
