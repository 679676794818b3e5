"""A sparkline of request sizes, scaled to the input budget rather than to its own maximum.

Textual's Sparkline scales to the largest value, so one point (after a resume) or a flat
series draws full-height blocks that read as 100 %.  Here a column's height is the
request's share of the budget: the same size always draws the same height.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

BLOCKS = " ▁▂▃▄▅▆▇█"


def spark_rows(values: list[int], ceiling: int, width: int, height: int) -> list[str]:
    """``height`` text rows (top first) drawing the last ``width`` values against ``ceiling``."""
    shown = values[-width:] if width > 0 else []
    steps = height * 8
    levels = [max(1 if v > 0 else 0, min(steps, round(steps * v / ceiling))) if ceiling > 0 else 0 for v in shown]
    rows = []
    for row in range(height - 1, -1, -1):
        cells = []
        for level in levels:
            part = level - row * 8
            cells.append(BLOCKS[max(0, min(8, part))])
        rows.append("".join(cells))
    return rows


class BudgetSpark(Static):
    """Request totals of this session, each a column as tall as its share of the input budget."""

    values: reactive[list[int]] = reactive(list, always_update=True)
    ceiling: reactive[int] = reactive(0)

    def render(self) -> Content:
        width, height = max(1, self.content_size.width), max(1, self.content_size.height)
        rows = spark_rows(self.values, self.ceiling, width, height)
        return Content("\n".join(rows)).stylize("$accent")
