"""What a repository makes git run when the user's own git runs in it, for the approval dialog.

The read tools neutralise a repository's programs (``tools/git_safe.py``), and sandboxed commands run
them inside the sandbox.  A git command the user approves to run outside the sandbox (``git commit``,
``git push``) runs them on the host, as the user: the hooks in ``.git/hooks`` and the commands its
``.git/config`` names.  For a repository the user wrote, those are theirs; for one they unpacked or
were sent, they are the repository's.  The dialog lists them, so "approve ``git commit``" is not
unknowingly "run ``.git/hooks/pre-commit``".
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agent_tui.tools.git_safe import own_repo, run_git

#: Config keys whose value git runs as a command (shell or program), as ``re`` patterns.
_COMMAND_KEYS = re.compile(
    r"^(core\.(fsmonitor|sshcommand|pager|editor|hookspath|askpass|gitproxy)|diff\.external|sequence\.editor"
    r"|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|credential\..*helper"
    r"|gpg(\..+)?\.program|remote\..+\.(uploadpack|receivepack|proxy)|alias\..+|pager\..+|uploadpack\.packobjectshook"
    r"|submodule\..+\.update|(diff|merge)tool\..+\.cmd|interactive\.difffilter|core\.alternaterefscommand"
    r"|gpg\.ssh\.defaultkeycommand|trailer\..+\.(cmd|command)|(browser|man)\..+\.(cmd|path)"
    r"|sendemail\.(.+\.)?smtpserver|protocol\.(ext|fd)\.allow|url\.(ext|fd)::.*\.(push)?insteadof)$"
)
#: A remote whose URL is a command: ``ext::sh -c …`` runs it on fetch and push (with ``protocol.ext.allow``).
_COMMAND_URL = re.compile(r"^remote\..+\.(push)?url$")
#: Programs listed at most (a repository could name hundreds).
MAX_LISTED = 8


def repo_programs(workspace: Path) -> list[str]:
    """The workspace repository's hooks and the commands its own config names (``key = value``)."""
    top = own_repo(workspace)
    if top is None:
        return []
    found: list[str] = []
    hooks_path = ""
    raw = run_git(top, "config", "--includes", "--show-scope", "--null", "--list")
    fields = os.fsdecode(raw.stdout).split("\0") if raw.returncode == 0 else []
    for scope, entry in zip(fields[::2], fields[1::2], strict=False):
        if scope not in ("local", "worktree"):  # (the user's own global config is theirs)
            continue
        key, _, value = entry.partition("\n")
        low = key.lower()
        if low == "core.hookspath":
            hooks_path = value
        shell_only = low.startswith(("alias.", "submodule."))  # (an alias or update runs a program only with '!')
        command_url = _COMMAND_URL.match(low) and value.lower().startswith(("ext::", "fd::"))
        if (_COMMAND_KEYS.match(low) and not (shell_only and not value.startswith("!"))) or command_url:
            found.append(f"{key} = {value[:80]}")
    common = run_git(top, "rev-parse", "--git-common-dir")  # (--git-path hooks answers the safe override)
    if hooks_path:
        folder: Path | None = Path(os.path.expanduser(hooks_path))
    elif common.returncode == 0:
        folder = Path(os.fsdecode(common.stdout).strip()) / "hooks"
    else:
        folder = None
    if folder is not None:
        folder = folder if folder.is_absolute() else top / folder
        try:
            names = sorted(p.name for p in folder.iterdir()
                           if not p.name.endswith(".sample") and p.is_file() and os.access(p, os.X_OK))
        except OSError:
            names = []
        found += [f"hook {name}" for name in names]
    return found[:MAX_LISTED] + ([f"… {len(found) - MAX_LISTED} more"] if len(found) > MAX_LISTED else [])
