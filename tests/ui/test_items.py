"""Pilot tests: pin, unpin, evict, restore and drop a tool output from the inspector —
each checks the engine's items and the gauge (against `agent-tui context --json`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from agent_tui.core.items import State
from agent_tui.ui.messages import ItemEvicted, ItemPinned, ItemRestored, ItemUnpinned
from agent_tui.ui.screens.inspector import InspectorScreen

from .conftest import Recorder, demo_app, denied_demo_turn, gauge_agrees, wait_for
from .test_session import type_command


async def open_inspector_at(pilot: Pilot[Any], item_id: str) -> InspectorScreen:
    await pilot.press("f2")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, InspectorScreen), "the inspector")
    screen = pilot.app.screen
    table = screen.query_one(DataTable)
    await wait_for(pilot, lambda: table.row_count > 0, "the inspector rows")
    table.move_cursor(row=table.get_row_index(item_id))
    await pilot.pause()
    assert screen.selected_id() == item_id
    return screen


async def test_pin_and_unpin_from_inspector(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        screen = await open_inspector_at(pilot, "m1")
        await pilot.press("p")
        await wait_for(pilot, lambda: recorder.of(ItemPinned), "ItemPinned")
        assert engine.get("m1").pinned
        assert recorder.of(ItemPinned)[0].item_id == "m1"
        await gauge_agrees(pilot)
        await wait_for(pilot, lambda: any(r.id == "m1" and r.pinned for r in screen.rows), "the row to show the pin")
        assert str(screen.query_one(DataTable).get_row("m1")[5]) == "●"

        await pilot.press("u")
        await wait_for(pilot, lambda: recorder.of(ItemUnpinned), "ItemUnpinned")
        assert not engine.get("m1").pinned
        await gauge_agrees(pilot)


async def test_evict_and_restore_a_message(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        before = await gauge_agrees(pilot)
        await open_inspector_at(pilot, "m2")
        calls = {c["id"] for c in engine.get("m2").tool_calls}
        await pilot.press("e")
        await wait_for(pilot, lambda: recorder.of(ItemEvicted), "ItemEvicted")
        assert engine.get("m2").state == State.EVICTED
        answers = [i for i in engine.items.values() if i.tool_call_id in calls]
        assert answers and all(i.state == State.EVICTED for i in answers)
        after = await gauge_agrees(pilot)
        assert after["categories"]["history"] < before["categories"]["history"]
        assert "m2" not in engine.last.item_ids
        # the notice says what the action did to the next request (the inspector's total is the last request
        # sent, without the final reply: an evict seemed to make it grow)
        # an item not in the latest request shows "—" in the "sent" column, not a count it did not cost there
        screen = app.screen
        await wait_for(pilot, lambda: str(screen.query_one(DataTable).get_row("m2")[2]) == "—", "m2's row")
        went = re.fullmatch(r"next request ([\d,]+) → ([\d,]+) tokens", recorder.of(ItemEvicted)[-1].effect)
        assert went is not None and int(went[2].replace(",", "")) == after["total"]
        assert int(went[2].replace(",", "")) < int(went[1].replace(",", ""))

        await pilot.press("r")
        await wait_for(pilot, lambda: recorder.of(ItemRestored), "ItemRestored")
        assert engine.get("m2").state == State.IN
        restored = await gauge_agrees(pilot)
        assert "m2" in engine.last.item_ids
        assert restored["categories"]["history"] > after["categories"]["history"]


async def test_drop_a_single_tool_output(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        output = next(i for i in engine.items.values() if i.role == "tool" and i.name == "read_file")
        await gauge_agrees(pilot)
        sent_whole = {t["item_id"]: t for t in app.controller.requests(1)[0]["trace"]}[output.id]
        await open_inspector_at(pilot, output.id)
        await pilot.press("d")
        await wait_for(pilot, lambda: recorder.of(ItemEvicted), "ItemEvicted")
        assert engine.get(output.id).state == State.EVICTED
        owner = next(i for i in engine.items.values() if i.tool_calls and
                     any(c["id"] == output.tool_call_id for c in i.tool_calls))
        assert owner.state == State.IN, "dropping an output keeps the call that made it"
        trace = {t.item_id: t for t in engine.last.trace}
        assert trace[output.id].reason.startswith("stubbed"), trace[output.id]
        await gauge_agrees(pilot)
        sent_stub = {t["item_id"]: t for t in app.controller.requests(1)[0]["trace"]}[output.id]
        assert sent_stub["included"] and sent_stub["tokens"] < sent_whole["tokens"]


async def test_slash_commands_pin_a_rule_and_refuse_clearly(demo_workspace: Path, recorder: Recorder) -> None:
    from agent_tui.ui.messages import ActionFailed

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        before = await gauge_agrees(pilot)
        await pilot.click("#prompt")
        await pilot.press(*"/pin Always run the tests with -q", "enter")
        await wait_for(pilot, lambda: recorder.of(ItemPinned), "ItemPinned")
        rule = engine.get(recorder.of(ItemPinned)[0].item_id)
        assert rule.pinned and rule.category == "rules"
        after = await gauge_agrees(pilot)
        assert after["categories"]["rules"] > before["categories"]["rules"] == 0

        await pilot.press(*f"/evict {rule.id}", "enter")
        await wait_for(pilot, lambda: recorder.of(ActionFailed), "the refusal")
        assert "pinned" in recorder.of(ActionFailed)[0].message
        assert engine.get(rule.id).state == State.IN


async def test_restore_in_a_filtered_view_keeps_the_cursor_in_place(demo_workspace: Path, recorder: Recorder) -> None:
    """The restored row leaves a ``state:summarised`` view; the cursor jumped to the first row, so a
    second r restored an unrelated item. It goes to the row that followed instead."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        await type_command(pilot, "/compact")
        await wait_for(pilot, lambda: any(r.state == "summarised" for r in app.controller.rows()), "the compaction")
        await wait_for(pilot, lambda: not app.main.status.busy, "idle")
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screen = app.screen
        table = screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count > 0, "the inspector rows")
        await pilot.press("slash", *"state:summarised", "enter")
        summarised = [r.id for r in app.controller.rows() if r.state == "summarised"]
        await wait_for(pilot, lambda: table.row_count == len(summarised), "the filtered rows")
        assert len(summarised) >= 4 and summarised[0] != "t2" and "t2" in summarised[:-1]
        await pilot.press(*["down"] * summarised.index("t2"))
        assert screen.selected_id() == "t2"

        await pilot.press("r")
        await wait_for(pilot, lambda: recorder.of(ItemRestored), "ItemRestored")
        await wait_for(pilot, lambda: table.row_count and "t2" not in table.rows, "the row to leave the view")
        still = [r.id for r in app.controller.rows() if r.state == "summarised"]
        after = next(i for i in summarised[summarised.index("t2") + 1:] if i in still)
        assert screen.selected_id() == after, "the row that followed the restored one"

        await pilot.press("r")
        await wait_for(pilot, lambda: {m.item_id for m in recorder.of(ItemRestored)} == {"t2", after},
                       "the second restore")
        assert app.controller.engine.get(summarised[0]).state == State.SUMMARISED


