"""The tail: what changes every step, sent after the append-only history.

The one-line budget status goes last, where a change costs little: a prompt
cache serves everything before it.  It joins the last message (a tool result
or the user's), so that message differs in the next request and is billed
again once — which is why the line is sent only when it has something to say:
at a turn's start (the user's message is new anyway), near the compaction
threshold (with the advice to save a memo), or with a note.
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.budget import BudgetPlan
from agent_tui.core.tokens import TokenCounter

STATUS_RESERVE = 48


def status_reserve(plan: BudgetPlan, counter: TokenCounter, note: str) -> int:
    """Tokens the status line can cost at most (its longest form: full window, memo advice, note)."""
    worst = status_line(plan, {"history": plan.window * 10}, plan.input_budget * 10, note)
    return max(STATUS_RESERVE, counter.count_cached(worst) + 4)


def status_line(plan: BudgetPlan, cats: dict[str, int], used: int, note: str) -> str:
    """``[context: 42% of 12,000 tokens used; largest: history 5,000; compaction at 75%]``."""
    pct = 100.0 * used / plan.input_budget if plan.input_budget else 100.0
    big = max(cats.items(), key=lambda kv: kv[1])
    line = (
        f"[context: {pct:.0f}% of {plan.input_budget:,} tokens used; largest: {big[0]} {big[1]:,}; "
        f"compaction at {plan.compact_at:.0%}]"
    )
    if pct >= plan.compact_at * 100:
        line += " Save a progress memo now (save_memo: what changed, why, what is left)."
    if note:
        line += " " + note
    return line


def worth_sending(plan: BudgetPlan, used: int, note: str, last_role: str) -> bool:
    """The status line is sent at a turn's start, near the threshold, or with a note."""
    near = plan.input_budget and used >= 0.8 * plan.compact_at * plan.input_budget
    return bool(note) or bool(near) or last_role == "user"


def append_tail(messages: list[dict[str, Any]], line: str) -> bool:
    """Put ``line`` after the history; True when it became a message of its own."""
    last = messages[-1]
    if last["role"] in ("user", "tool"):
        last["content"] = f"{last['content']}\n\n{line}"
        return False
    messages.append({"role": "user", "content": line})
    return True
