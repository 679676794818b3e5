"""Git hooks and config files kept in the work tree, read-only to sandboxed commands.

``.git`` is out of a command's reach as a whole, but git also runs what two kinds of work-tree
files say, and the user's own next ``git status`` or ``git commit`` runs it outside any sandbox:

* **hooks**: many projects point ``core.hooksPath`` at a folder of the work tree (husky's
  ``.husky/_``, a ``.githooks`` folder).  A command could write ``.husky/pre-commit``;
* **included config**: a repository's ``.git/config`` may ``include.path = ../.gitconfig``
  (or ``includeIf``) a tracked file.  A command could append ``core.fsmonitor = <program>``.

So the hooks folder git uses and every config file git includes, when they lie inside the
workspace, are mounted read-only for commands.  Husky's ``_`` folder only holds wrappers that
run the scripts one level up, so for it the parent is protected too.  A folder or included file
that does not exist yet cannot be created: its nearest existing folder below the workspace root
is protected instead, or, when nothing of it exists below the root, an empty read-only
placeholder (a folder, or a file for a config file at the root) stands in for its first missing
part while the command runs, removed afterwards like ``.git``'s.  Each folder between the workspace root
and a protected path is bound onto itself (still writable): a mount point cannot be renamed, so
``mv tools tools2 && mkdir -p tools/hooks`` cannot put a fresh, writable folder where git looks.

Both are asked of git itself (``git rev-parse --git-path hooks``; ``git config --show-origin``
for the include lines), which runs no repository program and resolves relative paths as git
does.  The answer is cached by the ``stat`` of the config files involved, so a command pays a
few ``stat`` calls once warm.  The file tools refuse to write these paths too, approved or not,
as they refuse ``.git`` (``tools.workspace.refuse_protected``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.git_safe import GIT_TIMEOUT, safe_env

_INCLUDES = r"^include(if\..*)?\.path$"


@dataclass(frozen=True)
class GitPaths:
    """What git runs or reads from the work tree, as found for one workspace."""

    hooks: Path | None
    """The hooks folder git uses (resolved)."""
    includes: tuple[Path, ...]
    """Config files included from any config file git reads (resolved, existing or not)."""


_lock = threading.Lock()
_cache: dict[str, tuple[tuple[object, ...], GitPaths]] = {}
#: Placeholder files made for missing included files, per workspace (removed after the command).
_placeholders: dict[str, set[Path]] = {}


def _config_files(workspace: Path, found: GitPaths | None) -> list[Path]:
    """The files whose change may change the answer (those that may exist)."""
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    files = [Path("/etc/gitconfig"), home / ".gitconfig", xdg / "git" / "config"]
    if env := os.environ.get("GIT_CONFIG_GLOBAL"):
        files.append(Path(env))
    files += [workspace / ".git" / "config", workspace / ".git" / "config.worktree", workspace / ".git"]
    if found is not None:
        files += found.includes
    return files


def _signature(files: list[Path]) -> tuple[object, ...]:
    out: list[object] = []
    for f in files:
        try:
            st = f.stat()
            out.append((str(f), st.st_size, st.st_mtime_ns, st.st_ino))
        except OSError:
            out.append((str(f), None))
    return tuple(out)


def _git(workspace: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True,
                              timeout=GIT_TIMEOUT, env=safe_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _ask_git(workspace: Path) -> GitPaths:
    hooks = (_git(workspace, "rev-parse", "--git-path", "hooks") or "").strip()
    includes: list[Path] = []
    raw = _git(workspace, "config", "--includes", "--null", "--show-origin", "--get-regexp", _INCLUDES) or ""
    parts = raw.split("\0")
    for origin, entry in zip(parts[0::2], parts[1::2], strict=False):
        if not origin.startswith("file:") or "\n" not in entry:
            continue
        value = os.path.expanduser(entry.split("\n", 1)[1].strip())
        if not value:
            continue
        base = (workspace / origin[len("file:"):]).parent
        includes.append((base / value).resolve())
    return GitPaths(hooks=(workspace / hooks).resolve() if hooks else None, includes=tuple(dict.fromkeys(includes)))


def git_paths(workspace: Path) -> GitPaths:
    """The hooks folder and included config files git uses for ``workspace`` (cached)."""
    key = str(workspace)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and _signature(_config_files(workspace, cached[1])) == cached[0]:
        return cached[1]
    found = _ask_git(workspace)
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = (_signature(_config_files(workspace, found)), found)
    return found


def _inside(path: Path, root: Path) -> bool:
    return path != root and path.is_relative_to(root) and path.relative_to(root).parts[0] != ".git"


def _existing(path: Path, root: Path) -> tuple[Path, bool]:
    """``path`` or its nearest existing folder below ``root``, and True; else (nothing of it
    exists below the root) its first missing part below the root, and False."""
    while not path.exists() and path.parent != root and path.parent.is_relative_to(root):
        path = path.parent
    return path, path.exists()


def run_later_paths(workspace: Path) -> dict[Path, str]:
    """The hooks folders and included config files inside ``workspace`` that git runs or reads
    (existing or not; resolved), each with what it is: ``hooks`` or ``config``."""
    root = workspace.resolve()
    found = git_paths(root)
    wanted: dict[Path, str] = {}
    if found.hooks is not None and _inside(found.hooks, root):
        wanted[found.hooks] = "hooks"
        if found.hooks.name == "_":
            wanted[found.hooks.parent] = "hooks"
    for p in found.includes:
        if _inside(p, root):
            wanted.setdefault(p, "config")
    return wanted


def hook_flags(workspace: Path, covered: list[Path]) -> list[str]:
    """bwrap flags, after the workspace's own bind: its folders above a protected path pinned in
    place (writable), then each protected path read-only (see the module doc).  ``covered``:
    folders already read-only (the git folder behind a ``gitdir:`` file), left as they are."""
    root = workspace.resolve()
    found = git_paths(root)
    wanted = [p for p in run_later_paths(root) if not any(p.is_relative_to(c) for c in covered)]
    protected: list[Path] = []
    missing: dict[Path, bool] = {}  # first missing part -> it is a file (a config file at the root)
    for path in wanted:
        real, exists = _existing(path, root)
        if not exists:
            missing[real] = real == path and path in found.includes
        elif real not in protected:
            protected.append(real)
    anchors: list[Path] = []
    for path in protected:
        for parent in reversed(path.parents):
            if parent != root and parent.is_relative_to(root) and parent not in anchors and parent not in protected:
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


def remove_hook_placeholders(workspace: Path) -> list[Path]:
    """Remove the empty placeholders (bwrap's mount points) left for missing hooks folders and
    config files (call when no sandbox runs on ``workspace``)."""
    with _lock:
        paths = _placeholders.pop(str(workspace.resolve()), set())
    removed = []
    for path in sorted(paths):
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