async def test_evicting_an_output_shorter_than_its_stub_says_it_saves_nothing(demo_workspace: Path,
                                                                              recorder: Recorder) -> None:
    """A tester evicted a 2-line read to save tokens: "next request 2,995 → 3,007 tokens" and no word why."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        with app.controller.lock:
            engine.add_user("how many lines?")
            engine.add_assistant("", [{"id": "call_wc", "type": "function",
                                       "function": {"name": "bash", "arguments": '{"command": "wc -l a.txt"}'}}])
            tiny = engine.add_tool_result("call_wc", "bash", "2")
            engine.add_assistant("Two.")
            engine.end_turn()
        app.item_action("evict", tiny.id)
        await wait_for(pilot, lambda: recorder.of(ItemEvicted), "ItemEvicted")
        said = recorder.of(ItemEvicted)[-1]
        went = re.fullmatch(r"next request ([\d,]+) → ([\d,]+) tokens", said.effect)
        assert went is not None and int(went[2].replace(",", "")) > int(went[1].replace(",", ""))
        assert "saves nothing" in said.note
        with app.controller.lock:  # (a review's case) a long output sent as a stub: its text was never the cost
            engine.add_user("and the log?")
            engine.add_assistant("", [{"id": "call_log", "type": "function",
                                       "function": {"name": "bash", "arguments": '{"command": "seq 2000"}'}}])
            big = engine.add_tool_result("call_log", "bash", "\n".join(str(i) for i in range(2000)))
            engine.add_assistant("Long.")
            engine.end_turn()
            engine.add_user("next")
            engine.compactor.stub(big, "dropped after its turn")
        app.item_action("evict", big.id)
        await wait_for(pilot, lambda: recorder.of(ItemEvicted)[-1].item_id == big.id, "the second eviction")
        assert "saves nothing" not in recorder.of(ItemEvicted)[-1].note
