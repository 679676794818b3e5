"""The other names, in the work tree, of a hook or git config file that is hard-linked.

A hook, a config file or a program git runs is kept out of a command's reach by a read-only mount
of its *path* (``.git`` as a whole, a hooks folder, an included file).  A mount guards a path, not
the file behind it: when the user made a hook a hard link of a tracked script (``ln
scripts/pre-commit .git/hooks/pre-commit``, one way projects share hooks), a command writing
``scripts/pre-commit`` in place would rewrite the hook itself, and the user's next commit would run
it unsandboxed.  So every such file's other names in the workspace are protected too.

Finding them means comparing inode numbers over the whole work tree (``os.scandir`` gives them
without a ``stat`` per file).  That walk happens only when a protected file has more than one link,
and its answer is kept until a link count changes (a link made or removed changes it) or a name
found no longer leads to the file.  A command cannot make a new link to a protected file: the
protected folders are mount points, and ``link()`` across them fails.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import deque
from collections.abc import Iterable
from pathlib import Path

MAX_ENTRIES = 300_000
"""Folder entries one walk looks at, at most (a workspace this large with a hard-linked hook keeps
the names found so far)."""

Inode = tuple[int, int]
"""(device, inode number) of a file."""

_lock = threading.Lock()
_cache: dict[tuple[str, tuple[tuple[int, int, int], ...]], dict[Path, str]] = {}


def _linked(files: Iterable[Path]) -> dict[Inode, tuple[int, set[Path]]]:
    """Per regular file with more than one link among ``files``: its link count and the names given,
    each as its real path.  A symbolic link counts as the file it leads to (git runs or reads that
    file: ``.git/hooks/pre-commit -> ~/hooks/pre-commit``, itself a hard link of a work-tree script).
    One link may be given under several spellings (an include written ``../.gitconfig`` is
    ``.git/../.gitconfig``, and the real path is given too): counted once per spelling, the links
    known would reach the link count and the walk would not look for the other name."""
    out: dict[Inode, tuple[int, set[Path]]] = {}
    for path in files:
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
                continue
            name = Path(os.path.realpath(path))  # (only here: a look before every command stats them all)
        except (OSError, ValueError):
            continue
        out.setdefault((st.st_dev, st.st_ino), (st.st_nlink, set()))[1].add(name)
    return out


def _still(path: Path, linked: dict[Inode, tuple[int, set[Path]]]) -> bool:
    """``path`` still leads to one of the ``linked`` files (a name found before was not moved)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) in linked


def _walk(root: Path, linked: dict[Inode, tuple[int, set[Path]]]) -> dict[Path, str]:
    """Every name below ``root`` (``.git`` folders aside: they are protected whole) of a file in
    ``linked`` that is not one of its names already known (kind ``hard link``); stops once every
    link is accounted for.  Breadth first: a shared hook's other name sits near the top (``scripts/``,
    ``.githooks/``), and a deep ``node_modules`` must not use up ``MAX_ENTRIES`` before it is reached.
    While a link is still unaccounted for, each folder that could not be read is returned too (kind
    ``shut``): kept read-only, a command cannot open it again to reach a name inside."""
    inos = {ino for _, ino in linked}
    missing = {key: nlink - len(names) for key, (nlink, names) in linked.items()}
    known = {p for _, names in linked.values() for p in names}
    found: dict[Path, str] = {}
    shut: list[Path] = []
    todo = deque([root])
    seen = 0
    while todo and seen < MAX_ENTRIES and any(n > 0 for n in missing.values()):
        folder = todo.popleft()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if entry.name == ".git":
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(Path(entry.path))
                    elif entry.inode() in inos and entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        key, path = (st.st_dev, st.st_ino), Path(entry.path)
                        if key in missing and path not in known and path not in found:
                            found[path] = "hard link"
                            missing[key] -= 1
        except PermissionError:
            if folder != root:
                shut.append(folder)
        except OSError:  # gone meanwhile, or not a folder any more
            continue
    if any(n > 0 for n in missing.values()):
        found.update((folder, "shut") for folder in shut)
    return found


def other_names(root: Path, files: Iterable[Path]) -> dict[Path, str]:
    """The names below ``root`` of the hard-linked regular files among ``files`` (other than the
    names given), each with its kind (``hard link``, or ``shut`` for an unreadable folder that may
    hold one: ``_walk``); {} when none of them has a second link."""
    linked = _linked(files)
    if not linked:
        return {}
    key = (str(root), tuple(sorted((dev, ino, nlink) for (dev, ino), (nlink, _) in linked.items())))
    with _lock:
        cached = _cache.get(key)
    if cached is not None and all(kind != "hard link" or _still(p, linked) for p, kind in cached.items()):
        return dict(cached)
    found = _walk(root, linked)
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = found
    return dict(found)
