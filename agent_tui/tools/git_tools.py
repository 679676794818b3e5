"""git_status, git_diff and git_log: the repository state in a compact, model-friendly form.

The raw porcelain and log formats are either cryptic (``XY`` codes) or verbose
(full commit headers).  These tools translate status codes into words grouped by
staged / not staged / untracked / conflicts, show one line per commit, and shape a
large diff like any other big result (stat first, whole diff behind a handle).
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.git_safe import (
    DIFF_FLAGS,
    OutsideRepoError,
    config_args,
    filter_drivers,
    git_argv,
    locate,
    safe_env,
    workspace_repo,
)
from agent_tui.tools.programs import pin_gitpython
from agent_tui.tools.shaping import shape_result_async
from agent_tui.tools.workspace import resolve

HAVE_GIT = pin_gitpython()
"""git was found (on an absolute PATH entry); without it the git tools say so and GitPython is never imported."""
if HAVE_GIT or TYPE_CHECKING:
    import git  # (after pin_gitpython: GitPython runs git when imported)

DIFF_TOKEN_CAP = 6000
STATUS_ENTRIES_SHOWN = 100

_CODES = {
    "M": "modified",
    "A": "added",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type changed",
    "U": "unmerged",
}
_CONFLICTS = {"DD", "AU", "UD", "UA", "DU", "AA", "UU"}

_PATH_PROP = {"type": "string", "description": "Limit to this file or folder."}
STATUS_SPEC = ToolSpec(
    name="git_status",
    description=(
        "Show the git branch and which files are staged, modified, untracked or conflicted. "
        "Use it to see what changed before committing or reviewing. Not for the content of "
        "changes: use git_diff."
    ),
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    kind="read",
    group="git",
)
DIFF_SPEC = ToolSpec(
    name="git_diff",
    description=(
        "Show the changes in the working tree (or staged changes with staged=true) as a "
        "diff with a stat, optionally for one path. Use it to review edits. Not for "
        "history: use git_log."
    ),
    parameters={
        "type": "object",
        "properties": {"path": _PATH_PROP, "staged": {"type": "boolean", "default": False}},
        "additionalProperties": False,
    },
    kind="read",
    group="git",
)
LOG_SPEC = ToolSpec(
    name="git_log",
    description=(
        "List recent commits, one line each (hash, date, author, subject), optionally only "
        "those touching a path. Use it to learn recent history. Not for current changes: "
        "use git_status or git_diff."
    ),
    parameters={
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1, "maximum": 200, "default": 10},
            "path": _PATH_PROP,
        },
        "additionalProperties": False,
    },
    kind="read",
    group="git",
)


def open_repo(workspace: Path) -> git.Repo:
    """The workspace's own repository, made safe to run git in, or ToolError saying why not.

    Every command GitPython runs for it carries the ``git_safe`` overrides and environment.
    """
    if not HAVE_GIT:
        raise ToolError("git is not installed here (no `git` on an absolute entry of PATH), so "
                        "git_status/git_diff/git_log cannot be used.")
    try:
        top = workspace_repo(workspace)
        repo = git.Repo(top)
    except OutsideRepoError as exc:
        raise ToolError(
            f"{str(exc)[0].upper()}{str(exc)[1:]}, so git_status/git_diff/git_log cannot be used here."
        ) from None
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise ToolError(
            f"Not a git repository: the workspace {workspace} is not inside a git work tree, "
            "so git_status/git_diff/git_log cannot be used here."
        ) from None
    drivers = filter_drivers(top)
    repo.git.set_persistent_git_options(c=config_args(drivers=drivers)[1::2])
    repo.git.update_environment(**_gitpython_env(top, drivers))
    repo.agent_tui_drivers = drivers  # type: ignore[attr-defined]  (what _git's own argv disarms)
    return repo


def _gitpython_env(top: Path, drivers: list[str]) -> dict[str, str]:
    """What GitPython must set over ``os.environ`` (it starts from it and cannot drop a variable): the
    user's secrets blanked, and a ``GIT_DIR``-like variable from the user's shell (agent-tui started from
    a git hook, ``rebase --exec``, ``bisect run``) set to this repository's own folders, since an empty
    one is an error to git."""
    safe = safe_env(drivers=drivers)
    out = {name: "" for name in os.environ if name not in safe}
    out.update(safe)
    located = {"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} & set(out)
    found = locate(top) if located else None
    if found is not None:
        _, git_dir, common = found
        real = {"GIT_DIR": git_dir, "GIT_WORK_TREE": top, "GIT_COMMON_DIR": common,
                "GIT_OBJECT_DIRECTORY": common / "objects"}
        out.update({name: str(real[name]) for name in located})
    return out


def repo_path(repo: git.Repo, workspace: Path, path: str) -> str:
    """``path`` (workspace-relative, guarded) relative to the repository root."""
    target = resolve(workspace, path)
    root = Path(repo.working_tree_dir or workspace).resolve()
    return target.relative_to(root).as_posix() or "."


def _git(repo: git.Repo, *args: str) -> str:
    try:
        argv = git_argv(*args, drivers=getattr(repo, "agent_tui_drivers", None) or [])
        return repo.git.execute(argv, strip_newline_in_stdout=False)  # type: ignore[call-overload, no-any-return]
    except git.GitCommandError as exc:
        err = str(exc.stderr or exc).strip().splitlines()
        raise ToolError(f"git {args[0]} failed: {' '.join(err[-3:])}") from None


def parse_status(raw: str) -> tuple[str, dict[str, list[str]]]:
    """(branch line, {"Staged"|"Not staged"|"Untracked"|"Conflicts": entries}) from ``-z`` porcelain."""
    parts = raw.split("\0")
    branch = ""
    groups: dict[str, list[str]] = {
        "Conflicts": [],
        "Staged": [],
        "Not staged": [],
        "Untracked": [],
    }
    i = 0
    while i < len(parts):
        entry = parts[i]
        i += 1
        if not entry:
            continue
        if entry.startswith("## "):
            branch = entry[3:]
            continue
        xy, path = entry[:2], entry[3:]
        if xy[0] in "RC":  # rename/copy: the next field is the old path
            path = f"{parts[i]} -> {path}"
            i += 1
        if xy == "??":
            groups["Untracked"].append(path)
        elif xy in _CONFLICTS:
            groups["Conflicts"].append(path)
        else:
            if xy[0] not in " ?!":
                groups["Staged"].append(f"{_CODES.get(xy[0], xy[0])}: {path}")
            if xy[1] not in " ?!":
                groups["Not staged"].append(f"{_CODES.get(xy[1], xy[1])}: {path}")
    return branch, groups


def format_branch(branch: str) -> str:
    """``## main...origin/main [ahead 1]`` → ``On branch main (origin/main, ahead 1)``."""
    if branch.startswith("No commits yet on "):
        return f"On branch {branch.removeprefix('No commits yet on ')} (no commits yet)"
    if branch.startswith("HEAD (no branch)"):
        return "HEAD detached (no branch)"
    name, _, rest = branch.partition("...")
    extra = rest.replace("[", "").replace("]", "").strip()
    tracking, _, counts = extra.partition(" ")
    detail = ", ".join(x for x in (tracking, counts) if x)
    return f"On branch {name}" + (f" ({detail})" if detail else "")


