"""Every store agent-tui has opened for this user, so a sandboxed command sees none but its own project's.

A hostile repository's sandboxed script copied ``~/*/.agent-tui/memory.db`` into the workspace and printed
another project's conversation (its messages, files and command output), which went on to the model; with
the network on it could go anywhere.  The list lives in the user's state folder, which the sandbox hides
itself, so no command can read or shorten it.  It keeps the newest ``MAX_STORES`` entries.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from agent_tui.core.config import user_state_dir

LIST_NAME = "stores.txt"
#: Stores remembered at most, the ones opened last: each hidden one costs a sandboxed command two mounts
#: (64 added 44 ms to a `true`, 31 -> 75 ms); a project not opened among the last 64 is not hidden.
MAX_STORES = 64


def list_path() -> Path:
    return user_state_dir() / LIST_NAME


def remember(store: Path) -> None:
    """Add ``store`` (a database file) to the list, once; never fails the caller.  The read and the write
    happen under a lock: two agent-tui starting at once each rewrote the list from what they had read, and
    one's store dropped off it (so it was not hidden from the other projects' commands)."""
    try:
        real = str(store.resolve())
        path = list_path()
        lines = _read(path)
        if lines and lines[-1] == real:
            return  # (opened last already: nothing to write, as on most runs)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(f".{LIST_NAME}.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            lines = _read(path)  # (again, now that no one else is writing it)
            known = [*(line for line in lines if line != real), real][-MAX_STORES:]
            tmp = path.with_name(f".{LIST_NAME}.{os.getpid()}.tmp")
            tmp.write_text("\n".join(known) + "\n", encoding="utf-8")
            os.replace(tmp, path)
    except OSError:
        return


def known() -> list[Path]:
    """The stores on the list (they may be gone since)."""
    return [Path(line) for line in _read(list_path()) if line.startswith("/")]


def hidden_for_store(store: Path) -> list[Path]:
    """What to hide for one store: its ``.agent-tui`` folder (logs and outputs live there too), else the
    database file with its WAL and shared-memory files."""
    if store.parent.name == ".agent-tui":
        return [store.parent]
    return [store, store.with_name(store.name + "-wal"), store.with_name(store.name + "-shm")]


def _read(path: Path) -> list[str]:
    try:
        return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError):
        return []
