"""File notes that carry only what changed: an edit to a big file costs its region, not the file.

When a file the request already shows (in the compaction block, a read output or an
earlier note) changes, the note appended to the history holds the changed lines with
their numbers and a little context — the rest of the file reads as shown before.  The
next compaction event puts the whole current text in the block again.  A small file, or
a change touching most of the file, is simply sent whole.
"""

from __future__ import annotations

from agent_tui.core.file_regions import changed_span

#: Files smaller than this (tokens) are always noted whole.
REGION_MIN_TOKENS = 300
#: A change spanning more than this share of the file's lines is noted whole.
REGION_MAX_SHARE = 0.6
CONTEXT = 3


def changed_region(path: str, before: str, after: str, why: str) -> str | None:
    """A note with the lines of ``after`` that differ from ``before`` (one span: the common head and
    tail are cut off), numbered, with ``CONTEXT`` lines around; None when it would not be smaller."""
    old, new = before.split("\n"), after.split("\n")
    span = changed_span(before, after)
    first, old_end, last = span if span is not None else (len(new), len(old), len(new))
    # new[first:last] replaced old[first:old_end]
    if last - first > REGION_MAX_SHARE * max(1, len(new)):
        return None
    lo, hi = max(0, first - CONTEXT), min(len(new), last + CONTEXT)
    removed = old_end - first
    body = "\n".join(f"{n + 1:>6}\t{new[n]}" for n in range(lo, hi))
    span = f"lines {first + 1}-{last}" if last > first else f"{removed} line(s) removed after line {first}"
    return (f"[file note: {path} {why} — {span} of {len(new)} now read as below; "
            f"the other lines are as shown before]\n{body}")
