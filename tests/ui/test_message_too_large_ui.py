"""Pilot: a pasted message larger than the window's room is not sent; it stays in the box, and says why."""

from __future__ import annotations

from textual import events

from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.chat_items import UserMessage
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, ready, turn_done, wait_for


async def test_a_paste_too_large_for_the_window_stays_in_the_box(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                                 recorder: Recorder) -> None:
    big = "\n".join(f"line {i}: " + " ".join(f"w{i}x{j}" for j in range(40)) for i in range(4000))
    fake_llm.script(Reply.text("short one answered"))
    async with fake_app.run_test(size=(100, 30), message_hook=recorder, notifications=True) as pilot:
        await ready(pilot)
        prompt = fake_app.main.prompt
        prompt.clear()
        fake_app.post_message(events.Paste(big))
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.title == "Message too large" for n in fake_app._notifications),
                       "the refusal")
        (said,) = [n.message for n in fake_app._notifications if n.title == "Message too large"]
        assert "Not sent" in said and "back in the box" in said
        assert prompt.expanded() == big
        assert fake_llm.chat_requests == []
        assert not list(fake_app.main.conversation.query(UserMessage))
        prompt.clear()
        await pilot.press(*"a short one", "enter")
        await turn_done(pilot)
        assert "a short one" in str(fake_llm.chat_requests[-1].messages)
