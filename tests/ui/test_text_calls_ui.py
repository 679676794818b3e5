"""Pilot: a local model's tool call written as the text of its reply runs as a call, and the JSON that
streamed leaves the screen (its tool panel shows the call); the user is told once."""

from __future__ import annotations

import json

from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.chat_items import EventNote
from agent_tui.ui.widgets.reply import AssistantReply
from agent_tui.ui.widgets.tool_panel import ToolCallPanel
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, ready, turn_done


async def test_a_call_written_as_text_shows_as_a_call_not_as_json(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                                  recorder: Recorder) -> None:
    written = "<tool_call>\n" + json.dumps({"name": "read_file", "arguments": {"path": "notes.md"}}) + "\n</tool_call>"
    fake_llm.script(Reply.text(written), Reply.text("Nothing is changed."))
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        fake_app.main.prompt.clear()
        await pilot.press(*"what changed?", "enter")
        await turn_done(pilot)
        conv = fake_app.main.conversation
        replies = [str(r.source) for r in conv.query(AssistantReply)]
        panels = [p for p in conv.query(ToolCallPanel)]
        notes = [str(n.render()) for n in conv.query(EventNote)]
        assert replies == ["Nothing is changed."], replies
        assert [(p.tool_name, p.status) for p in panels] == [("read_file", "ok")], panels
        assert sum("as the text of its reply" in n for n in notes) == 1, notes
