"""Git hooks and config files kept in the work tree, out of a sandboxed command's reach.

``.git`` is out of a command's reach as a whole, but git also runs what two kinds of work-tree
files say, and the user's own next ``git status`` or ``git commit`` runs it outside any sandbox:

* **hooks**: many projects point ``core.hooksPath`` at a folder of the work tree (husky's
  ``.husky/_``, a ``.githooks`` folder).  A command could write ``.husky/pre-commit``;
* **included config**: a repository's ``.git/config`` may ``include.path = ../.gitconfig``
  (or ``includeIf``) a tracked file.  A command could append ``core.fsmonitor = <program>``.

What git may use is read from the config files themselves, one by one, following every include
whatever its condition (a branch-conditional include becomes live on the user's next checkout),
from the system, global and repository files git reads (``git config --file``, which runs no
repository program).  Every hooks folder any of them names and every included file, when inside
the workspace, is mounted read-only for commands.  Husky's ``_`` folder only holds wrappers that
run the scripts one level up, so for it the parent is protected too.  A hooks folder that is the
workspace root itself cannot be mounted read-only: there each hook name is, one file at a time.

Around each protected path:

* a missing one (a folder named but not made yet) gets an empty read-only placeholder on its
  first missing part while the command runs, removed afterwards like ``.git``'s, so it cannot
  be created;
* each real folder between the workspace root and it is bound onto itself, still writable: a
  mount point cannot be renamed, so ``mv tools tools2 && mkdir -p tools/hooks`` cannot put a
  fresh, writable folder where git looks;
* a symlink on the way (``.gitconfig -> conf/git.cfg``, even to a file outside the workspace)
  cannot be mounted over; it is recorded before the command and put back after it if the command
  replaced it, as ``.git`` links are (``sandbox_guard.repair_links``).

The answer is cached by the ``stat`` of every config file involved, so a command pays a few
``stat`` calls once warm.  The file tools refuse to write these paths too, approved or not, as
they refuse ``.git`` (``tools.workspace.refuse_protected``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.git_safe import GIT_TIMEOUT, safe_env

_KEYS = r"^(include(if\..*)?\.path|core\.hookspath)$"
#: Files named like these in a hooks folder are run by git (``githooks(5)``).
HOOK_NAMES = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
    "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
    "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
    "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
    "post-index-change",
)
#: Includes followed from one file (a loop or a very deep chain stops here, as git's own limit does).
MAX_DEPTH = 10


@dataclass(frozen=True)
class GitPaths:
    """What git may run or read from files outside ``.git``, as found for one workspace."""

    hooks: tuple[Path, ...]
    """Hooks folders any config file names (as written, made absolute; not resolved)."""
    includes: tuple[Path, ...]
    """Config files any config file includes (as written, made absolute; not resolved)."""
    watched: tuple[Path, ...]
    """Every config file read to find them (the cache's key)."""


_lock = threading.Lock()
_cache: dict[str, tuple[tuple[object, ...], GitPaths]] = {}
#: Placeholders made for missing paths, per workspace (removed after the command).
_placeholders: dict[str, set[Path]] = {}
#: Symlinks on the way to protected paths as the last command found them, per workspace.
_links: dict[str, dict[str, str]] = {}


def _git(cwd: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                              timeout=GIT_TIMEOUT, env=safe_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _signature(files: tuple[Path, ...]) -> tuple[object, ...]:
    out: list[object] = []
    for f in files:
        try:
            st = f.stat()
            out.append((str(f), st.st_size, st.st_mtime_ns, st.st_ino))
        except OSError:
            out.append((str(f), None))
    return tuple(out)


def _entries(config: Path) -> list[tuple[str, str]]:
    """(key, value) of the include and hooksPath lines of one config file, conditions ignored."""
    raw = _git(config.parent if config.parent.is_dir() else Path("/"), "config", "--file", str(config),
               "--null", "--get-regexp", _KEYS) or ""
    out = []
    for entry in raw.split("\0"):
        key, sep, value = entry.partition("\n")
        if sep and value:
            out.append((key.lower(), value))
    return out


def _ask_git(workspace: Path) -> GitPaths:
    lines = (_git(workspace, "rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir") or "").splitlines()
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    roots = [Path(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"),
             Path(os.environ["GIT_CONFIG_GLOBAL"]) if os.environ.get("GIT_CONFIG_GLOBAL") else home / ".gitconfig",
             xdg / "git" / "config"]
    top = workspace
    if len(lines) == 3:
        top = Path(lines[0])
        git_dir, common = (workspace / lines[1]), (workspace / lines[2])
        roots += [common / "config", git_dir / "config.worktree"]
    hooks: list[Path] = []
    includes: list[Path] = []
    watched: list[Path] = [workspace / ".git"]  # a `gitdir:` file switched to another repository
    todo = [(f, 0) for f in roots]
    while todo:
        config, depth = todo.pop(0)
        if config in watched:
            continue
        watched.append(config)
        if not config.is_file() or depth > MAX_DEPTH:
            continue
        for key, value in _entries(config):
            named = Path(os.path.expanduser(value))
            if key == "core.hookspath":
                hooks.append(named if named.is_absolute() else top / named)
            else:
                path = named if named.is_absolute() else config.parent / named
                includes.append(path)
                todo.append((path, depth + 1))
    return GitPaths(tuple(dict.fromkeys(hooks)), tuple(dict.fromkeys(includes)), tuple(watched))


def git_paths(workspace: Path) -> GitPaths:
    """The hooks folders and included config files git may use for ``workspace`` (cached)."""
    key = str(workspace)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and _signature(cached[1].watched) == cached[0]:
        return cached[1]
    found = _ask_git(workspace)
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = (_signature(found.watched), found)
    return found


def _inside(path: Path, root: Path) -> bool:
    return path.is_relative_to(root) and (path == root or path.relative_to(root).parts[0] != ".git")


def _walk(path: Path, root: Path, links: dict[str, str]) -> Path:
    """``path`` resolved one part at a time, recording each symlink met inside ``root``."""
    if not path.is_relative_to(root):
        return path.resolve()
    here = root
    for part in path.relative_to(root).parts:
        here = here / part
        if here.is_symlink() and here.is_relative_to(root):
            with contextlib.suppress(OSError):
                links[here.relative_to(root).as_posix()] = os.readlink(here)
        here = here.resolve()
    return here


def run_later_paths(workspace: Path, links: dict[str, str] | None = None) -> dict[Path, str]:
    """The real paths inside ``workspace`` git may run or read (existing or not), each with what
    it is: ``hooks`` (a folder), ``hook`` (one hook file, when the hooks folder is the workspace
    root) or ``config`` (a file).  ``links`` collects the symlinks met on the way (relative path
    -> link text)."""
    root = workspace.resolve()
    found = git_paths(root)
    met: dict[str, str] = {} if links is None else links
    wanted: dict[Path, str] = {}
    folders: list[Path] = []
    for hooks in found.hooks:
        real = _walk(hooks if hooks.is_absolute() else root / hooks, root, met)
        folders.append(real)
        if real.name == "_":
            folders.append(real.parent)
    for folder in folders:
        if folder == root:
            wanted.update({root / name: "hook" for name in HOOK_NAMES})
        elif _inside(folder, root):
            wanted[folder] = "hooks"
    for include in found.includes:
        real = _walk(include, root, met)
        if _inside(real, root) and real != root:
            wanted.setdefault(real, "config")
    return wanted


def _first_missing(path: Path, root: Path) -> Path:
    while not path.parent.exists() and path.parent != root:
        path = path.parent
    return path


def hook_flags(workspace: Path, covered: list[Path]) -> list[str]:
    """bwrap flags, right after the workspace's own bind (before any read-only mount inside it):
    folders above a protected path pinned in place (writable), each protected path read-only,
    placeholders for missing ones.  ``covered``: folders already read-only (the git folder behind
    a ``gitdir:`` file), left to their own mounts."""
    root = workspace.resolve()
    links: dict[str, str] = {}
    wanted = {p: kind for p, kind in run_later_paths(root, links).items()
              if not any(p.is_relative_to(c) for c in covered)}
    with _lock:
        if links:
            _links[str(root)] = links
        else:
            _links.pop(str(root), None)
    protected: list[Path] = []
    missing: dict[Path, bool] = {}  # first missing part -> a file goes there (else a folder)
    for path, kind in wanted.items():
        if path.exists():
            if path not in protected:
                protected.append(path)
        elif not path.is_symlink():  # a dangling link: put back after the command if replaced
            first = _first_missing(path, root)
            missing[first] = first == path and kind != "hooks"
    anchors: list[Path] = []
    for path in [*protected, *missing]:
        for parent in reversed(path.parents):
            if parent.is_relative_to(root) and parent != root and parent not in anchors and \
                    parent not in protected and not parent.is_symlink():
                anchors.append(parent)
    out: list[str] = []
    for path in anchors:
        out += ["--bind", str(path), str(path)]
    for path in protected:
        out += ["--ro-bind", str(path), str(path)]
    for path, is_file in missing.items():
        out += ["--ro-bind", "/dev/null", str(path)] if is_file else ["--tmpfs", str(path), "--remount-ro", str(path)]
    if missing:
        with _lock:
            _placeholders.setdefault(str(root), set()).update(missing)
    return out


def take_hook_links(workspace: Path) -> tuple[tuple[str, str], ...]:
    """(relative path, link text) of the symlinks on the way to protected paths, as the last
    command found them before it ran (for ``sandbox_guard.repair_links`` after it), forgotten
    once taken: a link the user changes between commands is theirs."""
    with _lock:
        return tuple(_links.pop(str(workspace.resolve()), {}).items())


def remove_hook_placeholders(workspace: Path) -> list[Path]:
    """Remove the empty placeholders (bwrap's mount points) left for missing hooks folders and
    config files (call when no sandbox runs on ``workspace``)."""
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
