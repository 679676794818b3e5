"""Turn shapes the providers refuse, mended in a request just before it goes out.

Anthropic reads tool results followed by the user's message in one turn as the old tool loop going on
(with thinking on: a 400, or thinking silently off), so such a loop is closed with a short assistant line;
Claude and Gemini refuse an empty reply and a blank text block; deepseek-reasoner refuses two user messages
in a row.  The engine's own requests never hold these (``core/pairing.normalise``); a turn that ended
without a reply, an empty answer, or a summary's or memo's ask appended to a request can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_tui.core.notes import said_by_user

#: The assistant message that closes a tool loop a user-role message interrupts (Anthropic requests): a turn
#: that ended without a reply (cancelled, stopped), or a summary or memo instruction sent mid-loop, where the
#: turn goes on after it; the words hold for both.
LOOP_CLOSED = "[Tool loop interrupted here: no reply was given to these results.]"


def close_open_loops(messages: list[dict[str, Any]]) -> int:
    """Put :data:`LOOP_CLOSED` between tool results and a user message that follows them (engine notes, system
    messages and empty replies in between do not count: an empty reply is left out of the request, and the
    results would then run into the user's message, which Claude reads as the old loop going on); returns how
    many were put in."""
    out: list[dict[str, Any]] = []
    after_results = False
    added = 0
    for m in messages:
        role = m.get("role")
        if said_by_user(m) and after_results:
            out.append({"role": "assistant", "content": LOOP_CLOSED})
            added += 1
        if role in ("tool", "function"):
            after_results = True
        elif (role == "assistant" and not is_empty_reply(m)) or said_by_user(m):
            after_results = False
        out.append(m)
    messages[:] = out
    return added


def successive_users_joined(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with each run of user messages joined into one (deepseek-reasoner refuses "successive user
    or assistant messages"): texts one after the other, a blank line between."""
    out: list[dict[str, Any]] = []
    for m in messages:
        prev = out[-1] if out else None
        if prev is None or m.get("role") != "user" or prev.get("role") != "user":
            out.append(m)
            continue
        a, b = prev.get("content"), m.get("content")
        if isinstance(a, str) and isinstance(b, str):
            out[-1] = {**prev, "content": f"{a}\n\n{b}"}
        else:
            parts = [p for c in (a, b) for p in (c if isinstance(c, list) else [{"type": "text", "text": str(c or "")}])]
            out[-1] = {**prev, "content": parts}
    return out


def is_empty_reply(message: Mapping[str, Any]) -> bool:
    """An assistant message with neither text (whitespace is none: Claude refuses a blank text block, and
    litellm puts its "[System: Empty message content sanitised …]" line there) nor tool calls."""
    content = message.get("content")
    return (message.get("role") == "assistant" and not message.get("tool_calls")
            and (content is None or content == [] or (isinstance(content, str) and not content.strip())))


def blank_text_dropped(message: dict[str, Any]) -> dict[str, Any]:
    """A tool-call message whose text is only whitespace, without that text (a blank text block is refused)."""
    content = message.get("content")
    if message.get("tool_calls") and isinstance(content, str) and content and not content.strip():
        return {**message, "content": None}
    return message
