"""Which sessions another agent-tui has open: an advisory lock per session, held while a TUI uses it.

Two TUIs on one session each kept their own copy of its history: neither sent the other's turns to the
model, both wrote turn 29 into the store, and a third that resumed it got the two users' messages joined
into one.  Nothing stops a user from opening a session twice (a second terminal, a forgotten tmux pane),
but the one who does is told so when it opens.  The lock is ``flock`` on a file per session under
``.agent-tui/locks/``: the kernel drops it when the process ends, however it ends, so a crash never leaves
a session marked open.  A process opening a session it already holds (a model switch reopens it) counts
it once more instead of colliding with itself.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

_held: dict[str, tuple[int, int]] = {}
"""Lock file path -> (its descriptor, how many controllers of this process hold it)."""
_guard = threading.Lock()


class SessionLock:
    """This process's hold on one session (``shared``: another process holds it too)."""

    def __init__(self, folder: Path | None, session_id: str) -> None:
        self.path = str(folder / f"{session_id}.lock") if folder is not None else ""
        self.shared = False
        """Another agent-tui had the session open when this one opened it."""
        self._mine = False
        if not self.path:
            return
        with _guard:
            if self.path in _held:
                fd, count = _held[self.path]
                _held[self.path] = (fd, count + 1)
                self._mine = True
                return
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            except OSError:
                return  # a read-only folder: nothing can be told, nothing is refused
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                self.shared = True
                return
            _held[self.path] = (fd, 1)
            self._mine = True

    def release(self) -> None:
        """Give the hold back (the lock itself goes with the last holder in this process)."""
        if not self._mine:
            return
        self._mine = False
        with _guard:
            fd, count = _held.pop(self.path)
            if count > 1:
                _held[self.path] = (fd, count - 1)
            else:
                os.close(fd)
