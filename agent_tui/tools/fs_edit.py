"""edit_file: exact search/replace, refused unless it is safe and unambiguous.

Search/replace (not line numbers, not whole-file rewrites) is the edit format models
get right most often and that costs the fewest output tokens.  It fails loudly and
helpfully: a stale read, text not found (with the most similar lines shown, numbered,
so the model can copy them exactly) and an ambiguous match (with the count and where)
are all refused before anything is written.  Overlapping occurrences count ("}\\n}" occurs twice
in three lines of "}"), as the model cannot tell which one it meant; replace_all changes them
left to right without overlap.  The file's byte order mark stays (``with_bom_of``).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from agent_tui.core.redact_whole import redact_keeping_lines
from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.fs_atomic import atomic_write
from agent_tui.tools.fs_common import (
    compact_diff,
    diff_stats,
    ending_near,
    eol_blind,
    eol_pattern,
    require_fresh,
    to_lf,
    unified,
    with_bom_of,
    with_endings,
)
from agent_tui.tools.fs_unmask import has_mask, masked_view, refuse_masks, unmask
from agent_tui.tools.workspace import (
    number_lines,
    read_text,
    refuse_protected,
    resolve,
    split_lines,
)

#: Files longer than this are searched for the nearest window on stripped lines only.
NEAREST_FULL_SCAN_LINES = 20000

SPEC = ToolSpec(
    name="edit_file",
    description=(
        "Edit a file by replacing old_text with new_text (exact match, whitespace included). "
        "Use it for changes to existing files; read the file first (edits to files you have "
        "not read, or that changed since, are refused). old_text must be copied exactly from "
        "the file without line-number prefixes and must occur once; include a few more "
        "surrounding lines if it is not unique, or set replace_all to change every "
        "occurrence. Not for creating files: use write_file."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "old_text": {"type": "string", "description": "Exact text to replace."},
            "new_text": {"type": "string", "description": "Replacement text."},
            "replace_all": {"type": "boolean", "default": False},
        },
        "required": ["path", "old_text", "new_text"],
        "additionalProperties": False,
    },
    kind="write",
    group="files",
)


def nearest_window(lines: list[str], needle: str) -> tuple[int, int, float]:
    """(start, end, similarity) of the window of ``lines`` most like ``needle`` (0-based, exclusive end)."""
    wanted = split_lines(needle) or [needle]
    size = min(len(wanted), max(1, len(lines)))
    target = "\n".join(line.strip() for line in wanted)
    matcher = difflib.SequenceMatcher(None, "", target, autojunk=False)
    stripped = [line.strip() for line in lines]
    best_start, best_ratio = 0, -1.0
    for start in range(max(1, len(lines) - size + 1)):
        matcher.set_seq1("\n".join(stripped[start : start + size]))
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_start, best_ratio = start, ratio
    return best_start, min(len(lines), best_start + size), max(best_ratio, 0.0)


def not_found_message(rel: str, text: str, old_text: str) -> str:
    """old_text is missing from ``text``: show the most similar lines with numbers and a hint."""
    lines = split_lines(text)
    if not lines:
        return f"old_text was not found: {rel} is empty."
    start, end, ratio = nearest_window(lines, old_text)
    lo, hi = max(0, start - 1), min(len(lines), end + 1)
    shown = number_lines(lines[lo:hi], lo + 1, len(lines))
    window = [line.strip() for line in lines[start:end]]
    wanted = [line.strip() for line in split_lines(old_text)]
    if eol_blind(old_text) in eol_blind(text):
        hint = (
            "old_text differs from the file only in line endings: old_text has carriage "
            "returns (\\r) where the file has none; send it without \\r characters."
            if "\r" in old_text
            else f"old_text differs from the file only in line endings: {rel} ends lines there "
            "with a bare carriage return (\\r), which edit_file cannot match. Rewrite the file "
            "with write_file, or ask the user to convert its line endings."
        )
    elif window == wanted:
        hint = "They differ from old_text only in whitespace/indentation: copy them exactly."
    else:
        hint = "Copy old_text exactly from the file (no line-number prefixes), or read_file again."
    span = f"line {start + 1} is" if end - start == 1 else f"lines {start + 1}-{end} are"
    return (
        f"old_text was not found in {rel}. The most similar {span} ({ratio:.0%} similar), "
        f"shown with a line of context:\n{shown}\n{hint}"
    )


def occurrences(text: str, needle: str) -> list[tuple[int, int]]:
    """(start, end) of every occurrence of LF ``needle``, with any line endings, overlapping ones included
    ("}\\n}" occurs twice in three lines of "}"; ``finditer`` would see one and call the edit unique).
    Each place counts once: a match starting inside a run of ``\\r`` before a line feed is the same line
    ending as the one starting at the run's first ``\\r``."""
    pattern = eol_pattern(needle)
    at_eol = needle.lstrip("\r").startswith("\n")
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        start = m.start()
        if not (at_eol and start > 0 and text[start - 1] == "\r"):
            spans.append(m.span())
        pos = start + 1
    return spans


