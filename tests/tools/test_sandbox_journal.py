"""An agent killed during a sandboxed command: the repair it never ran is done by the next session
(``tools/sandbox_journal.py``), before that session takes the planted state as its reference."""

from __future__ import annotations

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
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache (where the records live), shared with the child agent."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


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


def test_a_git_link_swapped_by_a_killed_agents_command_is_put_back(tmp_path: Path, cache: Path) -> None:
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
    assert not list((cache / "agent-tui" / "sandbox").glob("*.pending.json"))


def test_a_hook_made_at_a_root_hooks_folder_is_moved_aside_and_placeholders_removed(tmp_path: Path,
                                                                                    cache: Path) -> None:
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


def test_a_record_of_a_running_command_is_left_to_its_agent(tmp_path: Path, cache: Path) -> None:
    ws = tmp_path / "ws"
    ready = ws / "ready"
    ws.mkdir()
    git(ws, "init", "-q")
    agent = run_agent(ws, f"touch {ready} && sleep 1", ready, kill=False)
    assert recover(ws) == []  # its command holds the workspace lock
    assert list((cache / "agent-tui" / "sandbox").glob("*.pending.json"))
    assert agent.wait(30) == 0
    assert not list((cache / "agent-tui" / "sandbox").glob("*.pending.json"))  # its own repair cleared it
