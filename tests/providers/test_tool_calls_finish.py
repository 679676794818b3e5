"""Tool-call robustness and finish_reason through the real loop, litellm and the fake server.

A malformed or cut tool call must not poison the history (it is resent as ``{}``, its error
is in the tool result), parallel calls sharing an ``index`` stay separate, a reply cut by
the output limit or empty is said, and the 'compacted harder' retry really sends less.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.agent import events as ev
from tests.agent.helpers import is_agent_request, make_agent, make_repo, request_tokens, run_turn
from tests.support.fake_openai import FakeOpenAI, Reply, ToolCallSpec


def _calls_sent(fake: FakeOpenAI) -> list[dict]:
    return [c for r in fake.chat_requests for m in r.messages for c in m.get("tool_calls") or []]


async def test_malformed_call_is_resent_as_empty_object_with_error_in_result(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    fake_llm.script(Reply.malformed_tool_call("read_file", '{"path": "calc.py", '), Reply.text("ok"),
                    Reply.text("second turn works"))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "read calc.py")
        second = await run_turn(agent, "and now?")
        item = next(it for it in agent.engine.items.values() if it.role == "assistant" and it.tool_calls)
    finally:
        ws.close()
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert finished and finished[0].is_error and "valid JSON" in finished[0].text
    sent = _calls_sent(fake_llm)
    assert sent and all(json.loads(c["function"]["arguments"]) == {} for c in sent)
    assert item.provenance["raw_arguments"][item.tool_calls[0]["id"]] == '{"path": "calc.py", '
    assert second[-1].status == "done" and second[-1].text == "second turn works"


async def test_parallel_calls_sharing_an_index_stay_separate(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    fake_llm.script(Reply.tool_calls([("read_file", {"path": "calc.py"}), ("list_dir", {"path": "."})],
                                     shared_index=True), Reply.text("both read"))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "look around")
    finally:
        ws.close()
    names = [e.name for e in events if isinstance(e, ev.ToolCallFinished)]
    assert names == ["read_file", "list_dir"]
    assert not any(e.is_error for e in events if isinstance(e, ev.ToolCallFinished))
    assert events[-1].status == "done"


async def test_call_cut_by_length_is_answered_not_run_and_not_replayed(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    cut = Reply(calls=[ToolCallSpec("write_file", '{"path": "big.py", "content": "def f():\\n    ret')],
                finish_reason="length")
    fake_llm.script(cut, Reply.text("I will write it in parts"))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "write big.py")
    finally:
        ws.close()
    assert not (root / "big.py").exists()
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert finished[0].is_error and "cut off by the output limit" in finished[0].text
    warnings = [e for e in events if isinstance(e, ev.ErrorEvent) and not e.fatal]
    assert any("output limit" in w.message for w in warnings)
    second = fake_llm.chat_requests[1]
    sent = [c for m in second.messages for c in m.get("tool_calls") or []]
    assert sent and sent[0]["function"]["arguments"] == "{}"
    assert events[-1].status == "done"


async def test_text_cut_by_length_is_said(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    fake_llm.script(Reply.text("The answer is", finish_reason="length"))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "explain")
    finally:
        ws.close()
    assert events[-1].status == "truncated" and events[-1].text == "The answer is"
    assert any(isinstance(e, ev.ErrorEvent) and "output limit" in e.message for e in events)


async def test_empty_reply_does_not_end_done_silently(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    fake_llm.script(Reply.text(""))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "hello")
    finally:
        ws.close()
    assert events[-1].status == "empty"
    assert any(isinstance(e, ev.ErrorEvent) and "empty reply" in e.message for e in events)


async def test_overflow_retry_shortens_a_huge_write_that_already_ran(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    big = "".join(f"line {i}: {'x' * 70}\n" for i in range(1000))  # ~80 KB

    def answer(body: dict) -> Reply:
        if not is_agent_request(type("R", (), {"messages": body["messages"]})()):
            return Reply.text("summary")
        n = request_tokens(type("R", (), {"messages": body["messages"], "tools": body.get("tools")})())
        return Reply.context_length_exceeded(16000, n) if n > 16000 else Reply.text("written")

    # (streamed in large pieces: at the usual 7 characters a piece the 80 KB took 11,700 chunks, 10 s of CPU)
    fake_llm.script(Reply.tool_call("write_file", {"path": "big.txt", "content": big}, args_chunk_size=1024))
    fake_llm.default_reply = answer
    agent, ws = make_agent(root, fake_llm.base_url, window=200_000)
    try:
        events = await run_turn(agent, "write big.txt")
    finally:
        ws.close()
    assert (root / "big.txt").read_text() == big
    agent_reqs = [r for r in fake_llm.chat_requests if is_agent_request(r)]
    sizes = [request_tokens(r) for r in agent_reqs]
    assert sizes[1] > 16000 and sizes[-1] < 16000, sizes
    assert events[-1].status == "done" and events[-1].text == "written"


async def test_a_tool_name_the_model_made_up_does_not_break_later_requests(tmp_path: Path) -> None:
    """The model called ``functions.read_file``: the call got "unknown tool" back, but it stayed in the history
    as it was, and OpenAI refuses such a name anywhere in a request (400 on every later step)."""
    from tests.support.fake_dialect import Turn
    from tests.support.fake_strict_openai import FakeStrictOpenAI

    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI() as fake:
        fake.script(Turn(calls=[("functions.read_file", {"path": "calc.py"})]),
                    Turn(calls=[("read_file", {"path": "calc.py"})]), Turn(text="read it"))
        agent, ws = make_agent(root, fake.base_url + "/v1")
        try:
            events = await run_turn(agent, "read calc.py")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done"
    first = next(e for e in events if isinstance(e, ev.ToolCallFinished))
    assert first.is_error and "functions.read_file" in first.text, "the model is told the name it used"
    names = [c["function"]["name"] for r in fake.answered for m in r.body["messages"]
             for c in m.get("tool_calls") or []]
    assert "functions_read_file" in names and "functions.read_file" not in names
