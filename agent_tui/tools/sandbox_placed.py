"""Repositories placed in the workspace and registered nowhere: a ``git clone`` or ``git init`` into a
subfolder, a bare repository.

The root's git does not walk into such a repository, but the user's tools do: a shell prompt runs
``git status`` on ``cd``, an editor scans subfolders for repositories and runs it there.  Git then
runs what that repository's config says (``core.fsmonitor``, hooks), outside any sandbox.  A
bare repository counts too: with ``core.worktree`` set in its config, ``git status`` inside it
has a work tree and runs its fsmonitor.

* Before a command, each one found is protected like a submodule (``tools/sandbox_hooks.py``): its
  ``.git`` (or bare folder) is read-only, and what its config names in the work tree is protected.
* After a command, each one that was not there before is checked (:func:`why_unsafe`).  One whose
  git would run a program is disabled, and nothing is deleted.  Its ``.git`` is moved to
  ``.git.replaced-N``; for a bare folder, its ``HEAD`` is moved aside.  The user is told why.
  "Would run a program" means any of these:
  - a config key outside the short list ``git clone`` and ``git init`` write (so
    ``include``, ``core.fsmonitor``, ``core.worktree`` and every program key fail);
  - a hook that is not a ``.sample`` or git-lfs's own;
  - a ``.git`` link;
  - a ``gitdir:`` or ``commondir`` leading out of the workspace, or to a folder that fails the same
    check.

  A clean ``git clone`` passes.  Its ``.git`` is read-only to the next command.

The look walks the workspace's folders without following links and never enters a git folder.
Each folder is listed again only when its ``ctime`` changed since the last look (or was too recent
to tell), so a warm look costs one ``stat`` per folder (``scripts/bench_sandbox_look.py``).  Past :data:`MAX_DIRS` folders
the walk stops.  What lies beyond is not covered, and the user is told once.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.tools.sandbox_after import rename_owned
from agent_tui.tools.sandbox_nested import gitdir_named, run_git

#: Folders a look walks at most; past it, repositories deeper in are not covered.
MAX_DIRS = 200_000
#: A folder changed this recently (ns) when listed is listed again at the next look.
RACY_NS = 2_000_000_000
#: ``gitdir:`` / ``commondir`` hops followed when checking one repository.
MAX_HOPS = 4
#: Config keys ``git clone``, ``git init`` and everyday settings write: none makes git run a program.
_SAFE_KEY = re.compile(
    r"^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|"
    r"autocrlf|eol|safecrlf|quotepath|sparsecheckout|sparsecheckoutcone|checkstat|trustctime|compression|"
    r"bigfilethreshold|abbrev|untrackedcache|splitindex|commitgraph|multipackindex|filesreflocklimit)"
    r"|extensions\.(objectformat|refstorage|partialclone|noop|preciousobjects)"
    r"|remote\..+\.(url|pushurl|fetch|push|tagopt|prune|prunetags|mirror|promisor|partialclonefilter"
    r"|skipdefaultupdate|skipfetchall)"
    r"|branch\..+\.(remote|pushremote|merge|rebase|description)"
    r"|submodule\..+\.(url|active|branch)"
    r"|user\.(name|email)|init\.defaultbranch|pull\.(rebase|ff)|fetch\.(prune|prunetags)|gc\.auto"
    r"|lfs\.repositoryformatversion|lfs\..+\.access)$")
#: git-lfs's own filter settings (``git lfs install --local``), allowed with exactly these values.
_LFS_FILTER = {"filter.lfs.clean": "git-lfs clean -- %f", "filter.lfs.smudge": "git-lfs smudge -- %f",
               "filter.lfs.process": "git-lfs filter-process", "filter.lfs.required": "true"}
#: A hook git-lfs writes: it checks git-lfs is there, then runs it.
_LFS_HOOK = re.compile(
    r'#!/bin/sh\ncommand -v git-lfs >/dev/null 2>&1 \|\| \{ (echo|printf) >&2 "([^"$`\\]|\\n)*"'
    r'( "([^"$`\\]|\\n)*")?; exit 2; \}\ngit lfs (pre-push|post-checkout|post-commit|post-merge) "\$@"\n?')


@dataclass
class _Folder:
    """One folder as the last look listed it (paths as ``str``: the walk makes no ``Path`` per folder)."""

    key: tuple[int, int, int]
    """(device, inode, ctime in ns) when listed; ctime -1 when too recent to be trusted."""
    subdirs: tuple[str, ...]
    """The folders in it, to walk into (links and git folders left out)."""
    repos: tuple[str, ...]
    """The repositories in it: its ``.git`` entry, or itself when it is a bare git folder."""


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


def _is_gitdir(names: set[str]) -> bool:
    return "HEAD" in names and "objects" in names and "refs" in names


def _list(folder: str, key: tuple[int, int, int], skip: frozenset[str]) -> _Folder:
    subdirs: list[str] = []
    names: set[str] = set()
    dotgit = False
    with os.scandir(folder) as entries:
        for entry in entries:
            names.add(entry.name)
            if entry.name == ".git":
                dotgit = True
                continue
            try:
                if entry.is_dir(follow_symlinks=False) and entry.name not in skip:
                    subdirs.append(entry.path)
            except OSError:
                continue
    if not skip and _is_gitdir(names):  # a bare repository (or a folder a `gitdir:` names): not walked into
        return _Folder(key, (), (folder,))
    return _Folder(key, tuple(subdirs), (os.path.join(folder, ".git"),) if dotgit and not skip else ())


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
        except OSError:
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
    return Placed(tuple(sorted(map(Path, repos))), tuple(sorted(map(Path, shut))), not todo)


def completes_a_repository(root: Path, target: Path) -> Path | None:
    """The folder that writing ``target`` (resolved, inside ``root``) would turn into a bare git folder
    (the last of ``HEAD``, ``objects`` and ``refs`` made), if any: write tools refuse it, since no
    check follows them as one follows a command."""
    for folder in [*reversed(target.parents), target]:
        if folder == target or not folder.is_relative_to(root):
            continue
        try:
            names = set(os.listdir(folder))
        except OSError:
            continue
        if not _is_gitdir(names) and _is_gitdir(names | {target.relative_to(folder).parts[0]}):
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


def _config_problem(config: Path) -> str | None:
    """Why git would run a program from this config file (None: it would not)."""
    try:
        if not config.exists() and not config.is_symlink():
            return None
        if config.is_symlink() or not config.is_file():
            return f"{config.name} is not a plain file"
    except OSError as exc:
        return f"{config.name} cannot be read ({exc.strerror})"
    raw = run_git(Path("/"), "config", "--file", str(config), "--null", "--list")
    if raw is None:
        return f"{config.name} is not a config git can read"
    for entry in raw.split("\0"):
        name, _, value = entry.partition("\n")
        if not name:
            continue
        low = name.lower()  # git lowercases section and key; a subsection keeps its case
        if _SAFE_KEY.match(low) or _LFS_FILTER.get(low) == value:
            continue
        return f"its config sets {name}"
    return None


def _hooks_problem(hooks: Path) -> str | None:
    try:
        if hooks.is_symlink():
            return "its hooks folder is a link"
        if not hooks.is_dir():
            return None
        with os.scandir(hooks) as entries:
            names = sorted(e.name for e in entries)
    except OSError as exc:
        return f"its hooks folder cannot be read ({exc.strerror})"
    for name in names:
        if name.endswith(".sample"):
            continue
        path = hooks / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return f"it has a hook {name}"
        try:
            text = os.read(fd, 4096).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) else ""
        finally:
            os.close(fd)
        if not _LFS_HOOK.fullmatch(text):
            return f"it has a hook {name}"
    return None


def _gitdir_problem(gitdir: Path, root: Path, hops: int) -> str | None:
    """Why git would run a program from this git folder (None: it would not)."""
    if hops > MAX_HOPS:
        return "its git folders lead through too many others"
    for problem in (_config_problem(gitdir / "config"), _config_problem(gitdir / "config.worktree"),
                    _hooks_problem(gitdir / "hooks")):
        if problem is not None:
            return problem
    common = gitdir / "commondir"
    if common.exists() or common.is_symlink():
        try:
            text = common.read_text(encoding="utf-8", errors="surrogateescape").strip()
        except OSError:
            return "its commondir cannot be read"
        target = Path(text) if Path(text).is_absolute() else gitdir / text
        return _leads_to(target, root, hops + 1, "commondir")
    return None


def _leads_to(target: Path, root: Path, hops: int, what: str) -> str | None:
    real = Path(os.path.realpath(target))
    if not real.is_relative_to(root) or real == root or real.relative_to(root).parts[0] in (".git", ".agent-tui"):
        return f"its {what} leads out of the workspace's own folders ({target})"
    if not real.is_dir():
        return None
    return _gitdir_problem(real, root, hops)


def why_unsafe(repo: Path, root: Path) -> str | None:
    """Why the user's git in this repository would run a program a command put there (None: a
    repository as ``git clone`` or ``git init`` leaves it).  ``repo``: a ``.git`` or a bare folder."""
    try:
        if repo.is_symlink():
            return "its .git is a link"
        if repo.name == ".git" and repo.is_file():
            named = gitdir_named(repo)
            if named is None:
                return None  # git refuses it too
            return _leads_to(named, root, 1, "gitdir")
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"
    return _gitdir_problem(repo, root, 0)


def _disable(repo: Path, root: Path, why: str) -> str:
    """Move aside what makes ``repo`` a repository (its ``.git``, or a bare folder's ``HEAD``)."""
    target = repo if repo.name == ".git" else repo / "HEAD"
    rel = target.relative_to(root).as_posix()
    n = 1
    while (aside := target.with_name(f"{target.name}.replaced-{n}")).exists() or aside.is_symlink():
        n += 1
    try:
        rename_owned(target, aside, root)
    except OSError as exc:
        return (f"{rel} is a git repository the command made, and git there would run a program ({why}); moving "
                f"it aside failed ({exc}): remove it before any git runs in that folder")
    return (f"{rel} is a git repository the command made, and git there would run a program ({why}): it was "
            f"moved to {aside.name}, so no git (nor a shell prompt or editor) uses it; look at it before moving it back")


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
    for repo in now.repos:
        if repo in known:
            continue
        if (why := why_unsafe(repo, root)) is not None:
            notes.append(_disable(repo, root, why))
    for folder in set(now.shut) - set(before.shut):
        notes.append(f"{folder.relative_to(root).as_posix() or '.'} was made unreadable by the command, so it was not "
                     "checked for git repositories that run programs: look inside before you make it readable")
    if not now.complete and str(root) not in _told_incomplete:
        _told_incomplete.add(str(root))
        notes.append(f"the workspace has more than {MAX_DIRS:,} folders: git repositories placed past them are "
                     "not checked for programs a command put there")
    return notes
