"""Repositories placed in the workspace and registered nowhere: a ``git clone`` or ``git init`` into a
subfolder, a bare repository.

The root's git does not walk into such a repository, but the user's tools do: a shell prompt runs
``git status`` on ``cd``, an editor scans subfolders for repositories and runs it there.  Git then
runs what that repository's config says (``core.fsmonitor``, hooks), outside any sandbox.  A
bare repository counts too: with ``core.worktree`` set in its config, ``git status`` inside it
has a work tree and runs its fsmonitor.

* Before a command, each one found is protected like a submodule (``tools/sandbox_hooks.py``): its
  ``.git`` (or bare folder) is read-only, and what its config names in the work tree is protected.
* After a command, each one that was not there before is judged by
  ``tools/sandbox_repo_check.py``.  One whose git could run a program is disabled, and nothing is
  deleted: its ``.git`` is moved to ``.git.replaced-N``, or for a bare folder its ``HEAD`` is
  moved aside.  The user is told why.

  A clean ``git clone`` passes.  Its ``.git`` is read-only to the next command.

The look walks every folder of the workspace (inside git folders too: a decoy ``HEAD`` must not hide
what lies below it) without following links; only the root's own ``.git`` and ``.agent-tui`` are
skipped.  A folder is taken for a git folder by git's own rule, widened: a ``HEAD``, and ``objects``
and ``refs`` or a ``commondir``, whatever their types.  Each folder is listed again only when its
``ctime`` changed since the last look (or was too recent to tell), so a warm look costs one ``stat``
per folder (``scripts/bench_sandbox_look.py``).  Past :data:`MAX_DIRS` folders the walk stops.
What lies beyond is not covered: the user is told once, and every time a command is what pushed
the workspace past it.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.tools.sandbox_repo_check import is_gitdir, why_unsafe

#: Folders a look walks at most; past it, repositories deeper in are not covered.
MAX_DIRS = 200_000
#: Seconds the check after one command may take; repositories left past it are disabled unchecked.
CHECK_SECONDS = 60.0
#: A folder changed this recently (ns) when listed is listed again at the next look.
RACY_NS = 2_000_000_000


@dataclass
class _Folder:
    """One folder as the last look listed it (paths as ``str``: the walk makes no ``Path`` per folder)."""

    key: tuple[int, int, int]
    """(device, inode, ctime in ns) when listed; ctime -1 when too recent to be trusted."""
    subdirs: tuple[str, ...]
    """The folders in it, to walk into (links and git folders left out)."""
    repos: tuple[str, ...]
    """The repositories in it: its ``.git`` entry, and itself when it is a git folder."""


@dataclass
class Placed:
    """What one look found (absolute real paths)."""

    repos: tuple[Path, ...] = ()
    """Each ``.git`` entry below the root, and each bare git folder (HEAD, objects, refs)."""
    shut: tuple[Path, ...] = ()
    """Folders that could not be listed (a repository inside them is not seen)."""
    complete: bool = True
    """False when the walk stopped at :data:`MAX_DIRS`."""


@dataclass
class _Memo:
    folders: dict[str, _Folder] = field(default_factory=dict)


_lock = threading.Lock()
_memos: dict[str, _Memo] = {}
#: What the last look before a command found, per workspace (taken by :func:`check_made`).
_before: dict[str, Placed] = {}
_told_incomplete: set[str] = set()


_ROOT_SKIP = frozenset((".git", ".agent-tui"))
_NO_SKIP: frozenset[str] = frozenset()


def _list(folder: str, key: tuple[int, int, int], skip: frozenset[str]) -> _Folder:
    subdirs: list[str] = []
    names: set[str] = set()
    with os.scandir(folder) as entries:
        for entry in entries:
            names.add(entry.name)
            try:
                if entry.is_dir(follow_symlinks=False) and entry.name not in skip:
                    subdirs.append(entry.path)
            except OSError:
                continue
    repos = []
    if ".git" in names and not skip:
        repos.append(os.path.join(folder, ".git"))
    if is_gitdir(names):  # a bare repository, or a git folder (walked into all the same); the root too
        repos.append(folder)
    return _Folder(key, tuple(subdirs), tuple(repos))


def _key(st: os.stat_result, now: int) -> tuple[int, int, int]:
    """A folder's identity and last change.  ``ctime``, not ``mtime``: a command can set the mtime back
    (``touch -d``) after planting, never the ctime.  A change within :data:`RACY_NS` of the listing
    could share its timestamp with a later one (coarse clocks), so such a folder is listed again next time."""
    return st.st_dev, st.st_ino, (-1 if st.st_ctime_ns >= now - RACY_NS else st.st_ctime_ns)


def placed_repos(workspace: Path) -> Placed:
    """Every repository in ``workspace`` below its root (its own ``.git`` and ``.agent-tui`` left out)."""
    root = workspace.resolve()
    with _lock:
        memo = _memos.setdefault(str(root), _Memo())
        if len(_memos) > 16:
            _memos.clear()
            _memos[str(root)] = memo
    fresh: dict[str, _Folder] = {}
    repos: list[str] = []
    shut: list[str] = []
    top = str(root)
    todo = [top]
    now = time.time_ns()
    old = memo.folders
    while todo:
        if len(fresh) >= MAX_DIRS:
            break
        folder = todo.pop()
        try:
            st = os.lstat(folder)
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:  # deeper than a path can name: not looked into, and said
                shut.append(folder)
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue
        key = _key(st, now)
        known = old.get(folder)
        if known is None or known.key != key or key[2] == -1:
            try:  # the root's own .git and .agent-tui are not walked, nor counted
                known = _list(folder, key, _ROOT_SKIP if folder == top else _NO_SKIP)
            except OSError:
                shut.append(folder)
                continue
        fresh[folder] = known
        repos += known.repos
        todo += known.subdirs
    with _lock:
        memo.folders = fresh
    return Placed(tuple(sorted(set(map(Path, repos)))), tuple(sorted(map(Path, shut))), not todo)


def completes_a_repository(root: Path, target: Path) -> Path | None:
    """The folder that writing ``target`` (resolved, inside ``root``) would give a git folder's shape
    (the last of ``HEAD`` and ``objects`` and ``refs``, or of ``HEAD`` and ``commondir``), if any:
    write tools refuse it, since no check follows them as one follows a command."""
    for folder in [*reversed(target.parents), target]:
        if folder == target or not folder.is_relative_to(root):
            continue
        try:
            names = set(os.listdir(folder))
        except OSError:
            continue
        if not is_gitdir(names) and is_gitdir(names | {target.relative_to(folder).parts[0]}):
            return folder
    return None


def remember_before(workspace: Path, placed: Placed) -> None:
    """What the coming command's check compares against."""
    with _lock:
        _before[str(workspace.resolve())] = placed


