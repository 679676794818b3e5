"""Redact a text whole before a tool cuts it: a secret cut in half is not a secret the scanner knows.

The engine redacts every text that enters the window, but a tool shapes its output first: a ranged
``read_file`` shows lines 2-30 of a key file (the PEM block's ``BEGIN`` line, which the detector
needs, is not among them), ``search`` clips a matching line to 160 characters (``ghp_`` and the first
eight of a token's forty), ``run_command`` clips long lines.  What is left is no longer recognisable,
so it went out as is.  Tools redact the text they cut from first.
"""

from __future__ import annotations

from agent_tui.core.redact import default_redactor, mask
from agent_tui.core.secrets import find_secrets


def redact_whole(text: str) -> str:
    """``text`` through the process-wide Redactor (every secret it finds masked)."""
    return default_redactor()(text)


def redact_keeping_lines(text: str) -> str:
    """``text`` redacted with its line count kept, so line numbers still match the file: a secret that
    spans lines (a private key's block, a known value holding newlines) leaves its mask on its first line
    and its other lines empty.  One scan when no mask spans a line (the Redactor remembers it); the
    spans are looked up only when one did."""
    done = redact_whole(text)
    if done.count("\n") == text.count("\n"):
        return done
    spans = default_redactor().known_spans(text) + [(f.start, f.end, mask(f.kind)) for f in find_secrets(text)]
    parts: list[str] = []
    pos = 0
    for start, end, shown in sorted(s for s in spans if "\n" in text[s[0]:s[1]]):
        if start < pos:  # inside a span already masked
            continue
        parts += [text[pos:start], shown, "\n" * text.count("\n", start, end)]
        pos = end
    kept = redact_whole("".join(parts) + text[pos:])
    if kept.count("\n") == text.count("\n"):
        return kept
    return "\n".join(redact_whole(line) for line in text.split("\n"))  # a mask made by the second pass took a newline
