"""A budgeted view of a long plain-text output: where it starts, ends, and goes wrong.

For logs and command output the useful lines are the first ones (what ran), the last
ones (how it ended), the error lines in between (tracebacks, FAILED, ``file:line``) and
the lines about what the model is looking for (words of its ``intent``).  Everything is
shown with line numbers so the model can ask for the rest precisely.  The view shrinks
level by level until it fits the token budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agent_tui.core.tokens import TokenCounter

#: Lines worth keeping from the middle of a long output.  Every alternative runs in time
#: linear in the line (no unbounded run followed by a backtracking test: a ``path.py:12``
#: is found by its bounded ``x.py:12`` end, not by scanning the whole path from each start).
ERROR_RE = re.compile(
    r"Traceback \(most recent call last\)"
    r"|\b\w*(?:Error|Exception)\b"
    r"|\b(?:ERROR|FATAL|CRITICAL)\b"
    r"|\berror(?:\[\w+\])?:"
    r"|\bFAIL(?:ED|URE)?\b"
    r"|\bassert(?:ion)?\b"
    r"|\bpanic(?:ked)?\b"
    r'|^\s*File "[^"]+", line \d+'
    r"|[\w/\\-]\.[A-Za-z]\w{0,5}:\d"
)

#: Characters of each line searched for errors and intent words (bounds the cost of a
#: one-line megabyte output; what matters on such a line is near its start).
SCAN_CHARS = 4096

_STOP = frozenset(
    "the and for with that this from into what where when which how why are was were "
    "have has had not but all any can its out use get find show look".split()
)

#: The richest view: (head, tail, error lines, intent lines) and chars per line.
FULL_VIEW = (30, 60, 40, 40)
FULL_WIDTH = 240
#: Successive shrink factors tried until the view fits.
SCALES = (1.0, 0.8, 0.65, 0.5, 0.4, 0.3, 0.22, 0.16, 0.11, 0.07, 0.04, 0.0)


def levels() -> list[tuple[int, int, int, int, int]]:
    """(head, tail, errors, intent lines, width) from richest to barest."""
    out = []
    for scale in SCALES:
        head, tail, errs, hits = (
            max(1 if i < 2 else 0, round(n * scale)) for i, n in enumerate(FULL_VIEW)
        )
        width = max(40, int(FULL_WIDTH * min(1.0, scale * 2)))
        out.append((head, tail, errs, hits, width))
    return out


def intent_words(intent: str) -> list[str]:
    """Lower-cased search words from an intent sentence (3+ characters, no stop words)."""
    words = {w.lower().strip(".-") for w in re.findall(r"[\w.-]{3,}", intent)}
    return sorted(w for w in words if len(w) >= 3 and w not in _STOP)


def intent_hits(lines: Sequence[str], intent: str) -> tuple[list[str], list[int]]:
    """The discriminating intent words and the indexes of the lines containing one.

    A word found on more than a quarter of a long output (``line``, ``test``) says
    nothing about where to look, so it is dropped.
    """
    lowered = [line[:SCAN_CHARS].lower() for line in lines]
    words = []
    for word in intent_words(intent):
        found = sum(1 for line in lowered if word in line)
        if found and (len(lines) < 20 or found <= len(lines) // 4):
            words.append(word)
    hits = [i for i, line in enumerate(lowered) if any(w in line for w in words)]
    return words, hits


def error_lines(lines: Sequence[str]) -> list[int]:
    """Indexes of the lines that look like errors."""
    return [i for i, line in enumerate(lines) if ERROR_RE.search(line, 0, SCAN_CHARS)]


def clip(line: str, width: int) -> str:
    """``line`` cut to ``width`` characters with a note of how much was cut."""
    if len(line) <= width:
        return line
    return f"{line[:width]}… (+{len(line) - width:,} chars)"


def spread(indexes: Sequence[int], limit: int) -> list[int]:
    """At most ``limit`` of ``indexes``: the first half and the last half (root cause and outcome)."""
    if len(indexes) <= limit:
        return list(indexes)
    if limit <= 0:
        return []
    first = (limit + 1) // 2
    return list(indexes[:first]) + list(indexes[len(indexes) - (limit - first) :])


def render_lines(lines: Sequence[str], chosen: Iterable[int], width: int) -> str:
    """Chosen lines as ``L12: text`` in order, with a marker for each gap."""
    out: list[str] = []
    prev = -1
    for i in sorted(set(chosen)):
        if i - prev > 1:
            out.append(f"… {i - prev - 1:,} lines omitted …")
        out.append(f"L{i + 1}: {clip(lines[i], width)}")
        prev = i
    if prev < len(lines) - 1:
        out.append(f"… {len(lines) - 1 - prev:,} lines omitted …")
    return "\n".join(out)


def summarize_text(text: str, budget: int, counter: TokenCounter, intent: str = "") -> str:
    """The richest head/tail/error/intent view of ``text`` within ``budget`` tokens ("" if none fits)."""
    lines = text.split("\n")
    n = len(lines)
    errors = error_lines(lines)
    words, hits = intent_hits(lines, intent)
    for head, tail, max_err, max_hit, width in levels():
        chosen = set(range(min(head, n))) | set(range(max(0, n - tail), n))
        chosen |= set(spread(errors, max_err)) | set(hits[:max_hit])
        parts = [f"{n:,} lines; showing the head, the tail"]
        if errors:
            parts.append(f"{len(errors):,} error line(s)")
        if hits:
            parts.append(f"{len(hits):,} line(s) matching {', '.join(words[:6])}")
        out = ", ".join(parts) + ":\n" + render_lines(lines, chosen, width)
        if counter.count_within(out, budget) is not None:
            return out
    return ""
