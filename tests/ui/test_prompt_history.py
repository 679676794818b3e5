"""Pilot tests: ↑/↓ history in the message box keeps what the user typed — an edit to a recalled message, a
new message typed over one, and, across a quit, both the edited message and what was typed before browsing."""

from __future__ import annotations

from pathlib import Path

from .conftest import demo_app, ready, sent_then_typed_and_up


async def test_quitting_while_an_edited_old_message_is_in_the_box_keeps_both_texts(demo_workspace: Path) -> None:
    """The box held an unsent paragraph; ↑ recalled a sent message and the user changed it; a quit (or a
    kill) kept only the changed message, and the paragraph was gone from the draft, the history and the box."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await sent_then_typed_and_up(pilot, app, "UNSENT-X my careful paragraph")
        assert prompt.value == "/memos"
        await pilot.press("end", *" tweak")
        assert prompt.value == "/memos tweak"
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = again.main.prompt
        assert prompt.value == "/memos tweak"
        await pilot.press("home", "up")
        assert prompt.value == "UNSENT-X my careful paragraph", "the paragraph is under ↑"


async def test_up_and_down_keep_what_was_typed_over_or_into_a_recalled_message(demo_workspace: Path) -> None:
    """Readline keeps an edit to a history entry while you browse: here ↑ then ↓ lost a new message typed
    over a recalled one (after ctrl+u), and ↓ then ↑ lost an edit to a recalled message."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        for sent in ("/memos", "/help"):
            await pilot.press(*sent, "enter")
            await pilot.pause()
            await pilot.press("escape")
        await pilot.press("up")
        assert prompt.value == "/help"
        prompt.clear()
        await pilot.press(*"NEW MESSAGE I typed carefully", "home", "up")
        assert prompt.value == "/memos"
        await pilot.press("down")
        assert prompt.value == "NEW MESSAGE I typed carefully"
        await pilot.press("end", *" EXTRA", "home", "up")
        await pilot.press("down")
        assert prompt.value == "NEW MESSAGE I typed carefully EXTRA"
        await pilot.press("down")
        assert prompt.value == "", "past the newest: what was typed before browsing (nothing)"


async def test_up_inside_a_long_wrapped_line_moves_up_a_row_before_recalling(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*"/memos", "enter")
        await pilot.pause()
        await pilot.press("escape")
        long_line = "word " * 120
        prompt.value = long_line
        await pilot.pause()
        await pilot.press("end", *"ZZZ", "up")
        assert prompt.value == long_line + "ZZZ", "↑ moved within the wrapped line"
        assert prompt.cursor_location[0] == 0 and prompt.cursor_location[1] < len(long_line)
