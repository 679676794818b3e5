"""A seccomp filter for sandboxed commands: the kernel keyring, and set-ID mode bits, refused.

* The kernel keyring is not a file, so no mount hides it.  A command inherited the agent's session
  keyring (Kerberos tickets in a ``KEYRING:`` cache, tokens some tools keep there) and, run by root,
  root's user keyring: it could read them, or plant a key later unsandboxed programs use.  Docker's
  default profile refuses the same calls: ``add_key``, ``request_key`` and ``keyctl`` fail (EPERM).
* A file's owner may set its set-user-ID bit without any capability, so a command run by root could
  leave a set-user-ID-root copy of a shell in the workspace, which any local user could then run to
  become root (a command of another user's, a program running as that user).  ``chmod`` and friends,
  and the calls that make files, folders and nodes, fail (EPERM) when the mode holds set-ID bits;
  ``openat2``, whose mode sits in a struct a filter cannot read, answers ENOSYS, so callers fall back
  to ``openat``.

The filter is a few dozen classic BPF instructions, built here instead of with libseccomp (a C
library with no maintained wheel), and handed to bwrap as ``--seccomp FD``.  bwrap reads the fd to its
end, so each command gets its own open file (a fresh offset) on one in-memory file.  x86-64 (with its
i386 and x32 entry points) and arm64 are covered (not 32-bit ARM programs on arm64); on another
machine no filter is set and :func:`describe` says so.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import platform
import struct

#: Mode bits no file a command makes may carry: set-user-ID and set-group-ID.
_SETID = 0o6000
#: Per machine: (audit arch, bits cleared from the call number first (x32's), keyring calls, calls and
#: which argument holds a mode, ``openat2``'s number).
_Table = tuple[int, int, tuple[int, ...], tuple[tuple[int, int], ...], int]
_ARCHES: dict[str, tuple[_Table, ...]] = {
    "x86_64": (
        (0xC000003E, 0x40000000, (248, 249, 250),
         ((90, 1), (91, 1), (268, 2), (452, 2), (2, 2), (257, 3), (85, 1), (83, 1), (258, 2), (133, 1), (259, 2)),
         437),
        (0x40000003, 0, (286, 287, 288),
         ((15, 1), (94, 1), (306, 2), (452, 2), (5, 2), (295, 3), (8, 1), (39, 1), (296, 2), (14, 1), (297, 2)), 437),
    ),
    "aarch64": ((0xC00000B7, 0, (217, 218, 219), ((52, 1), (53, 2), (452, 2), (56, 3), (34, 2), (33, 2)), 437),),
}
_LD_W_ABS, _JEQ_K, _JSET_K, _AND_K, _RET_K = 0x20, 0x15, 0x45, 0x54, 0x06
_ARCH_OFFSET, _NR_OFFSET = 4, 0  # in struct seccomp_data; argument i's low 32 bits at 16 + 8 i
_ALLOW = 0x7FFF0000
_REFUSE = 0x00050000 | errno.EPERM
_ABSENT = 0x00050000 | errno.ENOSYS  # `openat2` hides its mode in a struct: "not here", so callers use openat


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _block(table: _Table) -> list[bytes]:
    """One architecture's checks, the call number loaded first; ends in allow."""
    _, clear, keyring, modes, openat2 = table
    load = [_op(_LD_W_ABS, _NR_OFFSET)] + ([_op(_AND_K, ~clear)] if clear else [])
    out = list(load)
    out += [_op(_JEQ_K, n, jt=0, jf=1) + _op(_RET_K, _REFUSE) for n in keyring]
    out += [_op(_JEQ_K, openat2, jt=0, jf=1) + _op(_RET_K, _ABSENT)]
    for nr, arg in modes:  # a mode with set-ID bits is refused; A holds the argument after, so reload
        out += [_op(_JEQ_K, nr, jt=0, jf=3 + len(load)) + _op(_LD_W_ABS, 16 + 8 * arg)
                + _op(_JSET_K, _SETID, jt=0, jf=1) + _op(_RET_K, _REFUSE) + b"".join(load)]
    out.append(_op(_RET_K, _ALLOW))
    return out


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one) as bwrap takes it; None when not known."""
    tables = _ARCHES.get(machine or platform.machine())
    if tables is None:
        return None
    out = [_op(_LD_W_ABS, _ARCH_OFFSET)]
    for table in tables:
        body = b"".join(_block(table))
        out += [_op(_JEQ_K, table[0], jf=len(body) // 8), body]
    out.append(_op(_RET_K, _ALLOW))  # another architecture's calls: not this filter's business
    return b"".join(out)


@functools.lru_cache(maxsize=1)
def _memfd() -> int | None:
    code = program()
    if code is None or not hasattr(os, "memfd_create"):
        return None
    fd = os.memfd_create("agent-tui-seccomp", os.MFD_CLOEXEC)
    os.write(fd, code)
    return fd


def open_filter() -> int | None:
    """A fresh read-only fd on the filter, for one bwrap to inherit and read (the caller closes it
    once bwrap has started); None where there is no filter."""
    base = _memfd()
    if base is None:
        return None
    with contextlib.suppress(OSError):
        return os.open(f"/proc/self/fd/{base}", os.O_RDONLY | os.O_CLOEXEC)
    return None


def describe() -> str:
    """A clause for the sandbox's one-line description."""
    return "the kernel keyring and set-ID mode bits are out of reach" if program() is not None else \
        f"the kernel keyring and set-ID mode bits are not fenced off on {platform.machine()}"
