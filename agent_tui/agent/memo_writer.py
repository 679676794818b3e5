"""Progress memos: what changed, why, what is left — written at checkpoints.

The LLM writes them when a model is available (prompt in prompts/memo.md);
the extractive writer below is the fallback and never fails: it copies the
task, the files edited, the last command results and the open todos from the
turn's items.
"""

from __future__ import annotations

import re

from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import ContextItem
from agent_tui.core.summary import file_changes

_TODO = re.compile(r"\b(todo|next step|remaining|still need|left to do|not yet|follow[- ]up)\b", re.I)
_RESULT = re.compile(r"(\d+ (passed|failed|errors?)|exit code \d+|Ran \d+ tests?|\bOK\b)", re.I)


def _turn_items(engine: ContextEngine, turns: int = 1) -> list[ContextItem]:
    low = max(1, engine.turn - turns + 1)
    return [engine.items[i] for i in engine.order if engine.items[i].role and engine.items[i].turn >= low]


def extractive_memo(engine: ContextEngine, turns: int = 1) -> str:
    """A memo copied from the last ``turns`` turns (deterministic)."""
    items = _turn_items(engine, turns)
    task = next((i.content for i in items if i.role == "user"), "")
    changed, undone = _changes(items)
    results: list[str] = []
    for it in items:
        if it.role == "tool" and it.name == "run_command":
            lines = [ln.strip() for ln in it.content.splitlines() if _RESULT.search(ln)]
            if lines:
                results.append(lines[-1][:160])
    final = next((i.content for i in reversed(items) if i.role == "assistant" and i.content), "")
    todos = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", final) if _TODO.search(s)]
    session, session_undone = _changes([engine.items[i] for i in engine.order])
    earlier = [path for path in session if path not in changed]
    undone = [*undone, *(p for p in session_undone if p not in undone and p not in session)]
    out = [
        f"Changed: {', '.join(changed) if changed else 'no files changed in this turn'}"
        + (f"; earlier in this session: {', '.join(earlier[-12:])}" if earlier else "")
        + (f"; undone by the user (back as they were): {', '.join(undone[-12:])}" if undone else "")
        + (f"; last results: {'; '.join(results[-2:])}" if results else ""),
        f"Why: {task[:300]}",
        f"Left: {' '.join(todos)[:400] if todos else 'nothing noted'}",
    ]
    if final:
        out.append(f"Outcome: {final[:300]}")
    return "\n".join(out)


def _changes(items: list[ContextItem]) -> tuple[list[str], list[str]]:
    """(files changed, files an undo put back) by ``items`` in order: an undo takes its files off the changed
    list until an edit after it changes them again.  Over the whole session (summarised turns included) too: a
    memo seeds the next session, and "no files changed" in a turn that only asked a question would read as none
    at all, while a file the user undid would read as changed."""
    changed: list[str] = []
    undone: list[str] = []
    for it in items:
        for path in it.provenance.get("undone") or ():
            if path in changed:
                changed.remove(path)
                if path not in undone:
                    undone.append(path)
        for _tool, path in file_changes(it):
            if path in undone:
                undone.remove(path)
            if path not in changed:
                changed.append(path)
    return changed, undone


def repeats_instruction(text: str, instruction: str) -> bool:
    """A model's memo that gives the instruction back (a proxy or a small model echoing its prompt) instead of a
    memo: its first line's opening is in the answer."""
    head = next((line.strip() for line in instruction.splitlines() if line.strip()), "")[:60]
    return bool(head) and head in text
