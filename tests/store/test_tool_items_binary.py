"""Tool definitions are items through the real binary: `memory list --all --json` lists one
``tool:NAME`` per tool (category ``tools``) whose tokens add up to the breakdown's tools share;
`memory evict tool:NAME` disables the tool for the session — the next request (seen by the test
server) leaves it out, and a call to it anyway runs nothing — and `memory restore` brings it back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_tui.store.store import MemoryStore
from tests.agent.helpers import make_repo
from tests.support.fake_openai import FakeOpenAI, Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def _bin(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-dummy"}
    return subprocess.run([BIN, *args, "--workspace", str(root)], capture_output=True, text=True, timeout=240,
                          env=env, stdin=subprocess.DEVNULL)


def _run(root: Path, fake: FakeOpenAI, task: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return _bin(root, "run", task, "--model", "openai/gpt-4o", "--api-base", fake.base_url, "--json", "--yes", *extra)


def _tools(root: Path) -> dict[str, dict[str, Any]]:
    proc = _bin(root, "memory", "list", "--all", "--json")
    assert proc.returncode == 0, proc.stderr
    return {r["id"]: r for r in json.loads(proc.stdout) if r["category"] == "tools"}


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
    plain = json.loads(_bin(root, "memory", "list", "--json").stdout)
    assert not any(r["category"] == "tools" for r in plain)  # the plain list stays about the conversation

    off = _bin(root, "memory", "evict", "tool:run_command")
    assert off.returncode == 0, off.stderr
    assert _tools(root)["tool:run_command"]["state"] == "evicted"
    assert _bin(root, "memory", "pin", "tool:read_file").returncode == 2  # a tool is disabled, not pinned

    fake_llm.clear()
    fake_llm.script(Reply.tool_call("run_command", {"command": "touch made.txt"}), Reply.text("ok"))
    assert _run(root, fake_llm, "make a file", "--session", sid).returncode == 0
    assert "run_command" not in _names(fake_llm.requests[0]) and "read_file" in _names(fake_llm.requests[0])
    assert not (root / "made.txt").exists()  # called anyway: refused, nothing ran
    answer = [m for m in fake_llm.requests[1].messages if m["role"] == "tool"][-1]["content"]
    assert "disabled for this session" in answer

    assert _bin(root, "memory", "restore", "tool:run_command").returncode == 0
    fake_llm.clear()
    fake_llm.script(Reply.text("back"))
    assert _run(root, fake_llm, "again", "--session", sid).returncode == 0
    assert "run_command" in _names(fake_llm.requests[0])
