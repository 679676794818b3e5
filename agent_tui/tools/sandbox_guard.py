"""Keeping ``.git`` and ``.agent-tui`` out of a sandboxed command's reach when they are not plain folders.

Three cases the plain read-only mount of ``tools/sandbox.py`` does not cover:

* ``.git`` is a **symlink** (a repository kept elsewhere).  The target is mounted read-only, but a
  link is not a mount point: a command could ``rm .git`` and put a crafted git folder (or a link to
  one) in its place, whose ``core.fsmonitor`` the user's next ``git status`` runs.  A mount cannot be
  put on a link, and making the workspace root read-only would stop every build that creates a
  top-level file, so the link is checked before and after every sandboxed command against what it
  was when the session started: a replaced link is put back and what the command left is moved to
  ``.git.replaced-N`` (the model and user are told).  The git read tools never run repository
  programs whatever the folder holds (``tools/git_safe.py``).
* ``.git`` is a **file** (``gitdir: <path>``, a worktree or ``--separate-git-dir``): the folder it
  names is protected too.
* ``.git`` is **missing**: bwrap puts an empty read-only folder there while the command runs, and
  that folder is created in the real workspace.  With two agents on one workspace, the first to
  finish removed the folder the other's sandbox was standing on, which detaches that sandbox's
  mount (Linux lets one mount namespace remove another's mount point), so ``git init`` then worked
  there.  Every sandboxed command now holds a shared lock (per workspace, in agent-tui's state
  folder, which every sandbox hides) for as long as its process group lives; the empty folders are removed only
  under the exclusive lock, that is when no sandbox on the workspace is running.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from pathlib import Path

from agent_tui.tools.sandbox_after import remove_hook_placeholders, rename_owned
from agent_tui.tools.sandbox_nested import gitdir_of_file

#: Paths inside the workspace that commands may read but never change (nor rename, nor create).
PROTECTED = (".git", ".agent-tui")


def protected_reals(workspace: Path) -> list[Path]:
    """The real paths holding the workspace's git data and agent config (link targets, gitdirs)."""
    return [real for _, real in named_protected_reals(workspace)]


def named_protected_reals(workspace: Path) -> list[tuple[str, Path]]:
    """(``.git`` or ``.agent-tui``, real path) for the folders and files :func:`protected_reals` lists."""
    out: list[tuple[str, Path]] = []
    for rel in PROTECTED:
        path = workspace / rel
        if path.is_symlink():
            real = path.resolve()
            if real.exists():
                out.append((rel, real))
        elif path.is_dir():
            out.append((rel, path.resolve()))
        elif path.is_file():
            out.append((rel, path.resolve()))
            if (gitdir := gitdir_of_file(path)) is not None:
                out.append((rel, gitdir))
    return out


def snapshot_links(workspace: Path) -> tuple[tuple[str, str], ...]:
    """(name, link text) for each protected name that is a symlink now."""
    out = []
    for rel in PROTECTED:
        path = workspace / rel
        if path.is_symlink():
            with contextlib.suppress(OSError):
                out.append((rel, os.readlink(path)))
    return tuple(out)


def repair_links(workspace: Path, links: tuple[tuple[str, str], ...]) -> list[str]:
    """Put back each protected link a command replaced; one note per repair (empty: nothing changed)."""
    notes: list[str] = []
    for rel, target in links:
        path = workspace / rel
        try:
            if path.is_symlink() and os.readlink(path) == target:
                continue
            moved = ""
            if path.is_symlink() or path.exists():
                n = 1
                while (aside := workspace / f"{rel}.replaced-{n}").exists() or aside.is_symlink():
                    n += 1
                rename_owned(path, aside, workspace)
                moved = f"; what replaced it was moved to {aside.name}"
            os.symlink(target, path)
            notes.append(f"{rel} was a link to {target} and the command replaced it: the link was put back{moved}")
        except OSError as exc:
            notes.append(f"{rel} was a link to {target} and the command replaced it; putting it back failed "
                         f"({exc}): check {path} before running git")
    return notes


def state_folder() -> Path:
    """Where the workspace locks and repair records live: agent-tui's state folder, which every
    sandbox hides (``sandbox_hide``), so no command can plant a record, even with the workspace at ~."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if state and Path(state).is_absolute() else Path.home() / ".local" / "state"
    return base / "agent-tui" / "sandbox"


def lock_file(workspace: Path) -> Path | None:
    """The workspace's lock file (created), or None when it cannot be made."""
    base = state_folder()
    name = hashlib.sha256(os.fsencode(workspace.resolve())).hexdigest()[:24] + ".lock"
    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = base / name
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.close(fd)
        return path
    except OSError:
        return None


class SandboxLock:
    """A shared lock on the workspace held while one sandboxed command's processes live."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.path = lock_file(workspace)
        self.fd: int | None = None
        if self.path is not None:
            try:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
                fcntl.flock(self.fd, fcntl.LOCK_SH)
            except OSError:
                self.release()

    def release(self) -> None:
        """Drop the shared lock, then remove the empty placeholder folders if no sandbox is running."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.path is not None:
            remove_placeholders(self.workspace, self.path)


def remove_placeholders(workspace: Path, lock: Path) -> list[Path]:
    """Remove empty ``.git`` / ``.agent-tui`` folders and the placeholders for missing hooks and
    included config (bwrap's mount points) when no sandbox holds the lock."""
    removed: list[Path] = []
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return removed
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return removed  # another sandbox on this workspace is running: the last one out cleans up
    try:
        removed = remove_empty_protected(workspace) + remove_hook_placeholders(workspace)
    finally:
        os.close(fd)
    return removed


def remove_empty_protected(workspace: Path) -> list[Path]:
    """Remove an empty ``.git`` / ``.agent-tui`` folder (bwrap's mount point for a missing one)."""
    removed: list[Path] = []
    for rel in PROTECTED:
        path = workspace / rel
        if path.is_dir() and not path.is_symlink():
            with contextlib.suppress(OSError):
                path.rmdir()  # only succeeds when empty
                removed.append(path)
    return removed
