"""A git line run on the host runs what the repository names (``core.fsmonitor`` for ``git status``, textconv for
``git diff``, hooks for ``git commit``): no allow rule covers that, and the dialog's reason lists them."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from agent_tui.agent.permissions import Policy
from tests.agent.helpers import make_repo
from tests.agent.test_command_approval_binary import run_calls, user_config


def planted(root: Path, marker: Path) -> Path:
    """``root`` as an unpacked repository whose config names an fsmonitor program that leaves ``marker``."""
    make_repo(root)
    script = root / "mon.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    script.chmod(0o755)
    subprocess.run(["git", "config", "core.fsmonitor", str(script)], cwd=root, check=True)
    return root


def host(root: Path, **cfg: Any) -> Policy:
    p = Policy.from_config(cfg, workspace=root)
    p.sandboxed = False
    return p


def test_allowed_git_on_the_host_is_asked_when_the_repository_names_programs(tmp_path: Path) -> None:
    root = planted(tmp_path / "proj", tmp_path / "ran")
    p = host(root, allow_commands=["git status", "git diff", "echo"])
    for cmd in ("git status", "git diff --stat", "env git status", "sh -c 'git status'", "echo x | xargs git diff",
                "git -C . status"):
        v = p.verdict("run_command", "command", {"command": cmd})
        assert v.decision == "ask", (cmd, v)
        assert "core.fsmonitor" in v.reason and "mon.sh" in v.reason, v.reason
    assert p.decide("run_command", "command", {"command": "echo status"}) == "allow", "no git, no question"


def test_the_sandbox_keeps_its_rules_and_a_plain_repository_keeps_them_on_the_host(tmp_path: Path) -> None:
    root = planted(tmp_path / "proj", tmp_path / "ran")
    inside = Policy.from_config({"allow_commands": ["git status"]}, workspace=root)
    inside.sandboxed = True
    assert inside.decide("run_command", "command", {"command": "git status"}) == "allow", "confined: it may run"
    out = Policy.from_config({"allow_outside_commands": ["git status"]}, workspace=root)
    out.sandboxed = True
    v = out.verdict("run_command", "command", {"command": "git status", "outside_sandbox": True})
    assert v.decision == "ask" and "mon.sh" in v.reason
    plain = make_repo(tmp_path / "plain")
    assert host(plain, allow_commands=["git status"]).decide("run_command", "command",
                                                             {"command": "git status"}) == "allow"


def test_a_hook_counts_and_the_users_own_global_config_does_not(tmp_path: Path, monkeypatch: Any) -> None:
    root = make_repo(tmp_path / "proj")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[core]\n\tpager = less -R\n[diff \"x\"]\n\ttextconv = cat\n")
    monkeypatch.setenv("HOME", str(home))
    p = host(root, allow_commands=["git commit"])
    assert p.decide("run_command", "command", {"command": "git commit -m x"}) == "allow", "the user's config is theirs"
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    v = p.verdict("run_command", "command", {"command": "git commit -m x"})
    assert v.decision == "ask" and "hook pre-commit" in v.reason, v


def test_the_binary_does_not_run_a_planted_fsmonitor_under_an_outside_rule(tmp_path: Path, fake_llm: Any) -> None:
    """Headless, no --yes: ``git status`` allowed outside the sandbox is refused in a repository that names an
    fsmonitor program, which never runs; in a plain repository the same rule runs it."""
    marker = tmp_path / "ran"
    root = planted(tmp_path / "proj", marker)
    env = user_config(tmp_path, '[approval]\nallow_commands = ["git status"]\nallow_outside_commands = ["git status"]\n')
    finished = run_calls(root, fake_llm, env, [{"command": "git status", "outside_sandbox": True}])
    assert finished[0]["is_error"] and "mon.sh" in finished[0]["text"], finished[0]["text"]
    assert not marker.exists(), "the repository's program ran on the host"
    plain = make_repo(tmp_path / "plain")
    finished = run_calls(plain, fake_llm, env, [{"command": "git status", "outside_sandbox": True}])
    assert not finished[0]["is_error"], finished[0]["text"]
