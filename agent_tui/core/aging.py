"""Tool outputs age out of the window by steps, not only at the end of a turn.

Agent sessions are often one user turn of fifty to two hundred model calls, and
tool output is most of their text.  So a tool output is sent whole while it is
fresh (the last ``stub_after_steps`` steps) and then replaced by a stub: its
tool, its size, the handle that pages it back, and the lines that carry
conclusions — error lines and result lines (``3 passed``, ``exit code 1``) —
copied verbatim.  Stubbing happens in batches (every ``stub_batch`` steps) so
the request prefix changes rarely, which keeps provider prompt caches warm.

A ``read_file`` output whose file is an active file is stubbed at once: the
active copy in the system message already carries the same (or newer) text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent_tui.core.items import ContextItem, State

ERROR_LINE = re.compile(
    r"(Traceback|Error\b|\bFAILED\b|\bFAIL\b|\bassert|Exception\b|\bfatal\b|\bpanic\b|"
    r"^\s*File \"[^\"]+\", line \d+|(?<![\w./-])[\w./-]{1,255}\.\w{1,16}:\d+(:\d+)?\b)",
    re.I,
)
"""A line that reports a failure.  (A ``path.py:12`` starts where a run of path characters starts, and is bounded, and
``Error`` is found as the word's end, not as ``\\w+Error``: tried from every position of a long run, each was
quadratic, 0.8 s and 40 s on one 80K-character line.)"""
RESULT_LINE = re.compile(r"(\d+ (passed|failed|errors?|skipped)|exit code -?\d+|Ran \d+ tests?|\bOK\b$)", re.I)
MAX_KEPT_LINES = 6
MAX_LINE = 200


def kept_lines(text: str) -> list[str]:
    """Error and result lines of a tool output (deduplicated, at most MAX_KEPT_LINES)."""
    out: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s and (ERROR_LINE.search(s) or RESULT_LINE.search(s)) and s not in out:
            out.append(s[:MAX_LINE])
    if len(out) > MAX_KEPT_LINES:
        half = MAX_KEPT_LINES // 2
        out = out[:half] + [f"… {len(out) - MAX_KEPT_LINES} more …"] + out[-half:]
    return out


def stub_text(item: ContextItem, handle: str, why: str, active_path: str | None) -> str:
    """The stub that stands for a tool output that left the window."""
    where = f" The file's current content is in Active files (f:{active_path})." if active_path else ""
    head = (f"[{item.name or 'tool'} output {item.id} {why} ({item.tokens:,} tokens); "
            f"fetch_result(\"{handle}\") pages it.{where}]")
    if active_path:
        return head
    lines = kept_lines(item.content)
    return head if not lines else head + "\n" + "\n".join(lines)


def due_for_stub(items: Iterable[ContextItem], step_now: int, after: int, batch: int) -> list[ContextItem]:
    """Fresh tool outputs that have aged past ``after`` steps, decided in batches of ``batch`` steps."""
    cutoff = ((step_now - after) // max(1, batch)) * max(1, batch)
    out = []
    for it in items:
        if it.role != "tool" or it.pinned or it.state != State.IN or "stub" in it.provenance:
            continue
        if it.provenance.get("restored_turn") is not None or it.scope != "turn":
            continue
        if int(it.provenance.get("step", step_now)) <= cutoff:
            out.append(it)
    return out


def superseded_reads(items: Iterable[ContextItem], active: dict[str, object], truncated: set[str]) -> list[ContextItem]:
    """File reads (``read_file``, or outputs marked ``file_read``) whose file is active and shown
    whole, so the output duplicates the active copy."""
    out = []
    for it in items:
        if it.role != "tool" or it.pinned or it.state != State.IN:
            continue
        if it.name != "read_file" and not it.provenance.get("file_read"):
            continue
        if "stub" in it.provenance or it.provenance.get("error") or it.provenance.get("restored_turn") is not None:
            continue
        path = it.provenance.get("path")
        if not path or path not in active or path in truncated:
            continue
        out.append(it)
    return out
