"""An agent killed during a sandboxed command: the repair it never ran is done by the next session
(``tools/sandbox_journal.py``), before that session takes the planted state as its reference."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tui.agent.session import SessionOptions, build_agent
from agent_tui.core.config import Settings
from agent_tui.tools.sandbox import sandbox_for
from agent_tui.tools.sandbox_journal import recover
from tests.support.bwrap import require_bwrap

IDENTITY = ("-c", "user.name=u", "-c", "user.email=e@x", "-c", "protocol.file.allow=always")

#: The agent in a child process: runs one sandboxed command (which plants, says so, then waits).
AGENT = """
import asyncio, sys
from pathlib import Path
from agent_tui.agent.session import SessionOptions, build_agent
from agent_tui.core.config import Settings
from agent_tui.tools.sandbox import sandbox_for
from agent_tui.tools.shell_exec import run_shell
ws = Path(sys.argv[1])
box = sandbox_for(ws).sandbox
asyncio.run(run_shell(sys.argv[2], ws, 60, sandbox=box))
"""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *IDENTITY, *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """agent-tui's state folder for sandboxes (where the records live), shared with the child agent."""
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder / "agent-tui" / "sandbox"


def run_agent(ws: Path, command: str, ready: Path, kill: bool = True) -> subprocess.Popen[bytes]:
    """Start the agent on ``command``; once ``ready`` exists (the plant is done), SIGKILL it when ``kill``."""
    require_bwrap()
    agent = subprocess.Popen([sys.executable, "-c", AGENT, str(ws), command], cwd=Path(__file__).parents[2],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert agent.poll() is None, agent.stderr.read().decode() if agent.stderr else ""
        assert time.monotonic() < deadline, "the command never got to its plant"
        time.sleep(0.05)
    if kill:
        agent.send_signal(signal.SIGKILL)
        agent.wait(10)
    return agent


def users_status_runs_it(cwd: Path, marker: Path) -> bool:
    subprocess.run(["git", "status", "--short"], cwd=cwd, capture_output=True)
    return marker.exists()


def config_running(marker: Path) -> str:
    return f"[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = touch {marker}\\n"


def test_a_git_link_swapped_by_a_killed_agents_command_is_put_back(tmp_path: Path, state: Path) -> None:
    """`.git` is a link to a repository kept elsewhere; the command swaps it for a planted git folder."""
    store, ws, marker = tmp_path / "store", tmp_path / "ws", tmp_path / "pwned"
    ready = ws / "ready"  # (the command can write only in the workspace)
    store.mkdir()
    ws.mkdir()
    git(tmp_path, "init", "-q", "--separate-git-dir", str(store / "repo.git"), str(ws))
    (ws / ".git").unlink()
    (ws / ".git").symlink_to(store / "repo.git")
    plant = (f"mkdir -p evil/objects evil/refs && echo 'ref: refs/heads/main' > evil/HEAD && "
             f"printf '{config_running(marker)}' > evil/config && rm .git && ln -s evil .git && "
             f"touch {ready} && sleep 60")
    run_agent(ws, plant, ready)
    assert os.readlink(ws / ".git") == "evil"  # what the dead agent left
    agent, store_ws = build_agent(ws, SessionOptions(), settings=Settings())  # the user starts again
    try:
        assert os.readlink(ws / ".git") == str(store / "repo.git"), agent.engine.warnings
        # the user is told, and the new session's reference is the user's link, not the plant
        assert any("earlier session ended during a sandboxed command" in w and ".git" in w
                   for w in agent.engine.warnings), agent.engine.warnings
        assert agent.ctx.sandbox is not None and agent.ctx.sandbox.links == ((".git", str(store / "repo.git")),)
    finally:
        store_ws.close()
    assert (ws / ".git.replaced-1").is_symlink()
    assert not users_status_runs_it(ws, marker)
    assert sandbox_for(ws).repaired == ()  # the record is gone once used
    assert not list(state.glob("*.pending.json"))


def test_a_hook_made_at_a_root_hooks_folder_is_moved_aside_and_placeholders_removed(tmp_path: Path,
                                                                                    state: Path) -> None:
    """core.hooksPath is the workspace itself (a hook made there is moved aside after the command),
    and an included config not made yet (bwrap's placeholder folder stands in for it meanwhile)."""
    ws, marker = tmp_path / "ws", tmp_path / "pwned"
    ready = ws / "ready"
    ws.mkdir()
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", str(ws))
    git(ws, "config", "include.path", "../ci/extra.cfg")
    plant = f"printf '#!/bin/sh\\ntouch {marker}\\n' > pre-commit && chmod +x pre-commit && touch {ready} && sleep 60"
    run_agent(ws, plant, ready)
    assert (ws / "pre-commit").is_file() and (ws / "ci").is_dir()  # what the dead agent left
    repaired = sandbox_for(ws).repaired
    assert not (ws / "pre-commit").exists() and (ws / "pre-commit.replaced-1").is_file(), repaired
    assert any("pre-commit is a git hook here" in n and "moved to pre-commit.replaced-1" in n for n in repaired)
    assert not (ws / "ci").exists()  # the empty placeholder
    subprocess.run(["git", *IDENTITY, "commit", "-q", "--allow-empty", "-m", "x"], cwd=ws, capture_output=True)
    assert not marker.exists()


def test_a_record_of_a_running_command_is_left_to_its_agent(tmp_path: Path, state: Path) -> None:
    ws = tmp_path / "ws"
    ready = ws / "ready"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / ".git").rename(ws / "real.git")
    (ws / ".git").symlink_to("real.git")
    agent = run_agent(ws, f"rm .git && mkdir .git && touch {ready} && sleep 60", ready, kill=False)
    try:
        assert recover(ws) == []  # its command holds the workspace lock: its own agent repairs
        assert (ws / ".git").is_dir() and len(list(state.glob("*.pending.json"))) == 1
    finally:
        agent.send_signal(signal.SIGKILL)
        agent.wait(10)
    assert any("the link was put back" in n for n in recover(ws))  # once that agent is gone
    assert os.readlink(ws / ".git") == "real.git"