def status_text(repo: git.Repo) -> str:
    branch, groups = parse_status(
        _git(repo, "status", "--porcelain=v1", "-b", "-z", "--ignore-submodules=all")
    )
    out = [format_branch(branch)]
    for title, entries in groups.items():
        if not entries:
            continue
        out.append(f"{title} ({len(entries)}):")
        out += [f"  {e}" for e in entries[:STATUS_ENTRIES_SHOWN]]
        if len(entries) > STATUS_ENTRIES_SHOWN:
            out.append(f"  … {len(entries) - STATUS_ENTRIES_SHOWN} more")
    if len(out) == 1:
        out.append("Working tree clean.")
    return "\n".join(out)


async def git_status(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The git_status tool."""
    repo = open_repo(ctx.workspace)
    text = await asyncio.to_thread(status_text, repo)
    return make_result(text, ctx, meta={"repo": repo.working_tree_dir})


async def git_diff(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The git_diff tool."""
    repo = open_repo(ctx.workspace)
    staged = bool(args.get("staged"))
    flags = [*DIFF_FLAGS, *(["--cached"] if staged else [])]
    paths = ["--", repo_path(repo, ctx.workspace, args["path"])] if args.get("path") else []
    stat = await asyncio.to_thread(_git, repo, "diff", *flags, "--stat", *paths)
    diff = await asyncio.to_thread(_git, repo, "diff", *flags, *paths)
    what = "staged" if staged else "unstaged"
    if not diff.strip():
        other = await asyncio.to_thread(
            _git, repo, "diff", *DIFF_FLAGS, *([] if staged else ["--cached"]), "--stat", *paths
        )
        hint = ""
        if other.strip():
            hint = f" There are {'unstaged' if staged else 'staged'} changes: call git_diff(staged={str(not staged).lower()})."
        return make_result(f"No {what} changes.{hint}", ctx, meta={"diff": ""})
    shaped = await shape_result_async(
        f"{stat.rstrip()}\n\n{diff}",
        max_tokens=DIFF_TOKEN_CAP,
        store=ctx.results,
        label=f"git diff ({what})",
        model=ctx.model,
    )
    return make_result(
        shaped.text, ctx, handle=shaped.handle, raw_tokens=shaped.raw_tokens, meta={"diff": diff}
    )


def log_text(repo: git.Repo, n: int, path: str | None) -> str:
    if not repo.head.is_valid():
        return "No commits yet."
    commits = list(repo.iter_commits(max_count=n, paths=path or ""))
    if not commits:
        return f"No commits touch {path}."
    out = []
    for c in commits:
        day = datetime.fromtimestamp(c.committed_date, tz=UTC).strftime("%Y-%m-%d")
        subject = str(c.summary)
        out.append(f"{c.hexsha[:8]} {day} {c.author.name}: {subject}")
    return "\n".join(out)


async def git_log(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The git_log tool."""
    repo = open_repo(ctx.workspace)
    path = repo_path(repo, ctx.workspace, args["path"]) if args.get("path") else None
    n = int(args.get("n") or 10)
    text = await asyncio.to_thread(log_text, repo, n, path)
    return make_result(text, ctx)
