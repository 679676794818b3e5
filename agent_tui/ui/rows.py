"""Inspector rows: every context item flattened to what the table shows, with sort and filter.

Built from the engine's items and the trace of the latest assembly, so each row
can say not only what state an item is in but why it is (or is not) in the
request.  Pure data: the inspector screen only renders these.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

SORT_KEYS: tuple[str, ...] = ("order", "tokens", "age", "category", "state")


@dataclass(frozen=True)
class ItemRow:
    """One line of the inspector."""

    id: str
    category: str
    tokens: int
    age: int
    """Turns since the item was created (0 = this turn)."""
    state: str
    """in, evicted, summarised, stale, released."""
    pinned: bool
    in_request: bool | None
    """In the latest assembly (None if no assembly yet)."""
    reason: str
    """The trace's reason it is in or out of the latest request."""
    preview: str
    role: str | None
    order: int


def display_state(item: Any) -> str:
    """State for the table: a turn-scoped tool output dropped to a stub reads as 'stubbed'."""
    state = str(item.state)
    if state == "in" and item.provenance.get("stub") and not item.pinned:
        return "stubbed"
    return state


FRAMING = "(framing)"
"""The inspector row for what the request costs beyond its items (so the totals agree)."""


def build_rows(items: Sequence[Any], trace: Iterable[Any] | None, current_turn: int,
               total: int | None = None) -> list[ItemRow]:
    """Rows for ``items`` (ContextItems) with reasons from ``trace`` (TraceEntries or dicts).

    An item in the request shows what it cost there (the trace's tokens: 0 for an active file whose text a
    file note carries, so it is not counted twice); with ``total`` (the
    gauge's), a ``(framing)`` row holds the rest — message framing, section headers and the
    status line — so the rows in the request add up to the gauge's total."""
    why: dict[str, tuple[bool, str, int]] = {}
    for t in trace or ():
        item_id = t["item_id"] if isinstance(t, dict) else t.item_id
        included = t["included"] if isinstance(t, dict) else t.included
        reason = t["reason"] if isinstance(t, dict) else t.reason
        tokens = t.get("tokens", 0) if isinstance(t, dict) else t.tokens
        seen = why.get(item_id)
        if seen is None or (included and not seen[0]):
            why[item_id] = (bool(included), str(reason), int(tokens or 0))
        elif included:  # an item also traced where it is carried (a file in the block): its cost is the largest
            why[item_id] = (True, seen[1], max(seen[2], int(tokens or 0)))
    rows = []
    for n, it in enumerate(items):
        known = why.get(it.id)
        own = int(it.window_tokens if it.role == "tool" else it.tokens)
        rows.append(ItemRow(
            id=it.id, category=str(it.category), tokens=known[2] if known and known[0] else own,
            age=max(0, current_turn - int(it.turn)), state=display_state(it), pinned=bool(it.pinned),
            in_request=None if trace is None else (known[0] if known else False),
            reason=known[1] if known else ("not assembled yet" if trace is None else "not considered"),
            preview=it.preview(200), role=it.role, order=n,
        ))
    if total is not None and trace is not None:
        rest = total - sum(r.tokens for r in rows if r.in_request)
        if rest:
            rows.append(ItemRow(id=FRAMING, category="system", tokens=rest, age=0, state="in", pinned=False,
                                in_request=True, reason="message framing, section headers and the budget status "
                                "line: in the gauge, not an item", preview="message framing, section headers, "
                                "status line", role=None, order=len(rows)))
    return rows


def sort_rows(rows: list[ItemRow], key: str) -> list[ItemRow]:
    """Rows sorted by one of SORT_KEYS (largest and oldest first where that is the useful order)."""
    if key == "tokens":
        return sorted(rows, key=lambda r: (-r.tokens, r.order))
    if key == "age":
        return sorted(rows, key=lambda r: (-r.age, r.order))
    if key == "category":
        return sorted(rows, key=lambda r: (r.category, r.order))
    if key == "state":
        return sorted(rows, key=lambda r: (r.state, r.order))
    return sorted(rows, key=lambda r: r.order)


def filter_rows(rows: Iterable[ItemRow], query: str) -> list[ItemRow]:
    """Rows matching every word of ``query``: plain words match id/category/state/text;
    ``cat:X``, ``state:X``, ``pinned`` and ``out`` narrow further."""
    words = query.lower().split()
    out = []
    for r in rows:
        ok = True
        for w in words:
            if w.startswith(("cat:", "category:")):
                ok = r.category.startswith(w.split(":", 1)[1])
            elif w.startswith("state:"):
                ok = r.state.startswith(w.split(":", 1)[1])
            elif w == "pinned":
                ok = r.pinned
            elif w == "out":
                ok = r.in_request is False
            else:
                ok = w in r.id.lower() or w in r.category or w in r.state or w in r.preview.lower()
            if not ok:
                break
        if ok:
            out.append(r)
    return out


def red_flags(rows: Sequence[ItemRow], breakdown: dict[str, Any] | None) -> list[str]:
    """The design's warning signs: results over half the window, > 50 raw turns, > 10 injected resources."""
    flags = []
    if breakdown:
        results = int(breakdown.get("categories", {}).get("results", 0))
        if results > breakdown["window"] / 2:
            flags.append(f"tool results use {results:,} tokens, over half the window")
    raw_turns = {r.age for r in rows if r.role == "user" and r.state == "in"}
    if len(raw_turns) > 50:
        flags.append(f"{len(raw_turns)} raw turns in the window")
    injected = [r for r in rows if r.id.startswith("rc") and r.state == "in"]
    if len(injected) > 10:
        flags.append(f"{len(injected)} injected resources")
    return flags
