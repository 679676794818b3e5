"""A user message larger than the room the window leaves is refused before it is sent, and says why.

Sent as it was, a provider answered 400 (two wasted calls and a compaction that changed nothing), or one
that took it billed for it and the next compaction folded it into a 41-token summary."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent import events as ev
from agent_tui.core.message_fit import room, too_large
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


def _words(n: int) -> str:
    return " ".join(f"w{i}x" for i in range(n))


async def test_a_message_over_the_room_is_refused_and_nothing_is_sent(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.script(Reply.text("fine"))
        agent, ws = make_agent(root, server.base_url, window=16_000)
        try:
            agent.engine.tools_tokens(agent.runner.schemas(agent.engine))
            space, head = room(agent.engine)
            assert 0 < space < agent.engine.plan.input_budget and head > 0
            big = _words(12_000)  # ~36K tokens against a 16K window
            events = await run_turn(agent, big)
            assert server.chat_requests == []
            (error,) = [e for e in events if isinstance(e, ev.ErrorEvent)]
            assert error.fatal and "Not sent" in error.message and f"room for {space:,}" in error.message
            assert [e.status for e in events if isinstance(e, ev.TurnFinished)] == ["error"]
            assert all(it.content != big for it in agent.engine.items.values()), "the message entered no item"
            small = _words(20)
            assert too_large(agent.engine, small) == ""
            events = await run_turn(agent, small)
            assert [e.status for e in events if isinstance(e, ev.TurnFinished)] == ["done"]
            assert small in str(server.chat_requests[-1].messages)
        finally:
            ws.close()


def test_a_message_just_inside_the_room_is_sent(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    agent, ws = make_agent(root, "http://127.0.0.1:9", window=16_000)
    try:
        space, _ = room(agent.engine)
        text = "x " * 40_000
        counted = agent.engine.counter.count
        fitting = text[: next(n for n in range(len(text), 0, -500) if counted(text[:n]) <= space)]
        assert too_large(agent.engine, fitting) == ""
        assert too_large(agent.engine, fitting + " y" * 600)
    finally:
        ws.close()


def test_the_first_message_is_checked_with_the_tools_counted_and_a_full_head_is_named(tmp_path: Path) -> None:
    """Before the first request the engine had not counted the tools (about 1,900 tokens), so the first
    message, the usual moment for a big paste, got a check that loose; and with the head alone over the
    budget every message, even "yes", was told to be shorter."""
    root = make_repo(tmp_path / "repo")
    agent, ws = make_agent(root, "http://127.0.0.1:9", window=4_096)
    try:
        eng = agent.engine
        loose, _ = room(eng)
        tools = agent.runner.schemas(eng)
        between = "x " * (loose - 300)  # fits the room the engine knew before the tools were counted
        refused = too_large(eng, between, tools)
        assert eng.head.tools_tokens > 1_000 and refused.startswith("Not sent: your message is about")
        assert room(eng)[0] < loose - 1_000
        for n in range(40):
            eng.pin_rule(f"rule {n}: " + "keep this in mind always " * 20)
        full = too_large(eng, "yes " * 400, tools)
        assert "leaves no room for a message" in full and "/tools off" in full
    finally:
        ws.close()
