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
from agent_tui.tools.cmdparse import ParsedCommand, SimpleCommand

#: Programs that run ``git status`` / ``git log`` in the workspace themselves, by subcommand: Go stamps builds
#: with the repository's state (``-buildvcs=auto``), pre-commit reads the index before it runs its hooks.
GIT_INSIDE: dict[str, frozenset[str] | None] = {
    "go": frozenset({"build", "install", "run", "test", "vet", "list", "generate"}),
    "pre-commit": None,  # (every subcommand)
}
GIT_AS: dict[tuple[str, ...], tuple[str, str]] = {
    ("npm", "version"): ("git", "commit"), ("pnpm", "version"): ("git", "commit"),
    ("yarn", "version"): ("git", "commit"), ("gh", "pr", "checkout"): ("git", "fetch"),
    ("gh", "repo", "sync"): ("git", "fetch"),
}
"""Subcommands of other programs that run a git command of their own, by the git subcommand they run (``npm
version`` commits and tags, running the commit hooks; ``gh pr checkout`` fetches and checks out)."""


def git_layers(parsed: ParsedCommand) -> list[SimpleCommand]:
    """The git commands the line runs, itself or through a wrapper (``env git``, ``sh -c 'git …'``, ``xargs git``);
    a program that runs git itself (:data:`GIT_INSIDE`) counts as ``git status``."""
    out: list[SimpleCommand] = []
    for c in all_layers(parsed):
        if c.program == "git":
            out.append(c)
        elif (as_git := next((g for k, g in GIT_AS.items() if (c.program, *c.argv[1:len(k)]) == k), None)) is not None:
            out.append(SimpleCommand(as_git, (False, False)))
        elif c.program in GIT_INSIDE:
            subs = GIT_INSIDE[c.program]
            sub = next((a for a in c.argv[1:] if not a.startswith("-")), "")
            if subs is None or sub in subs:
                out.append(SimpleCommand(("git", "status"), (False, False)))
    return out


def reach_of(layers: list[SimpleCommand]) -> str:
    """What these git commands can run of the repository's: ``looking`` when each is a looking subcommand
    (``git status``, ``git diff``, ``git log``…: an index refresh's hook and the programs diffs and the index
    need), ``local`` when each talks to no remote (``git commit``: no credential helper), else ``all``."""
    from agent_tui.agent.command_rules_reach import git_subcommand
    from agent_tui.tools.repo_programs import LOCAL, LOOKING

    subs = [git_subcommand(c.argv[1:]) for c in layers]
    if subs and all(sub in LOOKING for sub in subs):
        return "looking"
    return "local" if subs and all(sub in LOOKING | LOCAL for sub in subs) else "all"


def repo_program_blockers(parsed: ParsedCommand, workspace: Path | None) -> list[str]:
    """Why a host-run line may not be auto-approved because of what its git would run (empty when it runs no
    git, or the workspace's repository names no program)."""
    layers = git_layers(parsed) if workspace is not None else []
    if workspace is None or not layers:
        return []
    from agent_tui.agent.command_rules_toolcfg import working_folders
    from agent_tui.tools.repo_programs import repo_programs

    every = all_layers(parsed)
    if any(c.program in ("cd", "pushd") and any(c.dynamic[1:]) for c in every):
        return ["outside the sandbox, the line changes to a folder only known when it runs, so agent-tui cannot "
                "tell which repository's programs its git runs"]
    reach = reach_of(layers)
    programs: list[str] | None = []
    for folder in working_folders(every, workspace.resolve()):  # (`cd vendor/lib && git status`: that repository's)
        found = repo_programs(folder, reach)
        if found is None:
            programs = None
            break
        programs += [p for p in found if p not in programs]
    if programs is None:
        return ["outside the sandbox, git would use a repository here that agent-tui cannot read for certain (a "
                "folder another user owns, or a broken .git), so it cannot tell what programs git runs"]
    if not programs:
        return []
    return [f"outside the sandbox, git runs what this repository names, as you ({'; '.join(programs)}), and an "
            "allow rule covers the command, not those"]
