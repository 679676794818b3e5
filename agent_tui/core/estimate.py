"""What the next request would cost, counted without assembling it: the cost model's input at every step.

Assembling is the exact answer but does the whole layout; the compactor asks before each step whether an event
pays, so this adds up what the assembler would send — head, frozen block, the history's groups (each group's cost
remembered by the history index until it changes), tools and the status line — from counts already kept.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from agent_tui.core.call_args import calls_tokens
from agent_tui.core.items import ContextItem
from agent_tui.core.memory import Group
from agent_tui.core.tokens import MESSAGE_OVERHEAD

CARRIED_OVERHEAD = 12
"""Framing of a pin carried out of its group into the head."""
STATUS_TOKENS = 80
"""The status line and the request's own framing."""


def message_extra(engine: Any, item: ContextItem) -> int:
    """What a history message costs beyond its content: the role overhead and its tool calls."""
    return calls_tokens(item, engine.counter) + MESSAGE_OVERHEAD


def group_cost(engine: Any, group: Group) -> int:
    """What one history group costs in a request."""
    return group.tokens + sum(message_extra(engine, it) for it in group.items)


def request_estimate(engine: Any) -> int:
    """Tokens the next request would have now (head, block, history, tools, status)."""
    groups, _, carried = engine.history.window_groups()
    head = engine.system.tokens + sum(i.tokens + CARRIED_OVERHEAD for i in carried)
    head += sum(it.tokens + 1 for it in engine.head.pins(engine.history.blocks()))
    cost = partial(group_cost, engine)
    history = sum(engine.history.group_cost(g, cost) for g in groups)
    if engine.reasoning_cost is not None:  # not remembered per group: what goes back changes with the turn
        history += sum(engine.reasoning_cost(it) for g in groups for it in g.items if it.role == "assistant")
    return int(head + engine.block.tokens + history + engine.head.tools_tokens + STATUS_TOKENS)
