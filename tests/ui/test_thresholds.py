"""Pilot test: at the compaction and fresh-session points the user is told and offered the
matching action, and taking it does what it says."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent import events as ev
from agent_tui.ui.widgets.chat_items import ThresholdOffer

from .conftest import Recorder, demo_app, denied_demo_turn, gauge_agrees, wait_for


async def test_offers_at_both_thresholds_and_the_fresh_one_starts_a_new_session(
        demo_workspace: Path, recorder: Recorder) -> None:
    config = demo_workspace / ".agent-tui" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text("[budget]\ncompact_at = 0.3\nfresh_at = 0.5\n")
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        crossed = recorder.events(ev.ThresholdCrossed)
        assert {c.level for c in crossed} == {"compact", "fresh"}
        offers = {o.level: o for o in app.main.conversation.query(ThresholdOffer)}
        assert set(offers) == {"compact", "fresh"}
        assert "/new" in offers["fresh"].message
        # the compaction offer says how to force it, or (the engine compacted on its own) what it did
        assert "/compact" in offers["compact"].message or "Compacted" in offers["compact"].message
        shown = await gauge_agrees(pilot)
        assert shown["compact_at"] == 0.3 and shown["fresh_at"] == 0.5
        assert app.main.budget.has_class("-warn") or app.main.budget.over_budget

        old = app.controller.session_id
        offers["fresh"].query_one("#offer-new").press()
        await wait_for(pilot, lambda: app.controller.session_id != old, "the fresh session")
        assert any("seed from session" in i.content for i in app.controller.engine.items.values())
        await gauge_agrees(pilot)
