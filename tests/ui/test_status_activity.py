"""Pilot tests: the status line says what the turn is doing — the model again once a tool finished, and a
retry with its wait — not the last tool's name for as long as the model takes (a tester's report)."""

from __future__ import annotations

from agent_tui.ui.app import AgentApp
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, ready, wait_for


async def test_after_a_tool_the_status_says_the_model_is_thinking(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                                  recorder: Recorder) -> None:
    fake_llm.script(Reply.tool_calls([("read_file", {"path": "notes.md"})]),
                    Reply.text("The answer is 42.", delay=1.5))
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"what is the answer?", "enter")
        await wait_for(pilot, lambda: len(fake_llm.requests) >= 2, "the second model call")
        assert app.turn_running and app.main.status.state == "thinking…", app.main.status.state


async def test_a_rate_limit_wait_says_it_is_retrying(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                     recorder: Recorder) -> None:
    fake_llm.script(Reply.rate_limit(retry_after=3), Reply.text("done"))
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: app.main.status.state.startswith("retrying"), "the retry")
        assert "(1) in 3s" in app.main.status.state and "rate limit" in app.main.status.state.lower()
        # and it counts down (a tester read "in 6s" for the whole wait)
        await wait_for(pilot, lambda: "(1) in 1s" in app.main.status.state or "(1) in 2s" in app.main.status.state,
                       "the countdown")


async def test_a_refused_call_says_why_on_its_line(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                   recorder: Recorder) -> None:
    """A write refused before (or after) its approval showed as "✗ edit_file notes.md", like a denial; the
    reason was only in the inspector."""
    from agent_tui.ui.widgets.tool_panel import ToolCallPanel

    fake_llm.script(Reply.tool_calls([("edit_file", {"path": "notes.md", "old_text": "42", "new_text": "43"})]),
                    Reply.text("I could not edit it."))
    app = fake_app
    async with app.run_test(size=(120, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"change the answer", "enter")
        await wait_for(pilot, lambda: any(p.status == "error" for p in app.main.conversation.query(ToolCallPanel)),
                       "the refused call")
        panel = next(p for p in app.main.conversation.query(ToolCallPanel) if p.status == "error")
        assert "· refused: read 'notes.md' first" in str(panel.title), str(panel.title)
