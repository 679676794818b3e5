"""Shape any tool result (built-in or MCP) to a token budget without losing it.

The rule, from the design: clean the noise first; if the result then fits, the model
gets it whole.  If not, the *original* text is stored whole behind a handle and the
model gets a summary (JSON: shape, counts, first rows; text: head, tail, error lines
and lines matching its intent) plus a footer naming the handle, the size and the pages
to fetch.  The shaped text never exceeds ``max_tokens``: the summary shrinks, then the
footer shortens, and in the degenerate case (a budget of a few tokens) only what fits
is returned.  Shaping a big result costs CPU (tokenising, scanning every line), so the
tools call ``shape_result_async``: the work runs in a thread and the event loop (the
UI) stays responsive; only the store write hops back onto the loop's thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent_tui.core.parse import loads_json
from agent_tui.core.redact_whole import redact_whole
from agent_tui.core.results import ResultStore
from agent_tui.core.tokens import TokenCounter, counter_for
from agent_tui.tools.cleaning import clean_text
from agent_tui.tools.paging import fetch_hint, page_count
from agent_tui.tools.shaping_json import summarize_json
from agent_tui.tools.shaping_text import summarize_text


@dataclass(frozen=True)
class ShapedResult:
    """What the model sees (``text``) and what it stands for.

    ``handle`` is None when the cleaned result fit; otherwise the store holds the
    original text under it.  ``raw_tokens``/``raw_chars`` measure the original.
    """

    text: str
    handle: str | None
    raw_tokens: int
    shaped_tokens: int
    raw_chars: int


def _parse_json(text: str) -> tuple[bool, Any]:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return False, None
    try:
        return True, loads_json(stripped)
    except ValueError:
        return False, None


def _footers(handle: str, original: str, raw_tokens: int) -> list[str]:
    return [
        f"[stored whole as {handle}: {len(original):,} chars, {raw_tokens:,} tokens; "
        f"{fetch_hint(handle, original)}]",
        f'[stored as {handle}; fetch_result("{handle}", page=1..{page_count(original)})]',
        f"[{handle}]",
    ]


def _summary(cleaned: str, budget: int, counter: TokenCounter, intent: str) -> str:
    if budget <= 0:
        return ""
    is_json, value = _parse_json(cleaned)
    if is_json:
        return summarize_json(value, budget, counter)
    return summarize_text(cleaned, budget, counter, intent)


def _fit(
    cleaned: str, footer: str, label: str, max_tokens: int, counter: TokenCounter, intent: str
) -> str | None:
    """Summary + footer within ``max_tokens``, or None if even the bare footer does not fit."""
    prefix = f"{label}: " if label else ""
    budget = max_tokens - counter.count(prefix + footer) - 1
    while budget > 0:
        body = _summary(cleaned, budget, counter, intent)
        if not body:
            break
        text = f"{prefix}{body}\n{footer}"
        over = counter.count(text) - max_tokens
        if over <= 0:
            return text
        budget -= max(over, 1)  # token merges across the joins: shrink and retry
    text = f"{prefix}{footer}"
    if counter.count(text) <= max_tokens:
        return text
    return footer if counter.count(footer) <= max_tokens else None


def shape_result(
    text: str,
    *,
    max_tokens: int,
    store: ResultStore,
    intent: str = "",
    label: str = "",
    model: str | None = None,
    html_page: bool = False,
) -> ShapedResult:
    """Clean ``text``; return it whole if it fits ``max_tokens``, else store it and summarise.
    ``html_page``: the result may be a web page (an MCP server's), whose markup is removed.

    ``intent`` (what the model is looking for) selects extra lines of a text summary;
    ``label`` (e.g. ``"mcp:github.search"``) prefixes the summary and goes in the
    store's metadata.
    """
    counter = counter_for(model)
    raw_tokens = counter.count(text)
    cleaned = clean_text(text, html_page=html_page)
    # whether the cleaned text fits is all a long output needs: its count stops once over the cap
    if cleaned == text:
        cleaned_tokens: int | None = raw_tokens if raw_tokens <= max_tokens else None
    else:
        cleaned_tokens = counter.count_within(cleaned, max_tokens)
    if cleaned_tokens is not None:
        return ShapedResult(cleaned, None, raw_tokens, cleaned_tokens, len(text))
    handle = store.put(
        text, {"label": label, "intent": intent, "chars": len(text), "tokens": raw_tokens}
    )
    cleaned = redact_whole(cleaned)  # before any cut: the part of a secret left after one is not recognisable
    shaped = ""
    for footer in _footers(handle, text, raw_tokens):
        found = _fit(cleaned, footer, label, max_tokens, counter, intent)
        if found is not None:
            shaped = found
            break
    return ShapedResult(shaped, handle, raw_tokens, counter.count(shaped), len(text))


#: Results shorter than this are shaped inline (a thread costs more than the work).
OFFLOAD_CHARS = 20_000


class _PutOnLoop:
    """A ResultStore proxy for a worker thread: ``put`` runs on the event loop's thread."""

    def __init__(self, store: ResultStore, loop: asyncio.AbstractEventLoop) -> None:
        self.store = store
        self.loop = loop

    def _on_loop(self, fn: Callable[[], Any]) -> Any:
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(fn())
            except BaseException as exc:  # handed to the waiting thread
                done.set_exception(exc)

        self.loop.call_soon_threadsafe(run)
        return done.result()

    def put(self, content: str, meta: dict[str, Any] | None = None) -> str:
        return str(self._on_loop(lambda: self.store.put(content, meta)))

    def get(self, handle: str) -> str | None:
        found = self._on_loop(lambda: self.store.get(handle))
        return None if found is None else str(found)


async def shape_result_async(
    text: str,
    *,
    max_tokens: int,
    store: ResultStore,
    intent: str = "",
    label: str = "",
    model: str | None = None,
    html_page: bool = False,
) -> ShapedResult:
    """``shape_result`` run off the event loop for big texts (same arguments, same result)."""
    if len(text) < OFFLOAD_CHARS:
        return shape_result(
            text, max_tokens=max_tokens, store=store, intent=intent, label=label, model=model,
            html_page=html_page,
        )
    proxy = _PutOnLoop(store, asyncio.get_running_loop())
    return await asyncio.to_thread(
        shape_result,
        text,
        max_tokens=max_tokens,
        store=proxy,
        intent=intent,
        label=label,
        model=model,
        html_page=html_page,
    )
