"""Text bars for the budget panel: one per category, and the total with its threshold marks.

Drawn as plain cells with theme colours, so they fit 30 columns, follow the
terminal's palette and cost nothing to redraw.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from agent_tui.ui.gauge import bar_cells

FULL, EMPTY, MARK = "█", "░", "┃"


def fmt_tokens(n: int) -> str:
    """1,234 below 100k, then 123k."""
    return f"{n:,}" if abs(n) < 100_000 else f"{n // 1000:,}k"


class CategoryBar(Static):
    """``history ██████░░░░  1,234  22.4%`` — one category of the latest request."""

    tokens: reactive[int] = reactive(0)
    pct: reactive[float] = reactive(0.0)
    empty: reactive[bool] = reactive(True, toggle_class="-empty")

    def __init__(self, name: str) -> None:
        super().__init__(id=f"bar-{name}", classes="category-bar")
        self.category = name

    def set_value(self, tokens: int, pct: float) -> None:
        self.tokens, self.pct, self.empty = tokens, pct, tokens == 0

    def render(self) -> Content:
        width = max(10, self.content_size.width)
        label, number, share = f"{self.category:<8}", f"{fmt_tokens(self.tokens):>7}", f"{self.pct:5.1f}%"
        bar_w = max(3, width - len(label) - len(number) - len(share) - 3)
        filled = bar_cells(self.pct / 100.0, bar_w)
        return Content.assemble(
            label, " ", (FULL * filled, "$accent"), (EMPTY * (bar_w - filled), "$foreground 30%"),
            " ", number, " ", share,
        )


class TotalBar(Static):
    """The whole request against the input budget, with the compaction and fresh-session points marked."""

    total: reactive[int] = reactive(0)
    input_budget: reactive[int] = reactive(1)
    compact_at: reactive[float] = reactive(0.75)
    fresh_at: reactive[float] = reactive(0.90)
    level: reactive[str] = reactive("ok")

    def render(self) -> Content:
        width = max(10, self.content_size.width)
        share = self.total / self.input_budget if self.input_budget else 1.0
        filled = bar_cells(min(share, 1.0), width)
        colour = {"ok": "$success", "compact": "$warning", "fresh": "$error", "over": "$error"}[self.level]
        cells: list[tuple[str, str]] = [(FULL, colour) if i < filled else (EMPTY, "$foreground 30%")
                                        for i in range(width)]
        for at, style in ((self.compact_at, "bold $warning"), (self.fresh_at, "bold $error")):
            pos = min(width - 1, int(at * width))
            cells[pos] = (MARK, style)
        return Content.assemble(*cells)
