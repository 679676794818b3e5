"""Regions of an active file the agent recently read or edited, and how they survive an event.

A file too large to carry whole in the compaction block (or one read only in ranges) used
to be a pointer there: the read outputs in the history showed the lines the model looked
at, and a compaction event evicts those outputs — so right after an event nothing in the
request held the lines the model was about to edit.  Each active file therefore remembers
the line spans it was shown (a ranged or query read) or changed (an edit), in the file's
own line numbers, shifted when an edit moves them.  When the block is rebuilt, the file's
entry carries the spans seen since the previous event — newest first, merged, within the
file's share — so what the model was just looking at survives the event; a span nobody
touched again is let go at the event after (the block stays bounded by what the agent
does, not by how long the session runs).  Between events the block does not change: a new
read shows its lines itself, and an edit's changed lines go to a file note.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: Regions remembered per file (the oldest are forgotten first).
MAX_REGIONS = 32
#: The line that opens the regions part of a file's block entry (what precedes it is the pointer).
REGIONS_MARK = "[lines read or edited most recently, with their numbers; read_file start_line/end_line for others]"
#: Characters a numbered line costs beyond its text (the number, the tab, the newline).
LINE_OVERHEAD = 8


@dataclass(frozen=True)
class Region:
    """Lines ``start``..``end`` (1-based, inclusive) of a file, seen at time ``seq``."""

    start: int
    """First line."""
    end: int
    """Last line (inclusive)."""
    seq: int
    """When it was last read or edited (larger is newer)."""
    step: int = 0
    """The engine step it was read or edited at (a block carries the regions seen since the last event)."""


def add(regions: Sequence[Region], start: int, end: int, seq: int, total: int, step: int = 0) -> list[Region]:
    """``regions`` plus lines ``start``..``end`` (clipped to a file of ``total`` lines), newest last."""
    start, end = max(1, start), min(total, end)
    if total <= 0 or end < start:
        return list(regions)
    out = [r for r in regions if (r.start, r.end) != (start, end)] + [Region(start, end, seq, step)]
    return out[-MAX_REGIONS:]


def changed_span(before: str, after: str) -> tuple[int, int, int] | None:
    """``(head, old_end, new_end)``: 0-based, lines ``head:old_end`` of ``before`` became
    ``head:new_end`` of ``after`` (the common head and tail cut off); None if equal."""
    if before == after:
        return None
    old, new = before.split("\n"), after.split("\n")
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, len(old) - tail, len(new) - tail


def shift(regions: Sequence[Region], before: str, after: str, *, edit_seq: int | None = None,
          step: int = 0) -> list[Region]:
    """``regions`` of ``before`` moved onto ``after`` (lines below a change move with it; a region
    the change touches covers the changed lines); with ``edit_seq``, the changed lines are added
    as the newest region (an edit the agent made)."""
    span = changed_span(before, after)
    if span is None:
        return list(regions)
    head, old_end, new_end = span
    delta = new_end - old_end
    total = after.count("\n") + 1
    out: list[Region] = []
    for r in regions:
        if r.end <= head:  # wholly above the change
            out.append(r)
        elif r.start > old_end:  # wholly below it
            out.append(Region(r.start + delta, r.end + delta, r.seq, r.step))
        else:  # touches it: keep its lines around the change, and the changed lines
            start = min(r.start, head + 1)
            end = max(r.end + delta, new_end) if r.end > old_end else max(new_end, start)
            out.append(Region(start, min(end, total), r.seq, r.step))
    out = [r for r in out if r.start <= r.end and r.start <= total]
    if edit_seq is not None:
        lo, hi = head + 1, max(new_end, head + 1)  # a pure deletion: the line after it
        out = add(out, lo, min(hi, total), edit_seq, total, step)
    return out[-MAX_REGIONS:]


def select(regions: Iterable[Region], lines: Sequence[str], budget_chars: int) -> list[tuple[int, int]]:
    """The line spans (1-based, inclusive, merged, in file order) to show within
    ``budget_chars``: the newest regions first; the one that does not fit whole is cut at its end."""
    chosen: set[int] = set()
    left = budget_chars
    for r in sorted(regions, key=lambda r: -r.seq):
        for n in range(max(1, r.start), min(len(lines), r.end) + 1):
            if n in chosen:
                continue
            cost = len(lines[n - 1]) + LINE_OVERHEAD
            if cost > left:
                left = 0
                break
            chosen.add(n)
            left -= cost
        if left <= 0:
            break
    spans: list[tuple[int, int]] = []
    for n in sorted(chosen):
        if spans and n == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], n)
        else:
            spans.append((n, n))
    return spans


def render(regions: Sequence[Region], content: str, budget_chars: int, since_step: int = -1) -> str:
    """The regions part of a file's block entry: those seen after ``since_step`` (the last
    event), "" when there is none or no room."""
    regions = [r for r in regions if r.step > since_step]
    if not regions or budget_chars <= len(REGIONS_MARK) + 2:
        return ""
    lines = content.split("\n")
    spans = select(regions, lines, budget_chars - len(REGIONS_MARK) - 1)
    if not spans:
        return ""
    parts = [REGIONS_MARK]
    for k, (lo, hi) in enumerate(spans):
        if k:
            parts.append("…")
        parts.extend(f"{n:>6}\t{lines[n - 1]}" for n in range(lo, hi + 1))
    return "\n".join(parts)


def base(text: str) -> str:
    """A file's block entry without its regions part (what changes only with the file's version)."""
    return text.split("\n" + REGIONS_MARK, 1)[0]
