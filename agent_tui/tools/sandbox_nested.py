"""Repositories nested in the workspace that the user's own git walks into: submodules and worktrees.

The user's ``git status`` at the workspace root does not stop at the root repository: for each
submodule (a *gitlink* entry in the index) whose folder holds a ``.git``, it runs
``git status`` inside that folder, which reads the config that ``.git`` leads to.  A ``.git`` file
in the work tree (``sub/.git``: ``gitdir: ../.git/modules/sub``) is an ordinary file to a
command: rewritten to ``gitdir: evil`` with ``evil/config`` saying ``core.fsmonitor = <program>``,
the user's next status runs the program, outside any sandbox.  The same goes for an old-style
submodule whose ``.git`` is a whole folder in the work tree, for a submodule not checked out yet
(a command writes the ``.git`` that makes git look inside), and for a linked worktree the user
keeps inside the workspace (``git worktree add ./wt``: ``wt/.git`` is such a file).

This module only finds them; ``tools/sandbox_hooks.py`` protects them as it protects hooks
folders: every nested ``.git`` that exists is read-only to commands (with the folders above it
pinned, so none can be renamed away), the git folder a ``.git`` file names is read-only when it
lives in the work tree, each nested repository's own config is read for hooks folders, included
files and programs in its work tree, and a ``.git`` made where none was is moved aside after the
command.

Gitlinks come from the index (what ``git status`` really walks), read with ``git ls-files``
under ``tools/git_safe``'s overrides, submodules of submodules too.  A repository merely placed
in the workspace and not registered anywhere (a ``git clone`` into a subfolder) is not walked by
the root's git, and is not covered: the user runs git there only by going there.  The answer is
cached by the ``stat`` of each index and worktree record read.
"""

from __future__ import annotations

import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.git_safe import GIT_TIMEOUT, SAFE_CONFIG, safe_env
from agent_tui.tools.sandbox_git import stat_signature

#: Submodules of submodules followed this deep at most.
MAX_DEPTH = 4
#: Nested repositories listed at most (a pathological index stops here).
MAX_REPOS = 256
_GITLINK = "160000 "


@dataclass(frozen=True)
class Nested:
    """What one look found (every path absolute, as written: not resolved)."""

    dotgits: tuple[Path, ...] = ()
    """The ``.git`` of each submodule and worktree in the workspace, existing or not."""
    tops: tuple[Path, ...] = ()
    """The work-tree folders among them whose ``.git`` exists (their config is read too)."""
    watched: tuple[Path, ...] = ()
    """Files whose ``stat`` keys the cache."""


_lock = threading.Lock()
_cache: dict[str, tuple[tuple[object, ...], Nested]] = {}


def gitdir_named(dotgit: Path) -> Path | None:
    """The folder a ``.git`` file names (``gitdir: …``), made absolute but not resolved."""
    try:
        if not dotgit.is_file():  # (a FIFO would block the read)
            return None
        with dotgit.open("rb") as fh:
            first = fh.read(4096).decode("utf-8", "replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first[len("gitdir:"):].strip())
    return target if target.is_absolute() else dotgit.parent / target


def gitdir_of_file(dotgit: Path) -> Path | None:
    """The folder a ``.git`` file names, resolved, when it exists."""
    named = gitdir_named(dotgit)
    real = named.resolve() if named is not None else None
    return real if real is not None and real.is_dir() else None


def _git(cwd: Path, *args: str) -> str | None:
    argv = ["git"]
    for pair in SAFE_CONFIG:
        argv += ["-c", pair]
    try:
        done = subprocess.run([*argv, "-c", "safe.directory=*", *args], cwd=cwd, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT, env=safe_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _gitlinks(top: Path) -> list[Path]:
    """The submodule folders the index of the repository at ``top`` records."""
    raw = _git(top, "ls-files", "--stage", "-z") or ""
    out = []
    for entry in raw.split("\0"):
        if entry.startswith(_GITLINK) and "\t" in entry:
            out.append(top / entry.split("\t", 1)[1])
    return out


def _worktrees(common: Path, root: Path) -> tuple[list[Path], list[Path]]:
    """(``.git`` files of the linked worktrees kept inside ``root``, the records read)."""
    found: list[Path] = []
    records: list[Path] = [common / "worktrees"]
    try:
        entries = sorted((common / "worktrees").iterdir())
    except OSError:
        return found, records
    for entry in entries[:MAX_REPOS]:
        record = entry / "gitdir"
        records.append(record)
        try:
            named = Path(record.read_text(encoding="utf-8", errors="replace").strip())
        except OSError:
            continue
        if named.is_absolute() and named.is_relative_to(root) and named != root / ".git":
            found.append(named)
    return found, records


def _dirs(top: Path) -> tuple[Path, Path] | None:
    """(git dir, common dir) of the repository whose work tree is ``top``."""
    lines = (_git(top, "rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir") or "").splitlines()
    if len(lines) != 3 or Path(lines[0]).resolve() != top.resolve():
        return None  # not a repository of its own (a submodule not checked out answers for its parent)
    return top / lines[1], top / lines[2]


def _look(root: Path) -> Nested:
    dotgits: list[Path] = []
    tops: list[Path] = []
    watched: list[Path] = [root / ".git"]
    todo = [(root, 0)]
    seen: set[Path] = set()
    while todo and len(dotgits) < MAX_REPOS:
        top, depth = todo.pop(0)
        dirs = _dirs(top)
        if dirs is None or dirs[0] in seen:
            continue
        git_dir, common = dirs
        seen.add(git_dir)
        watched += [git_dir / "index", top / ".git"]
        linked, records = _worktrees(common, root) if top == root else ([], [])
        watched += records
        for dotgit in [*(p / ".git" for p in _gitlinks(top)), *linked]:
            if not dotgit.is_relative_to(root) or dotgit in dotgits:
                continue
            dotgits.append(dotgit)
            watched.append(dotgit)
            if dotgit.exists() or dotgit.is_symlink():
                tops.append(dotgit.parent)
                if dotgit not in linked and depth + 1 < MAX_DEPTH:
                    todo.append((dotgit.parent, depth + 1))
    return Nested(tuple(dotgits[:MAX_REPOS]), tuple(dict.fromkeys(tops)), tuple(dict.fromkeys(watched)))


def nested_repos(workspace: Path) -> Nested:
    """The submodules and worktrees nested in ``workspace`` (resolved), cached."""
    root = workspace.resolve()
    key = str(root)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and stat_signature(cached[1].watched) == cached[0]:
        return cached[1]
    found = _look(root)
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = (stat_signature(found.watched), found)
    return found
