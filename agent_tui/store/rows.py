"""Reading an item row that does not parse as written, without losing it or the session.

A store outlives the code that wrote it: a newer agent-tui may write a state this one
does not know, a crash or a hand edit may leave broken JSON.  One such row made every
later run of the session fail with a bare ``ValueError``.  The row is loaded instead,
each unreadable field at its default (an unknown state as "in", so the user sees the
item and can evict it), and the store keeps a line saying what was repaired, which the
engine shows once as a warning.  The row is not rewritten at load; if the item is saved
later (evicted, pinned, compacted), the values that could not be read go with it, under
its provenance's ``unreadable_row``, so nothing in the row is lost.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.items import Category, ContextItem, Priority, Scope, State

UNREAD_KEY = "unreadable_row"
"""Where a repaired item keeps the values its row held that could not be read, so a later save keeps them."""
_ENUMS: tuple[tuple[str, type[Any], str], ...] = (
    ("state", State, "in"),
    ("priority", Priority, "medium"),
    ("scope", Scope, "session"),
)


def _json_field(r: dict[str, Any], key: str, empty: Any, fixed: dict[str, str]) -> Any:
    raw = r.get(key)
    if not raw:
        return empty
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        fixed[key] = f"{key} is not JSON"
        return empty
    if not isinstance(value, type(empty) if empty is not None else list):
        fixed[key] = f"{key} is not a {type(empty).__name__ if empty is not None else 'list'}"
        return empty
    return value


def _category(r: dict[str, Any], fixed: dict[str, str]) -> str:
    try:
        return str(Category(r.get("category")))
    except ValueError:
        fixed["category"] = f"unknown category {r.get('category')!r}"
        role = r.get("role")
        return str(Category.RESULTS if role == "tool" else Category.HISTORY if role else Category.MEMORY)


def _number(r: dict[str, Any], key: str, fixed: dict[str, str]) -> Any:
    raw = r.get(key)
    try:
        return float(raw) if key == "created" else int(raw or 0)
    except (TypeError, ValueError):
        fixed[key] = f"{key} {raw!r} is not a number"
        return None if key == "created" else 0


def item_from_row(row: dict[str, Any]) -> tuple[ContextItem | None, str]:
    """The item a store row holds, and '' or a line saying what could not be read (and was defaulted).
    None only for a row with no id, which nothing could name."""
    r = dict(row)
    item_id = r.get("id")
    if not isinstance(item_id, str) or not item_id:
        return None, f"an item row with no id (session {r.get('session_id')}) was skipped"
    fixed: dict[str, str] = {}  # what could not be read, by the row's column
    r["provenance"] = _json_field(r, "provenance", {}, fixed)
    r["tool_calls"] = _json_field(r, "tool_calls", None, fixed)
    r["category"] = _category(r, fixed)
    for key, enum, default in _ENUMS:
        try:
            enum(r.get(key) or default)
        except ValueError:
            fixed[key] = f"unknown {key} {r.get(key)!r}"
            r[key] = default
    r["tokens"] = _number(r, "tokens", fixed)
    r["turn"] = _number(r, "turn", fixed)
    r["created_at"] = _number(r, "created", fixed) if r.get("created") is not None else None
    if not isinstance(r.get("content"), str | None):
        fixed["content"] = "content is not text"
        r["content"] = str(r.get("content"))
    item = ContextItem.from_row(r)
    if not fixed:
        return item, ""
    item.provenance[UNREAD_KEY] = {k: v if isinstance(v := row.get(k), str | int | float | None) else str(v)
                                   for k in fixed}
    return item, f"item {item_id} (session {r.get('session_id')}): {'; '.join(fixed.values())} — loaded with defaults"
