"""A paste or typing on a panel that has no field for it goes into the message box, never nowhere.

A tester pasted while help, the inspector, the request view or an approval dialog was open: the paste was in
neither the box nor a draft afterwards.  Letters typed on help, memos, MCP and the sessions picker vanished
too (the request view alone sent them on).  Each panel here gets the paste (folded when large, as in the box)
and the letters it does not bind; its own keys still act until the user has typed something else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.screen import Screen

from agent_tui.ui.screens.help import HelpScreen
from agent_tui.ui.screens.inspector import InspectorScreen
from agent_tui.ui.screens.mcp import McpScreen
from agent_tui.ui.screens.memos import MemosScreen
from agent_tui.ui.screens.request_view import RequestScreen
from agent_tui.ui.screens.sessions import SessionsScreen
from agent_tui.ui.screens.to_box import TOLD

from .conftest import demo_app, demo_until_approval, ready, wait_for

PANELS = [("f1", HelpScreen), ("f2", InspectorScreen), ("f3", MemosScreen), ("f4", McpScreen),
          ("f5", SessionsScreen), ("ctrl+r", RequestScreen)]


async def _open(pilot, key: str, kind: type[Screen]) -> None:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, kind), f"the {kind.__name__}")
    await pilot.pause()


async def _on_panel(pilot, key: str, kind: type[Screen]) -> Any:
    """The session ready, the box empty and the panel open: the box."""
    app = await ready(pilot)
    app.main.prompt.value = ""
    await _open(pilot, key, kind)
    return app.main.prompt


@pytest.mark.parametrize("key, kind", PANELS, ids=[k for k, _ in PANELS])
async def test_a_paste_on_a_panel_lands_in_the_box(demo_workspace: Path, key: str, kind: type[Screen]) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _on_panel(pilot, key, kind)
        app.post_message(events.Paste("yes please\nand more"))
        await wait_for(pilot, lambda: prompt.value == "yes please\nand more", "the paste in the box")
        assert isinstance(app.screen, kind), "the panel stays open"
        assert any(TOLD in str(n.message) for n in app._notifications), "the user is told where it went"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen")
        assert prompt.value == "yes please\nand more"


async def test_a_large_paste_on_a_panel_is_folded_in_the_box_and_sent_whole(demo_workspace: Path) -> None:
    big = "\n".join(f"line {i}" for i in range(60))
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _on_panel(pilot, "f1", HelpScreen)
        app.post_message(events.Paste(big))
        await wait_for(pilot, lambda: "[paste #1 · 60 lines]" in prompt.value, "the folded paste")
        assert prompt.expanded() == big


async def test_a_paste_on_an_approval_dialog_lands_in_the_box(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await demo_until_approval(pilot)
        app.post_message(events.Paste("yes please\nand more"))
        prompt = app.main.prompt
        await wait_for(pilot, lambda: prompt.value == "yes please\nand more", "the paste in the box")
        assert app.screen is dialog, "a paste is never an answer"


async def test_letters_typed_after_a_paste_on_an_approval_do_not_answer_it(demo_workspace: Path) -> None:
    """A tester pasted, then typed "yes and also": the `y` allowed the command (and "also" answered Always)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await demo_until_approval(pilot)
        dialog.shown_at = float("-inf")  # (long settled, and no typing before: only the paste says "writing")
        app.typing.last = float("-inf")
        app.post_message(events.Paste("context from my notes "))
        prompt = app.main.prompt
        await wait_for(pilot, lambda: prompt.value == "context from my notes ", "the paste in the box")
        app.typing.last = float("-inf")  # (and after a pause)
        await pilot.press(*"yes and also")
        await pilot.pause()
        assert app.screen is dialog, "a letter after a paste answered the approval"
        assert prompt.value == "context from my notes yes and also"


async def test_the_inspector_filter_still_takes_what_is_pasted_into_it(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _on_panel(pilot, "f2", InspectorScreen)
        await pilot.press("slash")
        focused = app.screen.focused
        assert focused is not None and focused.__class__.__name__ == "Input"
        app.post_message(events.Paste("cat:memory"))
        await wait_for(pilot, lambda: getattr(focused, "value", "") == "cat:memory", "the filter text")
        assert prompt.value == "", "the paste went to the field it was made in"


@pytest.mark.parametrize("key, kind", [("f1", HelpScreen), ("f3", MemosScreen), ("f4", McpScreen),
                                       ("f5", SessionsScreen)], ids=["help", "memos", "mcp", "sessions"])
async def test_letters_typed_on_a_panel_land_in_the_box(demo_workspace: Path, key: str, kind: type[Screen]) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _on_panel(pilot, key, kind)
        await pilot.press(*"zyx")
        await wait_for(pilot, lambda: prompt.value == "zyx", "the letters in the box")
        await pilot.press("q")
        assert isinstance(app.screen, kind), "q (which closes the panel) is text once the user has typed"
        assert prompt.value == "zyxq"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen")
        assert prompt.value == "zyxq"


async def test_a_panels_own_key_acts_before_anything_was_typed(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _on_panel(pilot, "f4", McpScreen)
        await pilot.press("q")
        await wait_for(pilot, lambda: app.screen is app.main, "q to close the panel")
        assert prompt.value == ""


async def test_a_paste_with_a_key_right_behind_it_goes_in_once(demo_workspace: Path) -> None:
    """(A reviewer's case.)  The paste sent on to the box bubbled back up to the app, which handed it to whatever
    had the focus by then: after esc the box took it twice, after / the inspector's filter took it too."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _on_panel(pilot, "f1", HelpScreen)
        app.post_message(events.Paste("hello"))
        app.post_message(events.Key("escape", None))
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen")
        await pilot.pause(0.2)
        assert prompt.value == "hello"

        await _open(pilot, "f2", InspectorScreen)
        prompt.value = ""
        app.post_message(events.Paste("hello"))
        app.post_message(events.Key("slash", "/"))
        await wait_for(pilot, lambda: prompt.value == "hello", "the paste in the box")
        await pilot.pause(0.2)
        assert prompt.value == "hello" and getattr(app.screen.focused, "value", "") == ""


async def test_words_typed_on_the_inspector_land_in_the_box_and_act_on_no_row(demo_workspace: Path) -> None:
    """A tester typed "do it" on the inspector: `d` evicted the row and "o it" went nowhere; "please review" pinned
    a row, tried to evict it twice and opened its view.  A letter the inspector does not bind starts the typing:
    from then on every letter is text (its first letter, if one of the inspector's, still acts, as on every panel)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _on_panel(pilot, "f2", InspectorScreen)
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.rows), "the rows")
        before = {r.id: (r.state, r.pinned) for r in screen.rows}
        await pilot.press(*"ok please review the evict path")
        await wait_for(pilot, lambda: prompt.value == "ok please review the evict path", "the words in the box")
        await pilot.pause(0.2)
        assert app.screen is screen, "no letter opened a view or closed the panel"
        assert {r.id: (r.state, r.pinned) for r in app.controller.rows()} == before, "no row was pinned or evicted"

        prompt.value = ""
        screen.typing = False  # (as when the inspector opens again)
        await pilot.press(*"do it")
        await wait_for(pilot, lambda: prompt.value == "o it", "what follows the command letter, in the box")
        assert any("evict" in str(n.message) for n in app._notifications), "`d` acted on the row (and said so)"
