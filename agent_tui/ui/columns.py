"""Column widths from content: every column as wide as its widest cell, the flexible one
(a reason, a preview) taking what is left, shrunk first when the screen is narrow.

Tables here show ids the user must type (``f:inventory/stock.py``) and reasons that say
why an item is in or out; a fixed width cuts both.  Pure functions, no Textual: the
screens pass cell texts and the width they have.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len

PADDING = 2
"""Cells a DataTable adds around each column (cell_padding=1 on both sides)."""


def natural_widths(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[int]:
    """The widest cell (or header) of each column, in terminal cells."""
    widths = [cell_len(h) for h in header]
    for row in rows:
        for n, cell in enumerate(row[: len(widths)]):
            widths[n] = max(widths[n], cell_len(cell))
    return widths


def fit_widths(header: Sequence[str], rows: Iterable[Sequence[str]], total: int, flex: int,
               floors: Sequence[int] | None = None, caps: Sequence[int | None] | None = None) -> list[int]:
    """Widths for a table ``total`` cells wide: natural widths (capped by ``caps``), the ``flex``
    column filling the rest.  When they do not fit, the flex column shrinks first (to its floor),
    then the widest other columns, never below their floor."""
    widths = natural_widths(header, rows)
    n = len(widths)
    floors = list(floors) if floors is not None else [cell_len(h) for h in header]
    if caps is not None:
        widths = [min(w, c) if c is not None else w for w, c in zip(widths, caps, strict=True)]
    widths = [max(w, f) for w, f in zip(widths, floors, strict=True)]
    room = total - PADDING * n
    fixed = sum(w for i, w in enumerate(widths) if i != flex)
    widths[flex] = max(floors[flex], room - fixed)
    over = sum(widths) - room
    while over > 0:
        shrinkable = [i for i in range(n) if i != flex and widths[i] > floors[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
        over -= 1
    return widths


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with an ellipsis (whole when it fits)."""
    if cell_len(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"
