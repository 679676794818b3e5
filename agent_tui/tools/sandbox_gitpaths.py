"""What git's own config files make it run or read from outside ``.git``, for one repository.

A repository's config (and the system and global ones, and every file they include) can name a
hooks folder (``core.hooksPath``), more config files (``include.path``, ``includeIf``) and programs
(``core.fsmonitor``, a filter or diff driver, an editor...).  ``tools/sandbox_hooks.py`` protects
what these name inside the workspace; this module only reads them.  Each file is read with ``git
config --file``, which runs no repository program, following every include whatever its condition
(a branch-conditional include becomes live on the user's next checkout).  The answer is cached by
the ``stat`` of every file read, so a command pays a few ``stat`` calls once warm.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.sandbox_git import stat_signature
from agent_tui.tools.sandbox_nested import MAX_REPOS, run_git

#: Config keys whose value is a command git runs (the first word, when it is a path, is protected).
_PROGRAM_KEYS = (r"core\.(fsmonitor|editor|pager|sshcommand|askpass|gitproxy)|sequence\.editor|gpg(\..*)?\.program|"
                 r"diff\.external|(filter|diff|merge)\..*\.(clean|smudge|process|textconv|command|driver)|"
                 r"credential(\..*)?\.helper|pager\..*|alias\..*|interactive\.difffilter|"
                 r"remote\..*\.(uploadpack|receivepack)|gpg\.ssh\.defaultkeycommand|uploadpack\.packobjectshook|"
                 r"(difftool|mergetool|man|browser)\..*\.(cmd|path)|sendemail\.(smtpserver|sendmailcmd|tocmd|cccmd)")
_KEYS = rf"^(include(if\..*)?\.path|core\.hookspath|{_PROGRAM_KEYS})$"
_PROGRAM = re.compile(rf"^({_PROGRAM_KEYS})$")
#: Files named like these in a hooks folder are run by git (``githooks(5)``).
HOOK_NAMES = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
    "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
    "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
    "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
    "post-index-change",
)
HOOK_SET = frozenset(HOOK_NAMES)
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
    programs: tuple[Path, ...] = ()
    """Programs config names by a path (``core.fsmonitor = tools/fsmon``; made absolute)."""
    top: Path | None = None
    """The work tree's top, which hooks run in (None: git does not take the folder as a repository)."""


_lock = threading.Lock()
_cache: dict[str, tuple[tuple[object, ...], GitPaths]] = {}


def _entries(config: Path) -> list[tuple[str, str]]:
    """(key, value) of the include and hooksPath lines of one config file, conditions ignored."""
    raw = run_git(Path("/"), "config", "--file", str(config), "--null", "--get-regexp", _KEYS) or ""
    out = []
    for entry in raw.split("\0"):
        key, sep, value = entry.partition("\n")
        if sep and value:
            out.append((key.lower(), value))
    return out


def _ask_git(workspace: Path) -> GitPaths:
    # safe.directory=*: the user's git may trust a repository the agent's (system config off) does not
    lines = (run_git(workspace, "rev-parse", "--show-toplevel", "--git-dir",
                  "--git-common-dir") or "").splitlines()
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    user = [Path(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"),
            Path(os.environ["GIT_CONFIG_GLOBAL"]) if os.environ.get("GIT_CONFIG_GLOBAL") else home / ".gitconfig",
            xdg / "git" / "config"]
    roots = list(user)
    top = workspace
    hooks: list[Path] = []
    dotgit = workspace / ".git"
    with contextlib.suppress(OSError):  # (a folder on the way made unsearchable: git cannot read it either)
        if dotgit.is_dir() and not dotgit.is_symlink():  # read even when git refuses the repository
            roots.append(dotgit / "config")
            hooks.append(dotgit / "hooks")
    if len(lines) == 3:
        top = Path(lines[0])
        git_dir, common = (workspace / lines[1]), (workspace / lines[2])
        roots += [common / "config", git_dir / "config.worktree"]
        hooks.append(common / "hooks")
    includes: list[Path] = list(user)  # a global config kept in (or to be made in) the workspace
    programs: list[Path] = []
    watched: list[Path] = [dotgit]  # a `gitdir:` file switched to another repository
    todo = [(f, 0) for f in dict.fromkeys(roots)]
    while todo:
        config, depth = todo.pop(0)
        if config in watched:
            continue
        watched.append(config)
        try:
            readable = config.is_file() and depth <= MAX_DEPTH
        except OSError:  # unreadable: git cannot read it either
            readable = False
        if not readable:
            continue
        for key, value in _entries(config):
            if _PROGRAM.match(key):
                if (program := _program_path(value, top)) is not None:
                    programs.append(program)
                continue
            named = Path(os.path.expanduser(value))
            if key == "core.hookspath":
                hooks.append(named if named.is_absolute() else top / named)
            else:
                path = named if named.is_absolute() else config.parent / named
                includes.append(path)
                todo.append((path, depth + 1))
    return GitPaths(tuple(dict.fromkeys(hooks)), tuple(dict.fromkeys(includes)), tuple(watched),
                    tuple(dict.fromkeys(programs)), top if len(lines) == 3 else None)


def _program_path(value: str, top: Path) -> Path | None:
    """The program a command-valued config entry runs, when it names it by a path (relative ones
    are run from the work tree's top); None for a bare name (looked up in ``PATH``) or a boolean."""
    import shlex

    value = value.strip().removeprefix("!")
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    if not words or "/" not in words[0]:
        return None
    named = Path(os.path.expanduser(words[0]))
    return named if named.is_absolute() else top / named


def git_paths(workspace: Path) -> GitPaths:
    """The hooks folders and included config files git may use for ``workspace`` (cached)."""
    key = str(workspace)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and stat_signature(cached[1].watched) == cached[0]:
        return cached[1]
    found = _ask_git(workspace)
    with _lock:
        if len(_cache) > 4 * MAX_REPOS:  # one entry per nested repository: never cleared each look
            _cache.clear()
        _cache[key] = (stat_signature(found.watched), found)
    return found
