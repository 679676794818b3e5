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
command waits before it runs); once bwrap has set up the sandbox's loopback (slirp4netns brings
``lo`` up too, and the loser of that race fails), slirp4netns joins the network namespace, as the
user namespace that owns it (``NS_GET_USERNS``: bwrap run by a user nests its child one level
deeper), configures ``tap0`` (10.0.2.100, gateway 10.0.2.2, DNS 10.0.2.3 — ``/etc/resolv.conf``,
or the file it links to, is replaced to name it) and says it is ready, then the command is let
go.  slirp4netns parses packets the command writes, so it runs under its own seccomp filter, and
as root also in its own mount namespace with its capabilities dropped.  A cancel while this is set
up kills the still-blocked command.  The host's DNS stays reachable through 10.0.2.3 (port 53
only), also when the host's resolver listens on its loopback.  bwrap holds the write end of a pipe
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
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.tools.cmd_env import command_env
from agent_tui.tools.programs import find_program

#: How to get slirp4netns, said when it is missing.
SLIRP_HINT = "install slirp4netns (Debian/Ubuntu: `apt install slirp4netns`) to keep the host's own services out of reach"
#: The DNS forwarder slirp4netns offers inside the namespace.
SLIRP_DNS = "10.0.2.3"
#: Seconds to wait for bwrap's report and for slirp4netns to be ready (counted apart from the
#: command's own timeout, which starts when it runs).
SETUP_TIMEOUT = 10.0


@functools.lru_cache(maxsize=1)
def slirp_path() -> str | None:
    """slirp4netns, when it is installed and runs here (``--version``)."""
    path = find_program("slirp4netns")
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


def resolv_target(etc: Path = Path("/etc/resolv.conf")) -> str | None:
    """Where the sandbox's resolv.conf is mounted: the real file behind ``etc`` (often a link into
    ``/run``, which the sandbox replaces with its own empty one: bwrap makes the file there); None
    when there is nothing to mount over (no resolv.conf, or a dangling link outside ``/run``): the
    command then has a network without the name server."""
    real = etc.resolve()
    if real.is_file() or real.is_relative_to("/run"):
        return str(real)
    return None


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
        out = ["--unshare-net", "--info-fd", str(self.info[1]), "--block-fd", str(self.block[0]),
               "--sync-fd", str(self.sync[1])]
        target = resolv_target()
        return out + ["--ro-bind", _resolv_conf(), target] if target is not None else out

    def pass_fds(self) -> tuple[int, ...]:
        """The ends bwrap inherits."""
        return self.info[1], self.block[0], self.sync[1]

    def spawned(self) -> None:
        """bwrap has started: close the ends it inherited, so only it holds them."""
        self._close(*self.pass_fds())

    async def start(self) -> str | None:
        """Read bwrap's report, start slirp4netns in the sandbox's namespace, wait until it is
        ready and let the command go.  Returns why the network could not be set up (None: it is).

        A cancel lets nothing go: the command is still blocked, and the caller kills it."""
        why: str | None = None
        try:
            async with asyncio.timeout(SETUP_TIMEOUT):
                pid = await _child_pid(self.info[0])
                if pid is None:
                    why = "bwrap did not report the sandbox's process"
                else:
                    await _loopback_ready(pid)
                    why = await self._connect(pid)
        except TimeoutError:
            why = f"it was not ready within {SETUP_TIMEOUT:.0f} s"
        except (OSError, ValueError) as exc:
            why = f"{type(exc).__name__}: {exc}"
        with contextlib.suppress(OSError):
            os.write(self.block[1], b"1")  # the command runs either way: without a network at worst
        self._close(self.info[0], self.block[1])
        return why

    async def _connect(self, pid: int) -> str | None:
        ready_r, ready_w = os.pipe()
        owner = _netns_owner(pid)  # bwrap may have moved its child into a user namespace of its own
        try:
            userns = ["--userns-path", f"/proc/self/fd/{owner}"] if owner is not None else []
            # its own mount namespace, capabilities dropped: only as root (a user's slirp4netns joins
            # bwrap's user namespace as that user, where --enable-sandbox fails on setegid(0))
            confine = ["--enable-sandbox"] if os.geteuid() == 0 else []
            self.process = await asyncio.create_subprocess_exec(
                self.slirp, "--configure", "--mtu=65520", "--disable-host-loopback", *confine,
                "--enable-seccomp", "--ready-fd", str(ready_w), "--exit-fd", str(self.sync[0]), *userns,
                "--netns-type", "path", f"/proc/{pid}/ns/net", "tap0",
                pass_fds=(ready_w, self.sync[0], *([owner] if owner is not None else [])),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, start_new_session=True,
                env=command_env(sandboxed=True),  # (it parses what the command sends: it holds no key)
            )
            os.close(ready_w)
            ready_w = -1
            self._close(self.sync[0])  # slirp4netns holds it now
            got = await _read(ready_r, 1)
            if got == b"1":
                return None
            err = b""
            if self.process.stderr is not None:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(1.0):
                        err = await self.process.stderr.read(2000)
            return "slirp4netns failed: " + (err.decode(errors="replace").strip() or "no reason given")
        finally:
            for fd in (ready_r, ready_w, -1 if owner is None else owner):
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
        except TimeoutError:  # its whole group: a child holding its stderr pipe would keep wait() waiting
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except PermissionError:
                proc.kill()
            except ProcessLookupError:
                pass
            await proc.wait()


#: ``ioctl`` that gives the user namespace owning a namespace (``linux/nsfs.h``: ``_IO(0xb7, 0x1)``).
NS_GET_USERNS = 0xB701


def _netns_owner(pid: int) -> int | None:
    """An fd of the user namespace that owns ``pid``'s network namespace (slirp4netns must join
    that one; bwrap run by a user nests its child one level deeper), or None when unknown."""
    import fcntl

    try:
        fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        owner = fcntl.ioctl(fd, NS_GET_USERNS)
        return owner if isinstance(owner, int) and owner >= 0 else None
    except OSError:
        return None
    finally:
        os.close(fd)


async def _loopback_ready(pid: int, wait: float = 1.0) -> None:
    """Wait (up to ``wait`` s) until bwrap has given the sandbox's loopback its address: slirp4netns
    brings ``lo`` up too, and if it wins that race bwrap's own setup fails (``RTM_NEWADDR``)."""
    path = f"/proc/{pid}/net/fib_trie"
    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    while loop.time() < end:
        try:
            with open(path, encoding="ascii", errors="replace") as f:
                if "127.0.0.1" in f.read():
                    return
        except OSError:
            return  # cannot look: go on, the caller retries a lost race
        await asyncio.sleep(0.001)


async def _read(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes from pipe ``fd`` once it is readable (b"" at its end), waiting in the
    event loop: no thread is left reading an fd that a cancel then closes."""
    loop = asyncio.get_running_loop()
    readable = loop.create_future()
    loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
    try:
        await readable
    finally:
        loop.remove_reader(fd)
    return os.read(fd, size)


async def _child_pid(fd: int) -> int | None:
    """The ``child-pid`` of bwrap's JSON report on ``fd`` (None when it ended without one)."""
    data = b""
    while chunk := await _read(fd, 4096):
        data += chunk
        with contextlib.suppress(ValueError):
            pid = json.loads(data).get("child-pid")
            return int(pid) if pid else None
    return None
