"""The after-command repair, kept on disk while a command runs, so an agent that dies mid-command
still gets it.

After every sandboxed command the sandbox puts right what the command could not be stopped from
doing but must not leave: a ``.git`` link, or a link on the way to a hooks folder, an included
config or a submodule's ``.git``, that it replaced is put back; a hook it made at a hooks folder
that is the workspace root is moved aside; a git repository it made whose git would run a program is
disabled (``tools/sandbox_placed.py``: the record lists the repositories there before); the empty
mount points bwrap made are removed (``Sandbox.repair``, ``tools/sandbox_after.py``).  That repair
needs what the links said *before* the command, which lived only in the agent's memory.  When the
agent was killed during a command (``kill -9``, a crash, a closed terminal; the command dies with
it, ``--die-with-parent``), the repair never ran, and the next session took the planted state as
its reference: it snapshots the links when it starts.

So the reference is written to agent-tui's state folder (``sandbox_guard.state_folder``, hidden
from every sandbox, so no command can plant a record there) just before the command starts and
removed once the repair is done.  A session starting on the workspace repairs from any record
left behind, before it takes its own reference, but only when no sandboxed command is running
there (the workspace lock is free, ``sandbox_guard.SandboxLock``): a record of a live command
belongs to its own agent.  While another session is recovering, a starting one waits for it; while
another agent's command runs, a record of a dead agent is left for later and the user is told.
A record is checked before use as if hostile: each path must lie in the workspace, the link
names and hook names must be ones the sandbox records, and nothing is written through a link.
The record and its folder are synced to disk before the command starts, so a power cut during
the command does not lose it either.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path

from agent_tui.tools import reaper
from agent_tui.tools.sandbox_after import (
    move_made_hooks,
    pending,
    remove_hook_placeholders,
    through_links,
)
from agent_tui.tools.sandbox_gitpaths import HOOK_NAMES
from agent_tui.tools.sandbox_guard import (
    PROTECTED,
    lock_file,
    remove_empty_protected,
    repair_links,
    state_folder,
)
from agent_tui.tools.sandbox_managers import MANAGER_NAMES
from agent_tui.tools.sandbox_placed import Placed, check_made
from agent_tui.tools.sandbox_placed import pending as placed_before

_SUFFIX = ".pending.json"


def _path(workspace: Path) -> Path | None:
    lock = lock_file(workspace)
    return None if lock is None else lock.with_name(f"{lock.stem}.{os.getpid()}{_SUFFIX}")


def write(workspace: Path, links: tuple[tuple[str, str], ...]) -> bool:
    """Keep what the coming command's repair needs (``links``: the session's own ``.git`` /
    ``.agent-tui`` links; the rest is what ``hook_flags`` just recorded).  False if it could not."""
    path = _path(workspace)
    if path is None:
        return False
    hook_links, absent, placeholders = pending(workspace)
    placed = placed_before(workspace)
    record = {
        "workspace": str(workspace.resolve()),
        "links": [list(pair) for pair in links],
        "hook_links": sorted([rel, target] for rel, target in hook_links.items()),
        "absent": sorted(map(str, absent)),
        "placeholders": sorted(map(str, placeholders)),
    }
    if placed is not None:  # the repositories there before: one the command made is checked
        record["placed"] = {"repos": sorted(map(str, placed.repos)), "shut": sorted(map(str, placed.shut))}
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as fh:
            json.dump(record, fh)
            fh.flush()
            os.fsync(fh.fileno())  # on disk before the command starts: a power cut must not lose it
        os.replace(tmp, path)
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(folder)  # the rename too
        finally:
            os.close(folder)
        return True
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False


#: Workspaces whose failed record the user was told of (once per session: the cause seldom passes).
_told: set[str] = set()


def unkept_note(workspace: Path) -> str | None:
    """What to tell the user the first time a record for ``workspace`` could not be written."""
    key = str(workspace.resolve())
    if key in _told:
        return None
    _told.add(key)
    return (f"the sandbox could not keep its repair record in {state_folder()} (full or read-only?): the "
            "command ran, but if the agent is killed during a command, check `git status` and the .git "
            "link before running git yourself")


def clear(workspace: Path) -> None:
    """The repair is done: forget the record."""
    path = _path(workspace)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _strings(value: object, size: int = 0) -> list[list[str]] | list[str]:
    """``value`` as a list of strings (``size`` 0) or of ``size``-string lists; ValueError otherwise."""
    if not isinstance(value, list):
        raise ValueError("not a list")
    if size == 0:
        if not all(isinstance(v, str) for v in value):
            raise ValueError("not strings")
        return value
    if not all(isinstance(v, list) and len(v) == size and all(isinstance(x, str) for x in v) for v in value):
        raise ValueError("not pairs of strings")
    return value


def _within(root: Path, path: Path) -> Path | None:
    """``path`` when it lies strictly inside ``root``, with no ``..`` and not under ``.git``."""
    if not path.is_absolute() or ".." in path.parts or path == root or not path.is_relative_to(root):
        return None
    return None if path.relative_to(root).parts[0] == ".git" else path


def _repair(root: Path, record: dict[str, object]) -> list[str]:
    """Put right what one record says (every entry checked first; ValueError: a malformed record)."""
    own = [(rel, target) for rel, target in _strings(record.get("links", []), 2) if rel in PROTECTED]
    on_way = [(rel, target) for rel, target in _strings(record.get("hook_links", []), 2)
              if (p := _within(root, root / rel)) is not None and not through_links(p.parent, root)]
    hooks = [p for raw in _strings(record.get("absent", [])) if (p := Path(raw)).parent == root and p.name in HOOK_NAMES
             or (_within(root, p) is not None and p.relative_to(root).as_posix() in MANAGER_NAMES
                 and not through_links(p.parent, root))]
    placeholders = {p for raw in _strings(record.get("placeholders", []))
                    if (p := _within(root, Path(raw))) is not None and not through_links(p.parent, root)}
    notes = repair_links(root, tuple(own)) + repair_links(root, tuple(on_way)) + move_made_hooks(root, hooks)
    if isinstance(placed := record.get("placed"), dict):
        before = Placed(tuple(Path(p) for p in _strings(placed.get("repos", []))),
                        tuple(Path(p) for p in _strings(placed.get("shut", []))))
        notes += check_made(root, before)
    remove_hook_placeholders(root, placeholders)
    remove_empty_protected(root)
    return notes


#: Seconds a starting session waits for another one's recovery.
WAIT_SECONDS = 10.0


def _wait_shared(fd: int) -> bool:
    """Take a shared lock on ``fd``, waiting up to :data:`WAIT_SECONDS`; False when it never came."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)


