"""Bash's brace expansion, done without a shell, so the rules see the words bash will run.

tree-sitter-bash reads ``{a,b}`` as a plain word, so ``echo x >> {../.bashrc,}`` looked like a write
inside the workspace (bash writes ``../.bashrc``), ``rm -{r,f}f`` did not look like ``rm -rf`` to a
deny rule, and ``git {push,}`` was not ``git push``.  Brace expansion is the first expansion bash
performs and is purely textual, so it can be done exactly: a ``{`` with a matching ``}`` and a comma
at its own depth (or a ``x..y`` sequence) is replaced by each alternative in turn, left to right,
nested ones included; ``{}``, ``{x}``, quoted and backslash-escaped braces stay literal.  Anything this
module cannot expand for certain, or that expands into more than :data:`MAX_WORDS` words, is reported
as such and the callers treat the word as unreadable.
"""

from __future__ import annotations

import re

#: At most this many words from one expansion (bash has no limit; the rules want a bounded answer).
MAX_WORDS = 256
_SEQUENCE = re.compile(r"([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?|([A-Za-z])\.\.([A-Za-z])(?:\.\.([-+]?\d+))?")
#: A sequence end that asks for zero padding (``01``, ``-007``; not ``0`` alone).
_PADDED = re.compile(r"[-+]?0\d+")


class TooMany(ValueError):
    """The expansion passes :data:`MAX_WORDS`, or its reading is not certain (:class:`Unsure`)."""


class Unsure(TooMany):
    """A ``}`` closes a brace before any comma and more braces and commas follow (``1{},}``, ``{a}b,c}``):
    bash reads some of these as one expansion and some as literal text, so this module does not guess."""


def has_braces(raw: str) -> bool:
    """True when bash would brace-expand the unquoted word ``raw`` (source text, escapes kept).  Syntax
    only: never raises, however many words the expansion would make."""
    return _first(raw) is not None


def expand(raw: str) -> list[str]:
    """The words bash makes of the unquoted word ``raw`` (escapes still in them); ``[raw]`` without
    braces.  Raises :class:`TooMany` past :data:`MAX_WORDS`."""
    found = _first(raw)
    if found is None:
        return [raw]
    start, end, alternatives = found
    if end < 0:
        raise Unsure(raw)
    if alternatives is None:
        alternatives = _sequence(raw[start + 1:end])
    pre, post = raw[:start], raw[end + 1:]
    tails = expand(post)
    out: list[str] = []
    for alt in alternatives:
        for middle in expand(alt):
            for tail in tails:
                out.append(pre + middle + tail)
                if len(out) > MAX_WORDS:
                    raise TooMany(raw)
    return out


def _first(raw: str) -> tuple[int, int, list[str] | None] | None:
    """The first brace expression of ``raw``: its ``{`` and ``}`` positions and its alternatives (None for a
    sequence, which ``_sequence`` spells out)."""
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "{" and not (i > 0 and raw[i - 1] == "$" and not (i > 1 and raw[i - 2] == "\\")):
            found = _close(raw, i)
            if found is not None:
                return found
            if _doubtful(raw, i):
                return i, -1, None
        i += 1
    return None


def _close(raw: str, start: int) -> tuple[int, int, list[str] | None] | None:
    """The expression opened at ``start``, when its ``}`` exists and it has a comma or is a sequence."""
    depth, i, cut = 0, start + 1, [start]
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                if len(cut) > 1:
                    parts = [raw[a + 1:b] for a, b in zip(cut, [*cut[1:], i], strict=True)]
                    return start, i, parts
                return (start, i, None) if _SEQUENCE.fullmatch(raw[start + 1:i]) else None
            depth -= 1
        elif c == "," and depth == 0:
            cut.append(i)
        i += 1
    return None


def _doubtful(raw: str, start: int) -> bool:
    """After the ``{`` at ``start`` (which its first ``}`` closes with no comma), a comma and a ``}`` still follow."""
    rest = re.sub(r"\\.", "", raw[start + 1:])
    return "," in rest and "}" in rest[rest.index(","):]


def _sequence(body: str) -> list[str]:
    """``1..3`` → 1 2 3, ``a..c`` → a b c (with an optional step); ``body`` matches ``_SEQUENCE``.  Raises
    :class:`TooMany` past :data:`MAX_WORDS`."""
    m = _SEQUENCE.fullmatch(body)
    assert m is not None, body
    if m.group(1) is not None:
        a, b, step = int(m.group(1)), int(m.group(2)), abs(int(m.group(3) or 1)) or 1
        if abs(b - a) // step + 1 > MAX_WORDS:
            raise TooMany(body)
        padded = _PADDED.fullmatch(m.group(1)) or _PADDED.fullmatch(m.group(2))
        width = max(len(m.group(1).lstrip("+")), len(m.group(2).lstrip("+"))) if padded else 0
        values = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [str(v).zfill(width) if width else str(v) for v in values]
    a, b, step = ord(m.group(4)), ord(m.group(5)), abs(int(m.group(6) or 1)) or 1
    values = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
    return [chr(v) for v in values]
