"""What edit_file and write_file share: the stale-read check, newline style and diffs.

An edit is only safe if it is based on what is on disk now.  The engine records the
hash of the text the model last saw (``note_read``/``note_edit``); before changing a
file the tools compare it with the hash of the current disk content and refuse on any
difference, telling the model to read again.
"""

from __future__ import annotations

import difflib

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
            f"Refused: you have not read '{rel}' yet. Call read_file(path=\"{rel}\") first, "
            f"so the {action} is based on its current content."
        )
    if seen != content_hash(current):
        raise ToolError(
            f"Refused: '{rel}' changed on disk since you last read it. Read it again with "
            f"read_file and redo the {action} against its current content."
        )


def newline_of(text: str) -> str:
    """``\\r\\n`` when most line endings of ``text`` are CRLF, else ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def to_lf(text: str) -> str:
    """``text`` with CRLF endings turned into LF."""
    return text.replace("\r\n", "\n")


def from_lf(text: str, newline: str) -> str:
    """LF text written back in the file's newline style."""
    return text.replace("\n", newline) if newline != "\n" else text


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
