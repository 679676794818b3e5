"""What a repository makes git run when the user's own git runs in it, for the approval dialog.

The read tools neutralise a repository's programs (``tools/git_safe.py``), and sandboxed commands run
them inside the sandbox.  A git command the user approves to run outside the sandbox (``git commit``,
``git push``) runs them on the host, as the user: the hooks in ``.git/hooks`` and the commands its
``.git/config`` names.  For a repository the user wrote, those are theirs; for one they unpacked or
were sent, they are the repository's.  The dialog lists them, so "approve ``git commit``" is not
unknowingly "run ``.git/hooks/pre-commit``".

The repository read is the one the user's git would use from the workspace, not the one the read tools
confine themselves to: a workspace inside a larger repository, a repository with alternates or a linked ref
outside it, or one another user owns, is still run by a host git.  Its submodules' configs and
hooks count too (``git status`` recurses into them).  When what git would use cannot be read for certain,
:func:`repo_programs` says so (``None``) and the caller asks.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Collection
from pathlib import Path

from agent_tui.tools.git_safe import git_argv, safe_env

#: Config keys whose value git runs as a command (shell or program), as ``re`` patterns.
_COMMAND_KEYS = re.compile(
    r"^(core\.(fsmonitor|sshcommand|pager|editor|hookspath|askpass|gitproxy)|diff\.external|sequence\.editor"
    r"|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|credential\..*helper"
    r"|gpg(\..+)?\.program|remote\..+\.(uploadpack|receivepack|proxy)|alias\..+|pager\..+|uploadpack\.packobjectshook"
    r"|submodule\..+\.update|(diff|merge)tool\..+\.(cmd|path)|interactive\.difffilter|core\.alternaterefscommand"
    r"|gpg\.ssh\.defaultkeycommand|trailer\..+\.(cmd|command)|(browser|man)\..+\.(cmd|path)|hook\..+\.command"
    r"|sendemail\.(.+\.)?smtpserver|protocol\.(ext|fd)\.allow|url\.(ext|fd)::.*\.(push)?insteadof)$"
)
#: A remote whose URL is a command: ``ext::sh -c …`` runs it on fetch and push (with ``protocol.ext.allow``).
_COMMAND_URL = re.compile(r"^remote\..+\.(push)?url$")
#: Programs listed at most (a repository could name hundreds).
MAX_LISTED = 8
#: Repositories (the workspace's and its submodules', nested ones too) read at most; past it, not read for certain.
MAX_REPOS = 200
#: Seconds one git call may take here (a config that includes a named pipe blocks it; a verdict must not).
READ_TIMEOUT = 5.0
#: git subcommands that change nothing in the repository.  Of the hooks, they can run only the one an index
#: refresh runs (``git status`` writes the refreshed index); every other subcommand may run any hook.
LOOKING = frozenset({"status", "diff", "log", "show", "blame", "grep", "ls-files", "ls-tree", "rev-parse",
                     "describe", "shortlog", "cat-file", "diff-files", "diff-index", "diff-tree", "whatchanged",
                     "rev-list", "annotate", "name-rev", "cherry", "range-diff", "for-each-ref", "show-ref",
                     "count-objects", "check-ignore", "check-attr", "var", "version", "help"})
LOOKING_HOOKS = frozenset({"post-index-change"})
"""The hooks a :data:`LOOKING` subcommand can run."""
LOOKING_KEYS = re.compile(
    r"^(core\.(fsmonitor|pager)|diff\.external|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)"
    r"|pager\..+|interactive\.difffilter|gpg(\..+)?\.program|gpg\.ssh\.defaultkeycommand)$")
"""The config keys whose program a :data:`LOOKING` subcommand can run (not an editor, a credential helper, a
remote's programs or ``core.hooksPath`` itself: husky's ``core.hooksPath = .husky/_`` made every ``git status``
ask)."""
LOCAL = frozenset({"add", "commit", "checkout", "switch", "restore", "reset", "merge", "rebase", "cherry-pick",
                   "revert", "stash", "branch", "tag", "mv", "rm", "clean", "apply", "am", "init", "notes",
                   "bisect", "gc", "worktree", "format-patch", "mergetool", "difftool", "commit-tree", "update-index",
                   "read-tree", "checkout-index", "symbolic-ref", "update-ref", "reflog"})
"""git subcommands that talk to no remote: they run no credential helper, ssh command or remote program."""
NETWORK_KEYS = re.compile(
    r"^(credential\..*helper|core\.(sshcommand|gitproxy|askpass)|remote\..+\.(uploadpack|receivepack|proxy|(push)?url)"
    r"|url\..*\.(push)?insteadof|protocol\..+\.allow|sendemail\..*|uploadpack\..+)$")
"""The config keys only a subcommand that reaches a remote (fetch, push, pull, clone, ls-remote…) runs; in a
partial clone (:data:`_PROMISOR`) every subcommand may: ``git diff``, ``git log -p``, ``git stash`` fetch a blob
they miss from the promisor remote, through its ``uploadpack``, ``sshCommand`` or ``ext::`` URL."""
_PROMISOR = re.compile(r"^(extensions\.partialclone|remote\..+\.promisor)$")
"""Keys that make git fetch missing objects on demand (a "lazy fetch") when a command needs them."""
_FALSE = frozenset({"false", "no", "off", "0"})


class Unreadable(Exception):
    """What git would use from the workspace cannot be read for certain."""


#: Seconds the whole read may take (a slow config in each of many submodules); past it, not read for certain.
READ_DEADLINE = 12.0


def repo_programs(workspace: Path, reach: str = "all") -> list[str] | None:
    """The hooks and config commands of the repository git would use from ``workspace`` and of its
    submodules (``key = value``, ``hook NAME``); [] outside any repository; None when git would use one that
    cannot be read for certain (the caller asks).  ``reach``: ``looking`` (only what a :data:`LOOKING`
    subcommand runs), ``local`` (no remote's programs: :data:`LOCAL`) or ``all``."""
    try:
        found = _programs(workspace.resolve(), reach, time.monotonic() + READ_DEADLINE)
    except Unreadable:
        return None
    return found[:MAX_LISTED] + ([f"… {len(found) - MAX_LISTED} more"] if len(found) > MAX_LISTED else [])


def _programs(root: Path, reach: str, deadline: float) -> list[str]:
    """Each repository git runs in from ``root``, read in its own context (its ``includeIf``, its
    ``config.worktree``): the one git finds (bare too), then every populated gitlink of it, recursively —
    ``git status`` goes into each, with or without a ``.gitmodules`` naming it, and whatever its ``.git`` file
    points at."""
    first = _where(root, deadline)
    if first is None:  # (no repository git can use: git fails there, and runs nothing)
        return []
    found: list[str] = []
    pending, seen = [(first, "")], set()
    while pending:
        (top, common, bare), label = pending.pop()
        if common in seen:
            continue
        seen.add(common)
        if len(seen) > MAX_REPOS:
            raise Unreadable
        own, hooks_path = _config_programs(
            _git(top, "config", "--includes", "--show-scope", "--null", "--list", deadline=deadline), reach)
        own += _hooks(_hooks_folder(hooks_path, top, common), LOOKING_HOOKS if reach == "looking" else None)
        found += [f"{label}{p}" for p in own]
        for path in [] if bare else _gitlinks(top, deadline):
            inner = top / path
            if not ((inner / ".git").exists() or (inner / ".git").is_symlink()):
                continue  # (not checked out: git does not go in)
            where = _where(inner, deadline)
            if where is not None and where[0] == inner.resolve():
                pending.append((where, f"{label}submodule {path}: "))
    return found


def _git(top: Path, *args: str, deadline: float) -> subprocess.CompletedProcess[bytes]:
    """``git <args>`` in ``top`` with the read tools' overrides, for a repository of any owner (git refuses one
    another user owns, "dubious ownership", unless told it is safe, while the user's own git may be told so: a
    system-wide ``safe.directory = *``, as in many containers), within :data:`READ_TIMEOUT` and before
    ``deadline`` (``time.monotonic()``)."""
    left = min(READ_TIMEOUT, deadline - time.monotonic())
    if left <= 0:
        raise Unreadable
    try:
        return subprocess.run(git_argv("-c", "safe.directory=*", *args, drivers=[]), cwd=top, capture_output=True,
                              timeout=left, env=safe_env(drivers=[]), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unreadable from exc


def _where(root: Path, deadline: float) -> tuple[Path, Path, bool] | None:
    """The work-tree root (a bare repository's own folder), the common git folder and whether it is bare, for
    the repository git would use from ``root``; None when there is none git can use."""
    done = _git(root, "rev-parse", "--is-bare-repository", "--git-common-dir", deadline=deadline)
    lines = os.fsdecode(done.stdout).splitlines()
    if done.returncode != 0 or len(lines) != 2 or not all(lines):
        return None
    common = Path(lines[1])
    common = (common if common.is_absolute() else root / common).resolve()
    if lines[0] == "true":
        return common, common, True
    top = _git(root, "rev-parse", "--show-toplevel", deadline=deadline)
    if top.returncode != 0 or not top.stdout.strip():
        return None
    return Path(os.fsdecode(top.stdout.strip())).resolve(), common, False


def _gitlinks(top: Path, deadline: float) -> list[str]:
    """The paths of the index's gitlinks (mode 160000: submodules, registered or not)."""
    done = _git(top, "ls-files", "--stage", "-z", deadline=deadline)
    if done.returncode != 0:
        raise Unreadable
    out = []
    for entry in os.fsdecode(done.stdout).split("\0"):
        meta, _, path = entry.partition("\t")
        if meta.startswith("160000 ") and path:
            out.append(path)
    return out


def _config_programs(done: subprocess.CompletedProcess[bytes], reach: str = "all") -> tuple[list[str], str]:
    """``key = value`` for each config entry that names a program (of the repository's own scopes), and the
    ``core.hooksPath`` it sets ('' when none)."""
    if done.returncode != 0:
        raise Unreadable
    fields = os.fsdecode(done.stdout).split("\0")
    pairs = [(scope, *entry.partition("\n")[::2]) for scope, entry in zip(fields[::2], fields[1::2], strict=False)
             if scope in ("local", "worktree")]  # (the user's own global config is theirs)
    lazy = any(_PROMISOR.match(key.lower()) and value.strip().lower() not in _FALSE for _, key, value in pairs)
    found: list[str] = []
    hooks_path = ""
    for _scope, key, value in pairs:
        low = key.lower()
        if low == "core.hookspath":
            hooks_path = value
        shell_only = low.startswith(("alias.", "submodule."))  # (an alias or update runs a program only with '!')
        command_url = _COMMAND_URL.match(low) and value.lower().startswith(("ext::", "fd::"))
        runs = (_COMMAND_KEYS.match(low) and not (shell_only and not value.startswith("!"))) or command_url
        if lazy and runs and NETWORK_KEYS.match(low):  # any subcommand may fetch a missing object
            found.append(f"{key} = {_shown(value)} (a partial clone: reading a missing object fetches it)")
            continue
        if reach == "looking":
            if LOOKING_KEYS.match(low):
                found.append(f"{key} = {_shown(value)}")
            continue
        if reach == "local" and NETWORK_KEYS.match(low):
            continue
        if runs:
            found.append(f"{key} = {_shown(value)}")
    return found, hooks_path


def _shown(value: str, width: int = 80) -> str:
    """``value`` within ``width`` characters, its middle cut: a program's name is at the end of its path."""
    return value if len(value) <= width else f"{value[:width // 2 - 1]}…{value[-(width // 2):]}"


def _hooks_folder(hooks_path: str, top: Path, git_dir: Path) -> Path:
    """Where git looks for hooks: ``core.hooksPath`` (relative to the work tree), else the git folder's."""
    if not hooks_path:
        return git_dir / "hooks"
    folder = Path(os.path.expanduser(hooks_path))
    return folder if folder.is_absolute() else top / folder


def _hooks(folder: Path, names: Collection[str] | None) -> list[str]:
    try:
        return [f"hook {p.name}" for p in sorted(folder.iterdir(), key=lambda p: p.name)
                if (names is None or p.name in names) and not p.name.endswith(".sample") and p.is_file()
                and os.access(p, os.X_OK)]
    except OSError:
        return []
