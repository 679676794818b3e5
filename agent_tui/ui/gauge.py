"""The numbers the budget panel shows, computed from one breakdown dict.

The panel never counts tokens itself: it takes the engine's breakdown of the
latest assembly (the very dict ``agent-tui context --json`` prints) and only
derives shares from it, the same way the CLI does, so the two always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CATEGORIES: tuple[str, ...] = ("system", "rules", "tools", "memory", "summary", "files", "history", "results")


@dataclass(frozen=True)
class CategoryRow:
    """One bar: a category's tokens and its share of the input budget."""

    name: str
    tokens: int
    pct: float
    """Percent of the input budget (as `agent-tui context` prints it)."""


@dataclass(frozen=True)
class Gauge:
    """Everything the budget panel renders."""

    window: int
    reserve: int
    input_budget: int
    total: int
    free: int
    used_pct: float
    compact_at: float
    fresh_at: float
    over_budget: bool
    rows: tuple[CategoryRow, ...]

    @property
    def level(self) -> str:
        """ok, compact (past the compaction point), fresh (past the fresh-session point) or over."""
        if self.over_budget:
            return "over"
        share = self.used_pct / 100.0
        if share >= self.fresh_at:
            return "fresh"
        if share >= self.compact_at:
            return "compact"
        return "ok"


def share_pct(tokens: int, input_budget: int) -> float:
    """Percent of the input budget, computed exactly like `agent-tui context`."""
    return 100.0 * tokens / input_budget if input_budget else 0.0


def gauge_from_breakdown(bd: dict[str, Any]) -> Gauge:
    """A Gauge from a breakdown dict (Breakdown.to_json(), a BudgetUpdated, or `context --json`)."""
    budget = int(bd["input_budget"])
    cats = dict(bd.get("categories") or {})
    names = [c for c in CATEGORIES if c in cats] + [c for c in cats if c not in CATEGORIES]
    rows = tuple(CategoryRow(n, int(cats[n]), share_pct(int(cats[n]), budget)) for n in names)
    total = int(bd["total"])
    return Gauge(
        window=int(bd["window"]),
        reserve=int(bd["reserve"]),
        input_budget=budget,
        total=total,
        free=int(bd.get("free", budget - total)),
        used_pct=float(bd["used_pct"]),
        compact_at=float(bd.get("compact_at", 0.75)),
        fresh_at=float(bd.get("fresh_at", 0.90)),
        over_budget=bool(bd["over_budget"]),
        rows=rows,
    )


def bar_cells(share: float, width: int) -> int:
    """Filled cells of a ``width`` bar for a share in 0..1 (a non-zero share shows at least one)."""
    if share <= 0 or width <= 0:
        return 0
    return max(1, min(width, round(share * width)))
