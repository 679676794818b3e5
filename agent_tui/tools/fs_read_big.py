"""A line range of a file too large to read whole (``core.safe_files.MAX_READ_BYTES``).

A 20 MB log or data file is still a file the model may need lines of: ``read_file(start_line=…,
end_line=…)`` streams it up to the last line asked for, with the same guards as a whole read (a
regular file inside the workspace, opened without blocking), and never holds more than the lines it
shows.  What keeps it bounded: the scan stops after ``MAX_SCAN_BYTES`` (a sparse file of 50 GB would
take minutes), and a line longer than ``MAX_LINE_BYTES`` is cut.  The lines are decoded leniently (a log
may mix encodings) and redacted with the lines just before them, so a private key that starts above
the range is still recognised and masked.  Such a file is not an active file: the engine keeps no copy
of a file it never read whole.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.redact_whole import redact_keeping_lines
from agent_tui.core.safe_files import open_regular
from agent_tui.core.tokens import TokenCounter
from agent_tui.tools.base import ToolError
from agent_tui.tools.workspace import number_lines

#: How far into a big file a range may be (bytes read to reach it).
MAX_SCAN_BYTES = 256 * 1024 * 1024
#: Longest line shown whole.
MAX_LINE_BYTES = 64 * 1024
#: Lines read before the range for the redaction to see a secret that starts above it (a PEM block).
REDACT_CONTEXT = 200
#: Most lines shown at once (the token cap usually cuts sooner).
MAX_LINES = 2000


def read_big_range(path: Path, rel: str, size: int, start: int | None, end: int | None,
                   counter: TokenCounter, cap: int) -> tuple[str, dict[str, object]]:
    """Numbered lines ``start..end`` of a big file, cut to ``cap`` tokens, with how to go on."""
    first = start or 1
    if end is not None and end < first:
        raise ToolError(f"end_line {end} is before start_line {first}.")
    last = min(end if end is not None else first + MAX_LINES - 1, first + MAX_LINES - 1)
    above = max(1, first - REDACT_CONTEXT)
    lines, eof, count = _lines(path, rel, above, last)
    if len(lines) <= first - above:
        raise ToolError(f"start_line {first} is past the end of {rel} ({count:,} lines).")
    shown = redact_keeping_lines("\n".join(lines)).split("\n")[first - above:]
    cut = len(shown)
    while cut > 1 and counter.count(number_lines(shown[:cut], first)) > cap:
        cut = max(1, cut // 2 if cut > 64 else cut - 8)
    shown_last = first + cut - 1
    text = (f"{rel} (lines {first}-{shown_last}; {size:,} bytes, too large to read whole)\n"
            + number_lines(shown[:cut], first))
    if eof and cut == len(shown):
        if end is None or shown_last < end:
            text += f"\n[end of file at line {shown_last}]"
    elif end is None or shown_last < end:
        text += f"\n[continue with start_line={shown_last + 1}]"
    return text, {"path": rel, "range": [first, shown_last], "big": True}


def _lines(path: Path, rel: str, first: int, last: int) -> tuple[list[str], bool, int]:
    """Lines ``first..last`` (1-based) of ``path``, whether the file ended before ``last``, and the
    number of lines read."""
    fd = open_regular(path, rel)
    out: list[str] = []
    scanned, number, partial = 0, 1, b""
    with os.fdopen(fd, "rb", buffering=1 << 20) as f:
        while number <= last:
            chunk = f.readline(MAX_LINE_BYTES)
            if not chunk:
                if partial:  # a last line without a newline
                    out.extend([_decode(partial)] if number >= first else [])
                    return out, True, number
                return out, True, number - 1
            scanned += len(chunk)
            if scanned > MAX_SCAN_BYTES:
                raise ToolError(f"line {first} of {rel} is more than {MAX_SCAN_BYTES // (1 << 20)} MB into the file; "
                                "read_file does not go that deep. Use search, or a command (tail, grep -n).")
            if not chunk.endswith(b"\n"):  # a long line: keep its first part, skip the rest
                if not partial:
                    partial = chunk
                continue
            line = partial + b" [line cut]" if partial else chunk.rstrip(b"\r\n")
            partial = b""
            if number >= first:
                out.append(_decode(line))
            number += 1
    return out, False, number - 1


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")
