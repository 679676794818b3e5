"""A bracketed paste holding escape sequences reaches the app as one paste (ui/paste_guard): the parser
re-issued a pasted ``ESC [31m`` and what followed as keys, an enter among them sent half a line."""

from __future__ import annotations

import time
from collections.abc import Iterable

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from agent_tui.ui.paste_guard import END, START, PasteCleaner, PasteSafeParser

COLOURED = "ERROR \x1b[31mfailed\x1b[0m at step 3\rTraceback line 2\r\x1b]0;title\x07line 3"


def _events(parser: XTermParser, chunks: Iterable[str]) -> list[object]:
    out: list[object] = []
    for chunk in chunks:
        out += list(parser.feed(chunk))
    time.sleep(0.2)  # (a lone escape is sent once the parser's escape delay is over)
    out += list(parser.tick())
    return out


def test_textual_alone_turns_a_pasted_escape_into_keys() -> None:
    """What the guard is for: without it, the paste is split and an enter is among the keys."""
    got = _events(XTermParser(), [START + COLOURED + END])
    assert any(isinstance(e, events.Key) for e in got)


@pytest.mark.parametrize("size", [10_000, 1, 2, 3, 5, 7])
def test_a_coloured_paste_is_one_paste_of_its_plain_text(size: int) -> None:
    data = "ab" + START + COLOURED + END + "cd"
    got = _events(PasteSafeParser(), [data[i:i + size] for i in range(0, len(data), size)])
    pastes = [e for e in got if isinstance(e, events.Paste)]
    keys = [e.character for e in got if isinstance(e, events.Key)]
    assert [p.text for p in pastes] == ["ERROR failed at step 3\rTraceback line 2\rline 3"], got
    assert keys == ["a", "b", "c", "d"], keys


def test_keys_outside_a_paste_are_untouched() -> None:
    got = _events(PasteSafeParser(), ["x\x1b[A", "\x1b"])
    names = [e.key for e in got if isinstance(e, events.Key)]
    assert names == ["x", "up", "escape"], names


def test_an_unfinished_sequence_is_held_for_the_next_read_never_lost() -> None:
    clean = PasteCleaner()
    assert clean(START + "one \x1b[3") == START + "one "
    assert clean("1mtwo" + END[:3]) == "two"
    assert clean(END[3:] + "z") == END + "z"
    assert not clean.in_paste


@pytest.mark.parametrize("typed", ["\x1bhello", "\x1bH/ i", "\x1b\x1bq"])
def test_esc_and_the_keys_typed_right_after_it_are_each_their_key(typed: str) -> None:
    """A terminal (tmux within its escape-time) sends esc and the next key in one read: Textual took the pair
    for alt+letter, the esc was lost and the letters acted on the screen esc was to close."""
    assert any(e.key.startswith("alt+") for e in _events(XTermParser(), [typed]) if isinstance(e, events.Key))
    got = [(e.key, e.character) for e in _events(PasteSafeParser(), [typed]) if isinstance(e, events.Key)]
    assert [k for k, _ in got][:2] == ["escape", "escape" if typed[1] == "\x1b" else got[1][0]]
    assert "".join(c or "" for _, c in got if c != "\x1b") == typed.replace("\x1b", "")
    assert not any(k.startswith("alt+") for k, _ in got)


@pytest.mark.parametrize("typed", ["\x1b\x7f", "\x1b\r", "\x1b[A", "\x1bOQ"])
def test_named_keys_after_esc_stay_as_textual_reads_them(typed: str) -> None:
    plain = [(e.key, e.character) for e in _events(XTermParser(), [typed]) if isinstance(e, events.Key)]
    assert [(e.key, e.character) for e in _events(PasteSafeParser(), [typed]) if isinstance(e, events.Key)] == plain