def non_overlapping(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans ``replace_all`` changes: left to right, each one that starts after the last taken ends."""
    taken: list[tuple[int, int]] = []
    for start, end in spans:
        if not taken or start >= taken[-1][1]:
            taken.append((start, end))
    return taken


def edited(text: str, spans: list[tuple[int, int]], new_text: str) -> str:
    """``text`` with ``new_text`` in place of the occurrences at ``spans`` (``occurrences``) as the edit makes
    it: left to right without overlap, the file's byte order mark kept."""
    return with_bom_of(text, replaced(text, non_overlapping(spans), new_text))


def replaced(text: str, spans: list[tuple[int, int]], new_text: str) -> str:
    """``text`` with each span replaced by ``new_text`` in that span's line endings; nothing else changes."""
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        default = ending_near(text, start, end)
        parts += [text[pos:start], with_endings(text[start:end], new_text, default)]
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def plan_edit(args: dict[str, Any], ctx: ToolContext) -> tuple[Path, str, str, str, list[int]]:
    """Every check of an edit, without writing: (target, rel, current text, updated text, lines of the
    occurrences); raises ToolError with what the model must do otherwise.  Run before the user is
    asked too (``check_edit``): an edit that cannot apply is not put to the user."""
    refuse_protected(ctx.workspace, resolve(ctx.workspace, args["path"]))
    target, rel, current = read_text(ctx.workspace, args["path"])
    old_text, new_text = to_lf(args["old_text"]), to_lf(args["new_text"])
    if not old_text:
        raise ToolError(
            "old_text is empty. To create a file use write_file; to insert, "
            "include the neighbouring lines in old_text and new_text."
        )
    if old_text == new_text:
        raise ToolError("old_text and new_text are identical: nothing to change.")
    require_fresh(ctx, rel, current, "edit")
    if has_mask(old_text) or has_mask(new_text):  # copied from a redacted read (tools/fs_unmask)
        view = masked_view(current)
        old_text, new_text = unmask(old_text, view), unmask(new_text, view)
        refuse_masks(new_text, view, "new_text", rel)
        if old_text == new_text:
            raise ToolError("old_text and new_text stand for the same text of the file (a [REDACTED:…] line is "
                            "its current line, whatever value you meant): nothing to change.")
    spans = occurrences(current, old_text)
    if not spans:
        # (against the file as the model was shown it: a similarity to the real text rose as a guess of a masked
        # value improved, an oracle that needed no approval)
        raise ToolError(not_found_message(rel, redact_keeping_lines(current), old_text))
    if len(spans) > 1 and not args.get("replace_all"):
        at = ", ".join(str(current.count("\n", 0, start) + 1) for start, _ in spans[:20])
        raise ToolError(
            f"old_text occurs {len(spans)} times in {rel} (at lines {at}). Include more "
            "surrounding lines so it is unique, or set replace_all=true to change all of them."
        )
    where = [current.count("\n", 0, start) + 1 for start, _ in non_overlapping(spans)]
    updated = edited(current, spans, new_text)
    if updated == current:
        raise ToolError(
            f"This edit would leave {rel} as it is: old_text and new_text differ only in the byte order mark "
            "(\\ufeff) at the start of the file, which edit_file keeps as it is. Nothing to change."
        )
    return target, rel, current, updated, where


async def check_edit(args: dict[str, Any], ctx: ToolContext) -> None:
    """Raise ToolError when the edit could not apply (see ``plan_edit``)."""
    plan_edit(args, ctx)


async def edit_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The edit_file tool."""
    target, rel, current, updated, where = plan_edit(args, ctx)
    before, after = current.encode("utf-8"), updated.encode("utf-8")
    with ctx.journaled(rel, before, after):
        atomic_write(target, after, rel, expected=before)
    ctx.note_edit(rel, updated)
    diff = unified(current, updated, rel)
    added, removed = diff_stats(diff)
    summary = (
        f"Edited {rel}: replaced {len(where)} occurrence(s) (first at line {where[0]}); "
        f"+{added} -{removed} lines, {len(split_lines(updated))} lines now."
    )
    meta = {
        "path": rel,
        "diff": diff,
        "replacements": len(where),
        "added": added,
        "removed": removed,
    }
    return make_result(f"{summary}\n{compact_diff(current, updated, rel)}", ctx, meta=meta)