def pending(workspace: Path) -> Placed | None:
    """What the coming command's check compares against, not taken (``sandbox_journal`` keeps it)."""
    with _lock:
        return _before.get(str(workspace.resolve()))


def _open_folder(root: Path, folder: Path) -> int:
    """A descriptor of ``folder`` (inside ``root``), opened one level at a time from ``root`` without
    following links, so a path longer than the system's limit is reached too."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in folder.relative_to(root).parts:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _aside_at(fd: int, name: str) -> str:
    """Rename ``name`` in the folder ``fd`` to the first free ``<name>.replaced-N`` (that name); a folder
    a command made unwritable is given its owner's write bit back first."""
    n = 1
    while True:
        aside = f"{name}.replaced-{n}"
        try:
            os.lstat(aside, dir_fd=fd)
        except FileNotFoundError:
            break
        n += 1
    try:
        os.rename(name, aside, src_dir_fd=fd, dst_dir_fd=fd)
    except PermissionError:
        os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) | stat.S_IRWXU)
        os.rename(name, aside, src_dir_fd=fd, dst_dir_fd=fd)
    return aside


#: Folder levels :func:`_defuse` goes down (git makes a few; a deeper one fails the move aside, said).
MAX_DEFUSE_DEPTH = 64


def _defuse(fd: int, depth: int = 0) -> None:
    """Move aside the ``HEAD`` of every git folder in the folder ``fd`` (itself included), so that
    neither the user's git run there nor a remote naming it takes any of them for a repository."""
    if depth > MAX_DEFUSE_DEPTH:
        raise OSError(f"git folders nested more than {MAX_DEFUSE_DEPTH} deep")
    names = os.listdir(fd)
    if is_gitdir(set(names)):
        _aside_at(fd, "HEAD")
    for name in names:
        try:
            if not stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode):
                continue
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        except OSError:
            continue
        try:
            _defuse(inner, depth + 1)
        finally:
            os.close(inner)


