"""Pilot tests: a command that takes no argument refuses words after it and gives the line back, instead of
running and dropping them (`/memo remember the threshold=0 case` wrote a generic memo; the user's words were
nowhere; `/new please`, `/quit now` ran)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev

from .conftest import Recorder, demo_app, ready, wait_for
from .test_session import type_command


@pytest.mark.parametrize("line", ["/memo remember the threshold=0 case", "/new please", "/quit now", "/help me",
                                  "/undo 2"])
async def test_words_after_a_command_without_arguments_are_given_back(demo_workspace: Path, recorder: Recorder,
                                                                      line: str) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder, notifications=True) as pilot:
        await ready(pilot)
        session = app.controller.session_id
        app.main.prompt.value = ""
        await type_command(pilot, line)
        await wait_for(pilot, lambda: any("takes no argument" in n.message for n in app._notifications), "the refusal")
        assert app.main.prompt.value == line, "the line is back in the box to fix"
        assert app.is_running and app.screen is app.main and app.controller.session_id == session
        assert not recorder.events(ev.MemoSaved)
