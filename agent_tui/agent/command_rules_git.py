"""What a git line run on the host would run of the repository's own, so an allow rule does not cover it.

``git status`` reads like a look, but git runs the repository's ``core.fsmonitor`` for it, ``git diff`` and
``git log -p`` its ``diff.*.textconv``, ``git commit`` its hooks, ``git checkout`` its filters: programs named
by ``.git/config`` and ``.git/hooks``, which an unpacked or sent repository brings along.  In the sandbox they
run confined; on the host (no bubblewrap, or a command the model asks to run outside the sandbox) they run as
the user.  An allow rule is the user's say about ``git status``, not about what the repository chose to run
under it, so a host-run git line in a repository that names programs is asked, and the dialog lists them.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent.command_rules_unwrap import all_layers
from agent_tui.tools.cmdparse import ParsedCommand


def runs_git(parsed: ParsedCommand) -> bool:
    """The line runs git itself or through a wrapper (``env git``, ``sh -c 'git …'``, ``xargs git``)."""
    return any(c.program == "git" for c in all_layers(parsed))


def repo_program_blockers(parsed: ParsedCommand, workspace: Path | None) -> list[str]:
    """Why a host-run line may not be auto-approved because of what its git would run (empty when it runs no
    git, or the workspace's repository names no program)."""
    if workspace is None or not runs_git(parsed):
        return []
    from agent_tui.tools.repo_programs import repo_programs

    programs = repo_programs(workspace)
    if programs is None:
        return ["outside the sandbox, git would use a repository here that agent-tui cannot read for certain (a "
                "folder another user owns, or a broken .git), so it cannot tell what programs git runs"]
    if not programs:
        return []
    return [f"outside the sandbox, git runs what this repository names, as you ({'; '.join(programs)}), and an "
            "allow rule covers the command, not those"]