def test_records_are_out_of_every_commands_reach(tmp_path: Path, state: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Even with the workspace at ~ (a dotfiles repository), a command cannot plant a record that the
    next session would replay outside the sandbox."""
    import asyncio

    from agent_tui.tools.sandbox import Sandbox
    from agent_tui.tools.shell_exec import run_shell

    home = tmp_path / "home"
    home.mkdir()
    git(home, "init", "-q")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_STATE_HOME")
    folder = home / ".local" / "state" / "agent-tui" / "sandbox"
    box = Sandbox(require_bwrap(), home.resolve())
    plant = f"ls {folder}; echo '{{}}' > {folder}/x.1.pending.json; echo done"
    out = asyncio.run(run_shell(plant, home, 30, sandbox=box))
    assert "done" in out.output and folder.is_dir(), out.output  # (the lock made it before the command)
    assert not list(folder.glob("x.*")) and not list(folder.glob("*.pending.json")), out.output


def test_malformed_and_hostile_records_never_stop_a_start(tmp_path: Path, state: Path) -> None:
    """A record from another version or a bug: bad shapes are reported and dropped; entries the
    sandbox never records (a link inside .git, a path outside the workspace, a hook name that is
    not one) are ignored."""
    from agent_tui.tools.sandbox_guard import lock_file

    ws, outside = (tmp_path / "ws").resolve(), tmp_path / "outside.txt"
    ws.mkdir()
    git(ws, "init", "-q")
    outside.write_text("mine\n")
    lock = lock_file(ws)
    assert lock is not None
    bad = lock.with_name(f"{lock.stem}.1.pending.json")
    bad.write_text(json.dumps({"workspace": str(ws), "links": None}))
    hostile = lock.with_name(f"{lock.stem}.2.pending.json")
    hostile.write_text(json.dumps({"workspace": str(ws), "links": [[".git/config", str(tmp_path / "evil")]],
                                   "hook_links": [["../outside.txt", "x"], [".git/hooks/pre-commit", "x"]],
                                   "absent": [str(outside), str(ws / "notahook")],
                                   "placeholders": [str(outside), str(ws / ".." / "outside.txt")]}))
    status = sandbox_for(ws)
    assert any("could not be read" in n for n in status.repaired), status.repaired
    assert outside.read_text() == "mine\n" and not (tmp_path / "outside.txt.replaced-1").exists()
    assert (ws / ".git" / "config").is_file() and not (ws / ".git" / "config").is_symlink()
    assert not bad.exists() and not hostile.exists()


def test_a_session_starting_during_anothers_recovery_waits_for_it(tmp_path: Path, state: Path) -> None:
    """Two sessions start together: the second must not take the planted link as its reference
    while the first is still putting it back."""
    from agent_tui.tools.sandbox_guard import lock_file

    store, ws = tmp_path / "store", (tmp_path / "ws")
    store.mkdir()
    ws.mkdir()
    git(tmp_path, "init", "-q", "--separate-git-dir", str(store / "repo.git"), str(ws))
    (ws / ".git").unlink()
    (ws / "evil").mkdir()
    (ws / ".git").symlink_to("evil")  # what a killed agent's command left
    lock = lock_file(ws)
    assert lock is not None
    record = lock.with_name(f"{lock.stem}.999999.pending.json")
    record.write_text(json.dumps({"workspace": str(ws.resolve()), "links": [[".git", str(store / "repo.git")]]}))
    # the first session: holds the exclusive lock while it recovers (slowly)
    first = subprocess.Popen([sys.executable, "-c", f"""
import fcntl, os, sys, time
fd = os.open({str(lock)!r}, os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX)
print("recovering", flush=True); time.sleep(1)
os.unlink({str(ws / ".git")!r}); os.symlink({str(store / "repo.git")!r}, {str(ws / ".git")!r})
os.unlink({str(record)!r})
"""], stdout=subprocess.PIPE, text=True)
    assert first.stdout is not None and first.stdout.readline().strip() == "recovering"
    status = sandbox_for(ws)  # the second session
    assert first.wait(10) == 0
    assert status.sandbox is not None and status.sandbox.links == ((".git", str(store / "repo.git")),), status
    assert status.repaired == ()


async def test_a_record_that_cannot_be_kept_is_told_once_and_the_command_still_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.tools.shell_exec import run_shell

    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))  # agent-tui/sandbox cannot be made under it
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    git(ws, "init", "-q")
    box = sandbox_for(ws).sandbox
    assert box is not None
    first = await run_shell("echo one > a.txt", ws, 30, sandbox=box)
    second = await run_shell("echo two > b.txt", ws, 30, sandbox=box)
    assert first.exit_code == 0 and (ws / "a.txt").read_text() == "one\n"
    assert second.exit_code == 0 and (ws / "b.txt").read_text() == "two\n"
    assert any("could not keep its repair record" in n for n in first.notes), first.notes
    assert not any("repair record" in n for n in second.notes), second.notes


def test_a_repository_made_by_a_killed_agents_command_is_checked_at_the_next_start(tmp_path: Path,
                                                                                   state: Path) -> None:
    """The record keeps the repositories there before the command, so the next session judges the one the
    command made (``tools/sandbox_placed.py``) instead of taking it for the user's."""
    ws, marker = tmp_path / "ws", tmp_path / "pwned"
    ready = ws / "ready"
    ws.mkdir()
    git(ws, "init", "-q")
    git(ws, "init", "-q", "mine")
    git(ws / "mine", "config", "core.pager", "less -R")  # the user's own: never judged
    plant = f"git init -q sub && git -C sub config core.fsmonitor 'touch {marker}' && touch {ready} && sleep 60"
    run_agent(ws, plant, ready)
    repaired = sandbox_for(ws).repaired
    assert (ws / "sub" / ".git.replaced-1").is_dir() and not (ws / "sub" / ".git").exists(), repaired
    assert any("sub/.git is a git repository the command made" in n for n in repaired), repaired
    assert (ws / "mine" / ".git").is_dir()
    assert not users_status_runs_it(ws / "sub", marker)


def test_the_record_reaches_the_disk_before_the_command_starts(tmp_path: Path, state: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A power cut during a command must not lose the record: the file and the folder holding it are
    synced before ``write`` returns (the calls are watched at the OS boundary)."""
    from agent_tui.tools import sandbox_journal

    ws = tmp_path / "ws"
    ws.mkdir()
    synced: list[str] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}")) or real(fd))
    assert sandbox_journal.write(ws, ())
    record = next(state.glob("*.pending.json"))
    assert synced == [str(record) + ".tmp", str(state)], synced  # the data, then the rename
    assert json.loads(record.read_text())["workspace"] == str(ws.resolve())
