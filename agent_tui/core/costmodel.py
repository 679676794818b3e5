"""When a compaction pays for itself: a small cost model over prompt-cache prices.

Providers bill a repeated prompt prefix at about a tenth of fresh input, so
history that stays in the window costs ``read`` per token per step, while a
compaction costs once: the rewritten part after the head is billed fresh
(``write``, with Anthropic's premium for new cache entries), the summarising
call re-reads the cached request and writes the summary at the output price.

That is the classic economic-order-quantity trade-off: with history growing by
``g`` tokens a step and an event costing ``C``, the average cost per step is
lowest when each event evicts ``E* = sqrt(2·C·g / hold)`` tokens of excess, where
``hold`` is what keeping one token in the prompt costs per step.  Money alone
puts ``hold`` at the cache read price, but a longer prompt also answers more
slowly, uses more of the provider's rate limit and spreads the model's attention
over more stale text, so ``hold`` adds a context weight (by default equal to the
read price: a token held costs twice its cache read).  On the recorded sessions
that gives smaller batches than money alone and, because an event's cost also
shrinks with its batch (the summarising call reads and writes less), it is
cheaper in money too; ``[budget] context_weight = 0`` restores money only.
So the engine compacts when the evictable excess reaches ``E*`` — never
earlier, so short sessions make no summarising call — or when the request
nears the window (the hard limit), whichever comes first.

Weights are relative to one fresh input token; per-model defaults come from
litellm's price table (read without importing litellm), ``[budget]
cache_read_weight`` / ``cache_write_weight`` override them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agent_tui.core.budget import model_info
from agent_tui.core.config import Settings

#: Defaults when the model's prices are unknown: the common cache discount, no write premium.
DEFAULT_READ = 0.1
DEFAULT_WRITE = 1.0
DEFAULT_OUTPUT = 4.0
#: Tokens of the summarising instruction appended to the cached request.
INSTRUCTION_TOKENS = 400
#: Steps a cost-model event waits after the last one.  Right after an event most of the excess is
#: the step it kept verbatim (the next step makes it evictable); an event for that alone would
#: rewrite the block for one step's history.  The window limit does not wait.
MIN_EVENT_GAP = 4
#: Share of the budget an event at the window limit must free while the request is not yet urgent.
WINDOW_EVENT_SHARE = 0.25


@dataclass(frozen=True)
class CacheCosts:
    """Prices relative to one fresh input token."""

    read: float = DEFAULT_READ
    """A token read from the prompt cache."""
    write: float = DEFAULT_WRITE
    """A fresh token that enters the cache (1.25 at Anthropic, 1 where writes are free)."""
    output: float = DEFAULT_OUTPUT
    """An output token (the summary)."""
    hold: float = 2 * DEFAULT_READ
    """Keeping a token in the prompt for one more step: its cache read plus the context weight."""


def costs_for(settings: Settings) -> CacheCosts:
    """The model's cache prices from litellm's table, with the config's overrides."""
    info = model_info(settings.model)
    base = info.get("input_cost_per_token") or 0
    read, write, output = DEFAULT_READ, DEFAULT_WRITE, DEFAULT_OUTPUT
    if base:
        if info.get("cache_read_input_token_cost"):
            read = float(info["cache_read_input_token_cost"]) / base
        if info.get("cache_creation_input_token_cost"):
            write = float(info["cache_creation_input_token_cost"]) / base
        if info.get("output_cost_per_token"):
            output = float(info["output_cost_per_token"]) / base
    b = settings.budget
    if b.cache_read_weight is not None:
        read = b.cache_read_weight
    if b.cache_write_weight is not None:
        write = b.cache_write_weight
    read = max(read, 1e-3)
    context = read if b.context_weight is None else b.context_weight
    return CacheCosts(read=read, write=write, output=output, hold=read + context)


@dataclass(frozen=True)
class Decision:
    """Whether to compact now, and the numbers behind it (shown in the trace and tests)."""

    compact: bool
    """Run a compaction event before this request."""
    reason: str
    """'cost model', 'window limit' or why not."""
    excess: int
    """Tokens a compaction would take out of every later request."""
    threshold: int
    """The excess at which an event pays for itself."""
    event_cost: float
    """What one event costs, in fresh-input-token equivalents."""


def event_cost(costs: CacheCosts, request: int, rewritten: int, summary: int) -> float:
    """One compaction: the summarising call (cached request + instruction + summary out) and the
    fresh rewrite of everything after the head."""
    call = costs.read * request + costs.write * INSTRUCTION_TOKENS + costs.output * summary
    return call + costs.write * rewritten


def decide(costs: CacheCosts, *, request: int, floor: int, head: int, growth: float, summary: int,
           hard_limit: int, min_excess: int, stable: int = 0, since_event: int | None = None,
           budget: int | None = None) -> Decision:
    """Compact when the excess over the post-compaction ``floor`` reaches the economic batch
    size (and ``since_event``, the steps since the last event, is at least ``MIN_EVENT_GAP``),
    or when the ``request`` passes ``hard_limit`` (the window) with an excess worth an event.
    ``stable``: tokens after the head an event keeps byte-identical (unchanged files of the
    block), read from the cache rather than rewritten.

    Past ``hard_limit`` an event runs at once, except within ``MIN_EVENT_GAP`` steps of the last one: then
    it must free ``WINDOW_EVENT_SHARE`` of ``budget`` (the most a request may hold), or ``min_excess`` once
    the request is halfway from the limit to ``budget``; any excess goes only past ``budget``.  In a small window the floor (task,
    block, latest step) can sit just under the limit; an event for the few hundred tokens above it
    bought one step and was due again at the next (a summarising call every two or three steps of an
    8K window)."""
    excess = max(0, request - floor)
    cost = event_cost(costs, request, max(0, floor - head - stable), summary) + costs.read * stable
    g = max(growth, 1.0)
    threshold = int(math.sqrt(2.0 * cost * g / max(costs.hold, 1e-3)))
    threshold = max(threshold, min_excess)
    over = budget is None or request >= budget
    urgent = budget is None or request >= hard_limit + (budget - hard_limit) // 2
    worth = max(min_excess, int(budget * WINDOW_EVENT_SHARE)) if budget else min_excess
    recent = since_event is not None and since_event < MIN_EVENT_GAP
    enough = over or excess >= (min_excess if urgent else worth)
    if request >= hard_limit and excess > 0 and (enough or not recent):
        return Decision(True, "window limit", excess, threshold, cost)
    if excess >= threshold and (since_event is None or since_event >= MIN_EVENT_GAP):
        return Decision(True, "cost model", excess, threshold, cost)
    if request >= hard_limit and excess > 0:
        return Decision(False, "near the window: an event would free too little yet", excess, threshold, cost)
    return Decision(False, "not worth it yet", excess, threshold, cost)
