"""What one compaction event evicts: everything but what the next steps need verbatim.

An event is rare (the cost model spaces them), so it evicts deeply, in one
batch: every history group since the last event goes into the rolling summary
except the user's messages (the task statement, the first message of the task, up to a quarter of the budget
whatever came after it; the others newest first, within ``user_cap`` tokens; the
current turn's always — the task and the user's directives stay verbatim — and
the one before it up to ``recent_cap``), the latest ``keep_steps`` steps (the model is
working on them; a finished answer only up to ``answer_cap``), groups the user restored
lately and pinned items (carried on as rules).  File notes are
dropped without being summarised: the new block carries the files' text.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence

from agent_tui.core.items import ContextItem
from agent_tui.core.memory import EvictionPlan, Group, evictable, recently_restored


def is_note(item: ContextItem) -> bool:
    """A message the engine wrote into the history (file note, recalled memory), not the user."""
    return bool(item.provenance.get("note"))


def is_user_group(g: Group) -> bool:
    return g.is_user and not is_note(g.items[0])


def kept_groups(groups: Sequence[Group], *, current_turn: int, keep_steps: int, user_cap: int,
                recent_cap: int = 0, answer_cap: int = sys.maxsize, task: Collection[str] = ()) -> set[int]:
    """Indexes of the groups an event keeps verbatim.  ``keep_steps``: the latest steps (the model works on
    them); one of an earlier turn (the answer the new message replies to) only up to ``answer_cap`` tokens: a
    finished answer too large for the window is folded, not kept, for kept it would crowd the rest of the
    history out of the request with no event to say so.  ``recent_cap``: the user's message of the turn
    before the current one is kept up to this size whatever ``user_cap`` leaves (what the user pasted one
    message ago is what the next one most often refers to: "and line 250?").  ``task``: the task statement's id,
    kept whatever the user wrote after it (a "continue" made it an earlier turn's message, then folded)."""
    keep: set[int] = {i for i, g in enumerate(groups) if g.items[0].id in task}
    steps = [i for i, g in enumerate(groups) if not g.is_user]
    latest = steps[-keep_steps:] if keep_steps > 0 else []
    keep.update(i for i in latest if groups[i].turn >= current_turn or groups[i].tokens <= answer_cap)
    budget = user_cap
    earlier = sorted({g.turn for g in groups if is_user_group(g) and g.turn < current_turn})
    previous = earlier[-1] if earlier else None
    for i in reversed(range(len(groups))):
        g = groups[i]
        if not is_user_group(g):
            continue
        if g.turn == current_turn or (g.turn == previous and g.tokens <= recent_cap):
            keep.add(i)
            budget -= g.tokens
        elif g.tokens <= budget:
            keep.add(i)
            budget -= g.tokens
    for i, g in enumerate(groups):
        if any(recently_restored(it, current_turn) for it in g.items):
            keep.add(i)
    return keep


def plan_event(groups: Sequence[Group], *, current_turn: int, keep_steps: int, user_cap: int,
               reason: str, notes_alone: bool = False, recent_cap: int = 0,
               answer_cap: int = sys.maxsize, task: Collection[str] = ()) -> EvictionPlan | None:
    """The batch an event evicts now (None when there is nothing to evict; file notes alone are
    not worth an event unless ``notes_alone``, e.g. when the user asks for one)."""
    keep = kept_groups(groups, current_turn=current_turn, keep_steps=keep_steps, user_cap=user_cap,
                       recent_cap=recent_cap, answer_cap=answer_cap, task=task)
    chosen = [g for i, g in enumerate(groups) if i not in keep and any(evictable(it) for it in g.items)]
    plan = EvictionPlan(chosen, reason)
    return plan if plan.summary_items or (notes_alone and chosen) else None


def kept_tokens(groups: Sequence[Group], plan: EvictionPlan | None) -> int:
    """History tokens left after ``plan`` (pinned items of evicted groups stay, as rules)."""
    gone = {id(g) for g in plan.groups} if plan else set()
    return sum(g.tokens for g in groups if id(g) not in gone)
