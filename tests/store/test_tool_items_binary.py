"""Tool definitions are items through the real binary: `memory list --all --json` lists one
``tool:NAME`` per tool (category ``tools``) whose tokens add up to the breakdown's tools share;
`memory evict tool:NAME` disables the tool for the session — the next request (seen by the test
server) leaves it out, and a call to it anyway runs nothing — and `memory restore` brings it back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agent_tui.store.store import MemoryStore
from tests.agent.helpers import make_repo
from tests.support.binary import agent_tui, memory_rows, run_json
from tests.support.fake_openai import FakeOpenAI, Reply


def _run(root: Path, fake: FakeOpenAI, task: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_json(root, fake, task, "--yes", *extra)


def _tools(root: Path) -> dict[str, dict[str, Any]]:
    return {k: r for k, r in memory_rows(root).items() if r["category"] == "tools"}


def _names(req: Any) -> set[str]:
    return {t["function"]["name"] for t in req.tools or []}


def test_tools_are_items_and_a_disabled_tool_leaves_the_next_request(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(Reply.text("hello"))
    assert _run(root, fake_llm, "hi").returncode == 0
    sent = _names(fake_llm.requests[0])
    rows = _tools(root)
    assert set(rows) == {f"tool:{n}" for n in sent} and "tool:run_command" in rows
    store = MemoryStore.open(root / ".agent-tui" / "memory.db")
    sid = store.latest_session()
    bd = store.assemblies(sid, limit=1)[0]["breakdown"]
    store.close()
    assert bd["categories"]["tools"] == sum(r["tokens"] for r in rows.values())
    plain = json.loads(agent_tui(root, "memory", "list", "--json").stdout)
    assert not any(r["category"] == "tools" for r in plain)  # the plain list stays about the conversation

    off = agent_tui(root, "memory", "evict", "tool:run_command")
    assert off.returncode == 0, off.stderr
    assert _tools(root)["tool:run_command"]["state"] == "evicted"
    assert agent_tui(root, "memory", "pin", "tool:read_file").returncode == 2  # a tool is disabled, not pinned
    typo = agent_tui(root, "memory", "evict", "tool:run_comand")
    assert typo.returncode == 2 and "no tool 'run_comand'; the tools are:" in typo.stderr
    assert "run_command" in typo.stderr, "the names it could have meant"

    fake_llm.clear()
    fake_llm.script(Reply.tool_call("run_command", {"command": "touch made.txt"}), Reply.text("ok"))
    assert _run(root, fake_llm, "make a file", "--session", sid).returncode == 0
    assert "run_command" not in _names(fake_llm.requests[0]) and "read_file" in _names(fake_llm.requests[0])
    assert not (root / "made.txt").exists()  # called anyway: refused, nothing ran
    answer = [m for m in fake_llm.requests[1].messages if m["role"] == "tool"][-1]["content"]
    assert "disabled for this session" in answer

    assert agent_tui(root, "memory", "restore", "tool:run_command").returncode == 0
    fake_llm.clear()
    fake_llm.script(Reply.text("back"))
    assert _run(root, fake_llm, "again", "--session", sid).returncode == 0
    assert "run_command" in _names(fake_llm.requests[0])
