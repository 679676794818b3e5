"""Pilot tests: a message sent with a folded paste comes back folded when recalled with ↑ — in this run and
after a restart — its pastes numbered beside the box's own, and sends the same text again.  It came back
expanded: a 40-line paste filled the box, to scroll through and edit around."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events

from agent_tui.agent import events as ev

from .conftest import Recorder, demo_app, ready, turn_done, wait_for

BIG = "\n".join(f"log line {n}" for n in range(40))
OTHER = "\n".join(f"trace {n}" for n in range(12))


async def _sent_then_draft(pilot: Any, app: Any, first: str) -> Any:
    """Send ``first`` with BIG pasted after it (folded as #1), wait for the turn, then type ``draft `` with OTHER
    pasted (folded as #2); returns the box."""
    prompt = app.main.prompt
    await pilot.press(*first)
    app.post_message(events.Paste(BIG))
    await wait_for(pilot, lambda: prompt.value == f"{first}[paste #1 · 40 lines]", "the fold")
    await pilot.press("enter")
    await turn_done(pilot)
    await pilot.press(*"draft ")
    app.post_message(events.Paste(OTHER))
    await wait_for(pilot, lambda: prompt.value == "draft [paste #2 · 12 lines]", "the draft's fold")
    return prompt


async def test_a_recalled_message_keeps_its_paste_folded_beside_the_drafts_own(demo_workspace: Path,
                                                                                recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = await _sent_then_draft(pilot, app, "why this? ")
        await pilot.press("up")
        assert prompt.value == "why this? [paste #3 · 40 lines]", "recalled folded, numbered after the draft's"
        assert prompt.expanded() == f"why this? {BIG}"
        await wait_for(pilot, lambda: app.main.query("#paste-3"), "its preview above the box")
        await pilot.press("down")
        assert prompt.value == "draft [paste #2 · 12 lines]" and prompt.expanded() == f"draft {OTHER}"
        await pilot.press("up")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(recorder.events(ev.TurnStarted)) == 2, "the second turn")
        assert recorder.events(ev.TurnStarted)[-1].task == f"why this? {BIG}", "the same text again"
        assert prompt.value == "draft [paste #2 · 12 lines]" and prompt.expanded() == f"draft {OTHER}", \
            "what was typed before ↑ is given back, its own paste still folded"


async def test_a_folded_message_comes_back_folded_after_a_restart(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"see ")
        app.post_message(events.Paste(BIG))
        await wait_for(pilot, lambda: app.main.prompt.value == "see [paste #1 · 40 lines]", "the fold")
        await pilot.press("enter")
        await turn_done(pilot)
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = again.main.prompt
        prompt.value = ""
        await pilot.press("up")
        assert prompt.value == "see [paste #1 · 40 lines]" and prompt.expanded() == f"see {BIG}"


async def test_browsing_past_a_folded_message_leaves_no_copies_of_its_paste(demo_workspace: Path) -> None:
    """A review: each ↑ visit added a renumbered copy of the recalled paste, kept in the box and written into the
    draft file at every save (a large paste grew the file by one copy per visit)."""
    import json

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = await _sent_then_draft(pilot, app, "see ")
        for _ in range(3):
            await pilot.press("up")
            assert prompt.value == "see [paste #3 · 40 lines]", "the same number each visit"
            await pilot.press("down")
        assert prompt.value == "draft [paste #2 · 12 lines]" and set(prompt.pastes) == {2}
        await pilot.press("up")
        prompt.save_draft()
        saved = json.loads(prompt.inputs.drafts.path.read_text(encoding="utf-8"))
        assert saved["text"] == f"draft {OTHER}", "browsing, the draft is what was typed before ↑"
        assert saved["folded"] == {"text": "draft [paste #2 · 12 lines]", "pastes": {"2": OTHER}}, \
            "kept folded, with its own paste only"
