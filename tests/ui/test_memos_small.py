"""Pilot tests: the memos panel shows a memo's text at small sizes too.  At 60x15 only the memo's heading
showed, and no key scrolled to the body; at 40x12 the list took every column and there was no text pane."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.screens.memos import MemosScreen

from .conftest import demo_app, ready, wait_for


@pytest.mark.parametrize("size", [(60, 15), (40, 12), (120, 40)])
async def test_the_memo_text_has_rows_and_can_take_the_focus(demo_workspace: Path, size: tuple[int, int]) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await app.write_memo().wait()
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, MemosScreen) and app.screen.memos, "the memos")
        screen = app.screen
        scroll = screen.query_one("#memo-scroll")
        await wait_for(pilot, lambda: screen.query_one("#memo-text").source, "the memo's text")
        await pilot.pause()
        region = scroll.region
        assert region.height >= 3 and region.width >= 20, region
        assert screen.region.contains_region(region), "the text pane is on the screen"
        for _ in range(4):
            if screen.focused is scroll:
                break
            await pilot.press("tab")
        assert screen.focused is scroll, "tab reaches the memo's text, so the keys can scroll it"
