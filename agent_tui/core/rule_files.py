"""`# text` at the prompt: a rule appended to the instruction file the user already keeps.

Rules typed at the prompt belong with the user's other rules — the workspace's ``AGENTS.md``
(or the ``CLAUDE.md`` a Claude Code user keeps there), or the user's own ``AGENTS.md`` for
every project — so every tool that reads those files sees them, and the next step sends them
(core/instructions re-reads a file that changed on disk).  Which of the two is asked once per
workspace and remembered in the user's config dir (never in the workspace, which could
forge it), written atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from agent_tui.core.config import user_config_path
from agent_tui.core.instructions import NAMES, git_root, pick, user_dir

WHERE = ("project", "user")
"""``project``: the workspace's instruction file; ``user``: the user's, for every project."""
NEW_FILE_HEADER = "# Project rules\n\n"


def targets_path() -> Path:
    """``<user config dir>/agent-tui/rule-targets.json``: workspace → where its `# …` rules go."""
    return user_config_path().with_name("rule-targets.json")


def target_file(workspace: Path, where: str) -> Path:
    """The file a rule goes to: the folder's AGENTS.md, or its CLAUDE.md when that is the one it has."""
    folder = workspace if where == "project" else user_dir()
    return pick(folder) or folder / NAMES[0]


def _read() -> dict[str, str]:
    try:
        data = json.loads(targets_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def remembered(workspace: Path) -> str | None:
    """Where this workspace's `# …` rules go, if the user said so before."""
    where = _read().get(str(workspace.resolve()))
    return where if where in WHERE else None


def remember(workspace: Path, where: str) -> None:
    """Remember the answer for this workspace (atomic write: temp file + rename)."""
    if where not in WHERE:
        raise ValueError(f"where must be one of {WHERE}, got {where!r}")
    data = _read()
    data[str(workspace.resolve())] = where
    path = targets_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".rule-targets.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)


def parse_where(answer: str) -> str | None:
    """``1``/``project``/``p`` or ``2``/``user``/``u`` (None for anything else)."""
    a = answer.strip().lower()
    if a in ("1", "p", "project", "here", "workspace"):
        return "project"
    if a in ("2", "u", "user", "me", "global"):
        return "user"
    return None


class RuleFileError(ValueError):
    """The rule file cannot take the rule (it links outside the project, or into its ``.git``)."""


def append_rule(path: Path, text: str, root: Path | None = None) -> Path:
    """Append ``text`` as one ``- `` line to ``path`` (created with a header if missing); returns it.

    ``root``: the workspace, when ``path`` is the project's file.  A cloned repository chooses what
    its ``AGENTS.md`` is: a link out of the project (to ``~/.bashrc``) or into its ``.git`` is refused,
    as the instruction loader refuses to read one, and the file is replaced atomically, never written
    through a link."""
    line = " ".join(text.split())
    if not any(ch.isalnum() for ch in line):
        raise ValueError(f"a rule needs words: {line!r} says nothing" if line else "an empty rule cannot be added")
    target = path.resolve()
    if root is not None:
        project = (git_root(root) or root).resolve()
        inside = target.relative_to(project).parts if target.is_relative_to(project) else None
        if inside is None or inside[:1] in ((".git",), (".agent-tui",)):
            raise RuleFileError(f"{path} links to {target}, outside the project's files: rule not added "
                                "(add it to that file yourself if you mean to)")
        if target.exists() and not target.is_file():
            raise RuleFileError(f"{path} is not a regular file: rule not added")
    target.parent.mkdir(parents=True, exist_ok=True)
    old = target.read_text(encoding="utf-8", errors="replace") if target.is_file() else NEW_FILE_HEADER
    if old and not old.endswith("\n"):
        old += "\n"
    mode = target.stat().st_mode & 0o777 if target.is_file() else 0o644
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{old}- {line}\n")
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
