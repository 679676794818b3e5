"""The after-command repair, kept on disk while a command runs, so an agent that dies mid-command
still gets it.

After every sandboxed command the sandbox puts right what the command could not be stopped from
doing but must not leave: a ``.git`` link, or a link on the way to a hooks folder, an included
config or a submodule's ``.git``, that it replaced is put back; a hook it made at a hooks folder
that is the workspace root is moved aside; the empty mount points bwrap made are removed
(``Sandbox.repair``, ``tools/sandbox_after.py``).  That repair
needs what the links said *before* the command, which lived only in the agent's memory.  When the
agent was killed during a command (``kill -9``, a crash, a closed terminal; the command dies with
it, ``--die-with-parent``), the repair never ran, and the next session took the planted state as
its reference: it snapshots the links when it starts.

So the reference is written to the user's cache (outside every sandbox) just before the command
starts and removed once the repair is done.  A session starting on the workspace repairs from any
record left behind, but only when no sandboxed command is running there (the workspace lock is
free, ``sandbox_guard.SandboxLock``): a record of a live command belongs to its own agent.  Paths
in a record are used only inside the workspace.  The record is not synced to disk: a power cut
during a command can lose it (a crash of the agent cannot).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

from agent_tui.tools.sandbox_after import move_made_hooks, pending, remove_hook_placeholders
from agent_tui.tools.sandbox_guard import PROTECTED, lock_file, repair_links

_SUFFIX = ".pending.json"


def _path(workspace: Path, pid: int | None = None) -> Path | None:
    lock = lock_file(workspace)
    return None if lock is None else lock.with_name(f"{lock.stem}.{pid or os.getpid()}{_SUFFIX}")


def write(workspace: Path, links: tuple[tuple[str, str], ...]) -> None:
    """Keep what the coming command's repair needs (``links``: the session's own ``.git`` /
    ``.agent-tui`` links; the rest is what ``hook_flags`` just recorded)."""
    path = _path(workspace)
    if path is None:
        return
    hook_links, absent, placeholders = pending(workspace)
    record = {
        "workspace": str(workspace.resolve()),
        "links": [list(pair) for pair in links],
        "hook_links": sorted(hook_links.items()),
        "absent": sorted(map(str, absent)),
        "placeholders": sorted(map(str, placeholders)),
    }
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(OSError):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, path)


def clear(workspace: Path) -> None:
    """The repair is done: forget the record."""
    path = _path(workspace)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _inside(root: Path, raw: str) -> Path | None:
    path = Path(raw)
    return path if path.is_absolute() and path.is_relative_to(root) and path != root else None


def _repair(root: Path, record: dict[str, object]) -> list[str]:
    pairs = [(str(rel), str(target)) for rel, target in [*record.get("links", []), *record.get("hook_links", [])]
             if _inside(root, str(root / str(rel))) is not None and ".." not in Path(str(rel)).parts]
    absent = [p for raw in record.get("absent", []) if (p := _inside(root, str(raw))) is not None]
    placeholders = {p for raw in record.get("placeholders", []) if (p := _inside(root, str(raw))) is not None}
    notes = repair_links(root, tuple(pairs)) + move_made_hooks(root, absent)
    remove_hook_placeholders(root, placeholders)
    for rel in PROTECTED:  # bwrap's empty mount point for a missing one
        with contextlib.suppress(OSError):
            if (root / rel).is_dir() and not (root / rel).is_symlink():
                (root / rel).rmdir()
    return notes


def recover(workspace: Path) -> list[str]:
    """Repair from the records an agent that died mid-command left for ``workspace`` (notes for the
    user); nothing while a sandboxed command runs there."""
    root = workspace.resolve()
    lock = lock_file(root)
    if lock is None:
        return []
    records = sorted(lock.parent.glob(f"{lock.stem}.*{_SUFFIX}"))
    if not records:
        return []
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return []
    notes: list[str] = []
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return []  # a command is running: its agent repairs after it
        for path in records:
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                record = None
            if isinstance(record, dict) and record.get("workspace") == str(root):
                found = _repair(root, record)
                notes += [f"an earlier session ended during a sandboxed command; {note}" for note in found]
            with contextlib.suppress(OSError):
                path.unlink()
    finally:
        os.close(fd)
    return notes
