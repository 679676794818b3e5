"""Pilot: a pin made by the CLI (another process, the same store) while the TUI is open reaches the
TUI at its next step, and the TUI's own pin does not overwrite it (ids come from the store)."""

from __future__ import annotations

from pathlib import Path

from tests.store.test_pins_shared import cli, listed

from .conftest import Recorder, demo_app, gauge_agrees, ready, wait_for


async def test_cli_pin_and_tui_pin_at_the_same_time_keep_both(demo_workspace: Path, recorder: Recorder) -> None:
    from agent_tui.ui.messages import ItemPinned

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        engine = app.controller.engine
        proc = cli(demo_workspace, "pin", "Use pnpm, never npm")  # another process, the same store
        assert proc.returncode == 0, proc.stderr
        await pilot.click("#prompt")
        app.query_one("#prompt").value = ""  # the demo prefills its task
        await pilot.press(*"/pin Always run ruff", "enter")
        await wait_for(pilot, lambda: recorder.of(ItemPinned), "ItemPinned")
        await gauge_agrees(pilot)
        rules = {i.content for i in engine.all_items() if i.category == "rules"}
        assert {"Use pnpm, never npm", "Always run ruff"} <= rules  # the CLI's pin reached the open TUI
        system = engine.last.messages[0]["content"]
        assert "Use pnpm, never npm" in system and "Always run ruff" in system
    texts = sorted(r["preview"] for r in listed(demo_workspace) if r["category"] == "rules")
    assert texts == ["Always run ruff", "Use pnpm, never npm"]
