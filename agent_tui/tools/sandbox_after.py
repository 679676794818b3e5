"""What the sandbox puts right after each command, and the record of the state before it.

``sandbox_hooks.hook_flags`` looks at the workspace just before a command and records here what the
repair afterwards needs: the symlinks on the way to protected paths as they were, the hook names
missing at a hooks folder that is the workspace root, and the placeholders bwrap makes for missing
paths.  ``Sandbox.repair`` takes it after the command; ``sandbox_journal`` keeps a copy on disk
while the command runs, in case the agent dies before the repair.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from pathlib import Path

from agent_tui.tools.sandbox_managers import MANAGER_NAMES

_lock = threading.Lock()
#: Placeholders made for missing paths, per workspace (removed when no sandbox runs there).
_placeholders: dict[str, set[Path]] = {}
#: Symlinks on the way to protected paths as the last command found them, per workspace.
_links: dict[str, dict[str, str]] = {}
#: Hook names missing at a workspace root that is the hooks folder, per workspace.
_absent: dict[str, list[Path]] = {}


def remember(root: Path, links: dict[str, str], absent: list[Path], placeholders: set[Path]) -> None:
    """What the coming command's repair needs (``root`` resolved)."""
    key = str(root)
    with _lock:
        _links[key] = links
        _absent[key] = absent
        if placeholders:
            _placeholders.setdefault(key, set()).update(placeholders)


def take_hook_links(workspace: Path) -> tuple[tuple[str, str], ...]:
    """(relative path, link text) of the symlinks on the way to protected paths, as the last
    command found them before it ran (for ``sandbox_guard.repair_links`` after it), forgotten
    once taken: a link the user changes between commands is theirs.  A link whose folders are no
    longer real folders is left out (they are pinned, so this is only a safeguard: the repair must
    never write through a link)."""
    root = workspace.resolve()
    with _lock:
        links = _links.pop(str(root), {})

    return tuple((rel, target) for rel, target in links.items() if not through_links((root / rel).parent, root))


def pending(workspace: Path) -> tuple[dict[str, str], list[Path], set[Path]]:
    """What the next command's repair will use, without taking it (``sandbox_journal`` keeps it on
    disk): links on the way, paths it must not make, placeholders made so far."""
    key = str(workspace.resolve())
    with _lock:
        return dict(_links.get(key, {})), list(_absent.get(key, [])), set(_placeholders.get(key, set()))


def move_made_hooks(workspace: Path, absent: list[Path] | None = None) -> list[str]:
    """Move aside each hook a command made in a hooks folder that is the workspace root, and each
    config a command made where an installed hook manager looks for one (notes).
    ``absent``: the hook paths that were missing before it (None: as the last command found them)."""
    root = workspace.resolve()
    if absent is None:
        with _lock:
            absent = _absent.pop(str(root), [])
    notes = []
    for path in absent:
        if not (path.exists() or path.is_symlink()):
            continue
        rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        what = ("read by the git hook manager installed here, which runs what it lists,"
                if rel in MANAGER_NAMES or path.parent != root else "a git hook here (core.hooksPath is the workspace)")
        if through_links(path.parent, root):  # `.config` made a link: move the link, never what it leads to
            link = next((p for p in [*reversed(path.parents), path] if p.is_relative_to(root) and p != root
                         and p.is_symlink()), None)
            if link is None:
                notes.append(f"{rel} is {what} and the command made it behind a folder that cannot be looked at: "
                             "remove it before running git")
                continue
            path, what = link, f"on the way to {rel}, which is {what.removesuffix(',')},"
            rel = path.relative_to(root).as_posix()
        n = 1
        while (aside := path.with_name(f"{path.name}.replaced-{n}")).exists() or aside.is_symlink():
            n += 1
        try:
            rename_owned(path, aside, root)
            notes.append(f"{rel} is {what} and the command made it: it was moved to {aside.name}")
        except OSError as exc:
            notes.append(f"{rel} is {what} and the command made it; moving it aside failed ({exc}): remove it "
                         "before running git")
    return notes


def rename_owned(src: Path, dst: Path, root: Path) -> None:
    """``os.rename``; when the folder holding them was made unwritable (a command's ``chmod a-w``,
    to keep its plant in place), its owner's write and search bits are given back and it is tried
    again, but only for a real folder inside the workspace ``root`` (never through a link)."""
    try:
        os.rename(src, dst)
    except PermissionError:
        folder = src.parent
        if not folder.is_relative_to(root.resolve()) or through_links(folder, root):
            raise
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) | stat.S_IRWXU)
        finally:
            os.close(fd)
        os.rename(src, dst)


def through_links(path: Path, root: Path) -> bool:
    """Some folder between ``root`` and ``path`` (``path`` included) is a symlink, or cannot be
    looked at: a repair must never write through one."""
    root = root.resolve()
    try:
        return any(p.is_symlink() for p in [path, *path.parents] if p.is_relative_to(root) and p != root)
    except OSError:
        return True


def remove_hook_placeholders(workspace: Path, paths: set[Path] | None = None) -> list[Path]:
    """Remove the empty placeholders (bwrap's mount points) left for missing hooks folders and
    config files (call when no sandbox runs on ``workspace``; ``paths``: these, not this process's)."""
    if paths is None:
        with _lock:
            paths = _placeholders.pop(str(workspace.resolve()), set())
    removed = []
    for path in sorted(paths, reverse=True):
        with contextlib.suppress(OSError):
            if path.is_symlink():
                continue
            if path.is_file() and path.stat().st_size == 0:
                path.unlink()
                removed.append(path)
            elif path.is_dir():
                path.rmdir()  # only succeeds when empty
                removed.append(path)
    return removed
