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

from agent_tui.core.items import ContextItem, State

#: What a tool result that left the window costs in a request (it is sent as a short stub).
STUB_COST = 40


def in_window(item: ContextItem) -> bool:
    """True if the item itself is sent (not replaced by a stub or left out)."""
    return item.pinned or item.state in (State.IN, State.STALE)


def evictable(item: ContextItem) -> bool:
    """True if the sliding memory may fold the item into the summary."""
    return not item.pinned and item.state in (State.IN, State.STALE)


def recently_restored(item: ContextItem, current_turn: int) -> bool:
    """The user restored it this turn or the previous one: automatic compaction leaves it alone."""
    turn = item.provenance.get("restored_turn")
    return turn is not None and int(turn) >= current_turn - 1


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
        """What the group costs in a request (results that left the window cost their stub)."""
        return sum(i.window_tokens if in_window(i) else STUB_COST for i in self.items)

    @property
    def pinned(self) -> bool:
        return any(i.pinned for i in self.items)


class HistoryGroups:
    """Groups of an append-only history, extended as messages arrive (old groups never regroup)."""

    def __init__(self) -> None:
        self.groups: list[Group] = []
        self.count = 0
        self.where: dict[str, int] = {}
        """Item id -> index of its group."""
        self._open: set[str] = set()

    def extend(self, items: Sequence[ContextItem]) -> list[Group]:
        """Group ``items[self.count:]`` (the messages added since the last call); returns all groups."""
        groups, open_calls = self.groups, self._open
        for it in items[self.count:]:
            if it.role == "tool":
                if groups and it.tool_call_id in open_calls:
                    groups[-1].items.append(it)
                    open_calls.discard(it.tool_call_id or "")
                else:
                    groups.append(Group([it]))  # an orphan; the assembler drops or stubs it
                self.where[it.id] = len(groups) - 1
                continue
            groups.append(Group([it]))
            self.where[it.id] = len(groups) - 1
            open_calls = {c.get("id", "") for c in (it.tool_calls or [])} if it.role == "assistant" else set()
        self._open = open_calls
        self.count = len(items)
        return groups


def group_history(items: Iterable[ContextItem]) -> list[Group]:
    """Cut message items (in order) into groups: user messages, assistant+results."""
    return HistoryGroups().extend(list(items))


@dataclass
class EvictionPlan:
    """A batch of groups to summarise, and why."""

    groups: list[Group]
    """Oldest first."""
    reason: str
    """Which cap tripped."""

    @property
    def items(self) -> list[ContextItem]:
        """The items to fold into the summary: not pinned and still in the window."""
        return [i for g in self.groups for i in g.items if evictable(i)]

    @property
    def summary_items(self) -> list[ContextItem]:
        """The items a summariser reads: the evicted ones minus the engine's own notes (file
        notes and recalled memories, which the next block carries anyway)."""
        return [i for i in self.items if not i.provenance.get("note")]

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
    pressure: bool = False,
    max_steps: int = 0,
) -> EvictionPlan | None:
    """Choose the oldest groups to evict when a cap trips (or when forced).

    Pinned items are not the sliding memory's to manage (they are always sent), so
    they count toward neither cap.  ``pressure`` (the whole request is past the
    compaction threshold) evicts ``batch_fraction`` of the history there is, and
    trips only when history is above ``(1 - batch_fraction)²`` of its cap, so a
    window kept full by pins, files or tools does not cause a summary per step.
    """
    keep = 1 - batch_fraction
    total = sum(g.tokens for g in groups) - sum(i.tokens for g in groups for i in g.items if i.pinned)
    rounds = sorted({g.turn for g in groups if g.is_user and not g.pinned})
    over_tokens = total > token_cap
    over_rounds = len(rounds) > max_rounds
    steps = [i for i, g in enumerate(groups) if not g.is_user and any(evictable(it) for it in g.items)]
    over_steps = bool(max_steps) and len(steps) > max_steps
    pressed = pressure and total > token_cap * keep * keep
    if not (over_tokens or over_rounds or over_steps or force or pressed):
        return None
    # the step cap trips often in long agent turns: evict deeper (to keep² of it) so it trips rarely
    drop_steps = steps[: len(steps) - max(1, int(max_steps * keep * keep))] if over_steps else []
    cut = drop_steps[-1] if drop_steps else -1  # everything up to the last dropped step goes, whole rounds

    protected: set[int] = set()
    current_steps = [i for i, g in enumerate(groups) if g.turn == current_turn and not g.is_user]
    protected.update(current_steps[-keep_recent_steps:] if keep_recent_steps > 0 else [])
    for i, g in enumerate(groups):
        if g.turn == current_turn and g.is_user:
            protected.add(i)

    if force:  # asked for (/compact): a batch of what there is, even under the cap
        target_tokens = int(min(token_cap, total) * keep)
    elif over_tokens:
        target_tokens = int(token_cap * keep)
    elif pressed:
        target_tokens = int(total * keep)
    else:
        target_tokens = total
    keep_rounds = max(1, int(max_rounds * keep)) if over_rounds else len(rounds)
    drop_turns = set(rounds[: max(0, len(rounds) - keep_rounds)])

    chosen: list[Group] = []
    remaining = total
    for i, g in enumerate(groups):
        if i in protected:
            continue
        if remaining <= target_tokens and g.turn not in drop_turns and i > cut:
            break
        if not any(evictable(it) for it in g.items) or any(recently_restored(it, current_turn) for it in g.items):
            continue
        chosen.append(g)
        remaining -= sum(it.window_tokens for it in g.items if evictable(it))
    if not chosen:
        return None
    if force:
        why = "forced"
    elif over_tokens:
        why = "token cap"
    elif over_rounds:
        why = "round cap"
    elif over_steps:
        why = "step cap"
    else:
        why = "window pressure"
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
