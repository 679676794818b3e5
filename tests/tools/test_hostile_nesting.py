"""Files a repository ships that broke a look agent-tui makes on its own: a FIFO or ``/dev/zero`` where a
worktree record should be, a hook manager's ``extends`` glob that walks the whole disk, JSON or TOML nested
deeper than Python's parsers follow, a symbolic link loop under the Python search."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from agent_tui.core.config import ConfigError, load_config
from agent_tui.core.results import MemoryResultStore
from agent_tui.core.trust import mcp_json_asks
from agent_tui.mcp.config import read_mcp_json
from agent_tui.tools.sandbox_managers import manager_paths
from agent_tui.tools.sandbox_nested import nested_repos
from agent_tui.tools.shaping import shape_result
from tests.support.gitrepo import git

from .fakes import Call

DEEP_JSON = "[" * 100_000 + "]" * 100_000


def _finishes(work: object, seconds: float = 20.0) -> bool:
    """Whether ``work()`` returns within ``seconds`` (a thread: a blocked open cannot be interrupted)."""
    thread = threading.Thread(target=work, daemon=True)  # type: ignore[arg-type]
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


@pytest.mark.parametrize("record", ["fifo", "zero"])
def test_a_worktree_record_that_is_a_fifo_or_dev_zero_is_skipped(tmp_path: Path, record: str) -> None:
    """Every approved write and command looks for worktrees kept in the workspace (``.git/worktrees/*/gitdir``);
    a FIFO there hung the app, a link to ``/dev/zero`` read until memory ran out."""
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    folder = ws / ".git" / "worktrees" / "x"
    folder.mkdir(parents=True)
    if record == "fifo":
        os.mkfifo(folder / "gitdir")
    else:
        (folder / "gitdir").symlink_to("/dev/zero")
    found: list[object] = []
    assert _finishes(lambda: found.append(nested_repos(ws)))
    assert found and found[0].dotgits == ()  # type: ignore[attr-defined]


def test_a_hook_manager_extends_glob_that_leaves_the_workspace_is_not_walked(tmp_path: Path) -> None:
    hooks = tmp_path / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\n# lefthook\nlefthook run pre-commit\n")
    (tmp_path / "lefthook.yml").write_text('extends:\n  - "../../../../../../../**/*"\n  - "/etc/*"\n'
                                           '  - "ci/*.yml"\npre-commit:\n  commands: {}\n')
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "common.yml").write_text("pre-commit: {}\n")
    started = time.monotonic()
    found = manager_paths(hooks, ["pre-commit"], tmp_path)
    assert time.monotonic() - started < 30
    assert found.get(tmp_path / "ci" / "common.yml") == "manager"
    assert all(path.is_relative_to(tmp_path) for path in found), found


def test_deeply_nested_mcp_json_and_config_are_reported_not_a_crash(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".agent-tui").mkdir(parents=True)
    (ws / ".mcp.json").write_text(DEEP_JSON)
    asks, problems = mcp_json_asks(ws / ".mcp.json")
    assert asks == [] and problems and "nested too deeply" in " ".join(problems)
    errors: list[str] = []
    assert read_mcp_json(ws / ".mcp.json", ws, errors) == {}
    assert errors and "nested too deeply" in " ".join(errors)
    (ws / ".agent-tui" / "config.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    user = tmp_path / "user.toml"
    user.write_text("")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(ws, user_file=user, trust_file=tmp_path / "trusted.toml")


def test_a_command_output_nested_too_deeply_for_json_is_shaped_as_text() -> None:
    shaped = shape_result(DEEP_JSON, max_tokens=200, store=MemoryResultStore())
    assert shaped.text and shaped.handle  # kept whole in the store, summarised in the request


async def test_a_symlink_loop_does_not_stop_the_python_search(ws: Path, call: Call,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_NO_RG", "1")
    git(ws, "init", "-q")
    (ws / "a.txt").write_text("needle\n")
    (ws / "loop").symlink_to("loop")
    (ws / "b").symlink_to("c")
    (ws / "c").symlink_to("b")
    found = await call("search", pattern="needle")
    assert not found.is_error, found.text
    assert "a.txt" in found.text
    assert json.dumps(found.text)  # a plain answer, nothing raised


def test_a_huge_mcp_json_or_config_is_refused_unread(tmp_path: Path) -> None:
    """A shipped ``.mcp.json`` with one 1.5 GB argument (1.5 MB packed) took 46 s and 6 GB before the first
    model call, and ``agent-tui trust`` printed all of it."""
    ws = tmp_path / "ws"
    (ws / ".agent-tui").mkdir(parents=True)
    huge = '{"mcpServers": {"a": {"command": "x", "args": ["' + "A" * (2 << 20) + '"]}}}'
    (ws / ".mcp.json").write_text(huge)
    asks, problems = mcp_json_asks(ws / ".mcp.json")
    assert asks == [] and "over 1 MiB" in " ".join(problems)
    errors: list[str] = []
    assert read_mcp_json(ws / ".mcp.json", ws, errors) == {} and "over 1 MiB" in " ".join(errors)
    (ws / ".mcp.json").unlink()
    (ws / ".agent-tui" / "config.toml").write_text('model = "' + "m" * (2 << 20) + '"\n')
    user = tmp_path / "user.toml"
    user.write_text("")
    with pytest.raises(ConfigError, match="over 1 MiB"):
        load_config(ws, user_file=user, trust_file=tmp_path / "trusted.toml")
