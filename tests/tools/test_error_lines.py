"""``is_error_line`` (words first, then the regex) answers as ``ERROR_RE.search`` over the line's
first ``SCAN_CHARS`` characters does, for every line."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_tui.tools.shaping_text import _PATH_RE, ERROR_RE, SCAN_CHARS, error_lines, is_error_line


def top_level(pattern: str) -> list[str]:
    """``pattern`` split at its top-level ``|`` (not inside a group, a class or after a backslash)."""
    out, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    return out + [pattern[start:]]


ALTERNATIVES = top_level(ERROR_RE.pattern)


def plain(line: str) -> bool:
    return ERROR_RE.search(line, 0, SCAN_CHARS) is not None


def test_the_alternatives_are_read_whole() -> None:
    assert "|".join(ALTERNATIVES) == ERROR_RE.pattern and len(ALTERNATIVES) == 9
    for alternative in ALTERNATIVES:
        re.compile(alternative)
    assert ALTERNATIVES[-1] == _PATH_RE.pattern


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_line_matching_any_alternative_is_an_error_line(alternative: str, data: st.DataObject) -> None:
    found = data.draw(st.from_regex(alternative, fullmatch=True))
    before = data.draw(st.sampled_from(["", " ", "x ", "  at ", "—", "é"]))
    after = data.draw(st.sampled_from(["", " ", " x", ":", "…", "é"]))
    line = (before + found + after).replace("\n", " ")
    assert is_error_line(line) == plain(line)
    if plain(line):
        assert is_error_line(line)


bits = st.sampled_from([
    "Error", "error:", "error[E0425]:", "ValueError", "Errors", "xError", "Exception", "ERROR", "FATAL",
    "CRITICAL", "FAIL", "FAILED", "FAILURE", "assert", "assertion", "panic", "panicked", "Traceback",
    "Traceback (most recent call last)", 'File "a.py", line 3', '  File "x", line 1', "a.py:12",
    "src/x.rs:9", ".py:1", "x.toolong:3", "-.a:1", "/.b:2", "é.c:3", ".", ":", "1", " ", "word", "é",
    "_", "-", "\\", "/", "\t", "e", "r", "o", "\u0130", "ſ", "K",
])
lines = st.lists(bits, max_size=25).map("".join)


@settings(max_examples=500, deadline=None)
@given(line=lines, pad=st.sampled_from([0, SCAN_CHARS - 8, SCAN_CHARS - 3, SCAN_CHARS, SCAN_CHARS + 5]))
@example(line="a.py:12", pad=SCAN_CHARS - 4).via("the match crosses the scanned end")
@example(line="Error", pad=SCAN_CHARS - 3).via("the word crosses the scanned end")
@example(line="x: y.z", pad=0).via("a dot and a colon, no path")
def test_same_answer_as_the_regex(line: str, pad: int) -> None:
    line = "w" * pad + line if pad else line
    assert is_error_line(line) == plain(line)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(lines, max_size=30))
def test_error_lines_are_the_regex_lines(lines: list[str]) -> None:
    assert error_lines(lines) == [i for i, line in enumerate(lines) if plain(line)]
