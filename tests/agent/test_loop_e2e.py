"""The agent loop end to end: real litellm, real tools, the fake model server on 127.0.0.1."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_tui.agent import events as ev
from agent_tui.core.pairing import check_pairing
from tests.agent.helpers import is_agent_request, make_agent, make_repo, request_tokens, run_turn
from tests.support.fake_openai import Reply


async def test_read_edit_test_finish(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}),
        Reply.tool_call("run_command", {"command": "python -m pytest -q test_calc.py"}),
        Reply.text("Fixed add(): it subtracted. Tests pass."),
    )
    agent, ws = make_agent(root, fake_llm.base_url, window=16000)
    try:
        events = await run_turn(agent, "add() is wrong, fix it and run the tests")
    finally:
        ws.close()
    finished = [e for e in events if isinstance(e, ev.TurnFinished)][-1]
    assert finished.status == "done", events
    diff = subprocess.run(["git", "diff"], cwd=root, capture_output=True, text=True, check=True).stdout
    changed = [ln for ln in diff.splitlines() if ln.startswith(("+", "-")) and not ln.startswith(("+++", "---"))]
    assert changed == ["-    return a - b", "+    return a + b"]
    results = {e.name: e for e in events if isinstance(e, ev.ToolCallFinished)}
    assert "2 passed" in results["run_command"].text
    assert not results["edit_file"].is_error
    assert any(isinstance(e, ev.MemoSaved) and e.kind == "auto" for e in events)
    reqs = fake_llm.requests
    assert len([r for r in reqs if is_agent_request(r)]) == 4
    for r in reqs:
        assert check_pairing(r.messages) == [], r.messages
        assert request_tokens(r) <= 16000
    # the active file's latest content reaches the model after the edit
    assert "return a + b" in "\n".join(str(m.get("content") or "") for m in reqs[3].messages)


async def test_parallel_calls_and_malformed_arguments(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(
        Reply.tool_calls([("read_file", {"path": "calc.py"}), ("read_file", {"path": "test_calc.py"})]),
        Reply.malformed_tool_call("read_file", '{"path": "calc.py", '),
        Reply.text("done reading"),
    )
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "read both files")
        stored = ws.store.messages(agent.engine.session_id)
    finally:
        ws.close()
    finished = [e for e in events if isinstance(e, ev.TurnFinished)][-1]
    assert finished.status == "done"
    results = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert [r.is_error for r in results] == [False, False, True]
    assert "not valid JSON" in results[2].text
    # the model was told about the malformed call in the next request, paired with its call
    third = fake_llm.requests[2].messages
    assert check_pairing(third) == []
    assert "not valid JSON" in third[-1]["content"]
    assert [m["role"] for m in stored].count("tool") == 3
