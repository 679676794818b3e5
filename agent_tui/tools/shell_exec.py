"""Running one shell command with a hard timeout that really stops it.

The command gets its own session (process group), so on timeout or cancellation the
whole group is killed - a test runner's worker processes included - instead of only
the shell.  Output (stdout and stderr interleaved, as a user would see it) is read
concurrently so a chatty command cannot block on a full pipe, and capped in memory.
Every running group is registered with ``agent_tui.tools.reaper``, so none outlives
the agent; with a sandbox the command runs under bubblewrap (``tools/sandbox.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.tools import reaper, sandbox_seccomp
from agent_tui.tools.sandbox_guard import SandboxLock
from agent_tui.tools.shell_dialect import shell_argv

if TYPE_CHECKING:
    from agent_tui.tools.sandbox import Sandbox

#: Bytes of output kept in memory at most (the rest is counted, not kept).
MAX_CAPTURE_BYTES = 20_000_000
#: Seconds to keep reading after the shell exited (background children may hold the pipe).
DRAIN_GRACE = 2.0
#: How often the exit status is polled.
POLL_SECONDS = 0.02


@dataclass(frozen=True)
class CommandOutcome:
    exit_code: int | None
    output: str
    timed_out: bool
    seconds: float
    dropped_bytes: int
    notes: tuple[str, ...] = ()
    """What the sandbox had to put right after the command (a replaced ``.git`` link)."""


async def exited(proc: asyncio.subprocess.Process) -> int:
    """The shell's exit code, as soon as it exits.

    ``Process.wait()`` on Python 3.11 only returns once every pipe is closed, so a
    backgrounded child still holding stdout would make it hang; polling the return
    code (set by the child watcher at exit) does not.
    """
    while proc.returncode is None:
        await asyncio.sleep(POLL_SECONDS)
    return proc.returncode


def group_alive(pgid: int) -> bool:
    """True while any process of group ``pgid`` is left (a backgrounded child, say)."""
    return reaper.alive(pgid, group=True)


async def run_shell(command: str, cwd: Path, timeout: float, sandbox: Sandbox | None = None,
                    env: dict[str, str] | None = None) -> CommandOutcome:
    """Run ``command`` in ``cwd`` (inside ``sandbox`` when given); kill its process group after ``timeout`` s.

    ``env``: the command's environment (None: this process's, as is).
    """
    began = time.monotonic()
    common = dict(cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                  stderr=asyncio.subprocess.STDOUT, start_new_session=True, env=env)
    lock = SandboxLock(sandbox.workspace) if sandbox is not None else None
    notes: list[str] = sandbox.repair() if sandbox is not None else []
    finished = False
    try:
        for attempt in range(1, MOUNT_ATTEMPTS + 1):
            net = sandbox.net_setup() if sandbox is not None else None
            seccomp = sandbox_seccomp.open_filter() if sandbox is not None else None
            try:
                argv = None
                if sandbox is not None:
                    argv = sandbox.argv(command, cwd, net, seccomp)
                    if (unkept := sandbox.record()) is not None:
                        notes.append(unkept)
                fds = (*(net.pass_fds() if net else ()), *((seccomp,) if seccomp is not None else ()))
                with reaper.spawning():  # a SIGTERM now waits until the group is registered, then kills it
                    proc = await _spawn(command, argv, {**common, "pass_fds": fds} if fds else common)
                    reaper.register(proc.pid)
                if seccomp is not None:
                    os.close(seccomp)
                    seccomp = None
                net_note = None
                if net is not None:
                    net.spawned()
                    try:
                        why = await net.start()
                    except BaseException:  # a cancel: the command is still blocked, and must not run on
                        await _stop(proc)
                        raise
                    if why is not None:
                        net_note = f"the command's network could not be set up ({why}); it ran without one"
                try:
                    outcome = await _collect(proc, timeout, began)
                finally:
                    alive = group_alive(proc.pid)  # a background child keeps it registered: killed when the agent exits
                    if not alive:
                        reaper.unregister(proc.pid)
            finally:
                if seccomp is not None:
                    os.close(seccomp)
                if net is not None:
                    await net.close()
            if argv is None or attempt == MOUNT_ATTEMPTS or not (_mount_point_vanished(outcome, argv)
                                                                 or _loopback_race(outcome)):
                if net_note is not None:
                    notes.append(net_note)
                break
        finished = True
    finally:
        if sandbox is not None:
            notes += sandbox.repair()  # under the lock: a session starting now must not replay it meanwhile
        if lock is not None and not finished:  # an error or a cancel: nothing lingers
            lock.release()
    if lock is not None:
        if alive:
            _LINGERING[proc.pid] = lock  # held while the group lives (a background child may rely on the mounts)
        else:  # the last sandbox out removes the empty mount points (`.git` in a folder without one)
            lock.release()
    _release_finished()
    return replace(outcome, notes=tuple(notes)) if notes else outcome


async def _spawn(command: str, argv: list[str] | None, common: dict[str, Any]) -> asyncio.subprocess.Process:
    """Start the command, and on a cancellation kill its whole group before the cancel goes on.

    asyncio starts the process, then awaits the connection of its pipes: a cancel there (the user's
    esc at that moment) makes asyncio kill the shell alone, and a child it already started (``pytest``'s
    workers, ``server &``) lives on in the group, unregistered, holding the pipe, while the cancel waits
    for that pipe to close.  So the start runs shielded; when cancelled, it is let finish (further
    cancels are absorbed: it is one loop turn or two), then its group is killed and reaped."""
    if argv is not None:
        start = asyncio.ensure_future(asyncio.create_subprocess_exec(*argv, **common))
    else:
        start = asyncio.ensure_future(asyncio.create_subprocess_exec(*shell_argv(command), **common))
    try:
        return await asyncio.shield(start)
    except asyncio.CancelledError:
        while not start.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(start)
        if not start.cancelled() and start.exception() is None:
            await _stop(start.result())
        raise


#: Tries when a path the sandbox hides vanished between the scan and bwrap's mounts (a socket closed).
MOUNT_ATTEMPTS = 3
_BWRAP_MOUNT_ERROR = re.compile(
    r"\Abwrap: Can't (?:create file|mkdir parents for|mkdir|find source path|mount tmpfs) (?:at|on)? ?(\S+?):")


def _mount_point_vanished(outcome: CommandOutcome, argv: list[str]) -> bool:
    """bwrap failed before running anything because one of the paths it was to cover is gone."""
    m = _BWRAP_MOUNT_ERROR.match(outcome.output)
    return outcome.exit_code == 1 and m is not None and m.group(1) in argv and not Path(m.group(1)).exists()


def _loopback_race(outcome: CommandOutcome) -> bool:
    """bwrap failed to set up the sandbox's loopback because slirp4netns brought it up first (the
    network is set up while bwrap waits; ``sandbox_net._loopback_ready`` makes this rare)."""
    return outcome.exit_code == 1 and outcome.output.startswith("bwrap: loopback: Failed RTM_NEWADDR")


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Kill a started command's group, reap it and forget it (a cancel while it starts, or before
    its network lets it run)."""
    reaper.kill_group(proc.pid)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(exited(proc), DRAIN_GRACE)
    reaper.unregister(proc.pid)
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


