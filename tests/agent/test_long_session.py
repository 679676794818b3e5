"""A long session under a 16K window: every request fits, and the facts that matter stay in it.

Checked on the server side, on what the model really received: the pinned rule, the task
statement and the edited file's latest content (as on disk at that moment) are in every agent
request; no request exceeds the window; tool-call pairing is valid everywhere.  The test also
prints tokens per request against an append-everything run (numbers for the issue note).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.core.config import Settings
from agent_tui.core.pairing import check_pairing
from agent_tui.core.tokens import counter_for
from agent_tui.store.workspace import Workspace
from tests.agent.helpers import is_agent_request, make_agent, make_repo, request_tokens, run_turn
from tests.support.fake_openai import Reply

WINDOW = 16000
RULE = "Use pnpm, never npm, for anything JavaScript."
TASK = "Refactor main.py step by step: bump VERSION each time and keep the log tidy. Go."
STEPS = 64


def _data_file(n: int) -> str:
    return "\n".join(f"record {n}-{i}: value={i * 7 % 13} status={'ok' if i % 5 else 'WARN'}" for i in range(260))


def _script(root: Path, seen: list[dict[str, Any]]):
    state = {"step": 0, "version": 0}

    def reply(req: dict[str, Any]) -> Reply:
        msgs = req["messages"]
        if str(msgs[0].get("content", "")).startswith("You compress") \
                or str(msgs[-1].get("content", "")).startswith("You compress"):  # the summariser
            return Reply.text("User instructions:\n- refactor main.py\nAgent decisions:\n- bump VERSION")
        if "Write a progress memo" in str(msgs[-1].get("content", "")):
            return Reply.text("Changed: main.py VERSION bumped. Why: task. Left: nothing.")
        text = "\n".join(str(m.get("content") or "") for m in msgs)
        seen.append({
            "step": state["step"],
            "rule": RULE in text,
            "task": TASK in text,
            "file": (root / "main.py").read_text() in text if state["step"] > 2 else True,
            "pairing": check_pairing(msgs),
        })
        state["step"] += 1
        k = state["step"]
        if k == 1:
            return Reply.tool_call("read_file", {"path": "main.py"})
        if k >= STEPS:
            return Reply.text("Done: VERSION bumped repeatedly, logs tidy.")
        if k % 6 == 0:
            old = f"VERSION = {state['version']}"
            state["version"] += 1
            return Reply.tool_call("edit_file", {"path": "main.py", "old_text": old,
                                                 "new_text": f"VERSION = {state['version']}"})
        if k % 3 == 0:
            return Reply.tool_call("run_command", {"command": f"python -c \"print('log line {k} ' * 900)\""})
        return Reply.tool_call("read_file", {"path": f"data/d{k % 9}.txt"})

    return reply


async def run_long_session(tmp_path: Path, fake_llm: Any) -> tuple[Path, Any, list[Any], list[Any], list[dict[str, Any]]]:
    """The scripted 60+-step turn on a fresh repo with a pinned rule: (root, agent, events, stored, seen)."""
    root = make_repo(tmp_path / "proj")
    (root / "main.py").write_text("VERSION = 0\n\n\ndef main():\n    print('hello', VERSION)\n")
    (root / "data").mkdir()
    for n in range(9):
        (root / "data" / f"d{n}.txt").write_text(_data_file(n))
    ws = Workspace(root, Settings(model="openai/gpt-4o", window=WINDOW))
    ws.add_rule(RULE)
    ws.close()
    seen: list[dict[str, Any]] = []
    fake_llm.default_reply = _script(root, seen)
    agent, ws = make_agent(root, fake_llm.base_url, window=WINDOW, settings=Settings(max_steps=STEPS + 5))
    try:
        events = await run_turn(agent, TASK)
        stored = ws.store.messages(agent.engine.session_id)
    finally:
        ws.close()
    return root, agent, events, stored, seen


async def test_long_session_stays_in_window_and_keeps_what_matters(tmp_path: Path, fake_llm) -> None:
    root, agent, events, stored, seen = await run_long_session(tmp_path, fake_llm)
    engine = agent.engine
    assert events[-1].status == "done", [e for e in events if isinstance(e, ev.ErrorEvent)]
    agent_reqs = [r for r in fake_llm.requests if is_agent_request(r)]
    assert len(agent_reqs) >= 60
    sizes = [request_tokens(r) for r in fake_llm.requests]
    assert max(sizes) <= WINDOW, max(sizes)
    assert all(s["pairing"] == [] for s in seen)
    assert all(s["rule"] for s in seen), [s["step"] for s in seen if not s["rule"]]
    assert all(s["task"] for s in seen), [s["step"] for s in seen if not s["task"]]
    assert all(s["file"] for s in seen), [s["step"] for s in seen if not s["file"]]
    assert "VERSION = 10" in (root / "main.py").read_text()
    assert any(isinstance(e, ev.Compacted) for e in events)
    # every message is stored, verbatim, even those compacted out of the window
    assert len(stored) == 1 + 2 * (len(agent_reqs) - 1) + 1

    # what an append-everything agent would have sent: all stored messages up to each request
    c = counter_for("openai/gpt-4o")
    full, running = [], c.count(engine.system.content) + 3
    tools = c.count(json.dumps(agent_reqs[0].tools, sort_keys=True))
    msgs = iter(stored)
    for m in msgs:
        running += c.count(m["content"] or "") + 4 + (c.count(m["tool_calls"]) if m["tool_calls"] else 0)
        if m["role"] in ("user", "tool"):
            full.append(running + tools)
    ours = [request_tokens(r) for r in agent_reqs]
    print(f"\nlong session: {len(ours)} requests; ours mean {sum(ours) / len(ours):,.0f} max {max(ours):,} "
          f"total {sum(ours):,}; append-everything mean {sum(full) / len(full):,.0f} max {max(full):,} "
          f"total {sum(full):,}; over window: {sum(1 for f in full if f > WINDOW)}")
