"""Pilot tests: readable at 80×24 and 120×40 — columns as wide as their content (whole ids,
whole reasons), tool titles that keep their id and tokens, a one-line budget strip with cache
and cost once reported, a status line and footers that shorten instead of clipping, a gauge
that explains its budget, a sparkline scaled to the budget, a usable help screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Label
from textual.widgets._footer import FooterKey

from agent_tui.agent import events as ev
from agent_tui.ui.columns import fit_widths
from agent_tui.ui.messages import AgentEventReceived
from agent_tui.ui.screens.help import HelpScreen
from agent_tui.ui.screens.inspector import InspectorScreen
from agent_tui.ui.screens.request_view import RequestScreen
from agent_tui.ui.widgets.spark import spark_rows
from agent_tui.ui.widgets.tool_panel import ToolCallPanel

from .conftest import Recorder, demo_app, denied_demo_turn, ready, wait_for


async def _open_after_a_denied_turn(pilot: Pilot, key: str, kind: type[Screen], filled: str) -> None:
    """Play the demo turn (the test run denied), press `key` and wait for its screen's `filled` data."""
    app = pilot.app
    await denied_demo_turn(pilot)
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and getattr(app.screen, filled), f"{kind.__name__}.{filled}")
    await pilot.pause()


def test_fit_widths_keeps_ids_whole_and_gives_the_rest_to_the_flexible_column() -> None:
    rows = [("f:inventory/stock.py", "files", "476", "active file, read this turn")]
    widths = fit_widths(("id", "cat", "tokens", "reason"), rows, 80, flex=3)
    assert widths[0] == len("f:inventory/stock.py") and widths[3] == 80 - 8 - sum(widths[:3])
    narrow = fit_widths(("id", "cat", "tokens", "reason"), rows, 40, flex=3, floors=(20, 3, 6, 5))
    assert narrow[0] == 20 and narrow[3] == 5


def test_one_point_sparkline_is_scaled_to_the_budget() -> None:
    assert spark_rows([2757], 5514, 5, 2) == [" ", "█"], "half the budget: half the height"
    assert spark_rows([5514, 0], 5514, 5, 1) == ["█ "]
    assert spark_rows([], 5514, 5, 2) == ["", ""]


