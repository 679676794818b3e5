"""The LLM summariser: the model compresses evicted rounds with prompts/summary.md.

It is async (one model call per chunk); the engine's extractive summariser
still runs alongside to feed the decision store and is the fallback when the
call fails, so a failure never loses a round.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agent_tui.agent.prompts import render_prompt
from agent_tui.core.items import ContextItem

MAX_ITEM_CHARS = 4000

Complete = Callable[[list[dict[str, Any]]], Awaitable[str]]


def render_items(items: Sequence[ContextItem]) -> str:
    """Items as a transcript for the summarising request (long outputs cut to head and tail)."""
    parts = []
    for it in items:
        text = it.content
        if len(text) > MAX_ITEM_CHARS:
            half = MAX_ITEM_CHARS // 2
            text = text[:half] + f"\n[… {len(it.content) - MAX_ITEM_CHARS:,} chars cut …]\n" + text[-half:]
        label = it.role or str(it.category)
        if it.role == "tool":
            label = f"tool {it.name}"
        calls = ""
        if it.tool_calls:
            calls = " calls: " + ", ".join(
                f"{c.get('function', {}).get('name')}({c.get('function', {}).get('arguments', '')[:200]})"
                for c in it.tool_calls
            )
        parts.append(f"[{it.id}] {label}:{calls}\n{text}")
    return "\n\n".join(parts)


def summary_request(items: Sequence[ContextItem], previous: str, max_words: int) -> list[dict[str, Any]]:
    """Messages of one summarising call."""
    system = render_prompt("summary", max_words=max_words)
    body = f"Previous summary:\n{previous or '(none)'}\n\nNew conversation to fold in:\n{render_items(items)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": body}]
