"""The sliding chat memory: which history groups stay verbatim and which get summarised.

History is cut into *groups* that can leave the window without breaking the
request: a user message alone, or an assistant message together with the tool
results answering its calls.  A *round* is one user message and the steps that
follow it.

Two caps, whichever trips first: a token cap (the history share of the budget)
and a cap on rounds kept verbatim.  When one trips, the oldest groups are
evicted in one batch, down to ``1 - batch_fraction`` of the cap, so summarising
calls stay rare.  Never evicted: pinned items (they are carried on in the rules
section), the current turn's user message (the task) and the latest steps of
the current turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from agent_tui.core.items import ContextItem


@dataclass
class Group:
    """Items that enter and leave the window together."""

    items: list[ContextItem] = field(default_factory=list)
    """The message items, in order."""

    @property
    def turn(self) -> int:
        return self.items[0].turn

    @property
    def is_user(self) -> bool:
        return self.items[0].role == "user"

    @property
    def tokens(self) -> int:
        return sum(i.window_tokens for i in self.items)

    @property
    def pinned(self) -> bool:
        return any(i.pinned for i in self.items)


def group_history(items: Iterable[ContextItem]) -> list[Group]:
    """Cut message items (in order) into groups: user messages, assistant+results."""
    groups: list[Group] = []
    open_calls: set[str] = set()
    for it in items:
        if it.role == "tool":
            if groups and it.tool_call_id in open_calls:
                groups[-1].items.append(it)
                open_calls.discard(it.tool_call_id or "")
            else:
                groups.append(Group([it]))  # an orphan; the assembler drops or stubs it
            continue
        groups.append(Group([it]))
        open_calls = {c.get("id", "") for c in (it.tool_calls or [])} if it.role == "assistant" else set()
    return groups


@dataclass
class EvictionPlan:
    """A batch of groups to summarise, and why."""

    groups: list[Group]
    """Oldest first."""
    reason: str
    """Which cap tripped."""

    @property
    def items(self) -> list[ContextItem]:
        return [i for g in self.groups for i in g.items if not i.pinned]

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)


def plan_eviction(
    groups: Sequence[Group],
    *,
    current_turn: int,
    token_cap: int,
    max_rounds: int,
    batch_fraction: float,
    keep_recent_steps: int,
    force: bool = False,
) -> EvictionPlan | None:
    """Choose the oldest groups to evict when a cap trips (or when forced)."""
    total = sum(g.tokens for g in groups)
    rounds = sorted({g.turn for g in groups if g.is_user})
    over_tokens = total > token_cap
    over_rounds = len(rounds) > max_rounds
    if not (over_tokens or over_rounds or force):
        return None

    protected: set[int] = set()
    current_steps = [i for i, g in enumerate(groups) if g.turn == current_turn and not g.is_user]
    protected.update(current_steps[-keep_recent_steps:] if keep_recent_steps > 0 else [])
    for i, g in enumerate(groups):
        if g.turn == current_turn and g.is_user:
            protected.add(i)

    target_tokens = int(token_cap * (1 - batch_fraction)) if (over_tokens or force) else total
    keep_rounds = max(1, int(max_rounds * (1 - batch_fraction))) if over_rounds else len(rounds)
    drop_turns = set(rounds[: max(0, len(rounds) - keep_rounds)])

    chosen: list[Group] = []
    remaining = total
    for i, g in enumerate(groups):
        if i in protected:
            continue
        if remaining <= target_tokens and g.turn not in drop_turns:
            break
        if all(it.pinned for it in g.items):
            continue
        chosen.append(g)
        remaining -= g.tokens
    if not chosen:
        return None
    why = "forced" if force else ("token cap" if over_tokens else "round cap")
    return EvictionPlan(chosen, why)


def chunk_items(items: Sequence[ContextItem], max_tokens: int | None) -> list[list[ContextItem]]:
    """Split items into chunks of at most ``max_tokens`` (one oversized item is its own chunk)."""
    if not max_tokens:
        return [list(items)] if items else []
    chunks: list[list[ContextItem]] = []
    cur: list[ContextItem] = []
    n = 0
    for it in items:
        if cur and n + it.tokens > max_tokens:
            chunks.append(cur)
            cur, n = [], 0
        cur.append(it)
        n += it.tokens
    if cur:
        chunks.append(cur)
    return chunks
