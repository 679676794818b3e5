"""A seccomp filter for sandboxed commands: the kernel keyring's three calls are refused.

The kernel keyring is not a file, so no mount hides it.  A command inherits the agent's session
keyring (Kerberos tickets in a ``KEYRING:`` cache, tokens some tools keep there) and, run by root,
root's user keyring: it could read them, or plant a key that later unsandboxed programs use.  Docker's
default profile refuses the same calls: ``add_key``, ``request_key`` and ``keyctl`` fail with EPERM.

The filter is a dozen classic BPF instructions, built here instead of with libseccomp (a C library
with no maintained wheel), and handed to bwrap as ``--seccomp FD``.  bwrap reads the fd to its end, so
each command gets its own open file (a fresh offset) on one in-memory file.  On a machine whose
architecture is not listed, no filter is set and :func:`describe` says so.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import platform
import struct

#: (audit arch, syscall numbers of add_key, request_key and keyctl, bits cleared first: x32's).
_ARCHES: dict[str, tuple[tuple[int, tuple[int, ...], int], ...]] = {
    "x86_64": ((0xC000003E, (248, 249, 250), 0x40000000), (0x40000003, (286, 287, 288), 0)),
    "aarch64": ((0xC00000B7, (217, 218, 219), 0),),
}
_LD_W_ABS, _JEQ_K, _AND_K, _RET_K = 0x20, 0x15, 0x54, 0x06
_ARCH_OFFSET, _NR_OFFSET = 4, 0  # in struct seccomp_data
_ALLOW = 0x7FFF0000
_REFUSE = 0x00050000 | errno.EPERM


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one) as bwrap takes it; None when not known."""
    arches = _ARCHES.get(machine or platform.machine())
    if arches is None:
        return None
    out = [_op(_LD_W_ABS, _ARCH_OFFSET)]
    for arch, numbers, clear in arches:
        body = [_op(_LD_W_ABS, _NR_OFFSET)] + ([_op(_AND_K, ~clear)] if clear else [])
        # each match jumps over the numbers left and the allow, to the refusal
        body += [_op(_JEQ_K, n, jt=len(numbers) - i) for i, n in enumerate(numbers)]
        body += [_op(_RET_K, _ALLOW), _op(_RET_K, _REFUSE)]
        out += [_op(_JEQ_K, arch, jf=len(body))] + body
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
    return "the kernel keyring is out of reach" if program() is not None else \
        f"the kernel keyring is not fenced off on {platform.machine()}"