def _disable(repo: Path, root: Path, why: str) -> str:
    """Move aside what makes ``repo`` a repository: its ``.git`` (with the ``HEAD`` of every git folder
    in it), or a bare folder's ``HEAD``."""
    target = repo if repo.name == ".git" else repo / "HEAD"
    rel = target.relative_to(root).as_posix()
    what = f"{rel} is a git repository the command made, and git there could run a program ({why})"
    try:
        fd = _open_folder(root, target.parent)
        try:
            aside = _aside_at(fd, target.name)
            if target.name == ".git" and stat.S_ISDIR(os.lstat(aside, dir_fd=fd).st_mode):
                inner = os.open(aside, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                try:
                    _defuse(inner)
                finally:
                    os.close(inner)
                aside += " (the HEAD of each git folder in it to HEAD.replaced-1)"
        finally:
            os.close(fd)
    except (OSError, ValueError) as exc:
        return f"{what}; moving it aside failed ({exc}): remove it before any git runs in that folder"
    return (f"{what}: it was moved to {aside}, so no git (nor a shell prompt or editor) uses it; look at it "
            "before moving it back")


def check_made(workspace: Path, before: Placed | None = None) -> list[str]:
    """Disable each repository made since the look before the last command whose git would run a
    program (notes); ``before``: that look (None: as remembered, then forgotten)."""
    root = workspace.resolve()
    if before is None:
        with _lock:
            before = _before.pop(str(root), None)
        if before is None:
            return []
    now = placed_repos(root)
    known = set(before.repos)
    notes = []
    disabled: list[Path] = []
    deadline = time.monotonic() + CHECK_SECONDS
    for repo in now.repos:  # sorted: a `.git` before the git folders inside it
        if repo in known or any(repo.is_relative_to(d) for d in disabled):
            continue
        late = time.monotonic() > deadline
        why = f"not checked within the {CHECK_SECONDS:.0f} s the check has" if late else why_unsafe(repo, root)
        if why is not None:
            notes.append(_disable(repo, root, why))
            if repo.name == ".git":  # moved aside with what it holds (a bare folder keeps its place)
                disabled.append(repo)
    for folder in set(now.shut) - set(before.shut):
        notes.append(f"{folder.relative_to(root).as_posix() or '.'} cannot be looked into (the command made it "
                     "unreadable, or too deep for a path), so it was not checked for git repositories that run "
                     "programs: look inside before you run git there")
    if not now.complete and before.complete:  # this command made that many: said every time
        notes.append(f"the command made the workspace pass {MAX_DIRS:,} folders, so git repositories it placed past "
                     "them were not checked for programs: look before running git in a folder it made")
    elif not now.complete and str(root) not in _told_incomplete:
        _told_incomplete.add(str(root))
        notes.append(f"the workspace has more than {MAX_DIRS:,} folders: git repositories placed past them are "
                     "not checked for programs a command put there")
    return notes
