"""The budget panel: what the latest request is made of, against the window.

It shows the engine's breakdown of the latest assembly and nothing else —
never its own estimate — so it agrees with `agent-tui context --json` and is
right again after every compaction.  Always on screen; on a narrow terminal it
collapses to one line (ctrl+b).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Label, Static

from agent_tui.ui.gauge import CATEGORIES, Gauge, gauge_from_breakdown
from agent_tui.ui.widgets.bars import CategoryBar, TotalBar, fmt_tokens
from agent_tui.ui.widgets.spark import BudgetSpark
from agent_tui.ui.widgets.status_line import cache_cost_text


def budget_equation(gauge: Gauge) -> str:
    """``input budget 5,514 = window 7,000 − reserve 1,400 − margin 86``: where the budget comes from."""
    margin = gauge.window - gauge.reserve - gauge.input_budget
    text = f"input budget {fmt_tokens(gauge.input_budget)} = window {fmt_tokens(gauge.window)} − reserve {fmt_tokens(gauge.reserve)}"
    if margin >= 0:
        return text + (f" − margin {fmt_tokens(margin)}" if margin else "")
    # calibrated: the provider counts fewer tokens than the engine, so the budget in the engine's count is larger
    return text + ", in the engine's count (calibrated: the provider counts fewer tokens than the engine)"


def collapsed_line(gauge: Gauge, cache_pct: float | None, cost: float | None) -> str:
    """``ctx 42 % · cache 91 % · $0.03``: the panel in one line."""
    money = cache_cost_text(cache_pct, cost)
    return f"ctx {gauge.used_pct:.0f} %" + (f" · {money}" if money else "")

SPARK_POINTS = 40


class BudgetPanel(Vertical):
    """Bars per category, the total with thresholds, the output reserve, a sparkline of requests."""

    gauge: reactive[Gauge | None] = reactive(None)
    over_budget: reactive[bool] = reactive(False, toggle_class="-over")
    collapsed: reactive[bool] = reactive(False, toggle_class="-collapsed")
    output_tokens: reactive[int] = reactive(0)
    history: reactive[list[int]] = reactive(list, always_update=True)
    cost: reactive[float | None] = reactive(None)
    """Session cost, once the model layer reports it."""
    cache_pct: reactive[float | None] = reactive(None)
    """Session prompt-cache hit share, once reported."""

    def compose(self) -> ComposeResult:
        yield Label("ctx —", id="budget-line")
        yield Label("Context —", id="budget-title")
        yield TotalBar(id="total-bar")
        yield Label("", id="money")
        yield Label("", id="used")
        yield Label("", id="thresholds")
        with Vertical(id="category-bars"):
            for name in CATEGORIES:
                yield CategoryBar(name)
        yield Label("", id="reserve")
        yield Static("OVER BUDGET: the mandatory parts alone exceed the window", id="over-flag")
        yield Label("tokens per request (height: share of the budget)", id="spark-label")
        yield BudgetSpark(id="sparkline")

    # input -----------------------------------------------------------------------------------
    def show(self, breakdown: dict[str, Any], points: tuple[int, ...] = (), output_tokens: int = 0,
             reset: bool = False) -> None:
        """Show a breakdown; ``points`` are new request totals for the sparkline."""
        self.gauge = gauge_from_breakdown(breakdown)
        if reset or points:
            self.history = ([] if reset else self.history[:]) + list(points)
            self.history = self.history[-SPARK_POINTS:]
        self.output_tokens = output_tokens

    # rendering -------------------------------------------------------------------------------
    def watch_gauge(self, gauge: Gauge | None) -> None:
        if gauge is None:
            return
        self.over_budget = gauge.over_budget
        self.set_class(gauge.level in ("compact", "fresh"), "-warn")
        title = self.query_one("#budget-title", Label)
        title.update(f"Context {gauge.used_pct:.1f}% of {fmt_tokens(gauge.input_budget)}")
        title.tooltip = budget_equation(gauge)
        self.query_one(BudgetSpark).ceiling = gauge.input_budget
        self._show_money()
        self.query_one("#used", Label).update(f"{fmt_tokens(gauge.total)} used · {fmt_tokens(gauge.free)} free")
        bar = self.query_one(TotalBar)
        bar.total, bar.input_budget = gauge.total, gauge.input_budget
        bar.compact_at, bar.fresh_at, bar.level = gauge.compact_at, gauge.fresh_at, gauge.level
        self.query_one("#thresholds", Label).update(
            f"┃{gauge.compact_at:.0%} compact  ┃{gauge.fresh_at:.0%} fresh")
        for row in gauge.rows:
            self._bar(row.name).set_value(row.tokens, row.pct)
        self._show_reserve()

    def _bar(self, name: str) -> CategoryBar:
        """The category's bar; one the engine added later (``reasoning`` sent back to a thinking
        model) gets a bar when it first appears instead of breaking the panel."""
        found = self.query(f"#bar-{name}")
        if found:
            return found.first(CategoryBar)
        bar = CategoryBar(name)
        self.query_one("#category-bars", Vertical).mount(bar)
        return bar

    def watch_output_tokens(self) -> None:
        self._show_reserve()

    def watch_history(self, history: list[int]) -> None:
        self.query_one(BudgetSpark).values = list(history)

    def watch_cost(self) -> None:
        self._show_money()

    def watch_cache_pct(self) -> None:
        self._show_money()

    def _show_money(self) -> None:
        money = cache_cost_text(self.cache_pct, self.cost)
        self.query_one("#money", Label).update(money)
        self.set_class(bool(money), "-money")
        if self.gauge is not None:
            self.query_one("#budget-line", Label).update(collapsed_line(self.gauge, self.cache_pct, self.cost))

    def _show_reserve(self) -> None:
        if self.gauge is None:
            return
        answer = f" · answer {fmt_tokens(self.output_tokens)} of the reserve" if self.output_tokens else ""
        self.query_one("#reserve", Label).update(budget_equation(self.gauge) + answer)
