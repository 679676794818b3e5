"""Helpers for the agent-loop tests: a temp git project and an agent wired to the fake server."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.agent.session import SessionOptions, build_agent
from agent_tui.core.config import Settings
from agent_tui.core.tokens import counter_for
from agent_tui.store.workspace import Workspace

CALC = '''def add(a, b):
    return a - b


def mul(a, b):
    return a * b
'''
TEST_CALC = '''from calc import add, mul


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(2, 3) == 6
'''


def make_repo(root: Path) -> Path:
    """A small git project with a failing test (add subtracts)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "calc.py").write_text(CALC)
    (root / "test_calc.py").write_text(TEST_CALC)
    (root / ".gitignore").write_text(".agent-tui/\n__pycache__/\n.pytest_cache/\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=root, check=True)
    return root


def make_agent(root: Path, base_url: str, *, window: int | None = None, yes: bool = True,
               approver: Any = None, settings: Settings | None = None, session: str | None = None,
               key: str | None = "sk-test-PLANTED-0123456789abcdef") -> Any:
    from dataclasses import replace

    base = settings or Settings()
    s = replace(base, model="openai/gpt-4o", api_base=base_url, window=window or base.window)
    agent, ws = build_agent(root, SessionOptions(yes=yes, session=session, interactive=approver is not None),
                            approver=approver, settings=s)
    agent.llm.api_key = key
    agent.llm.timeout = 5.0
    agent.llm.backoff_base = 0.01
    agent.llm.backoff_cap = 0.05
    return agent, ws


async def run_turn(agent: Any, task: str) -> list[ev.Event]:
    out = []
    async for e in agent.run(task):
        out.append(e)
    return out


async def run_mcp_turn(root: Path, base_url: str, task: str, approver: Any = None) -> list[ev.Event]:
    """One turn of a real agent with the workspace's ``.mcp.json`` servers started (and closed); with an
    ``approver`` the policy asks it, as the TUI's dialog is asked (else ``--yes``)."""
    from agent_tui.agent.mcp_setup import make_mcp_manager

    agent, ws = make_agent(root, base_url, yes=approver is None, approver=approver)
    mcp = make_mcp_manager(agent.engine, ws.root, workspace_json=True)
    assert mcp is not None
    await mcp.start()
    agent.runner.mcp = mcp
    try:
        return await run_turn(agent, task)
    finally:
        await mcp.close()
        ws.close()


def request_tokens(req: Any) -> int:
    """Tokens of a recorded request as the server sees it (messages + tool definitions)."""
    import json

    c = counter_for("openai/gpt-4o")
    tools = req.tools
    return c.count_messages(req.messages) + (c.count(json.dumps(tools, sort_keys=True)) if tools else 0)


def is_agent_request(req: Any) -> bool:
    """Requests of the agent loop (not the summariser's or the memo writer's)."""
    msgs = req.messages
    if not msgs:
        return False
    if str(msgs[0].get("content", "")).startswith("You compress") \
            or str(msgs[-1].get("content", "")).startswith("You compress"):  # (resends the request)
        return False
    return "Write a progress memo" not in str(msgs[-1].get("content", ""))


def stored_messages(ws: Workspace, session_id: str) -> list[dict[str, Any]]:
    return ws.store.messages(session_id)
