"""Drafting ``AGENTS.md`` with the model: the one task both ``/init`` (TUI) and ``agent-tui init``
(CLI) send, and how an approval request is recognised as the write of that file.

The model looks through the repository with its read-only tools and writes the file with
``write_file`` (or ``edit_file`` when it exists); the write is an approval request whose preview is
the unified diff, so nothing reaches the disk before the user has seen it.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent.prompts import render_prompt
from agent_tui.core.rule_files import target_file


def init_task(root: Path) -> tuple[Path, str]:
    """The file to draft (the workspace's ``AGENTS.md``, or its ``CLAUDE.md`` if that is what it has)
    and the task that asks the model to draft it."""
    path = target_file(root, "project")
    existing = f"{path.name} exists already: read it first and keep what is still true." if path.is_file() else ""
    return path, render_prompt("init", path=path.name, existing=existing).strip()


def written_path(path: str | None, root: Path) -> Path | None:
    """The file a write's ``path`` argument names, resolved in ``root`` (None when it names none, or
    leaves the workspace)."""
    if not path:
        return None
    from agent_tui.tools.workspace import WorkspaceError, resolve

    try:
        return resolve(root, path)
    except WorkspaceError:
        return None
