"""A request's messages as every provider accepts them: tool results paired with their calls.

Providers reject a tool result that answers no call, a call left without a result, and a
conversation that does not open with a user turn.  The assembler picks messages by budget,
so what it picks can break those rules (an evicted call whose result stayed, two user
messages in a row); ``normalise`` repairs the order once, and ``check_pairing`` says what is
wrong with a list of messages (tests and the loop's own checks use it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_tui.core.notes import NEXT_USER_MESSAGE, is_engine_note

CONTINUATION = "[Earlier turns are summarised in the system message.]"
"""The user turn put before a conversation that would otherwise open with the assistant."""


def normalise(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop orphan tool results, merge same-role neighbours, start with a user turn."""
    lead = 1
    while lead < len(msgs) and msgs[lead]["role"] == "system":
        lead += 1
    out: list[dict[str, Any]] = list(msgs[:lead])
    expected: set[str] = set()
    for m in msgs[lead:]:
        role = m["role"]
        if role == "tool":
            if m.get("tool_call_id") in expected:
                expected.discard(m["tool_call_id"])
                out.append(m)
            continue
        expected = {c.get("id") for c in m.get("tool_calls") or []} if role == "assistant" else set()
        prev = out[-1]
        if len(out) == lead and role == "assistant":
            out.append({"role": "user", "content": CONTINUATION})
            prev = out[-1]
        if role == "user" and prev["role"] == "user":
            if is_engine_note(prev) and not is_engine_note(m):
                # the user's words first: an engine note before them (a file note for a file changed between
                # two turns) must not make the merged message read as the engine's (notes.said_by_user), or the
                # provider code takes the new turn for the middle of the old tool loop (llm_provider)
                prev["content"] = f"{m['content']}\n\n{prev['content']}"
            elif not is_engine_note(m):
                prev["content"] = f"{prev['content']}\n\n{NEXT_USER_MESSAGE}\n{m['content']}"
            else:
                prev["content"] = f"{prev['content']}\n\n{m['content']}"
            continue
        if role == "assistant" and prev["role"] == "assistant" and not prev.get("tool_calls"):
            merged = "\n\n".join(x for x in (prev.get("content"), m.get("content")) if x)
            prev["content"] = merged or None
            if m.get("tool_calls"):
                prev["tool_calls"] = m["tool_calls"]
            continue
        out.append(m)
    return out


def check_pairing(messages: Sequence[dict[str, Any]]) -> list[str]:
    """Problems with tool-call pairing or role order (empty list means valid)."""
    problems: list[str] = []
    pending: list[str] = []
    seen_non_system = False
    for n, m in enumerate(messages):
        role = m.get("role")
        if role == "system":
            if seen_non_system:
                problems.append(f"#{n}: system message after the conversation started")
            continue
        if not seen_non_system and role != "user":
            problems.append(f"#{n}: first message after system is {role}, not user")
        seen_non_system = True
        if role == "tool":
            tid = m.get("tool_call_id")
            if tid in pending:
                pending.remove(tid)
            else:
                problems.append(f"#{n}: tool result {tid} answers no pending call")
            continue
        if pending:
            problems.append(f"#{n}: calls {pending} have no result before a {role} message")
            pending = []
        if role == "assistant":
            pending = [c.get("id") for c in m.get("tool_calls") or []]
    if pending:
        problems.append(f"end: calls {pending} have no result")
    return problems
