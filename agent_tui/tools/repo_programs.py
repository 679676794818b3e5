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
from pathlib import Path

from agent_tui.tools.git_safe import run_git

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
#: Submodule git folders read at most; past it the repository is not read for certain.
MAX_MODULES = 200


class Unreadable(Exception):
    """What git would use from the workspace cannot be read for certain."""


def repo_programs(workspace: Path) -> list[str] | None:
    """The hooks and config commands of the repository git would use from ``workspace`` and of its
    submodules (``key = value``, ``hook NAME``); [] outside any repository; None when git would use one that
    cannot be read for certain (the caller asks)."""
    try:
        found = _programs(workspace.resolve())
    except Unreadable:
        return None
    return found[:MAX_LISTED] + ([f"… {len(found) - MAX_LISTED} more"] if len(found) > MAX_LISTED else [])


def _programs(root: Path) -> list[str]:
    if not any((p / ".git").exists() or (p / ".git").is_symlink() for p in (root, *root.parents)):
        return []  # (no repository: git says so and runs nothing)
    where = _where(root)
    if where is None:  # (a .git git cannot use: the user's git fails there too, and runs nothing)
        return []
    top, common = where
    found, hooks_path = _config_programs(_git(top, "config", "--includes", "--show-scope", "--null", "--list"),
                                         scoped=True)
    found += _hooks(_hooks_folder(hooks_path, top, common))
    for module, label in _submodules(top, common):
        done = _git(top, "config", "--file", str(module / "config"), "--includes", "--null", "--list")
        own, hooks_path = _config_programs(done, scoped=False)
        found += [f"{label}: {p}" for p in own + _hooks(_hooks_folder(hooks_path, top, module))]
    return found


#: Read whoever owns the repository: git refuses one another user owns ("dubious ownership") unless told it is
#: safe, while the user's own git may be told so (a system-wide ``safe.directory = *``, as in many containers).
_ANY_OWNER = ("-c", "safe.directory=*")


def _git(top: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return run_git(top, *_ANY_OWNER, *args)


def _where(root: Path) -> tuple[Path, Path] | None:
    """The work-tree root and the common git folder git would use from ``root`` (None: no repository git can
    use), by the same rules as ``git_safe.locate`` but for a repository of any owner."""
    done = _git(root, "rev-parse", "--show-toplevel", "--git-common-dir")
    lines = os.fsdecode(done.stdout).splitlines()
    if done.returncode != 0 or len(lines) != 2 or not all(lines):
        return None
    common = Path(lines[1])
    return Path(lines[0]).resolve(), (common if common.is_absolute() else root / common).resolve()


def _config_programs(done: subprocess.CompletedProcess[bytes], *, scoped: bool) -> tuple[list[str], str]:
    """``key = value`` for each config entry that names a program (of the repository's own scopes), and the
    ``core.hooksPath`` it sets ('' when none)."""
    if done.returncode != 0:
        raise Unreadable
    fields = os.fsdecode(done.stdout).split("\0")
    pairs = zip(fields[::2], fields[1::2], strict=False) if scoped else (("local", f) for f in fields if f)
    found: list[str] = []
    hooks_path = ""
    for scope, entry in pairs:
        if scope not in ("local", "worktree"):  # (the user's own global config is theirs)
            continue
        key, _, value = entry.partition("\n")
        low = key.lower()
        if low == "core.hookspath":
            hooks_path = value
        shell_only = low.startswith(("alias.", "submodule."))  # (an alias or update runs a program only with '!')
        command_url = _COMMAND_URL.match(low) and value.lower().startswith(("ext::", "fd::"))
        if (_COMMAND_KEYS.match(low) and not (shell_only and not value.startswith("!"))) or command_url:
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


def _hooks(folder: Path) -> list[str]:
    try:
        return [f"hook {p.name}" for p in sorted(folder.iterdir(), key=lambda p: p.name)
                if not p.name.endswith(".sample") and p.is_file() and os.access(p, os.X_OK)]
    except OSError:
        return []


def _submodules(top: Path, common: Path) -> list[tuple[Path, str]]:
    """The git folders of the repository's submodules, nested ones too: each under ``modules/`` of its
    parent's git folder (a name may hold ``/``), or (made before git 1.7.8) a ``.git`` folder in the
    submodule's own work tree."""
    out: dict[Path, str] = {}
    for folder, dirs, files in os.walk(common / "modules"):
        here = Path(folder)
        if "HEAD" in files and "config" in files:  # a git folder: only its own modules/ can hold more
            out[here.resolve()] = f"submodule {here.relative_to(common / 'modules').as_posix()}"
            dirs[:] = ["modules"] if "modules" in dirs else []
        if len(out) > MAX_MODULES:
            raise Unreadable
    listed = _git(top, "config", "--file", str(top / ".gitmodules"), "--null", "--get-regexp",
                     r"^submodule\..*\.path$") if (top / ".gitmodules").is_file() else None
    for entry in os.fsdecode(listed.stdout).split("\0") if listed is not None and listed.returncode == 0 else ():
        path = entry.partition("\n")[2]
        inner = top / path / ".git"
        if path and inner.is_dir() and not inner.is_symlink() and inner.resolve() not in out:
            out[inner.resolve()] = f"submodule {path}"
    if len(out) > MAX_MODULES:
        raise Unreadable
    return sorted(out.items(), key=lambda kv: kv[1])
