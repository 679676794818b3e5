"""A restored draft comes back selected: what the user types first replaces it (and it goes under ↑),
so a command typed at start is a command, not the end of last session's draft (a tester's ``/resume ID``
was sent to the model as chat, glued to the draft).  → goes on writing it."""

from __future__ import annotations

from pathlib import Path

from textual import events

from .conftest import demo_app, ready

DRAFT = "half a thought about the inventory report"


async def left_draft(workspace: Path, text: str = DRAFT) -> None:
    """A run on ``workspace`` that quit with ``text`` unsent in the box."""
    app = demo_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.main.prompt.clear()
        app.post_message(events.Paste(text))
        await pilot.pause()


async def test_typing_replaces_the_restored_draft_which_stays_under_up(demo_workspace: Path) -> None:
    await left_draft(demo_workspace)
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = again.main.prompt
        assert prompt.value == DRAFT and prompt.selected_text == DRAFT
        await pilot.press(*"/memos")
        assert prompt.value == "/memos"
        await pilot.press("ctrl+u", "up")
        assert prompt.value == DRAFT, "the replaced draft is under ↑"


async def test_right_arrow_goes_on_writing_the_draft(demo_workspace: Path) -> None:
    await left_draft(demo_workspace)
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = again.main.prompt
        await pilot.press("right", *" and more")
        assert prompt.value == DRAFT + " and more"


async def test_a_message_too_long_for_up_history_says_so_when_sent(demo_workspace: Path,
                                                                    monkeypatch: object) -> None:
    """A 300-line paste with six typed lines was sent, and ↑ skipped it with no word why (a tester)."""
    import agent_tui.ui.input_history as history
    import agent_tui.ui.widgets.prompt as prompt_module

    for module in (history, prompt_module):
        monkeypatch.setattr(module, "MAX_CHARS", 2_000)  # type: ignore[attr-defined]
    long = "six typed lines\n" * 6 + "a pasted log line\n" * 300
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        app.main.prompt.clear()
        app.post_message(events.Paste(long))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        notes = [n.message for n in app._notifications if n.title == "Not in ↑ history"]
        assert notes and f"{len(long):,} characters" in notes[0]
