"""read_file: numbered lines, a range, the sections matching a query, or a map of a big file.

Line numbers on every line let the model cite and re-read precisely.  A file too big
for the context is never dumped: the model gets an outline with line numbers, the line
count and a handle to the whole text, and reads the ranges it needs.  Every successful
read calls ``ctx.note_read(path, full_text, spans)`` - also for ranges, queries and outlines -
because the engine, not the tool, decides what to keep in the window, and the hash of
the full text is what later lets ``edit_file`` prove the file has not changed since.  The
spans say which lines were shown: ``write_file`` replaces only a file the model saw whole.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent_tui.core.redact_whole import redact_keeping_lines
from agent_tui.core.safe_files import MAX_READ_BYTES
from agent_tui.core.tokens import TokenCounter, counter_for
from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.fs_read_big import read_big_range
from agent_tui.tools.outline import outline
from agent_tui.tools.paging import fetch_hint
from agent_tui.tools.shaping_text import intent_words
from agent_tui.tools.workspace import number_lines, read_text, relative, resolve, split_lines

#: A whole read above this many tokens returns an outline and a handle instead.
READ_TOKEN_CAP = 6000
#: Lines of context around each query match.
QUERY_CONTEXT = 3

SPEC = ToolSpec(
    name="read_file",
    description=(
        "Read a text file in the workspace; every line is shown with its line number. "
        "Use it before editing a file (edits are refused on files you have not read) and "
        "to inspect code. Give start_line/end_line for a range, or query to get only the "
        "sections containing that text (±3 lines). A large file returns an outline with "
        "line numbers instead of its text: then read the ranges you need. "
        "Not for finding which file contains something: use search."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "start_line": {"type": "integer", "minimum": 1, "description": "First line (1-based)."},
            "end_line": {"type": "integer", "minimum": 1, "description": "Last line, inclusive."},
            "query": {"type": "string", "description": "Show only sections containing this text."},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    kind="read",
    group="files",
)


def _fit_range(
    lines: list[str], start: int, end: int, total: int, counter: TokenCounter, cap: int
) -> int:
    """The last line (inclusive, 1-based) such that lines start..it fit ``cap`` tokens."""
    if counter.count(number_lines(lines[start - 1 : end], start, total)) <= cap:
        return end
    lo, hi = start, end  # lines start..lo always fit (at least one line is shown)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count(number_lines(lines[start - 1 : mid], start, total)) <= cap:
            lo = mid
        else:
            hi = mid - 1
    return lo


def read_range(
    rel: str, lines: list[str], start: int | None, end: int | None, counter: TokenCounter
) -> tuple[str, dict[str, Any]]:
    """Numbered lines start..end, cut to the token cap with a note on how to continue."""
    total = len(lines)
    first = start or 1
    last = min(end or total, total)
    if total == 0:
        return f"{rel} is empty (0 lines).", {"path": rel, "total_lines": 0}
    if first > total:
        raise ToolError(f"start_line {first} is past the end of {rel} ({total} lines).")
    if end is not None and end < first:
        raise ToolError(f"end_line {end} is before start_line {first}.")
    shown_last = _fit_range(lines, first, last, total, counter, READ_TOKEN_CAP)
    body = number_lines(lines[first - 1 : shown_last], first, total)
    head = f"{rel} (lines {first}-{shown_last} of {total})"
    if first == 1 and shown_last == total:
        head = f"{rel} ({total} lines)"
    text = f"{head}\n{body}"
    if shown_last < last:
        text += (
            f"\n[cut at line {shown_last} to stay under {READ_TOKEN_CAP} tokens; "
            f"continue with start_line={shown_last + 1}]"
        )
    return text, {"path": rel, "total_lines": total, "range": [first, shown_last]}


def _sections(hits: list[int], total: int) -> list[tuple[int, int]]:
    """Merged 0-based inclusive windows of ±QUERY_CONTEXT lines around ``hits``."""
    merged: list[tuple[int, int]] = []
    for i in hits:
        lo, hi = max(0, i - QUERY_CONTEXT), min(total - 1, i + QUERY_CONTEXT)
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def read_query(
    rel: str, lines: list[str], query: str, counter: TokenCounter
) -> tuple[str, dict[str, Any]]:
    """The sections of the file containing ``query`` (case-insensitive), numbered."""
    total = len(lines)
    needle = query.lower()
    hits = [i for i, line in enumerate(lines) if needle in line.lower()]
    note = ""
    if not hits:
        words = intent_words(query)
        hits = [i for i, line in enumerate(lines) if any(w in line.lower() for w in words)]
        if hits:
            note = f"No line contains '{query}' exactly; lines with any of: {', '.join(words)}.\n"
    meta: dict[str, Any] = {"path": rel, "total_lines": total, "query": query, "matches": len(hits)}
    if not hits:
        return f"No match for '{query}' in {rel} ({total} lines).", meta
    sections = _sections(hits, total)
    out = f"{note}{rel}: {len(hits)} matching line(s) in {len(sections)} section(s), {total} lines total"
    shown: list[list[int]] = []
    meta["ranges"] = shown  # the 1-based line spans shown (the engine keeps them as the file's regions)
    for k, (lo, hi) in enumerate(sections):
        part = "\n…\n" if k else "\n"
        part += number_lines(lines[lo : hi + 1], lo + 1, total)
        if counter.count(out + part) > READ_TOKEN_CAP:
            rest = sections[k:]
            out += (
                f"\n[{len(rest)} more section(s) not shown (from line {rest[0][0] + 1}); "
                "use a narrower query or read a range]"
            )
            break
        out += part
        shown.append([lo + 1, hi + 1])
    return out, meta


def read_outline(
    rel: str, text: str, lines: list[str], handle: str, raw_tokens: int, counter: TokenCounter
) -> str:
    """An outline of a large file with its size, the handle and how to read on."""
    kind, entries = outline(rel, text, lines)
    head = (
        f"{rel} is large ({len(lines):,} lines, {raw_tokens:,} tokens), so only an outline "
        f'is shown ({kind}). Read what you need with read_file(path="{rel}", start_line=A, '
        f'end_line=B) or read_file(path="{rel}", query="...").'
    )
    foot = f"[whole text stored as {handle}: {fetch_hint(handle, text)}]"
    budget = READ_TOKEN_CAP - counter.count(head + foot) - 20
    shown: list[str] = []
    used = 0
    for entry in entries:
        cost = counter.count(entry) + 1
        if used + cost > budget:
            break
        shown.append(entry)
        used += cost
    more = len(entries) - len(shown)
    body = "\n".join(shown) + (f"\n… {more} more outline entries" if more else "")
    return f"{head}\n{body}\n{foot}"


def _view(
    rel: str, text: str, args: dict[str, Any], model: str | None
) -> tuple[str, dict[str, Any], int, list[str]]:
    """(text, meta, raw tokens, lines) of a range or query view; text "" when an outline is due.  The
    lines are cut from the file redacted whole (core/redact_whole): a range of a key file is masked too."""
    counter = counter_for(model)
    raw_tokens = counter.count(text)
    lines = split_lines(redact_keeping_lines(text))
    start, end, query = args.get("start_line"), args.get("end_line"), args.get("query")
    if query:
        out, meta = read_query(rel, lines, query, counter)
        return out, meta, raw_tokens, lines
    if start is not None or end is not None or raw_tokens <= READ_TOKEN_CAP:
        out, meta = read_range(rel, lines, start, end, counter)
        return out, meta, raw_tokens, lines
    return "", {}, raw_tokens, lines


async def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The read_file tool (reading and tokenising run off the event loop)."""
    big = await asyncio.to_thread(_big_file, ctx, args)
    if big is not None:
        return big
    _, rel, text = await asyncio.to_thread(read_text, ctx.workspace, args["path"])
    out, meta, raw_tokens, lines = await asyncio.to_thread(_view, rel, text, args, ctx.model)
    ctx.note_read(rel, text, shown_spans(meta) if out else [])
    if out:
        return await asyncio.to_thread(make_result, out, ctx, raw_tokens=raw_tokens, meta=meta)
    handle = ctx.results.put(text, {"path": rel, "kind": "file"})
    counter = counter_for(ctx.model)
    out = await asyncio.to_thread(read_outline, rel, text, lines, handle, raw_tokens, counter)
    meta = {"path": rel, "total_lines": len(lines), "outline": True}
    return make_result(out, ctx, handle=handle, raw_tokens=raw_tokens, meta=meta)


def shown_spans(meta: dict[str, Any]) -> list[tuple[int, int]]:
    """The line spans a range or query view showed (the engine knows a file whole once they cover it)."""
    spans = [meta["range"]] if "range" in meta else meta.get("ranges") or []
    return [(int(a), int(b)) for a, b in spans]


def _big_file(ctx: ToolContext, args: dict[str, Any]) -> ToolResult | None:
    """A range of a file too large to read whole (``tools.fs_read_big``); None for any other read."""
    if args.get("start_line") is None and args.get("end_line") is None:
        return None
    target = resolve(ctx.workspace, args["path"])
    try:
        size = target.stat().st_size if target.is_file() else 0
    except OSError:
        return None
    if size <= MAX_READ_BYTES:
        return None
    rel = relative(ctx.workspace, target)
    text, meta = read_big_range(target, rel, size, args.get("start_line"), args.get("end_line"),
                                counter_for(ctx.model), READ_TOKEN_CAP)
    return make_result(text, ctx, meta=meta)
