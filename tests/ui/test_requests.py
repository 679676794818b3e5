"""Pilot tests: view an item in full, and the exact last request with its diff and trace."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Label, Static, TextArea

from agent_tui.ui.request_text import request_text
from agent_tui.ui.screens.item_view import ItemScreen
from agent_tui.ui.screens.request_view import RequestScreen

from .conftest import Recorder, demo_app, denied_demo_turn, gauge_agrees, wait_for
from .test_items import open_inspector_at


async def test_view_full_content_and_exact_request(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        output = next(i for i in engine.items.values() if i.role == "tool" and i.name == "read_file")
        await open_inspector_at(pilot, output.id)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ItemScreen), "the item view")
        assert app.screen.query_one("#item-content", TextArea).text == engine.get(output.id).content
        # the inspector's "sent" (text and framing) and the item's own count are told apart, not two numbers
        # for one thing (a tester saw 47 in one place and 43 in the other)
        facts = str(app.screen.query_one("#item-facts", Label).render())
        sent = app.controller.sent_tokens(output.id)
        assert sent is not None and sent > output.tokens
        assert f"{output.tokens:,} tokens ({sent:,} sent, with framing)" in facts
        row = next(r for r in app.controller.rows() if r.id == output.id)
        assert row.tokens == sent
        await pilot.press("escape")

        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestScreen), "the request view")
        screen = app.screen
        await wait_for(pilot, lambda: screen.latest is not None, "the request to load")
        latest, previous = app.controller.requests(2)
        assert screen.query_one("#request-text", TextArea).text == request_text(latest["request"])
        area = screen.query_one("#request-text", TextArea)
        assert screen.focused is area, "the request text has the keys from the start"
        await pilot.press("pagedown", "pagedown")
        assert area.scroll_offset.y > 0 or area.cursor_location[0] > 0
        assert len(latest["request"]["messages"]) > 2
        table = screen.query_one("#trace-table", DataTable)
        assert table.row_count == len(latest["trace"])
        reasons = {str(table.get_row_at(n)[0]): str(table.get_row_at(n)[3]) for n in range(table.row_count)}
        assert reasons["sys"] == "system prompt"
        await pilot.press("2")
        diff = str(screen.query_one("#diff-text", Static).render())
        assert previous["request"] != latest["request"]
        assert "+" in diff and "@@" in diff
        await pilot.press("escape")
        await gauge_agrees(pilot)


async def test_request_view_shows_a_pin_in_the_diff(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        await pilot.click("#prompt")
        await pilot.press(*"/pin Never edit tests to make them pass", "enter")
        await gauge_agrees(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestScreen), "the request view")
        screen = app.screen
        await wait_for(pilot, lambda: screen.latest is not None, "the request to load")
        diff = str(screen.query_one("#diff-text", Static).render())
        assert "+Never edit tests to make them pass" in diff
        trace = {t["item_id"]: t for t in screen.latest["trace"]}
        rule = next(i for i in app.controller.engine.items.values() if i.category == "rules")
        assert trace[rule.id]["included"] and trace[rule.id]["reason"] == "pinned"


async def test_as_sent_shows_the_message_the_request_carried(demo_workspace: Path, recorder: Recorder) -> None:
    """The "As sent" tab showed the item's own text while the request carried its message with the status
    line appended; it shows what went, and the item's own text has a tab of its own."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        with app.controller.lock:
            carried = engine.add_user("and what is next?")  # a turn's first request: the status line rides on it
            engine.assemble()
        last = engine.last.messages[-1]
        assert carried.content in last["content"] and last["content"] != carried.content, last["content"]
        await open_inspector_at(pilot, carried.id)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ItemScreen), "the item view")
        assert app.screen.query_one("#item-content", TextArea).text == last["content"]
        assert app.screen.query_one("#item-own", TextArea).text == carried.content
