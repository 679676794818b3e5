"""Which of the user's messages is the task statement, the one every compaction event keeps verbatim in place.

A user message opens a new task when the agent had answered the one before (its turn ended with a reply that
calls no tool): the user asks for something new.  A message that comes while the task is unfinished — a
"continue" after the agent stopped mid-way, one typed before it answered, a tool-format error an agent framework
feeds back as a user message — continues the task, and the statement stays the one that opened it: once an
event folded it, the model had only its first 600 characters, and the rules far down a long task were gone.
A caller that knows better says so (``continues``): a replayed framework message continues whatever came before.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

CONTINUES = "continues"
"""Provenance key of a user message its caller marked as continuing the task (True) or opening one (False)."""


def opens_task(answered: bool, continues: bool | None) -> bool:
    """Whether a user message opens a new task: as its caller says, else when the agent had answered."""
    return not continues if continues is not None else answered


def closes(item: Any) -> bool | None:
    """Whether ``item`` leaves the agent's turn answered (True) or unfinished (False); None: it says nothing.

    A reply that calls no tool answers; one cut short by a failure (a broken stream, the output limit, a failed
    request: marked ``cut``) does not, so a "continue" after it keeps the task.  The user stopping the turn
    (``cancelled``, on the cut reply or on a call's result) hands the task back to them: what they send next
    is a new request, and the old statement, however large, is folded like any message."""
    prov = item.provenance
    if item.role == "assistant":
        return bool(prov.get("cancelled")) or (not item.tool_calls and not prov.get("cut"))
    if item.role == "tool" and prov.get("cancelled"):
        return True
    return None


def task_statement(items: Iterable[Any]) -> str | None:
    """The id of the current task statement in a session's items (in order), as the engine decided it live."""
    task: str | None = None
    answered = False
    for it in items:
        if it.role == "user" and not it.provenance.get("note"):
            if task is None or opens_task(answered, it.provenance.get(CONTINUES)):
                task = it.id
            answered = False
        elif (ends := closes(it)) is not None:
            answered = ends
    return task
