"""Pilot tests: /compact with nothing worth folding changes nothing and says so; the threshold
offer follows the gauge (it never keeps a stale share)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent import events as ev
from agent_tui.ui.messages import CompactionSkipped
from agent_tui.ui.widgets.chat_items import ThresholdOffer

from .conftest import Recorder, demo_app, ready, wait_for


async def test_compact_with_nothing_to_fold_changes_nothing(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        engine = app.controller.engine
        items_before = dict(engine.items)
        await pilot.press(*"/compact", "enter")
        await wait_for(pilot, lambda: recorder.of(CompactionSkipped), "the refusal")
        await pilot.pause()
        assert not recorder.events(ev.Compacted) and not recorder.events(ev.MemoSaved), "no memo, no summary"
        assert dict(engine.items) == items_before
        assert app.focused is app.main.prompt


async def test_offer_follows_the_gauge(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        gauge = app.main.budget.gauge
        offer = ThresholdOffer("compact", "The window is 80% full")
        await app.main.conversation.mount(offer)
        offer.track(80.0, 0.75)
        assert "80 % full" in offer.message and not offer.resolved
        offer.track(42.0, 0.75)
        assert offer.resolved and "Now 42 %" in offer.message and not offer.query_one("#offer-compact").display
        assert gauge is not None
