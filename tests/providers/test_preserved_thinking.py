"""Claude models with preserved thinking (Fable 5.1+, Mythos 5.1+, Opus/Sonnet/Haiku 5.5) check every thinking
block sent back against the prefix it was produced after — system, tools and every earlier message, byte for
byte — and refuse the request when anything before it changed ("The block is bound to a different
conversation").  The status line used to join the latest message and be gone from it in the next request, so
step 2 of every tool loop was refused; the request now only ever grows at its end between compaction events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.providers.session_support import data_repo, long_turn
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn

PRESERVED_MODEL = "anthropic/claude-opus-5-5"


def _user_texts(body: dict[str, Any]) -> list[str]:
    out = []
    for m in body["messages"]:
        if m["role"] == "user":
            blocks = [m["content"]] if isinstance(m["content"], str) else \
                [b.get("text", "") for b in m["content"] if b.get("type") == "text"]
            out.append("".join(blocks))
    return out


async def test_a_tool_loop_and_a_second_turn_keep_every_earlier_message_byte_identical(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read first.", calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Now the folder.", calls=[("list_dir", {"path": "."})]),
                    Turn(thinking="Status.", calls=[("git_status", {})]),
                    Turn(thinking="Enough.", text="add subtracts."),
                    Turn(thinking="Again.", calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Same.", text="Still subtracts."))
        agent, ws = provider_agent(root, PRESERVED_MODEL, fake.base_url, {})
        try:
            first = await run_turn(agent, "what does add do?")
            second = await run_turn(agent, "and now?")
        finally:
            ws.close()
    assert fake.rejections == [], fake.rejections
    assert first[-1].text == "add subtracts." and second[-1].text == "Still subtracts."
    bodies = [r.body for r in fake.answered]
    first_user = _user_texts(bodies[0])[0]
    assert first_user.startswith("what does add do?") and "[context:" in first_user, "the status line went with it"
    for body in bodies[1:]:
        assert _user_texts(body)[0] == first_user, "the task's message is sent as it was sent first"
    for body in bodies[1:]:  # every turn's blocks go back, the first turn's too (the model reads them)
        assistants = [m for m in body["messages"] if m["role"] == "assistant"]
        assert assistants and all(m["content"][0]["type"] == "thinking" for m in assistants)
    for before, after in zip(bodies, bodies[1:], strict=False):
        n = len(before["messages"]) - 1  # everything before the newest message of the earlier request
        strip = json.loads(json.dumps(before["messages"][:n]).replace(', "cache_control": {"type": "ephemeral"}', ""))
        again = json.loads(json.dumps(after["messages"][:n]).replace(', "cache_control": {"type": "ephemeral"}', ""))
        assert again == strip


async def test_a_long_session_with_compaction_events_is_never_refused(tmp_path: Path) -> None:
    """A compaction event rewrites what comes before the loop's thinking blocks: they are left out of the
    requests after it, where the API would refuse them."""
    root = data_repo(tmp_path)
    with FakeAnthropic() as fake:
        fake.default = long_turn()
        agent, ws = provider_agent(root, PRESERVED_MODEL, fake.base_url, {"max_output_tokens": 4096}, window=16_000)
        agent.opts.memo_writer = "llm"
        try:
            events = await run_turn(agent, "Read the data files and tell me what is in them.")
        finally:
            ws.close()
    assert fake.rejections == [], fake.rejections
    assert events[-1].status == "done"
    assert [e for e in events if isinstance(e, ev.Compacted)], "the session had compaction events"


def test_the_fake_refuses_a_block_whose_prefix_changed_and_drops_it_when_asked(tmp_path: Path) -> None:
    """The check the tests above rely on: the same thinking block after an edited earlier message is refused,
    unless the request asks the API to drop such blocks."""
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Look.", calls=[("list_dir", {"path": "."})]), Turn(text="ok"), Turn(text="ok"))
        url = fake.base_url.rstrip("/") + "/v1/messages"
        tools = [{"name": "list_dir", "description": "d", "input_schema": {"type": "object", "properties": {}}}]
        first = {"model": "claude-opus-5-5", "max_tokens": 1024, "tools": tools,
                 "messages": [{"role": "user", "content": "look"}]}
        reply = httpx.post(url, json=first, headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
        content = reply.json()["content"]
        use = next(b for b in content if b["type"] == "tool_use")
        loop = [{"role": "assistant", "content": content},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "a b"}]}]
        edited = {**first, "messages": [{"role": "user", "content": "look [context: 5%]"}, *loop]}
        refused = httpx.post(url, json=edited, headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
        assert refused.status_code == 400 and "bound to a different conversation" in refused.text
        dropped = {**edited, "thinking": {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}}
        same = {**first, "messages": [*first["messages"], *loop]}
        for body in (dropped, same):
            ok = httpx.post(url, json=body, headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
            assert ok.status_code == 200, ok.text


async def test_the_memo_call_is_served_from_the_cache_like_a_step(tmp_path: Path) -> None:
    """The end-of-turn memo went without tools: for a history holding tool calls litellm then adds a dummy tool,
    the prefix differs from every step's and nothing was read from Claude's cache (a full-price write of the
    whole context each turn)."""
    from tests.providers.session_support import CLAUDE, THINKING, last_text

    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        replies = iter([Turn(thinking="Run it.", calls=[("run_command", {"command": "echo hi"})]),
                        Turn(thinking="Done.", text="It printed hi.")])
        fake.default = lambda body: (Turn(text="Changed: nothing. Why: a check. Left: nothing.")
                                     if "Write a progress memo" in last_text(body) else next(replies))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, THINKING)
        agent.opts.memo_writer = "llm"
        try:
            events = await run_turn(agent, "run echo hi")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done"
    memo = [i for i, r in enumerate(fake.answered) if "Write a progress memo" in last_text(r.body)]
    assert memo, "the turn wrote its memo with the model"
    body, usage = fake.answered[memo[0]].body, fake.usages[memo[0]]
    assert body.get("tools") == fake.answered[memo[0] - 1].body.get("tools")
    assert usage["cache_read_input_tokens"] > 0, usage


async def test_interleaved_thinking_is_never_sent_back_moved(tmp_path: Path) -> None:
    """A reply [thinking A, call 1, thinking B, call 2]: litellm sends a message's thinking blocks before its
    calls, so B went back before call 1 — a changed prefix for B, refused.  B stays out; A goes back."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read both.", interleaved="Now the folder.",
                         calls=[("read_file", {"path": "calc.py"}), ("list_dir", {"path": "."})]),
                    Turn(thinking="Enough.", text="add subtracts."))
        agent, ws = provider_agent(root, PRESERVED_MODEL, fake.base_url, {})
        try:
            events = await run_turn(agent, "what does add do?")
        finally:
            ws.close()
    assert fake.rejections == [], fake.rejections
    assert events[-1].text == "add subtracts."
    sent = fake.answered[1].body["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["thinking", "tool_use", "tool_use"] and sent[0]["thinking"] == "Read both."


async def test_reasoning_left_out_after_an_event_is_not_counted(tmp_path: Path) -> None:
    """After a compaction event the loop's earlier blocks stay out (their prefix changed), but the budget still
    counted them: the gauge and the compaction trigger saw tokens that were not sent (found by a review)."""
    root = data_repo(tmp_path)
    with FakeAnthropic() as fake:
        fake.default = long_turn(steps=14)
        agent, ws = provider_agent(root, PRESERVED_MODEL, fake.base_url, {"max_output_tokens": 4096}, window=16_000)
        try:
            events = await run_turn(agent, "Read the data files and tell me what is in them.")
        finally:
            ws.close()
    assert fake.rejections == [] and [e for e in events if isinstance(e, ev.Compacted)]
    budgets = [e for e in events if isinstance(e, ev.BudgetUpdated)]
    steps = [r for r in fake.answered
             if "Summarise" not in str(r.body["messages"][-1])[-400:] and "progress memo" not in str(r.body["messages"][-1])[-400:]]
    assert len(budgets) == len(steps)
    empty = 0
    for budget, request in zip(budgets, steps, strict=True):
        sent = sum(len(b.get("thinking", "")) for m in request.body["messages"] if isinstance(m["content"], list)
                   for b in m["content"] if b.get("type") == "thinking")
        if not sent:
            empty += 1
            assert budget.categories.get("reasoning", 0) == 0, (budget.categories, request.body["messages"][-1])
    assert empty >= 2, "the session had requests with no thinking sent back (the first, and after each event)"
