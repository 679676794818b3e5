"""A git line run on the host runs what the repository names (``core.fsmonitor`` for ``git status``, textconv for
``git diff``, hooks for ``git commit``): no allow rule covers that, and the dialog's reason lists them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

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


def _asks(root: Path, cmd: str = "git status", workspace: Path | None = None) -> str:
    v = host(workspace or root, allow_commands=["git status", "git commit"]).verdict("run_command", "command",
                                                                                    {"command": cmd})
    assert v.decision == "ask", v
    return v.reason


def test_what_the_read_tools_refuse_to_use_is_still_read_for_a_host_git(tmp_path: Path) -> None:
    """The read tools confine themselves to the workspace's own repository and refuse one with alternates or a
    linked ref outside it, or a workspace inside a larger repository; the user's git uses them all, with their
    programs, so the check reads the repository git would use."""
    alt = planted(tmp_path / "alt", tmp_path / "ran")
    (alt / ".git" / "objects" / "info" / "alternates").write_text("/nonexistent\n")
    assert "mon.sh" in _asks(alt)
    linked = planted(tmp_path / "linked", tmp_path / "ran")
    (linked / ".git" / "refs" / "heads" / "zz").symlink_to("/etc/hostname")
    assert "mon.sh" in _asks(linked)
    outer = planted(tmp_path / "outer", tmp_path / "ran")
    (outer / "pkg").mkdir()
    assert "mon.sh" in _asks(outer, workspace=outer / "pkg")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user takes root")
def test_a_repository_another_user_owns_is_read_too(tmp_path: Path) -> None:
    """git refuses a repository another user owns ("dubious ownership") to agent-tui, while the user's own git
    may take it (a system-wide ``safe.directory = *``, as in many containers; ``tar x`` as root keeps the
    archive's owners): it is read all the same."""
    root = planted(tmp_path / "proj", tmp_path / "ran")
    subprocess.run(["chown", "-R", "1337:1337", str(root)], check=True)
    assert "mon.sh" in _asks(root)


def test_a_repository_that_cannot_be_read_is_asked_for(tmp_path: Path, monkeypatch: Any) -> None:
    import agent_tui.tools.repo_programs as rp

    root = make_repo(tmp_path / "proj")
    real = rp._git
    monkeypatch.setattr(rp, "_git", lambda top, *args, **kw: real(top, *args, **kw) if args[0] == "rev-parse" else
                        subprocess.CompletedProcess(args, 128, b"", b"fatal: bad config line 1"))
    assert "cannot read for certain" in _asks(root)
    monkeypatch.undo()
    assert host(root, allow_commands=["git status"]).decide("run_command", "command", {"command": "git status"}) \
        == "allow"
    for name, make in (("bare", lambda p: None), ("junk", lambda p: (p / ".git").mkdir())):
        (tmp_path / name).mkdir()
        make(tmp_path / name)
        assert host(tmp_path / name, allow_commands=["git status"]).decide(
            "run_command", "command", {"command": "git status"}) == "allow", f"{name}: no repository git can use"


def _with_submodule(tmp_path: Path) -> tuple[Path, Path]:
    lib = make_repo(tmp_path / "lib")
    root = make_repo(tmp_path / "proj")
    subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib"],
                   cwd=root, check=True, capture_output=True)
    return root, root / ".git" / "modules" / "vendor" / "lib"


def test_a_submodules_config_and_hooks_count(tmp_path: Path) -> None:
    """``git status`` runs inside each submodule, with the submodule's own fsmonitor; a checkout there its hooks."""
    root, module = _with_submodule(tmp_path)
    p = host(root, allow_commands=["git status", "git checkout"])
    assert p.decide("run_command", "command", {"command": "git status"}) == "allow", "a plain submodule names nothing"
    subprocess.run(["git", "config", "--file", str(module / "config"), "core.fsmonitor", "touch /tmp/x"], check=True)
    assert "submodule vendor/lib: core.fsmonitor = touch /tmp/x" in _asks(root)
    subprocess.run(["git", "config", "--file", str(module / "config"), "--unset", "core.fsmonitor"], check=True)
    hook = module / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\n")
    hook.chmod(0o755)
    assert p.decide("run_command", "command", {"command": "git status"}) == "allow", "git status runs no post-checkout"
    assert "submodule vendor/lib: hook post-checkout" in _asks(root, "git checkout -b x")
    (module / "hooks" / "post-index-change").write_text("#!/bin/sh\n")
    (module / "hooks" / "post-index-change").chmod(0o755)
    assert "submodule vendor/lib: hook post-index-change" in _asks(root), "an index refresh runs this one"


def test_a_submodule_is_read_in_its_own_context(tmp_path: Path) -> None:
    """Its ``includeIf "gitdir:…"`` matches in the submodule, not in the top repository, and its
    ``config.worktree`` is read by its git: both are read where git reads them."""
    root, module = _with_submodule(tmp_path)
    (module / "evil.inc").write_text("[core]\n\tfsmonitor = /tmp/evil-include.sh\n")
    subprocess.run(["git", "config", "--file", str(module / "config"), "includeIf.gitdir:**/modules/vendor/lib.path",
                    "evil.inc"], check=True)
    assert "evil-include.sh" in _asks(root)
    root2, module2 = _with_submodule(tmp_path / "two")
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.worktreeConfig", "true")):
        subprocess.run(["git", "config", "--file", str(module2 / "config"), key, value], check=True)
    (module2 / "config.worktree").write_text("[core]\n\tfsmonitor = /tmp/evil-worktree.sh\n")
    assert "evil-worktree.sh" in _asks(root2)


