"""The exact request as text: one block per message, so it can be read and diffed line by line."""

from __future__ import annotations

import json
from typing import Any


def request_text(request: dict[str, Any]) -> str:
    """The messages (and a line per tool definition) of a logged request, as plain text."""
    out: list[str] = []
    for n, m in enumerate(request.get("messages") or []):
        head = f"── #{n} {m.get('role')}"
        if m.get("tool_call_id"):
            head += f" (answers {m['tool_call_id']})"
        out.append(head + " " + "─" * max(0, 40 - len(head)))
        content = m.get("content")
        out.extend((content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)).splitlines()
                   if content else ["(no text)"])
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            out.append(f"→ call {call.get('id')}: {fn.get('name')}({fn.get('arguments')})")
    tools = request.get("tools") or []
    if tools:
        out.append(f"── tools: {len(tools)} definitions " + "─" * 20)
        for t in tools:
            fn = t.get("function") or {}
            out.append(f"  {fn.get('name')}: {(fn.get('description') or '').splitlines()[0] if fn.get('description') else ''}")
    return "\n".join(out)


def header(row: dict[str, Any]) -> str:
    bd = row.get("breakdown") or {}
    return (f"turn {row.get('turn')} · step {row.get('step')} · {bd.get('total', 0):,} tokens "
            f"({bd.get('used_pct', 0):.1f}% of {bd.get('input_budget', 0):,})")
