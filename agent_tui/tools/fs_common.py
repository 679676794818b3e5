"""What edit_file and write_file share: the stale-read check, line endings and diffs.

An edit is only safe if it is based on what is on disk now.  The engine records the
hash of the text the model last saw (``note_read``/``note_edit``, and a request sent to it);
before changing a file the tools compare it with the hash of the current disk content and
refuse on any difference, telling the model to read again.  A whole-file write also needs
the model to have seen every line of it (``require_whole_view``).

The model sees lines without their endings, so it cannot copy a ``\\r``.  Its text is
matched with any line ending (``eol_pattern``) and written with the endings of the
text it replaces (``with_endings``): a line it did not change keeps its ending, so a
file with mixed endings is never normalised behind the diff's back.
"""

from __future__ import annotations

import difflib
import re

from agent_tui.core.activefiles import covers, merge_spans
from agent_tui.core.hashing import content_hash
from agent_tui.tools.base import ToolContext, ToolError
from agent_tui.tools.workspace import split_lines

#: Diff lines shown to the model after an edit (the UI gets the whole diff in meta).
DIFF_LINES_SHOWN = 60


def require_fresh(ctx: ToolContext, rel: str, current: str, action: str) -> None:
    """Raise ToolError unless the model's last view of ``rel`` is the current disk text."""
    seen = ctx.last_seen_hash(rel)
    if seen is None:
        raise ToolError(
            f"Refused: read '{rel}' first. It is not among the files you have read (never read, or let go of "
            f"after it sat idle, so an older copy of it in the conversation may be out of date). Call "
            f"read_file(path=\"{rel}\"), so the {action} is based on its current content."
        )
    if seen != content_hash(current):
        raise ToolError(
            f"Refused: '{rel}' changed on disk since you last read it. Read it again with "
            f"read_file and redo the {action} against its current content."
        )


def require_whole_view(ctx: ToolContext, rel: str, current: str) -> None:
    """Raise ToolError unless the model was shown all of ``current`` (a whole read, ranges covering every
    line, or its own write): replacing a file it saw only as an outline, a range or search hits would
    throw away lines it never saw."""
    spans = ctx.seen_part(rel)
    total = len(split_lines(current))
    if spans is None or covers(spans, total):
        return
    seen = sum(min(b, total) - a + 1 for a, b in merge_spans(spans) if a <= total)
    raise ToolError(
        f"Refused: you have seen only part of '{rel}' ({seen:,} of its {total:,} lines: an outline, a "
        f"line range or search hits), and write_file would replace all of it. Change parts with edit_file, or "
        f"read every line first (read_file, with start_line/end_line for a large file)."
    )


def newline_of(text: str) -> str:
    """``\\r\\n`` when most line endings of ``text`` are CRLF, else ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def to_lf(text: str) -> str:
    """``text`` with CRLF endings turned into LF."""
    return text.replace("\r\n", "\n")


_EOL = re.compile(r"\r*\n")


def eol_pattern(lf_text: str) -> re.Pattern[str]:
    """A pattern matching ``lf_text`` literally, each ``\\n`` in it as any line ending."""
    return re.compile(r"\r*\n".join(re.escape(part) for part in lf_text.split("\n")))


def eol_blind(text: str) -> str:
    """``text`` with every line ending, bare ``\\r`` included, as ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_ends(text: str) -> tuple[list[str], list[str]]:
    """The lines of ``text`` and the ending of each; the last piece (maybe "") has ending ""."""
    lines: list[str] = []
    ends: list[str] = []
    pos = 0
    for m in _EOL.finditer(text):
        lines.append(text[pos : m.start()])
        ends.append(m.group())
        pos = m.end()
    lines.append(text[pos:])
    ends.append("")
    return lines, ends


def ending_near(text: str, start: int, end: int) -> str:
    """The ending of the line holding ``text[end]``, else of the line before ``start``, else the file's."""
    after = _EOL.search(text, end)
    if after:
        return after.group()
    before = text.rfind("\n", 0, start)
    if before == -1:
        return newline_of(text)
    run = before
    while run > 0 and text[run - 1] == "\r":
        run -= 1
    return text[run : before + 1]


def with_endings(old: str, new_lf: str, default: str) -> str:
    """``new_lf`` (LF endings) given the line endings of ``old``, the text it replaces.

    When ``old`` has one kind of ending (or none: then ``default``) every line gets it.
    Otherwise a line kept from ``old`` keeps its ending, a changed line takes the ending
    of the line it replaces and an inserted line that of the line before it.
    """
    old_lines, old_ends = split_ends(old)
    kinds = {e for e in old_ends if e}
    if len(kinds) <= 1:
        eol = next(iter(kinds), default)
        return new_lf if eol == "\n" else new_lf.replace("\n", eol)
    new_lines = new_lf.split("\n")
    last = len(new_lines) - 1
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            if tag == "equal":
                i = i1 + j - j1
            elif i2 > i1:
                i = min(i1 + j - j1, i2 - 1)
            else:
                i = max(i1 - 1, 0)
            out.append(new_lines[j] if j == last else new_lines[j] + (old_ends[i] or default))
    return "".join(out)


BOM = "\ufeff"


def in_file_format(old: str, new: str) -> str:
    """``new``, the whole new text of a file that held ``old``, in ``old``'s format: its line endings
    (unless ``new`` has CRLF of its own, the model's choice), its byte order mark and its final newline.
    The model never sees the BOM and often leaves out the last newline; dropping either is a change the
    user did not ask for (a BOM some tools need, a "no newline at end of file" in every diff)."""
    own_crlf = "\r\n" in new
    if not own_crlf:
        new = with_endings(old, new, newline_of(old))
    old_lines, old_ends = split_ends(old)
    if new and not new.endswith(("\n", "\r")) and old_lines[-1] == "" and len(old_ends) > 1:
        new += "\r\n" if own_crlf else old_ends[-2]  # (the model's CRLF, else the ending of old's last line)
    return with_bom_of(old, new)


def with_bom_of(current: str, updated: str) -> str:
    """``updated`` with exactly one byte order mark if ``current`` starts with one, else none.  read_file
    shows the BOM as part of line 1, so the model may take it along, leave it out or add one; it is the
    file's encoding mark, not text the model edits (a U+FEFF further on is text)."""
    if current.startswith(BOM):
        if not updated.startswith(BOM):
            return BOM + updated
        if updated.startswith(BOM * 2) and not current.startswith(BOM * 2):
            return updated[1:]
    elif updated.startswith(BOM):
        return updated[1:]
    return updated


def unified(old: str, new: str, rel: str, context: int = 3) -> str:
    """A unified diff between two LF texts, ``a/rel`` → ``b/rel``."""
    return "\n".join(
        difflib.unified_diff(
            split_lines(old), split_lines(new), f"a/{rel}", f"b/{rel}", n=context, lineterm=""
        )
    )


def diff_stats(diff: str) -> tuple[int, int]:
    """(added, removed) line counts of a unified diff."""
    added = removed = 0
    for line in diff.split("\n"):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def compact_diff(old: str, new: str, rel: str) -> str:
    """A 1-line-context diff without file headers, cut to DIFF_LINES_SHOWN lines."""
    lines = unified(old, new, rel, context=1).split("\n")[2:]
    if len(lines) > DIFF_LINES_SHOWN:
        extra = len(lines) - DIFF_LINES_SHOWN
        lines = lines[:DIFF_LINES_SHOWN] + [f"… {extra} more diff lines"]
    return "\n".join(lines)
