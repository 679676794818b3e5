"""Pilot tests: keys typed right behind the esc that closes the inspector or the session picker go into the
message box, in order, none lost and none acting on the closing screen (a `p` behind esc pinned nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.messages import ItemChanged, TaskSubmitted
from agent_tui.ui.screens.inspector import InspectorScreen

from .conftest import Recorder, demo_app, ready, wait_for
from .test_keys_at_once import at_once


async def test_typing_behind_esc_on_the_inspector_reaches_the_box(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        app.main.prompt.text = ""
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen) and app.screen.rows, "the inspector")
        at_once(app, "escape", *"pin the rules")
        await wait_for(pilot, lambda: app.screen is app.main and app.main.prompt.text == "pin the rules",
                       "the text in the box")
        await pilot.pause()
        assert recorder.of(ItemChanged) == [], "no key behind esc acted on the inspector"


@pytest.mark.parametrize("key", ["f1", "f5"])
async def test_typing_behind_esc_on_help_or_the_picker_reaches_the_box(demo_workspace: Path, recorder: Recorder,
                                                                       key: str) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        app.main.prompt.text = ""
        main = app.screen
        await pilot.press(key)
        await wait_for(pilot, lambda: app.screen is not main and app.screen.is_attached, "the screen")
        await pilot.pause()
        at_once(app, "escape", *"quit q", "enter")
        await wait_for(pilot, lambda: app.screen is main and recorder.of(TaskSubmitted), "the message sent")
        assert [m.text for m in recorder.of(TaskSubmitted)][-1] == "quit q", "the q did not close anything twice"
        # (the app takes the message before the test closes it: on a busy machine it was taken mid-teardown)
        await wait_for(pilot, lambda: app.turn_worker is not None, "the message taken")
