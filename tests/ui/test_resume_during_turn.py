"""Pilot tests: f5 during a turn opens the session list (looking is harmless), and choosing another session
there while the turn runs says to wait, rather than switching under the turn.  It used to refuse the key, so
the enter the user pressed next, meant for the list, went to the box and was refused there as a message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.ui.app import AgentApp
from agent_tui.ui.messages import TaskSubmitted, TurnEnded
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, ready, turn_done, wait_for
from .test_draft_stash import SLOW
from .test_session import highlight_session, pick_session, type_command


async def test_f5_in_a_turn_lists_the_sessions_and_a_choice_waits_for_the_turn(
        fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder, tmp_path: Path) -> None:
    answers = iter([Reply.text("first answer"), Reply.text(SLOW, chunk_size=8, chunk_delay=0.05)])

    def reply(request: dict[str, Any]) -> Reply:
        if "progress memo" in json.dumps(request["messages"][-1]).lower():  # (/new saves one first)
            return Reply.text("memo: said one")
        return next(answers)

    fake_llm.default_reply = reply
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder, notifications=True) as pilot:
        await ready(pilot)
        await pilot.press(*"one", "enter")
        await turn_done(pilot)
        first = app.controller.session_id
        await type_command(pilot, "/new")
        await wait_for(pilot, lambda: app.controller.session_id != first, "the new session")
        second = app.controller.session_id
        await pilot.press(*"two", "enter")
        await wait_for(pilot, lambda: app.turn_running, "the slow turn")
        prompt = app.main.prompt
        prompt.text = "my draft"
        await pilot.press("f5")
        await highlight_session(pilot, first)  # (the list opens during the turn)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("A turn is running: resume" in n.message for n in app._notifications),
                       "the word to wait")
        assert app.turn_running and app.controller.session_id == second, "no switch under the running turn"
        assert app.screen is app.main and prompt.text == "my draft", "the enter did not reach the box"
        sent = list(dict.fromkeys(m.text for m in recorder.of(TaskSubmitted)))
        assert sent == ["one", "two"]
        await pilot.press("escape", "escape")  # (an overlay just closed: the first esc only warns, the second cancels)
        await wait_for(pilot, lambda: len(recorder.of(TurnEnded)) == 2, "the cancelled turn")
        assert recorder.of(TurnEnded)[-1].status == "cut", "cancelled, not streamed to its end (33 s)"
        await pilot.press("f5")
        await pick_session(pilot, first)
