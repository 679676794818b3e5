"""A line range of a file too large to read whole (``core.safe_files.MAX_READ_BYTES``).

A 20 MB log or data file is still a file the model may need lines of: ``read_file(start_line=…,
end_line=…)`` streams it up to the last line asked for, with the same guards as a whole read (a
regular file inside the workspace, opened without blocking), and never holds more than the lines it
shows.  What keeps it bounded: the scan stops after ``MAX_SCAN_BYTES`` (a sparse file of 50 GB would
take minutes), a line longer than ``MAX_LINE_BYTES`` is cut, and no more than ``MAX_RANGE_BYTES`` of
lines are gathered (the token cap shows far less).  The lines are decoded leniently (a log may mix
encodings; a NUL byte means a binary file, refused as a whole read is) and redacted before anything is
cut: with the lines just before them (``REDACT_BYTES`` at most), so a private key that starts above the
range is still masked, and with a margin past a long line's cut, so a token that straddles the cut is
masked whole instead of showing its first part.  Such a file is not an active file: the engine keeps no copy
of a file it never read whole.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.redact_whole import redact_keeping_lines
from agent_tui.core.safe_files import UnsafeFileError, open_regular
from agent_tui.core.tokens import TokenCounter
from agent_tui.tools.base import ToolError
from agent_tui.tools.workspace import number_lines

#: How far into a big file a range may be (bytes read to reach it).
MAX_SCAN_BYTES = 256 * 1024 * 1024
#: Longest line shown whole (characters).
MAX_LINE_BYTES = 16 * 1024
#: What is kept of a longer line past its cut, for the redaction to see a secret that straddles the cut.
CUT_MARGIN = 4096
#: Lines, and bytes, read before the range for the redaction to see a secret that starts above it.
REDACT_CONTEXT = 200
REDACT_BYTES = 32 * 1024
#: Most lines, and bytes of lines, gathered for one range (the token cap usually cuts sooner).
MAX_LINES = 2000
MAX_RANGE_BYTES = 256 * 1024
CUT_MARK = " [line cut]"


def read_big_range(path: Path, rel: str, size: int, start: int | None, end: int | None,
                   counter: TokenCounter, cap: int) -> tuple[str, dict[str, object]]:
    """Numbered lines ``start..end`` of a big file, cut to ``cap`` tokens, with how to go on."""
    first = start or 1
    if end is not None and end < first:
        raise ToolError(f"end_line {end} is before start_line {first}.")
    last = min(end if end is not None else first + MAX_LINES - 1, first + MAX_LINES - 1)
    try:
        above, lines, eof, count = _lines(path, rel, first, last)
    except (UnsafeFileError, OSError) as exc:
        raise ToolError(f"Cannot read '{rel}': {getattr(exc, 'strerror', None) or exc}.") from None
    if len(lines) <= len(above):
        raise ToolError(f"start_line {first} is past the end of {rel} ({count:,} lines).")
    masked = redact_keeping_lines("\n".join(lines)).split("\n")[len(above):]
    shown = [_cut(line, raw) for line, raw in zip(masked, lines[len(above):], strict=True)]
    cut = _fit(shown, first, counter, cap)
    shown_last = first + cut - 1
    text = (f"{rel} (lines {first}-{shown_last}; {size:,} bytes, too large to read whole)\n"
            + number_lines(shown[:cut], first))
    if eof and cut == len(shown):
        if end is None or shown_last < end:
            text += f"\n[end of file at line {shown_last}]"
    elif end is None or shown_last < end:
        text += f"\n[continue with start_line={shown_last + 1}]"
    return text, {"path": rel, "range": [first, shown_last], "big": True}


def _fit(lines: list[str], first: int, counter: TokenCounter, cap: int) -> int:
    """How many of ``lines`` (numbered from ``first``) fit ``cap`` tokens; at least one."""
    lo, hi = 1, len(lines)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count(number_lines(lines[:mid], first)) <= cap:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _cut(line: str, raw: str) -> str:
    """A long line cut after redaction (``raw``: what was read of it, the margin past the cut included)."""
    if len(raw) <= MAX_LINE_BYTES and not raw.endswith(CUT_MARK):
        return line
    return line[:MAX_LINE_BYTES].removesuffix(CUT_MARK) + CUT_MARK


def _lines(path: Path, rel: str, first: int, last: int) -> tuple[list[str], list[str], bool, int]:
    """(the lines kept above ``first`` for redaction, those lines followed by lines ``first..last``,
    whether the file ended before ``last``, the number of lines read)."""
    fd = open_regular(path, rel, exact=True)
    above: list[str] = []
    out: list[str] = []
    scanned, gathered, number, partial, cut = 0, 0, 1, b"", False
    with os.fdopen(fd, "rb", buffering=1 << 20) as f:
        while number <= last and gathered <= MAX_RANGE_BYTES:
            chunk = f.readline(MAX_LINE_BYTES + CUT_MARGIN)
            if chunk:
                scanned += len(chunk)
                if scanned > MAX_SCAN_BYTES:
                    raise ToolError(f"line {first} of {rel} is more than {MAX_SCAN_BYTES // (1 << 20)} MB into the "
                                    "file; read_file does not go that deep. Use search, or a command (tail, grep -n).")
                if not chunk.endswith(b"\n"):  # a long line: keep its first part (and the margin), skip the rest
                    partial, cut = (partial or chunk), cut or bool(partial) or len(chunk) > MAX_LINE_BYTES
                    continue
                raw, partial = (partial or chunk.rstrip(b"\r\n")), b""
                cut = cut or len(raw) > MAX_LINE_BYTES
            elif partial:  # a last line without a newline
                raw, partial = partial, b""
            else:
                return above, above + out, True, number - 1
            if b"\0" in raw:
                raise ToolError(f"'{rel}' looks binary (NUL bytes at line {number}); read_file shows text only.")
            line = raw.decode("utf-8", errors="replace") + (CUT_MARK if cut else "")
            cut = False
            if number >= first:
                out.append(line)
                gathered += len(line)
            elif number >= first - REDACT_CONTEXT:
                above.append(line)
                while len(above) > 1 and sum(map(len, above)) > REDACT_BYTES:
                    above.pop(0)
            number += 1
            if not chunk:
                return above, above + out, True, number - 1
    return above, above + out, False, number - 1
