"""Pilot test: `agent-tui --demo` started again opens the same demo folder, so what the user left there
is back: the unsent draft in the box, what was sent on ↑, the earlier session in the list, and its pins
once it is resumed (each run used to get a new temp folder, with its history kept in memory only)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent_tui.ui.app import AgentApp, make_app
from agent_tui.ui.launch import options_from_args
from agent_tui.ui.messages import SessionOpened

from .conftest import Recorder, denied_demo_turn, ready, wait_for

DRAFT = "first line\nsecond line\nthird line"


def demo_from_the_command_line(cwd: Path) -> AgentApp:
    """What `agent-tui --demo` (no --workspace) opens."""
    args = argparse.Namespace(model=None, api_base=None, window=None, session=None, demo=True, workspace=None)
    opts = options_from_args(args, cwd)
    opts.theme = "textual-dark"
    return make_app(opts)


async def test_a_restarted_demo_brings_back_the_draft_history_sessions_and_pins(tmp_path: Path,
                                                                                 recorder: Recorder) -> None:
    app = demo_from_the_command_line(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await denied_demo_turn(pilot)
        first = app.controller.session_id
        await pilot.press(*"/pin m2", "enter")
        await wait_for(pilot, lambda: app.controller.engine.get("m2").pinned, "m2 pinned")
        await pilot.press(*"first line", "ctrl+j", *"second line", "ctrl+j", *"third line")
        assert app.main.prompt.value == DRAFT

    again = demo_from_the_command_line(tmp_path)
    assert again.options.workspace == app.options.workspace
    async with again.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        assert again.main.prompt.value == DRAFT, "the unsent draft is back in the box"
        assert "/pin m2" in again.main.history.entries, "↑ offers what was sent in the earlier run"
        assert first in {row["id"] for row in again.controller.sessions()} and again.controller.session_id != first
        opened = len(recorder.of(SessionOpened))
        again.run_command("resume", first)
        await wait_for(pilot, lambda: len(recorder.of(SessionOpened)) > opened, "the earlier session")
        assert again.controller.session_id == first and again.controller.engine.get("m2").pinned
