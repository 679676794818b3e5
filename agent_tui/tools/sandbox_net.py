"""The network of a sandboxed command that may use one: its own, not the host's.

Sharing the host's network (what ``--unshare-net`` left out does) lets a command reach more than
the internet: every service listening on the host's loopback (a database, a dev server, a
debugger port, a cloud CLI's local auth server) and every *abstract* Unix socket (the X server,
some session buses and agents), which no mount can hide because they live in the network
namespace, not the file system.  So with ``[sandbox] network = true`` the command gets a fresh
network namespace anyway, and slirp4netns (Debian package ``slirp4netns``, the user-mode stack
rootless Podman uses) connects it to the outside through this process: the internet and the
LAN work, ``127.0.0.1`` is the command's own, the host's loopback is refused
(``--disable-host-loopback``) and the host's abstract sockets are out of reach.

How: bwrap is started with ``--info-fd`` (it reports the sandbox's PID) and ``--block-fd`` (the
command waits before it runs); slirp4netns joins that PID's namespace, configures ``tap0``
(10.0.2.100, gateway 10.0.2.2, DNS 10.0.2.3 — ``/etc/resolv.conf`` is replaced to name it) and
says it is ready, then the command is let go.  bwrap holds the write end of a pipe
(``--sync-fd``) whose read end is slirp4netns' ``--exit-fd``, so the stack ends with the sandbox,
even when the agent is killed.  If slirp4netns fails, the command still runs, with no network
but its own loopback, and the failure is said.  ``[sandbox] host_network = true`` shares the
host's network instead (localhost services reachable), and so does a machine without
slirp4netns, which the start-up message says.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

#: How to get slirp4netns, said when it is missing.
SLIRP_HINT = "install slirp4netns (Debian/Ubuntu: `apt install slirp4netns`) to keep the host's own services out of reach"
#: The DNS forwarder slirp4netns offers inside the namespace.
SLIRP_DNS = "10.0.2.3"
#: Seconds to wait for bwrap's report and for slirp4netns to be ready.
SETUP_TIMEOUT = 10.0


@functools.lru_cache(maxsize=1)
def slirp_path() -> str | None:
    """slirp4netns, when it is installed and runs here (``--version``)."""
    path = shutil.which("slirp4netns")
    if path is None:
        return None
    try:
        ok = subprocess.run([path, "--version"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return None
    return path if ok else None


@functools.lru_cache(maxsize=1)
def _resolv_conf() -> str:
    """A resolv.conf naming slirp4netns' DNS forwarder (one file per process, removed at exit)."""
    import atexit

    folder = tempfile.mkdtemp(prefix="agent-tui-net-")
    path = Path(folder) / "resolv.conf"
    path.write_text(f"nameserver {SLIRP_DNS}\n", encoding="utf-8")
    atexit.register(shutil.rmtree, folder, True)
    return str(path)


def resolv_target() -> str:
    """Where the sandbox's resolv.conf is mounted: the real file behind ``/etc/resolv.conf``."""
    etc = Path("/etc/resolv.conf")
    try:
        real = etc.resolve(strict=True)
    except OSError:
        return str(etc)
    return str(real)


@dataclass
class NetSetup:
    """The pipes that connect one bwrap start to its slirp4netns (see the module doc)."""

    slirp: str
    """Path of slirp4netns."""
    info: tuple[int, int] = field(default_factory=os.pipe)
    """bwrap writes its JSON report (``child-pid``) to the write end."""
    block: tuple[int, int] = field(default_factory=os.pipe)
    """The command starts when a byte is written to the write end."""
    sync: tuple[int, int] = field(default_factory=os.pipe)
    """bwrap keeps the write end open while the sandbox lives; slirp4netns exits when it closes."""
    process: asyncio.subprocess.Process | None = None
    """The running slirp4netns."""
    _open: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._open = {*self.info, *self.block, *self.sync}

    def _close(self, *fds: int) -> None:
        """Close each of ``fds`` this setup still holds (never one it closed already: the number
        may belong to another file by now)."""
        for fd in fds:
            if fd in self._open:
                self._open.discard(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)

    def flags(self) -> list[str]:
        """bwrap flags: its own network namespace, the pipes, and the resolv.conf."""
        return ["--unshare-net", "--info-fd", str(self.info[1]), "--block-fd", str(self.block[0]),
                "--sync-fd", str(self.sync[1]), "--ro-bind", _resolv_conf(), resolv_target()]

    def pass_fds(self) -> tuple[int, ...]:
        """The ends bwrap inherits."""
        return self.info[1], self.block[0], self.sync[1]

    def spawned(self) -> None:
        """bwrap has started: close the ends it inherited, so only it holds them."""
        self._close(*self.pass_fds())

    async def start(self) -> str | None:
        """Read bwrap's report, start slirp4netns in the sandbox's namespace, wait until it is
        ready and let the command go.  Returns why the network could not be set up (None: it is)."""
        why: str | None = None
        try:
            pid = await asyncio.wait_for(asyncio.to_thread(_child_pid, self.info[0]), SETUP_TIMEOUT)
            if pid is None:
                why = "bwrap did not report the sandbox's process"
            else:
                why = await self._connect(pid)
        except (OSError, TimeoutError) as exc:
            why = f"{type(exc).__name__}: {exc}"
        finally:
            with contextlib.suppress(OSError):
                os.write(self.block[1], b"1")  # the command runs either way: without a network at worst
            self._close(self.info[0], self.block[1])
        return why

    async def _connect(self, pid: int) -> str | None:
        ready_r, ready_w = os.pipe()
        try:
            self.process = await asyncio.create_subprocess_exec(
                self.slirp, "--configure", "--mtu=65520", "--disable-host-loopback", "--ready-fd", str(ready_w),
                "--exit-fd", str(self.sync[0]), str(pid), "tap0",
                pass_fds=(ready_w, self.sync[0]), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, start_new_session=True,
            )
            os.close(ready_w)
            ready_w = -1
            self._close(self.sync[0])  # slirp4netns holds it now
            got = await asyncio.wait_for(asyncio.to_thread(os.read, ready_r, 1), SETUP_TIMEOUT)
            if got == b"1":
                return None
            err = b""
            if self.process.stderr is not None:
                with contextlib.suppress(TimeoutError):
                    err = await asyncio.wait_for(self.process.stderr.read(2000), 1.0)
            return "slirp4netns failed: " + (err.decode(errors="replace").strip() or "no reason given")
        finally:
            for fd in (ready_r, ready_w):
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)

    async def close(self) -> None:
        """After the command: every end closed, slirp4netns reaped (it exits with the sandbox)."""
        self._close(*self._open)
        proc = self.process
        if proc is None or proc.returncode is not None:
            return
        try:
            await asyncio.wait_for(proc.wait(), 2.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


def _child_pid(fd: int) -> int | None:
    """The ``child-pid`` of bwrap's JSON report on ``fd`` (None when it ended without one)."""
    data = b""
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
        with contextlib.suppress(ValueError):
            pid = json.loads(data).get("child-pid")
            return int(pid) if pid else None
    return None
