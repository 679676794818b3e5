"""Snapshots of the main screen mid-conversation, the inspector and the approval dialog,
at 80×24 and 120×40 (update with `pytest tests/ui --snapshot-update`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_tui.ui.screens.inspector import InspectorScreen
from agent_tui.ui.widgets.prompt import PromptInput

from .conftest import demo_until_approval, denied_demo_turn, wait_for
from .snapshot_apps import fixed_session_ids, snapshot_app, snapshot_root_lock

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.fixture(autouse=True)
def _one_at_a_time() -> Iterator[None]:
    with snapshot_root_lock():
        yield


async def _settle(pilot: Any) -> None:
    pilot.app.main.query_one(PromptInput).cursor_blink = False
    pilot.app.clear_notifications()
    await pilot.pause(0.1)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_main_screen_mid_conversation(snap_compare: Any, monkeypatch: pytest.MonkeyPatch,
                                      size: tuple[int, int]) -> None:
    fixed_session_ids(monkeypatch)

    async def run_before(pilot: Any) -> None:
        await denied_demo_turn(pilot)
        await _settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_inspector(snap_compare: Any, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    fixed_session_ids(monkeypatch)

    async def run_before(pilot: Any) -> None:
        await denied_demo_turn(pilot)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, InspectorScreen)
                       and pilot.app.screen.rows, "the inspector rows")
        await _settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_approval_dialog(snap_compare: Any, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    fixed_session_ids(monkeypatch)

    async def run_before(pilot: Any) -> None:
        await demo_until_approval(pilot)
        conversation = pilot.app.main.conversation
        main = pilot.app.main

        def lifted() -> bool:
            """The dialog has laid out, the conversation's margin matches it and its end is in view."""
            dialog = pilot.app.screen.query("#approval-dialog")
            if not dialog or dialog.first().region.height == 0:
                return False
            below = main.query_one("#pastes").region.y
            need = max(0, below - dialog.first().region.y)
            return (conversation.styles.margin.bottom == need and conversation.region.bottom == below - need
                    and (conversation.max_scroll_y == 0 or abs(conversation.max_scroll_y - conversation.scroll_y) < 1))

        await wait_for(pilot, lifted, "the lifted conversation")
        await pilot.pause(0.1)
        await wait_for(pilot, lifted, "the lifted conversation, still")
        conversation.vertical_scrollbar.refresh()  # repaint the thumb behind the modal at its settled place
        await _settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_trace_tab(snap_compare: Any, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    from agent_tui.ui.screens.request_view import RequestScreen

    fixed_session_ids(monkeypatch)

    async def run_before(pilot: Any) -> None:
        await denied_demo_turn(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RequestScreen) and pilot.app.screen.latest,
                       "the request")
        await pilot.press("3")
        await _settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)
