"""The trust dialog on a short terminal: a tester at 60x15 saw no buttons at all (the note that typing went to
the box covered where they were), and at 60x20 their bottom edge was cut.  Both buttons stay whole on screen, the
asks give up rows first."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import Button

from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.trust import TrustScreen

from .conftest import wait_for
from .test_trust_screen import asking_app  # noqa: F401  (the fixture)


@pytest.mark.parametrize("size", [(60, 15), (80, 16), (60, 20), (50, 12)])
async def test_both_buttons_are_whole_on_a_short_terminal(asking_app: AgentApp, size: tuple[int, int]) -> None:  # noqa: F811
    async with asking_app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        screen = asking_app.screen
        await wait_for(pilot, lambda: screen.query(".trust-ask"), "the asks listed")
        screen.typing_held()  # the note that typing went to the box takes rows too
        await pilot.pause()
        await pilot.pause()
        whole = Region(0, 0, *size)
        for button in screen.query(Button).results(Button):
            region = button.region
            assert region.height >= 3 and whole.contains_region(region), (size, button.id, region)
            assert screen.get_widget_at(region.x + 2, region.y + 1)[0] is button, (size, button.id, "covered")
        note = screen.query_one("#typing-held")
        assert note.region.height >= 1 and whole.contains_region(note.region), (size, note.region)


async def test_every_ask_can_be_scrolled_into_view_on_a_short_terminal(asking_app: AgentApp) -> None:  # noqa: F811
    async with asking_app.run_test(size=(60, 15)) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        screen = asking_app.screen
        await wait_for(pilot, lambda: screen.query(".trust-ask"), "the asks listed")
        screen.typing_held()
        body = screen.query_one("#trust-body")
        foot = screen.query_one("#trust-foot")
        # (the dialog fits itself after a refresh or two, once the held note took its rows: on a busy machine two
        # pauses were not always enough)
        await wait_for(pilot, lambda: body.region.bottom <= foot.region.y, "the list above the buttons", timeout=10)
        last = list(screen.query(".trust-ask"))[-1]
        body.scroll_end(animate=False)
        await pilot.pause()
        assert body.region.contains_region(last.region), (body.region, last.region)
