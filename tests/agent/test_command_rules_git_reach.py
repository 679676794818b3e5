"""Two ways a host git ran a repository's program under an allow rule (a seventh audit): a partial clone makes
any subcommand fetch a missing object from its promisor remote, through that remote's ``uploadpack`` (so
``git diff`` ran it); and ``cd vendor/lib && git status`` runs the nested repository's ``core.fsmonitor``,
which was never read (only the workspace's own repository was)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.agent.helpers import make_repo
from tests.agent.test_command_rules_git import host


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _promisor(root: Path, program: str) -> Path:
    make_repo(root)
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.url", str(root.parent / "nowhere")), ("remote.origin.promisor", "true"),
                       ("remote.origin.uploadpack", program)):
        _git(root, "config", key, value)
    return root


def test_a_partial_clone_asks_before_any_subcommand_may_fetch(tmp_path: Path) -> None:
    root = _promisor(tmp_path / "proj", "sh -c 'id > /tmp/pwned'")
    p = host(root, allow_commands=["git diff", "git log", "git stash", "git restore", "git status"])
    for cmd in ("git diff", "git log -p -1", "git stash", "git restore file.txt", "git status"):
        v = p.verdict("run_command", "command", {"command": cmd})
        assert v.decision == "ask", (cmd, v)
        assert "remote.origin.uploadpack" in v.reason and "partial clone" in v.reason, v.reason


def test_a_partial_clone_with_a_plain_remote_and_a_promisor_turned_off_stay_allowed(tmp_path: Path) -> None:
    plain = make_repo(tmp_path / "plain")
    for key, value in (("extensions.partialClone", "origin"), ("remote.origin.url", "https://example.invalid/r"),
                       ("remote.origin.promisor", "true")):
        _git(plain, "config", key, value)
    assert host(plain, allow_commands=["git diff"]).decide("run_command", "command", {"command": "git diff"}) == "allow"
    off = make_repo(tmp_path / "off")
    _git(off, "config", "remote.origin.promisor", "false")
    _git(off, "config", "remote.origin.uploadpack", "sh -c 'id'")
    p = host(off, allow_commands=["git diff", "git fetch"])
    assert p.decide("run_command", "command", {"command": "git diff"}) == "allow", "no lazy fetch: diff reaches no remote"
    assert p.decide("run_command", "command", {"command": "git fetch"}) == "ask", "a fetch still does"


def test_git_in_a_nested_repository_reached_by_cd_is_read(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "ws")
    nested = root / "vendor" / "lib"
    nested.mkdir(parents=True)
    _git(nested, "init", "-q")
    _git(nested, "config", "core.fsmonitor", "echo ran >> /tmp/marker; false")
    p = host(root, allow_commands=["cd", "git status", "pushd"])
    for cmd in ("cd vendor/lib && git status", "cd vendor; cd lib; git status", "(cd vendor/lib && git status)",
                "git -C vendor/lib status", "pushd vendor/lib && git status"):
        v = p.verdict("run_command", "command", {"command": cmd})
        assert v.decision == "ask", (cmd, v)
        assert "core.fsmonitor" in v.reason, (cmd, v.reason)
    assert p.decide("run_command", "command", {"command": "git status"}) == "allow", "the workspace's own is plain"
    assert p.decide("run_command", "command", {"command": "cd vendor && git status"}) == "allow", "same plain repository"
    v = p.verdict("run_command", "command", {"command": 'cd "$DIR" && git status'})
    assert v.decision == "ask" and "only known when it runs" in v.reason, v


def test_programs_that_commit_or_fetch_with_git_count_as_that_git_command(tmp_path: Path) -> None:
    """``npm version`` commits and tags (the commit hooks run), ``gh pr checkout`` fetches: under allow rules for
    them, on the host, the repository's hook or remote program is asked about as for ``git commit``/``git fetch``."""
    root = make_repo(tmp_path / "proj")
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nid > /tmp/pwned\n")
    hook.chmod(0o755)
    _git(root, "config", "remote.origin.uploadpack", "sh -c 'id'")
    p = host(root, allow_commands=["npm version", "gh pr checkout", "gh pr view", "npm test"])
    reason = p.verdict("run_command", "command", {"command": "npm version patch"}).reason
    assert "hook pre-commit" in reason, reason
    assert "remote.origin.uploadpack" in p.verdict("run_command", "command", {"command": "gh pr checkout 12"}).reason
    assert "hook pre-commit" in p.verdict("run_command", "command", {"command": "/usr/bin/npm version patch"}).reason
    assert p.decide("run_command", "command", {"command": "gh pr view 12"}) == "allow", "no git of the repository's"
