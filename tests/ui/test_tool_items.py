"""Pilot test: tool definitions are items — one ``tool:NAME`` row per tool in the inspector with its
tokens, the inspector's total equals the gauge's, and `/tools off NAME` takes the tool out of the
next request (and out of the gauge), with the reason in the trace; `/tools on NAME` brings it back."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import DataTable, Label

from agent_tui.ui.messages import ItemEvicted, ItemRestored
from agent_tui.ui.screens.inspector import InspectorScreen

from .conftest import Recorder, demo_app, gauge_agrees, ready, wait_for


def _sent_names(app: object) -> set[str]:
    asm = app.controller.engine.last  # type: ignore[attr-defined]
    return {t["function"]["name"] for t in asm.tools}


async def test_tools_are_items_and_can_be_disabled_for_the_session(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(140, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        shown = await gauge_agrees(pilot)
        engine = app.controller.engine
        assert "run_command" in _sent_names(app)
        tool_rows = [i for i in engine.all_items() if str(i.category) == "tools"]
        assert {i.id for i in tool_rows} == {f"tool:{n}" for n in _sent_names(app)}
        assert shown["categories"]["tools"] == sum(i.tokens for i in tool_rows) > 0

        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen) and app.screen.rows, "the inspector")
        screen = app.screen
        assert screen.query_one(DataTable).get_row("tool:run_command")[1] == "tools"
        title = str(screen.query_one("#inspector-title", Label).render())
        sent = int(re.search(r"([\d,]+) tok sent", title).group(1).replace(",", ""))  # type: ignore[union-attr]
        assert sent == shown["total"], (title, shown["total"])
        await pilot.press("escape")

        before = shown["categories"]["tools"]
        cost = engine.get("tool:run_command").tokens
        app.run_command("tools", "off run_command")
        await wait_for(pilot, lambda: recorder.of(ItemEvicted), "ItemEvicted")
        after = await gauge_agrees(pilot)
        assert "run_command" not in _sent_names(app)
        assert after["categories"]["tools"] == before - cost
        why = [t.reason for t in engine.last.trace if t.item_id == "tool:run_command"]
        assert why == ["disabled for this session"]
        logged = app.controller.requests(1)[0]
        assert {"item_id": "tool:run_command", "included": False} .items() <= next(
            t for t in logged["trace"] if t["item_id"] == "tool:run_command").items()
        assert "run_command" not in {t["function"]["name"] for t in logged["request"]["tools"]}

        app.run_command("tools", "on run_command")
        await wait_for(pilot, lambda: recorder.of(ItemRestored), "ItemRestored")
        back = await gauge_agrees(pilot)
        assert "run_command" in _sent_names(app) and back["categories"]["tools"] == before
