"""No command outlives the agent: the process groups of running commands are killed when it exits.

Each command runs in its own session, so it is not killed with the agent's terminal and
the timeout can kill its whole group.  That also meant a killed agent (SIGTERM from a
supervisor, SIGHUP from a closed terminal) left the command running: a file appeared
30 s later while the model had been told nothing was recorded.  Every running group is
registered here and SIGKILLed on a normal exit (atexit), SIGTERM and SIGHUP; the signal
then takes its usual course.  SIGKILL cannot be caught: there the sandbox's
``--die-with-parent`` (agent_tui/tools/sandbox.py) ends sandboxed commands.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

_running: set[int] = set()
#: Reentrant: the signal handler runs on the main thread, possibly while it holds the lock.
_lock = threading.RLock()
_installed = False
_spawning = 0
_pending: list[tuple[int, Any]] = []
_previous: dict[int, Any] = {}


def register(pgid: int) -> None:
    """A command's process group started."""
    with _lock:
        _running.add(pgid)


def unregister(pgid: int) -> None:
    """A command's process group was reaped."""
    with _lock:
        _running.discard(pgid)


def running() -> list[int]:
    """Process groups of commands that are still running."""
    with _lock:
        return sorted(_running)


def alive(pid: int, group: bool = False) -> bool:
    """True while process ``pid`` lives (``group``: while any process of group ``pid`` is left)."""
    try:
        (os.killpg if group else os.kill)(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_group(pgid: int) -> None:
    """SIGKILL the process group ``pgid`` (ignore if already gone)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def kill_all() -> int:
    """SIGKILL every registered group; how many there were."""
    with _lock:
        groups = sorted(_running)
        _running.clear()
    for pgid in groups:
        kill_group(pgid)
    return len(groups)


@contextlib.contextmanager
def spawning() -> Iterator[None]:
    """Wrap starting a command and registering its group: a SIGTERM/SIGHUP that lands in
    between waits until the group is registered (else the new command would survive)."""
    global _spawning
    with _lock:
        _spawning += 1
    try:
        yield
    finally:
        with _lock:
            _spawning -= 1
            due = list(_pending) if _spawning == 0 else []
            if due:
                _pending.clear()
        for sig, frame in due:
            _deliver(sig, frame)


def _deliver(sig: int, frame: FrameType | None) -> None:
    kill_all()
    previous = _previous.get(sig, signal.SIG_DFL)
    if callable(previous):
        previous(sig, frame)
        return
    if previous == signal.SIG_IGN:
        return
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


def _handler(sig: int, frame: FrameType | None) -> None:
    with _lock:
        if _spawning:
            _pending.append((sig, frame))
            return
    _deliver(sig, frame)


def install_exit_handlers() -> None:
    """Kill running commands on exit, SIGTERM and SIGHUP (call once, from the main thread)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    _installed = True
    atexit.register(kill_all)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        _previous[signum] = signal.getsignal(signum)
        signal.signal(signum, _handler)
