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
pinned, so none can be renamed away), so are the git folders a ``.git`` file leads to when they
live in the work tree, each nested repository's own config is read for hooks folders, included
files and programs in its work tree, and a submodule folder with no ``.git`` is read-only.

Gitlinks come from the index (what ``git status`` really walks), read with ``git ls-files``
under ``tools/git_safe``'s overrides, in every repository found (submodules of submodules, of
worktrees), with no depth limit.  When the workspace is a subfolder of a repository, that
repository's index is read for the part below the workspace.  Past :data:`MAX_REPOS` repositories
the look gives up and sandboxed commands are refused (``NestedLimitError``), never let through
half-protected.  A repository merely placed in the workspace and registered nowhere (a ``git
clone`` into a subfolder) is not walked by the root's git; the user's prompt or editor runs git in
it, so ``tools/sandbox_placed.py`` finds those by walking the folders.  The answer is cached by the
``stat`` of each index, ``.git`` and worktree record read (``scripts/bench_sandbox_look.py``: 0.2
ms a command without submodules, ~0.3 ms more per checked-out submodule once warm; the first look,
and the one after an index changes, run git about three times per repository).
"""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.git_safe import GIT_TIMEOUT, config_args, safe_env
from agent_tui.tools.sandbox_git import stat_signature

#: Nested repositories looked through at most (past it, sandboxed commands are refused).
MAX_REPOS = 512
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
    gitdirs: tuple[Path, ...] = ()
    """The git folders (own and common) of the nested repositories that exist, as git reports them."""
    error: str = ""
    """Why the look gave up (too many repositories): then nothing may run sandboxed."""


_lock = threading.Lock()
_cache: dict[str, tuple[tuple[object, ...], Nested]] = {}


def read_pointer(path: Path, single_link: bool = False) -> str | None:
    """A ``.git`` file's or ``commondir``'s text as git reads it: up to a NUL, less trailing CR/LF.
    Only a regular file, opened non-blocking (a FIFO swapped in must not hang the look), not through
    a link; with ``single_link``, not one hard-linked elsewhere either (its twin could change it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (single_link and st.st_nlink != 1):
            return None
        raw = os.read(fd, 8192)
    except OSError:
        return None
    finally:
        os.close(fd)
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape").rstrip("\r\n")


def gitdir_named(dotgit: Path) -> Path | None:
    """The folder a ``.git`` file names (``gitdir: `` then the rest, as git reads it), made absolute but
    not resolved."""
    text = read_pointer(dotgit)
    if text is None or not text.startswith("gitdir: ") or not (named := text[len("gitdir: "):]):
        return None
    target = Path(named)
    return target if target.is_absolute() else dotgit.parent / target


def gitdir_of_file(dotgit: Path) -> Path | None:
    """The folder a ``.git`` file names, resolved, when it exists."""
    named = gitdir_named(dotgit)
    real = named.resolve() if named is not None else None
    return real if real is not None and real.is_dir() else None


def run_git(cwd: Path, *args: str) -> str | None:
    """git's output (None on failure) with tools/git_safe's overrides, any repository trusted, and
    file names decoded as the OS has them (bytes that are not UTF-8 kept)."""
    try:
        done = subprocess.run(["git", *config_args(), "-c", "safe.directory=*", *args], cwd=cwd, capture_output=True,
                              timeout=GIT_TIMEOUT, env=safe_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return os.fsdecode(done.stdout) if done.returncode == 0 else None  # any file name, as the OS has it


def _gitlinks(top: Path) -> list[Path]:
    """The submodule folders the index records at or below ``top`` (the index of the repository
    ``top`` is in, which for the workspace may be one whose work tree starts above it)."""
    raw = run_git(top, "ls-files", "--stage", "-z") or ""  # paths relative to ``top``
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
    for entry in entries:
        record = entry / "gitdir"
        records.append(record)
        text = (read_pointer(record) or "").strip()  # a FIFO or /dev/zero link must not hang or fill memory
        if not text:
            continue
        named = Path(os.path.normpath(entry / text))  # git 2.48+ may write it relative to the record
        if named.is_relative_to(root) and named != root / ".git":
            found.append(named)
    return found, records


def _dirs(top: Path, exact: bool) -> tuple[Path, Path] | None:
    """(git dir, common dir) of the repository ``top`` is in; with ``exact``, only when its work
    tree starts at ``top`` (a submodule not checked out answers for its parent)."""
    lines = (run_git(top, "rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir") or "").splitlines()
    if len(lines) != 3 or (exact and Path(lines[0]).resolve() != top.resolve()):
        return None
    return top / lines[1], top / lines[2]


def _exists(path: Path) -> bool:
    """``path`` or a link there exists; True when a folder on the way cannot be searched (a command's
    ``chmod 000``: the user may undo it, so it is protected as if present)."""
    try:
        return path.exists() or path.is_symlink()
    except OSError:
        return True


def _look(root: Path) -> Nested:
    dotgits: list[Path] = []
    tops: list[Path] = []
    gitdirs: list[Path] = []
    watched: list[Path] = [root / ".git"]
    todo = [root]
    seen: set[Path] = set()
    while todo:
        top = todo.pop(0)
        dirs = _dirs(top, exact=top != root)
        if dirs is None or dirs[0] in seen:
            continue
        if len(seen) >= MAX_REPOS:
            return Nested(watched=tuple(dict.fromkeys(watched)), error=(
                f"the workspace nests more than {MAX_REPOS} git repositories (submodules, worktrees); the "
                "sandbox does not look through that many, so it cannot keep their .git out of a command's "
                "reach: run commands outside_sandbox (asked each time), or open a smaller folder"))
        git_dir, common = dirs
        seen.add(git_dir)
        watched += [git_dir / "index", top / ".git"]
        if top != root:
            gitdirs += [git_dir, common]
        linked, records = _worktrees(common, root)
        watched += records
        for dotgit in [*(p / ".git" for p in _gitlinks(top)), *linked]:
            if not dotgit.is_relative_to(root) or dotgit in dotgits:
                continue
            dotgits.append(dotgit)
            watched.append(dotgit)
            if _exists(dotgit):
                tops.append(dotgit.parent)
                todo.append(dotgit.parent)
    return Nested(tuple(dotgits), tuple(dict.fromkeys(tops)), tuple(dict.fromkeys(watched)),
                  tuple(dict.fromkeys(gitdirs)))


class NestedLimitError(RuntimeError):
    """More nested repositories than the sandbox looks through: commands are refused, not let through."""


def nested_repos(workspace: Path) -> Nested:
    """The submodules and worktrees nested in ``workspace`` (resolved), cached; NestedLimitError when
    there are too many to look through."""
    root = workspace.resolve()
    key = str(root)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and stat_signature(cached[1].watched) == cached[0]:
        found = cached[1]
    else:
        found = _look(root)
        with _lock:
            if len(_cache) > 64:
                _cache.clear()
            _cache[key] = (stat_signature(found.watched), found)
    if found.error:
        raise NestedLimitError(found.error)
    return found
