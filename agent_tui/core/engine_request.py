"""Composing one request from the engine's segments, and recording it.

The engine owns the segments (head, block, history, files, tools); this module is the one place
that reads them all in order and hands them to the assembler (:mod:`agent_tui.core.assembler`), then
applies the boundary every request crosses (redaction) and notes what it shows of each changed file
(what a request sent makes the model's view).  Recording a request (the latest assembly, the status
line kept on its message, the request log, the crowded-window warning) is the other half: a preview
(``log=False``) composes without recording.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_tui.core.assembler import Assembly, AssemblyInput, assemble
from agent_tui.core.budget import crowded_head
from agent_tui.core.call_args import shorten_answered_calls, shorten_arguments
from agent_tui.core.items import Category


def compose(engine: Any, tools: Sequence[dict[str, Any]] | None, *, status: bool, status_note: str) -> Assembly:
    """The request as the segments stand now (no compaction, nothing recorded)."""
    e = engine
    file_trace = e.window.sync_notes()
    groups, excluded_trace, carried = e.history.window_groups()
    blocks, excluded = e.head.sort(e.history.blocks(), e.block, carried)
    e.window.blocks(excluded)  # (the block carries the files: this reports releases)
    sent_tools, tools_tokens = e.tool_items.apply(e, tools)
    e.head.tools_tokens = tools_tokens
    hist = e.history.messages()
    inp = AssemblyInput(plan=e.plan, counter=e.counter, system=e.system, blocks=blocks,
                        groups=groups, excluded=excluded, current_turn=e.turn, tools=sent_tools,
                        tools_tokens=tools_tokens, status=status, status_note=status_note,
                        excluded_trace=excluded_trace + file_trace, block=e.block,
                        keep=frozenset([*(n for n in e.window.shown_note.values() if n),
                                        *e.compactor.task_kept()]),
                        turn_start=bool(hist) and hist[-1].role == "user"
                        and not hist[-1].provenance.get("note"), stuck=dict(e.stuck))
    asm = assemble(inp)
    e.tool_items.trace(asm, sent_tools)
    asm.messages = e.redact.messages(asm.messages)  # the boundary: active files included
    asm.file_views = e.window.views_now()
    return asm


def shorten_answered(engine: Any, need: int | None = None) -> int:
    """Shorten, in place, the long arguments of calls that ran and succeeded (a long heredoc, the text a write
    created: its result, or the file, says what it did), and forget them as what showed a file's text; the
    number of messages changed.  What a request gives up last before a window would refuse it: the task,
    the latest step and the protected files are all it holds then.  A call whose result is an error keeps
    its arguments (the model may send them again, mended).  ``need``: tokens the request is over; when the
    shortening would save fewer, nothing is changed (it would lose text and still be refused)."""
    e = engine
    with e.lock:
        answered = {it.tool_call_id for it in e.items.values()
                    if it.role == "tool" and it.tool_call_id and not it.provenance.get("error")}
        if need is not None and _saving(e, answered) < need:
            return 0
        changed = shorten_answered_calls([e.items[i] for i in e.order], answered)
        for it in changed:
            e._save(it)
        e.window.forget_shown_by({it.id for it in changed})
    return len(changed)


def _saving(engine: Any, answered: set[str]) -> int:
    """Tokens ``shorten_answered`` would save in the request on the calls in ``answered`` (counted, nothing
    changed; a call no longer in the window saves nothing there)."""
    count, saved = engine.counter.count, 0
    for i in engine.order:
        it = engine.items[i]
        if not it.in_window:
            continue
        for c in it.tool_calls or ():
            args = str((c.get("function") or {}).get("arguments") or "")
            short = shorten_arguments(args) if c.get("id") in answered else None
            if short is not None:
                saved += count(args) - count(short)
    return saved


def record(engine: Any, asm: Assembly) -> None:
    """``asm`` is the latest request: counted, kept, logged, and the crowded-window warning given once."""
    e = engine
    if not e.compactor.event_size:
        e.compactor.event_size = asm.breakdown.total
    bd = asm.breakdown
    head = sum(bd.categories.get(str(c), 0) for c in (Category.SYSTEM, Category.RULES, Category.TOOLS))
    if not e.head_warned and (said := crowded_head(e.settings.model, bd.window, bd.input_budget, head)):
        e.head_warned = True
        e.warnings.append(said)
    e.step += 1
    e.last = asm
    if asm.tail_on is not None:
        e.stuck[asm.tail_on[0]] = asm.tail_on[1]
    if e.store is not None and e.log_requests:
        e.store.log_assembly(
            e.session_id, e.turn, e.step, bd.to_json(), asm.item_ids,
            [t.__dict__ for t in asm.trace], {"messages": asm.messages, "tools": asm.tools},
        )