#: Locks of sandboxed commands whose background children outlived them, by process group.
_LINGERING: dict[int, SandboxLock] = {}


def _release_finished() -> None:
    """Release the locks of lingering groups that have ended since."""
    for pgid in [g for g in _LINGERING if not group_alive(g)]:
        _LINGERING.pop(pgid).release()


async def _collect(proc: asyncio.subprocess.Process, timeout: float, began: float) -> CommandOutcome:
    assert proc.stdout is not None
    stdout = proc.stdout
    buf = bytearray()
    dropped = 0

    async def pump() -> None:
        nonlocal dropped
        while chunk := await stdout.read(65536):
            room = MAX_CAPTURE_BYTES - len(buf)
            buf.extend(chunk[: max(0, room)])
            dropped += max(0, len(chunk) - max(0, room))

    reader = asyncio.create_task(pump())
    timed_out = False
    try:
        await asyncio.wait_for(exited(proc), timeout)
    except TimeoutError:
        timed_out = True
        reaper.kill_group(proc.pid)
        await exited(proc)
    except asyncio.CancelledError:
        reaper.kill_group(proc.pid)
        reader.cancel()
        with contextlib.suppress(Exception):  # reap it so no transport is left running
            await asyncio.wait_for(exited(proc), DRAIN_GRACE)
        raise
    try:
        await asyncio.wait_for(reader, DRAIN_GRACE)
    except TimeoutError:
        # A background child (``server &``) still holds the pipe: stop reading and close
        # our end, so the child gets EPIPE instead of blocking on a full pipe.
        transport = getattr(proc, "_transport", None)
        if transport is not None:
            transport.close()
    return CommandOutcome(
        exit_code=proc.returncode,
        output=buf.decode("utf-8", errors="replace"),
        timed_out=timed_out,
        seconds=time.monotonic() - began,
        dropped_bytes=dropped,
    )
