"""Pilot: a reply whose stream broke is asked again, and the half that streamed leaves the screen."""

from __future__ import annotations

from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.chat_items import EventNote
from agent_tui.ui.widgets.reply import AssistantReply
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, ready, turn_done


async def test_a_broken_stream_is_asked_again_and_only_the_whole_answer_shows(fake_llm: FakeOpenAI,
                                                                               fake_app: AgentApp,
                                                                               recorder: Recorder) -> None:
    """A tester's stream broke after 12 characters: the turn ended there, with no retry and no hint."""
    fake_llm.script(Reply.cut("HALF-ANSWER that never ends", after_chunks=3, chunk_size=4),
                    Reply.text("The whole answer, second try."))
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        fake_app.main.prompt.clear()
        await pilot.press(*"explain it", "enter")
        await turn_done(pilot)
        replies = [str(r.source) for r in fake_app.main.conversation.query(AssistantReply)]
        notes = [str(n.render()) for n in fake_app.main.conversation.query(EventNote)]
        assert replies == ["The whole answer, second try."], replies
        assert any("broke off" in n and "asking again" in n for n in notes), notes
        assert len(fake_llm.chat_requests) == 2
