"""Letters typed while the request view is open go into the message box (a tester typed a sentence there
and found the box empty after esc); q and the digits stay the view's keys until the user types."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.screens.request_view import RequestScreen

from .conftest import demo_app, denied_demo_turn, wait_for


async def test_typing_in_the_request_view_lands_in_the_box(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await denied_demo_turn(pilot)
        app.main.prompt.clear()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestScreen), "the request view")
        screen = app.screen
        await pilot.press("2")  # still the view's key: the Diff tab
        assert app.main.prompt.text == ""
        await pilot.press(*"hello q1 world")
        assert isinstance(app.screen, RequestScreen), "q is text once the user types"
        assert screen.query_one("TabbedContent").active == "diff"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen")
        assert app.main.prompt.text == "hello q1 world"
