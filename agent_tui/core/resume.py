"""Resuming a session: the engine's state rebuilt from the items its store kept.

A restart or a crash leaves the store with every item the session made (messages, rules,
memos, summary segments, the active files' rows, the tool definitions' items).  Loading puts
them back in order, finds the turn and step clocks again (the latest item's), which turns the
agent never answered (they do not age the active files), the live summary segments in the order
they were made, and the structured summary the next event merges into, then freezes the block
as the last event left it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui.core.items import Category, ContextItem, State
from agent_tui.core.released_heads import PREFIX as HEAD_PREFIX
from agent_tui.core.summary import Summary
from agent_tui.core.task_statement import task_statement
from agent_tui.core.tool_items import PREFIX as TOOL_PREFIX

if TYPE_CHECKING:
    from agent_tui.core.engine import ContextEngine


def load_items(engine: ContextEngine, items: Sequence[ContextItem]) -> None:
    """Rebuild ``engine``'s state from stored ``items``."""
    e = engine
    e.history.reset()
    e.compactor.segments = []
    e.window.ledger.load(e, [it for it in items if it.id.startswith("f:")])
    e.tool_items.load([it for it in items if it.id.startswith(TOOL_PREFIX)])
    e.window.heads.load([it for it in items if it.id.startswith(HEAD_PREFIX)])
    for it in items:
        if it.id == "sys" or it.id.startswith(("f:", TOOL_PREFIX, HEAD_PREFIX)):
            continue
        e.ids.observe(it.id)
        if it.category == Category.RULES and it.role is None and not it.pinned and it.state == State.IN:
            it.state = State.EVICTED  # (unpinned before unpinning a rule said so: it is not sent, not "in")
        if it.id not in e.items:
            e.order.append(it.id)
        e.items[it.id] = it
        e.turn = max(e.turn, it.turn)
        e.steps_total = max(e.steps_total, int(it.provenance.get("step") or 0))
        if it.category == Category.SUMMARY and it.state == State.IN:
            e.compactor.segments.append(it)
    e.compactor.segments.sort(key=lambda it: (it.created_at, _seq(it.id)))
    ordered = [e.items[i] for i in e.order]
    e.task_item = task_statement(ordered)
    last = next((it for it in reversed(ordered) if it.role in ("assistant", "user") and not it.provenance.get("note")),
                None)
    e.answered = last is not None and last.role == "assistant" and not last.tool_calls
    worked = {it.turn for it in items if it.role == "assistant"}
    e.worked_turn = max(worked, default=0)
    e.quiet_turns = {t for t in range(1, e.turn) if t not in worked}
    if e.summary_item is not None and e.store is not None:
        row = getattr(e.store, "latest_summary", lambda _s: None)(e.session_id)
        if row and row.get("data"):
            e.compactor.summary = Summary.from_json(row["data"])
            e.compactor.summary.text_override = None  # (stored by older versions: not the next segment)
    e.rebuild_block()


def _seq(item_id: str) -> int:
    """The number in an item id (``sum12`` → 12): ids are allocated in order."""
    digits = "".join(c for c in item_id if c.isdigit())
    return int(digits) if digits else 0
