"""Pilot tests: restoring an item says what it did — nothing, when the item was in the window already;
that the next request leaves it out, when it does not fit the budget.  Both said "m1 restored (in)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.item_actions import ItemActions
from agent_tui.ui.messages import ItemEvicted, ItemRestored

from .conftest import Recorder, demo_app, denied_demo_turn, ready, wait_for
from .test_session import type_command


async def test_restoring_an_item_that_is_in_says_nothing_changed(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder, notifications=True) as pilot:
        await ready(pilot)
        await denied_demo_turn(pilot)
        first = next(i for i in app.controller.engine.order if app.controller.engine.items[i].role == "user")
        await type_command(pilot, f"/restore {first}")
        await wait_for(pilot, lambda: recorder.of(ItemRestored), "the restore")
        assert "nothing changed" in recorder.of(ItemRestored)[-1].note
        await wait_for(pilot, lambda: any("nothing changed" in n.message for n in app._notifications), "the toast")


async def test_restoring_an_item_that_does_not_fit_says_so(demo_workspace: Path, recorder: Recorder,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """What the toast says when the assembly leaves the restored item out (that the engine does so for an
    item over the budget is tested in tests/core/test_assembler.py)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder, notifications=True) as pilot:
        await ready(pilot)
        await denied_demo_turn(pilot)
        await type_command(pilot, "/evict t3")
        await wait_for(pilot, lambda: recorder.of(ItemEvicted), "the eviction")
        monkeypatch.setattr(ItemActions, "left_out",
                            lambda self, item_id: "over budget (older history)" if item_id == "t3" else None)
        await type_command(pilot, "/restore t3")
        await wait_for(pilot, lambda: recorder.of(ItemRestored), "the restore")
        restored = recorder.of(ItemRestored)[-1]
        assert restored.state == "in"
        assert restored.note == "but the next request leaves it out: over budget (older history)"
        await wait_for(pilot, lambda: any("leaves it out" in n.message for n in app._notifications), "the toast")