def recover(workspace: Path) -> list[str]:
    """Repair from the records an agent that died mid-command left for ``workspace`` (notes for the
    user); nothing while a sandboxed command runs there (then a note if a dead agent's record waits)."""
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
            # a command runs (its agent repairs after it), or another session is recovering: wait
            # for the latter only (a shared lock waits for an exclusive holder, not for commands)
            if not _wait_shared(fd):
                return ["another session on this folder held its sandbox lock for over "
                        f"{WAIT_SECONDS:.0f} s while this one started: check `git status` and the .git link"]
            dead = [p for p in records if p.name.split(".")[1].isdigit() and not reaper.alive(int(p.name.split(".")[1]))]
            if any(p.exists() for p in dead):
                notes.append("an earlier session ended during a sandboxed command, and another agent's command is "
                             "running on this folder now: its repair waits until no command runs here (check "
                             "`git status` and the .git link before running git yourself)")
            return notes
        for path in records:
            try:
                record = json.loads(path.read_text(encoding="utf-8", errors="surrogateescape"))
                if not isinstance(record, dict) or record.get("workspace") != str(root):
                    continue
                found = _repair(root, record)
                notes += [f"an earlier session ended during a sandboxed command; {note}" for note in found]
            except (OSError, ValueError, TypeError) as exc:
                notes.append(f"an earlier session ended during a sandboxed command, and its repair record "
                             f"could not be read ({exc}): check `git status` and the .git link before running git")
            finally:
                with contextlib.suppress(OSError):
                    path.unlink()
    finally:
        os.close(fd)
    return notes
