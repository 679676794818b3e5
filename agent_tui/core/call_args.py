"""Shortening the arguments of tool calls that already ran.

A ``write_file`` of 80 KB stays in the history as the assistant's own call: its
arguments are resent on every step, and compaction alone cannot shrink them
(the call is in the latest, verbatim step).  Once a call has its result, the
long string values of its arguments (file contents, patches) carry nothing the
model needs again — the file on disk and the tool result say what happened — so
they can be replaced by a one-line placeholder.  The JSON stays valid and keeps
every short value (``path``, ``command``...).  The engine calls this when a
request must shrink (a context-window error); it never touches a call without
its result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agent_tui.core.items import ContextItem
from agent_tui.core.parse import loads_json

#: String values longer than this (characters) are shortened.
LONG_VALUE = 400
#: Characters kept from the start of a shortened value.
KEEP_HEAD = 120


def _shorten_value(value: Any, limit: int) -> tuple[Any, bool]:
    if isinstance(value, str) and len(value) > limit:
        lines = value.count("\n") + 1
        head = value[:KEEP_HEAD]
        return f"{head}… [shortened after the call ran: {len(value):,} characters, {lines:,} lines]", True
    if isinstance(value, dict):
        changed = False
        out: dict[str, Any] = {}
        for k, v in value.items():
            out[k], c = _shorten_value(v, limit)
            changed = changed or c
        return out, changed
    if isinstance(value, list):
        pairs = [_shorten_value(v, limit) for v in value]
        return [p[0] for p in pairs], any(p[1] for p in pairs)
    return value, False


def shorten_arguments(arguments: str, limit: int = LONG_VALUE) -> str | None:
    """``arguments`` (a JSON object string) with long string values shortened; None if unchanged."""
    if len(arguments) <= limit:
        return None
    try:
        value = loads_json(arguments)
    except ValueError:
        return "{}"  # unparsable and long: nothing worth keeping
    new, changed = _shorten_value(value, limit)
    return json.dumps(new, ensure_ascii=False) if changed else None


def shorten_answered_calls(items: Iterable[ContextItem], answered: set[str],
                           limit: int = LONG_VALUE) -> list[ContextItem]:
    """Shorten, in place, the long arguments of calls whose id is in ``answered``.

    Returns the assistant items that changed (save them; their token counts are
    recomputed by the assembler from the new calls).
    """
    changed: list[ContextItem] = []
    for it in items:
        if it.role != "assistant" or not it.tool_calls:
            continue
        calls = []
        touched = False
        for c in it.tool_calls:
            fn = dict(c.get("function") or {})
            short = shorten_arguments(str(fn.get("arguments") or ""), limit) if c.get("id") in answered else None
            if short is not None:
                fn["arguments"] = short
                touched = True
            calls.append({**c, "function": fn})
        if touched:
            it.tool_calls = calls
            it.provenance.pop("calls_tokens", None)
            it.provenance["calls_shortened"] = True
            changed.append(it)
    return changed


def calls_tokens(item: ContextItem, counter: Any) -> int:
    """Tokens of an assistant message's tool calls (the arguments the model wrote), counted once and kept in its
    provenance until the arguments change: what the message costs beyond its text."""
    if not item.tool_calls:
        return 0
    extra = item.provenance.get("calls_tokens") or counter.count(json.dumps(item.tool_calls))
    item.provenance["calls_tokens"] = extra
    return int(extra)
