"""Pilot tests: a paste is kept whole — a short one as typed, every line; a large one folded into a
``[paste #N · …]`` token with its preview above the box, labelled by its lines or, for few long lines, its
characters; the token goes whole (backspace, ctrl+u) and comes back with ctrl+z; what is sent is the paste."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.widgets import Collapsible

from agent_tui.agent import events as ev
from agent_tui.ui.messages import TaskSubmitted
from agent_tui.ui.widgets.chat_items import UserMessage

from .conftest import Recorder, demo_app, ready, wait_for


async def test_multiline_message_and_three_line_paste_arrive_whole(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        app.post_message(events.Paste("first line\nsecond line\nthird line"))
        await pilot.pause()
        assert prompt.value == "first line\nsecond line\nthird line"
        await pilot.press("ctrl+j", *"and more")
        assert prompt.document.line_count == 4, "ctrl+j adds a line, enter was not pressed"
        await pilot.press("enter")
        await wait_for(pilot, lambda: recorder.of(TaskSubmitted), "the message")
        sent = recorder.of(TaskSubmitted)[0].text
        assert sent.splitlines() == ["first line", "second line", "third line", "and more"]
        assert prompt.value == ""
        await wait_for(pilot, lambda: recorder.events(ev.TurnStarted), "the turn")
        assert recorder.events(ev.TurnStarted)[0].task == sent, "the model gets every line"
        bubbles = list(app.main.conversation.query(UserMessage))
        assert len(bubbles) == 1 and bubbles[0].message_text == sent


async def test_large_paste_is_folded_and_sent_whole(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    big = "\n".join(f"log line {n}" for n in range(40))
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        await pilot.press(*"why this? ")
        app.post_message(events.Paste(big))
        await pilot.pause()
        assert prompt.value == "why this? [paste #1 · 40 lines]"
        blocks = list(app.main.query("#pastes Collapsible"))
        assert len(blocks) == 1 and isinstance(blocks[0], Collapsible) and "40 lines" in blocks[0].title
        await pilot.press("enter")
        await wait_for(pilot, lambda: recorder.of(TaskSubmitted), "the message")
        assert recorder.of(TaskSubmitted)[0].text == f"why this? {big}"
        await pilot.pause()
        assert not app.main.query("#pastes Collapsible"), "the block goes with the message"


async def test_a_long_one_line_paste_is_labelled_by_its_characters(demo_workspace: Path, recorder: Recorder) -> None:
    """A tester's 1,803-character one-line paste read "[paste #1 · 1 line]", which said nothing of its size."""
    from agent_tui.ui.drafts import expand

    line = "αβγ-日本-🎉-" * 200 + "END"
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        app.post_message(events.Paste(line))
        await pilot.pause()
        assert prompt.value == f"[paste #1 · {len(line):,} characters]"
        assert [b.title for b in app.main.query("#pastes Collapsible")] == [f"paste #1 · {len(line):,} characters"]
        assert expand(prompt.value, prompt.pastes) == line, "a draft of it comes back folded, and sends it whole"
        await pilot.press("enter")
        await wait_for(pilot, lambda: recorder.of(TaskSubmitted), "the message")
        assert recorder.of(TaskSubmitted)[0].text == line


async def _paste_lines_into_the_empty_box(pilot: Any, lines: int) -> str:
    """Once the session is open, paste ``lines`` log lines (each ending in a newline) into the emptied box."""
    app = await ready(pilot)
    big = "".join(f"log line {n}\n" for n in range(lines))
    app.main.prompt.clear()
    app.post_message(events.Paste(big))
    await pilot.pause()
    return big


async def test_a_paste_ending_in_a_newline_counts_the_same_lines_in_the_token_and_the_block(
        demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await _paste_lines_into_the_empty_box(pilot, 20)
        assert app.main.prompt.value == "[paste #1 · 20 lines]"
        block = app.main.query_one("#pastes Collapsible", Collapsible)
        assert block.title == "paste #1 · 20 lines"


async def test_a_paste_cleared_from_the_box_takes_its_preview_with_it(demo_workspace: Path) -> None:
    """ctrl+u after a folded paste left its `paste #1` block above the box, beside the next paste's."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        big = await _paste_lines_into_the_empty_box(pilot, 30)
        assert [b.title for b in app.main.query("#pastes Collapsible")] == ["paste #1 · 30 lines"]
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert app.main.prompt.value == "" and not list(app.main.query("#pastes Collapsible"))
        app.post_message(events.Paste(big))
        await pilot.pause()
        assert [b.title for b in app.main.query("#pastes Collapsible")] == ["paste #2 · 30 lines"]


async def test_backspace_into_a_paste_token_removes_the_whole_paste_visibly(demo_workspace: Path,
                                                                           recorder: Recorder) -> None:
    """A tester backspaced 12 times from the end of "… [paste #1 · 40 lines] and thanks": the 12th took the token's
    `]`, the preview still showed the 40 lines, and enter sent the broken token with the paste gone.  Backspace
    just after a token (delete just before it) removes it whole, its preview goes, and ctrl+z brings both back."""
    app = demo_app(demo_workspace)
    big = "\n".join(f"log line {n}" for n in range(40))
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*"Please review: ")
        app.post_message(events.Paste(big))
        await pilot.pause()
        await pilot.press(*" and thanks", *["backspace"] * 12)
        await pilot.pause()
        assert prompt.value == "Please review: "
        assert not list(app.main.query("#pastes Collapsible")), "the preview went with the token"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert prompt.value.startswith("Please review: [paste #1 · 40 lines]"), "(typing undone with it: one step)"
        assert [b.title for b in app.main.query("#pastes Collapsible")] == ["paste #1 · 40 lines"]
        prompt.value = "Please review: [paste #1 · 40 lines]"
        await pilot.press("home", *["right"] * len("Please review: "), "delete", "end", *" ok")
        assert prompt.value == "Please review:  ok"
        prompt.value = "Please review: [paste #1 · 40 lines"  # edited into something else: no paste, no preview
        await pilot.pause()
        assert not list(app.main.query("#pastes Collapsible"))


def test_a_paste_is_titled_by_its_lines_or_when_it_has_few_by_its_characters() -> None:
    from agent_tui.ui.screens.main import MainScreen

    assert MainScreen._paste_block(1, "x" * 5000).title == "paste #1 · 5,000 characters"
    assert MainScreen._paste_block(2, "a" * 600 + "\n" + "b" * 599).title == "paste #2 · 1,200 characters"
    assert MainScreen._paste_block(3, "a\n" * 9).title == "paste #3 · 9 lines"