def test_an_embedded_repository_and_a_git_file_pointing_elsewhere_count(tmp_path: Path) -> None:
    """A gitlink with no ``.gitmodules`` entry (``git add sub`` of a repository), and a submodule whose ``.git``
    file points into a folder of the work tree: git goes into both."""
    root = make_repo(tmp_path / "proj")
    sub = make_repo(root / "sub")
    subprocess.run(["git", "config", "core.fsmonitor", "/tmp/evil-embedded.sh"], cwd=sub, check=True)
    subprocess.run(["git", "add", "sub"], cwd=root, check=True, capture_output=True)
    assert "submodule sub: core.fsmonitor = /tmp/evil-embedded.sh" in _asks(root)
    other = make_repo(tmp_path / "other")
    inner = make_repo(other / "inner")
    subprocess.run(["git", "add", "inner"], cwd=other, check=True, capture_output=True)
    (inner / ".git").rename(other / ".hidden-gitdir")
    (inner / ".git").write_text("gitdir: ../.hidden-gitdir\n")
    subprocess.run(["git", "config", "--file", str(other / ".hidden-gitdir" / "config"), "core.fsmonitor",
                    "/tmp/evil-gitfile.sh"], check=True)
    assert "evil-gitfile.sh" in _asks(other)


def test_a_bare_repository_is_read_too(tmp_path: Path) -> None:
    src = make_repo(tmp_path / "src")
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(bare)], check=True)
    subprocess.run(["git", "config", "diff.x.textconv", "/tmp/evil-textconv.sh"], cwd=bare, check=True)
    p = host(bare, allow_commands=["git log", "git show"])
    v = p.verdict("run_command", "command", {"command": "git log -p"})
    assert v.decision == "ask" and "evil-textconv.sh" in v.reason, v


def test_a_config_that_blocks_git_is_asked_about_in_seconds(tmp_path: Path, monkeypatch: Any) -> None:
    """``include.path`` naming a pipe blocked every git call (and the agent's verdict) for two minutes, then
    raised out of it; a read now gives up after a few seconds and asks."""
    import time

    import agent_tui.tools.repo_programs as rp

    monkeypatch.setattr(rp, "READ_TIMEOUT", 1.0)
    root = make_repo(tmp_path / "proj")
    os.mkfifo(root / "cfg.fifo")
    subprocess.run(["git", "config", "include.path", "../cfg.fifo"], cwd=root, check=True)
    started = time.monotonic()
    assert "cannot read for certain" in _asks(root)
    assert time.monotonic() - started < 10


def test_hooks_are_found_where_a_long_hooks_path_puts_them(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    folder = root / ("tooling-" * 12) / "hooks"
    folder.mkdir(parents=True)
    (folder / "pre-commit").write_text("#!/bin/sh\n")
    (folder / "pre-commit").chmod(0o755)
    subprocess.run(["git", "config", "core.hooksPath", str(folder)], cwd=root, check=True)
    reason = _asks(root, "git commit -m x")
    assert "hook pre-commit" in reason and "core.hookspath = " in reason and "…" in reason, reason


def test_programs_that_run_git_themselves_count(tmp_path: Path) -> None:
    """``go build`` stamps the binary with ``git status`` (running the repository's fsmonitor); pre-commit reads
    the index the same way."""
    root = planted(tmp_path / "proj", tmp_path / "ran")
    p = host(root, allow_commands=["go build", "go test", "pre-commit", "go fmt"])
    for cmd in ("go build ./...", "go test -run X ./pkg", "pre-commit run --all-files"):
        v = p.verdict("run_command", "command", {"command": cmd})
        assert v.decision == "ask" and "mon.sh" in v.reason, (cmd, v)
    assert p.decide("run_command", "command", {"command": "go fmt ./..."}) == "allow", "go fmt runs no git"


def test_a_looking_command_is_not_asked_for_programs_it_never_runs(tmp_path: Path) -> None:
    """husky's ``core.hooksPath = .husky/_`` or a local ``credential.helper`` made every host ``git status`` ask;
    a looking subcommand counts only what it can run (fsmonitor, textconv, filters, pagers…)."""
    root = make_repo(tmp_path / "proj")
    (root / ".husky" / "_").mkdir(parents=True)
    (root / ".husky" / "_" / "pre-commit").write_text("#!/bin/sh\n")
    (root / ".husky" / "_" / "pre-commit").chmod(0o755)
    for key, value in (("core.hooksPath", ".husky/_"), ("credential.helper", "store"), ("core.editor", "vim")):
        subprocess.run(["git", "config", key, value], cwd=root, check=True)
    p = host(root, allow_commands=["git status", "git log", "git commit", "go test", "git push"])
    for cmd in ("git status", "git log --oneline", "go test ./..."):
        assert p.decide("run_command", "command", {"command": cmd}) == "allow", cmd
    reason = p.verdict("run_command", "command", {"command": "git commit -m x"}).reason
    assert "hook pre-commit" in reason and "core.editor = vim" in reason, reason
    assert "credential.helper" not in reason, "a commit talks to no remote"
    reason = p.verdict("run_command", "command", {"command": "git push"}).reason
    assert "credential.helper = store" in reason, reason
    subprocess.run(["git", "config", "diff.x.textconv", "/tmp/evil-textconv.sh"], cwd=root, check=True)
    assert "evil-textconv.sh" in _asks(root, "git log -p")


def test_the_whole_read_has_one_deadline(tmp_path: Path, monkeypatch: Any) -> None:
    """Each git call may take a few seconds, and a repository may have many submodules: past one deadline for
    the whole read, the line is asked."""
    import agent_tui.tools.repo_programs as rp

    root = make_repo(tmp_path / "proj")
    monkeypatch.setattr(rp, "READ_DEADLINE", 0.0)
    assert "cannot read for certain" in _asks(root)
