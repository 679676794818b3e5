"""Progress memos that stay useful: one rolling memo per task, updated in place.

A memo was added after every task and at every compaction, so one window held six
near-identical memos, and recall could bring the same memo in a second time.  Now a task
(its statement and the turns that continue it, ``core/task_statement``) has one memo item: a later memo in the same task replaces its text (a new
version in the store's ``memos`` table, so every version stays searchable) — except that a memo copied at a
compaction event leaves one the model or the user wrote for the task as it is — and a memo of a
new task supersedes the previous one in the window (released, never deleted).  Recalled
memories that are already in the request as a memo are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_tui.core.items import Category, ContextItem, Priority, Scope, State

EXTRACTED = frozenset({"pre-compaction"})
"""Memo kinds copied from the turn's lines (no model): they never replace a memo written for the task, by the
model or the user (a tester saw the model's precise memo demoted to "replaced" four steps later, and the copy seed
the next session; another saw `/compact` after a finished task replace the model's end-of-task memo)."""


def memo_text(kind: str, turn: int, text: str) -> str:
    return f"Progress memo ({kind}, turn {turn}):\n{text}"


def window_memos(engine: Any) -> list[ContextItem]:
    return [it for it in engine.items.values()
            if it.category == Category.MEMORY and it.id.startswith("memo") and it.state == State.IN]


def _same_task(memo: ContextItem, task: str | None, turn: int) -> bool:
    """The memo is the current task's: written under the same task statement (a "continue" starts a turn, not
    a task), or, for a memo from before statements were kept, in this turn."""
    if task is not None and memo.provenance.get("task") is not None:
        return bool(memo.provenance.get("task") == task)
    return bool(memo.provenance.get("task_turn") == turn)


def save_rolling_memo(engine: Any, text: str, kind: str, by_model: bool = False) -> ContextItem:
    """Write the task's memo: update this task's memo in place, or start it (superseding older ones).
    ``by_model``: the model wrote the text (an automatic memo at a task's end), which a copy never replaces."""
    current = window_memos(engine)
    seed = kind.startswith("seed")
    task = getattr(engine, "task_item", None)
    mine = None if seed else next((it for it in current if _same_task(it, task, engine.turn)
                                   and not str(it.provenance.get("kind", "")).startswith("seed")), None)
    if mine is not None and kind in EXTRACTED and (mine.provenance.get("kind") == "manual"
                                                   or mine.provenance.get("by_model")):
        return mine  # (the model's or the user's own memo says more than a copy of the turn's lines)
    if mine is not None:
        content = engine.redact(memo_text(kind, engine.turn, text))
        mine.content, mine.tokens = content, engine.counter.count(content)
        mine.provenance.update(kind=kind, version=int(mine.provenance.get("version") or 1) + 1, by_model=by_model)
        engine._save(mine)
        item = mine
    else:
        item = engine._new_item("memo", Category.MEMORY, memo_text(kind, engine.turn, text), scope=Scope.SESSION,
                                provenance={"kind": kind, "task_turn": engine.turn, "task": task, "version": 1,
                                            "by_model": by_model})
        with engine._store_batch():
            engine._add(item)
            for old in current:
                old.state = State.RELEASED
                old.provenance["superseded_by"] = item.id
                engine._save(old)
    if engine.store is not None:
        engine.store.save_memo(engine.session_id, item.id, text, kind)
    return item


def drop_memos_in_window(engine: Any, hits: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``hits`` without the memos whose text is already in the window as a memo item, without any whose text
    an earlier recall of this stretch of history still carries (each turn's recall brought the same memos
    into every user message again), and without repeats within ``hits`` (a new session's seed memo is a copy
    of the memo it was seeded from, and both matched)."""
    memos = [it.content for it in window_memos(engine)]
    recalled = [it.content for it in engine.items.values()
                if it.provenance.get("note") == "recall" and it.state == State.IN]
    seen: set[str] = set()
    out = []
    for h in hits:
        body = str(h.get("content") or "").strip()
        if body and (body in seen or any(body in t for t in recalled)
                     or h.get("kind") == "memo" and any(body in t for t in memos)):
            continue
        seen.add(body)
        out.append(dict(h))
    return out


def add_recalled(engine: Any, hits: Sequence[dict[str, Any]]) -> list[ContextItem]:
    """Recalled memories as notes appended to the history (never a memo the request already carries)."""
    out = []
    for h in drop_memos_in_window(engine, hits):
        text = f"- (for reference, {h.get('kind')} {h.get('id')}) {h.get('content', '')}"
        item = engine._new_item("rc", Category.MEMORY, text, role="user", scope=Scope.TURN, priority=Priority.LOW,
                                provenance={"recall": h.get("kind"), "ref": h.get("id"), "score": h.get("score"),
                                            "note": "recall"})
        out.append(engine._add(item))
    return out