async def test_trace_tab_shows_whole_reasons_at_120_columns(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_after_a_denied_turn(pilot, "ctrl+r", RequestScreen, "latest")
        await pilot.press("3")
        await pilot.pause()
        table = app.screen.query_one("#trace-table", DataTable)
        trace = app.screen.latest["trace"]
        longest = max(cell_len(str(t["reason"])) for t in trace)
        assert longest > 20
        widths = {str(c.label): c.width for c in table.columns.values()}
        assert widths["reason"] >= longest, "the longest reason fits whole"
        for n, t in enumerate(trace):
            assert str(table.get_row_at(n)[3]) == str(t["reason"])
            assert str(table.get_row_at(n)[0]) == str(t["item_id"])


async def test_inspector_ids_stay_whole_at_40_columns(demo_workspace: Path) -> None:
    """A tester at 40 columns saw `memo` for `memo1` and `relea` for a released file: the id column was squeezed
    to 4 cells first, and an id is what the user types after /pin.  Ids up to 16 cells stay whole."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(40, 24)) as pilot:
        await _open_after_a_denied_turn(pilot, "f2", InspectorScreen, "rows")
        screen = app.screen
        table = screen.query_one("#items", DataTable)
        widths = {str(c.label): c.width for c in table.columns.values()}
        longest = max(len(r.id) for r in screen.rows)
        assert widths["id"] >= min(longest, 16), (widths, [r.id for r in screen.rows])
        assert list(widths) == ["id", "sent", "state", "pin"], "what an action needs; the preview shows below"
        assert sum(widths.values()) + 2 * len(widths) <= 38, "state and pin are not cut off (a tester saw `sys 277 4 i`)"
        states = {str(table.get_row_at(n)[2]) for n in range(table.row_count)}
        assert widths["state"] >= max(len(s) for s in states), states


async def test_inspector_ids_title_and_footer_fit_80_columns(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_after_a_denied_turn(pilot, "f2", InspectorScreen, "rows")
        screen = app.screen
        table = screen.query_one("#items", DataTable)
        ids = [r.id for r in screen.rows]
        assert "f:inventory/stock.py" in ids
        widths = {str(c.label): c.width for c in table.columns.values()}
        assert widths["id"] >= max(len(i) for i in ids), "ids are whole: the user types them"
        title = screen.query_one("#inspector-title", Label)
        assert cell_len(str(title.render())) <= title.content_size.width, "the title is not cut"
        keys = [k for k in screen.query(FooterKey) if k.display]
        descriptions = {k.description for k in keys}
        assert {"Sort", "Filter", "Pin", "Evict"} <= descriptions
        assert all(k.region.right <= 80 and k.region.width > 0 for k in keys), "no footer key clipped"


async def test_tool_titles_keep_id_and_tokens_at_80_columns(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        await pilot.pause()
        finished = {e.call_id: e for e in recorder.events(ev.ToolCallFinished)}
        panels = list(app.main.conversation.query(ToolCallPanel))
        assert len(panels) >= 3
        for panel in panels:
            title = str(panel.title)
            e = finished[panel.call_id]
            assert f"({e.item_id}, {e.shaped_tokens:,} tok)" in title, title
            assert cell_len(title) + 4 <= panel.size.width, f"{title!r} fits {panel.size.width}"


async def test_80x24_budget_strip_status_and_gauge_explanation(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.pause()
        main = app.main
        budget, status = main.budget, main.status
        assert budget.collapsed and budget.region.height == 1
        line = str(budget.query_one("#budget-line", Label).render())
        gauge = budget.gauge
        assert line == f"ctx {gauge.used_pct:.0f} %", "no cache or cost before they are reported"
        shown = str(status.render())
        assert "$" not in shown and "cache" not in shown
        assert cell_len(shown) <= status.content_size.width and "ready" in shown
        margin = gauge.window - gauge.reserve - gauge.input_budget
        explained = (f"input budget {gauge.input_budget:,} = window {gauge.window:,} − reserve "
                     f"{gauge.reserve:,} − margin {margin:,}")
        assert str(budget.query_one("#reserve", Label).render()).startswith(explained)
        assert budget.query_one("#budget-title", Label).tooltip == explained
        main.post_message(AgentEventReceived(ev.Usage(1000, 50, 0.01, 0.0312, cached_tokens=910,
                                                      cache_hit_pct=91.0, session_cache_hit_pct=91.0)))
        await pilot.pause()
        line = str(budget.query_one("#budget-line", Label).render())
        assert line == f"ctx {gauge.used_pct:.0f} % · cache 91 % · $0.03"
        shown = str(status.render())
        assert "cache 91 % · $0.03" in shown and cell_len(shown) <= status.content_size.width
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert str(budget.query_one("#money", Label).render()) == "cache 91 % · $0.03"


async def help_shown(pilot: Pilot[Any]) -> list[str]:
    """Open help with F1 once the session is ready; the lines its text renders."""
    app = await ready(pilot)
    await pilot.press("f1")
    await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
    await pilot.pause()
    return str(app.screen.query_one("#help-text").render()).splitlines()


async def test_help_is_usable_at_80x24(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        lines = await help_shown(pilot)
        dialog = app.screen.query_one("#help-dialog")
        first_page = lines[: dialog.content_size.height]
        keys = [line for line in first_page if line.startswith("  ") and not line.startswith("   ")]
        assert len(keys) >= 12, f"only {len(keys)} keys on the first page"
        assert all(cell_len(line) <= dialog.content_size.width for line in lines), "nothing cut at the edge"


async def test_help_at_40_columns_keeps_keys_and_text_apart(demo_workspace: Path) -> None:
    """At 40 columns each description wrapped into the key column (`send the` / `message or` under `enter`)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(40, 20)) as pilot:
        lines = await help_shown(pilot)
        text = app.screen.query_one("#help-text")
        assert all(cell_len(line) <= text.content_size.width for line in lines), "no line wraps on its own"
        at = lines.index("  /undo")
        assert lines[at + 1].startswith("      take back the files"), lines[at:at + 3]


def test_a_calibrated_budget_is_explained_without_a_negative_margin() -> None:
    """A model the provider counts fewer tokens for gets a budget above window − reserve (in the engine's
    count); the panel showed that as a negative margin (``− margin -6,951``)."""
    from agent_tui.ui.gauge import Gauge
    from agent_tui.ui.widgets.budget import budget_equation

    def gauge(budget: int) -> Gauge:
        return Gauge(window=128_000, reserve=16_384, input_budget=budget, total=0, free=budget, used_pct=0.0,
                     compact_at=0.75, fresh_at=0.9, over_budget=False, rows=())

    assert budget_equation(gauge(110_336)) == "input budget 110k = window 128k − reserve 16,384 − margin 1,280"
    stretched = budget_equation(gauge(118_567))
    assert "-" not in stretched.replace("− ", "") and "margin" not in stretched
    assert stretched.endswith("in the engine's count (calibrated: the provider counts fewer tokens than the engine)")


@pytest.mark.parametrize("size", [(40, 12), (60, 15)])
async def test_the_demo_banner_leaves_the_conversation_room_on_a_short_terminal(demo_workspace: Path,
                                                                                size: tuple[int, int]) -> None:
    """A tester at 40×12 after the demo's turn saw the six-line banner, the gauge and one blank row: no answer."""
    from agent_tui.ui.widgets.chat_items import Banner

    app = demo_app(demo_workspace)
    async with app.run_test(size=size) as pilot:
        await denied_demo_turn(pilot)
        await pilot.pause()
        banner = app.main.query_one(Banner)
        assert banner.region.height == 1, "one line still says it is the demo"
        assert app.main.conversation.region.height >= size[1] // 3
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert banner.region.height > 1, "on a taller terminal it says all of it again"
