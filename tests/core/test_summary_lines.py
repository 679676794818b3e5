"""The summariser's shortcuts find exactly what the plain scans find: ``matching_lines`` the lines
the per-line scan finds (every line lowered and tested for the words, then the regex), and
``may_hold_notes`` lets through every assistant message that holds a todo or decision sentence."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_tui.core import summary as S
from agent_tui.core.items import Category, ContextItem
from agent_tui.core.summary import (
    ExtractiveSummariser,
    extract_decisions,
    lowered_lines,
    matching_lines,
    may_hold_notes,
)


def plain(body: str, words: tuple[str, ...], regex: re.Pattern[str]) -> list[str]:
    """The scan as it was: every line of ``splitlines``, lowered, tested for each word."""
    return [ln.strip() for ln in body.splitlines() if any(w in ln.lower() for w in words) and regex.search(ln)]


SCANS = ((S._ERROR_WORDS, S._ERROR), (S._RESULT_WORDS, S._RESULT))

# Words and near-words in odd cases, characters that lower to two (İ) or to ASCII (K: Kelvin),
# the context-dependent Σ, every line break splitlines knows, and filler.
PIECES = st.sampled_from([
    "Traceback", "ERROR", "error:", "Error:", "FAILED", "failed", "assert", "AssertionError", "Exception:",
    "fatal", "PANIC", "panic", "passed", "3 passed", "1 failed", "2 errors", "OK", "ok", "exit code 1",
    "exited with 2", "Ran 4 tests", "ran ", "Ran", "TOKEN", "look", "İ", "ı", "K", "ſ", "Σ", "ΑΣ", "é",
    "…", "\n", "\n", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
    "\u2029", " ", "  ", "\t", "x", "foo.py:12", "-", ".", "?", "ERRORS", "Errorless", "tracebacK",
])


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
@example("line one\nAn Error: here\n\nrun: 3 passed\n")
@example("İ Error: x\nError: y")  # a character that lowers to two: the lines no longer line up
@example("a\r\nError: b\rFAILED c")  # other line breaks
@example("Error:\n")  # a word at the very end of a line, a trailing newline
def test_same_lines_as_the_plain_scan(body: str) -> None:
    for words, regex in SCANS:
        expected = plain(body, words, regex)
        assert matching_lines(body, lowered_lines(body), words, regex) == expected
        assert matching_lines(body, None, words, regex) == expected
        assert matching_lines(body, lowered_lines(body), words, regex, last=True) == expected[-1:]


def test_each_word_of_a_line_counts_not_only_the_first() -> None:
    # "ok" comes first on the line, but only "passed" lets the result regex match.
    body = "look: 12 passed\nnothing\n"
    assert matching_lines(body, lowered_lines(body), S._RESULT_WORDS, S._RESULT) == ["look: 12 passed"]


SENTENCE_PIECES = st.sampled_from([
    "I will", "I'LL", "i decided", "Decided", "DECISION", "we will", "We'll", "going to", "chose", "Choose",
    "instead of", "The fix is", "the cause is", "root cause", "The problem is", "switched to", "switch to",
    "plan:", "TODO", "next step", "next,", "remaining", "still need", "left to do", "not yet", "follow-up",
    "Follow up", "maybe", "?", "İ", "ı", "K", "ſ", "Σ", "…", " ", " ", ". ", "\n", "x", "the", "fix", "will",
    "I", "ll", "'", "step", "up", "-", "we", "todo.", "ſwitch to", "I wiKl", "ınstead of", "İ will",
])
notes = st.lists(SENTENCE_PIECES, max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(notes)
@example("I WILL fix it. ſwitch to uv.")  # ſ matches s under IGNORECASE, lowering keeps it
def test_a_message_holding_a_todo_or_decision_is_never_skipped(text: str) -> None:
    if not may_hold_notes(text):
        assert not any(S._TODO.search(s) or S._DECISION.search(s) for s in S._sentences(text))


def alternatives(regex: re.Pattern[str]) -> list[str]:
    """The top-level branches of ``\\b(a|b|...)\\b``."""
    body = regex.pattern.removeprefix("\\b(").removesuffix(")\\b")
    out, depth, part = [], 0, ""
    for ch in body:
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if ch == "|" and depth == 0:
            out.append(part)
            part = ""
        else:
            part += ch
    return [*out, part]


BRANCHES = [(name, alt) for name, rx in (("todo", S._TODO), ("decision", S._DECISION)) for alt in alternatives(rx)]


def test_the_branches_are_read_whole() -> None:
    assert len(alternatives(S._TODO)) == 8 and len(alternatives(S._DECISION)) == 17
    assert all(re.fullmatch(f"(?i:{alt})", alt.replace("(ed)?", "").replace("[- ]", "-")) for _, alt in BRANCHES)


@pytest.mark.parametrize(("name", "alt"), BRANCHES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_match_of_the_note_regexes_is_let_through(name: str, alt: str, data: st.DataObject) -> None:
    text = data.draw(st.from_regex(re.compile(alt, re.I), fullmatch=True))
    assert may_hold_notes(f"So {text} now."), (name, alt, text)


def tool(i: int, body: str) -> ContextItem:
    return ContextItem(id=f"t{i}", category=Category.RESULTS, content=body, tokens=1, role="tool",
                       name="run_command", tool_call_id=f"c{i}", provenance={"command": f"cmd {i}"})


def said(i: int, text: str) -> ContextItem:
    return ContextItem(id=f"a{i}", category=Category.HISTORY, content=text, tokens=1, role="assistant")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(PIECES, max_size=30).map("".join), min_size=1, max_size=4), st.lists(notes, max_size=4))
def test_summaries_equal_the_plain_scans(bodies: list[str], texts: list[str]) -> None:
    items = [tool(i, b) for i, b in enumerate(bodies)] + [said(i, t) for i, t in enumerate(texts)]
    fast = ExtractiveSummariser().summarise(items, None)
    fast_decisions = extract_decisions(items)
    saved = S.matching_lines, S.may_hold_notes
    try:
        S.matching_lines = lambda body, low, words, regex, last=False: (  # type: ignore[assignment]
            plain(body, words, regex)[-1:] if last else plain(body, words, regex))
        S.may_hold_notes = lambda text: True  # type: ignore[assignment]
        slow = ExtractiveSummariser().summarise(items, None)
        slow_decisions = extract_decisions(items)
    finally:
        S.matching_lines, S.may_hold_notes = saved
    assert fast.to_json() == slow.to_json()
    assert fast_decisions == slow_decisions


def merged_plainly(old: S.Summary, newer: S.Summary) -> S.Summary:
    """``Summary.merge`` as it was: list scans for the covered ids and the kept keys."""
    out = S.Summary(covers=old.covers + [c for c in newer.covers if c not in old.covers])
    out.superseded = list(old.superseded) + list(newer.superseded)
    for s in S.SECTIONS:
        entries = list(old.sections.get(s, [])) + list(newer.sections.get(s, []))
        kept: list[S.Entry] = []
        seen_text: set[str] = set()
        for e in reversed(entries):
            norm = " ".join(e.text.lower().split())
            if norm in seen_text:
                continue
            if e.key and any(k.key == e.key for k in kept):
                out.superseded.append(e)
                continue
            seen_text.add(norm)
            kept.append(e)
        kept.reverse()
        out.sections[s] = kept[-S.SECTION_LIMIT.get(s, 20):]
    out.text_override = newer.text_override
    return out


entries = st.builds(S.Entry, text=st.sampled_from(["a", "A", "b", "a ", "c d", "c  d", "e"]),
                    source=st.sampled_from(["t1", "t2", "t3", "t4"]), key=st.sampled_from(["", "", "k1", "k2", "k3"]))
summaries = st.builds(
    lambda secs, covers, sup: S.Summary(sections={s: list(secs.get(s, [])) for s in S.SECTIONS}, covers=covers,
                                        superseded=sup),
    st.dictionaries(st.sampled_from(S.SECTIONS), st.lists(entries, max_size=40), max_size=3),
    st.lists(st.sampled_from(["t1", "t2", "t3", "t4", "t5"]), max_size=6), st.lists(entries, max_size=3))


@settings(max_examples=300, deadline=None)
@given(summaries, summaries)
def test_merge_equals_the_plain_merge(old: S.Summary, newer: S.Summary) -> None:
    assert old.merge(newer).to_json() == merged_plainly(old, newer).to_json()
