"""edit_file's "occurs exactly once" counts overlapping occurrences: old_text "}\\n}" in three lines
of "}" occurs twice (lines 1-2 and 2-3), so the edit is ambiguous and refused, not applied to the
first place.  replace_all replaces non-overlapping occurrences, left to right (what str.replace does).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.fs_edit import occurrences

from .fakes import Call


async def _edit(ws: Path, call: Call, data: bytes, **args: object) -> tuple[bool, str, bytes]:
    (ws / "f.txt").write_bytes(data)
    read = await call("read_file", path="f.txt")
    assert not read.is_error, read.text
    result = await call("edit_file", path="f.txt", **args)
    return result.is_error, result.text, (ws / "f.txt").read_bytes()


@pytest.mark.parametrize(
    ("data", "old_text", "lines"),
    [
        (b"}\n}\n}\n", "}\n}", "1, 2"),
        (b"}\r\n}\r\n}\r\n", "}\n}", "1, 2"),  # matched with any line ending
        (b"}\r\n}\r\n}\r\n", "}\r\n}", "1, 2"),
        (b"x = 1.1.1\n", "1.1", "1, 1"),
        (b"aaaa\n", "aa", "1, 1, 1"),
    ],
)
async def test_overlapping_occurrences_make_the_edit_ambiguous(
    ws: Path, call: Call, data: bytes, old_text: str, lines: str
) -> None:
    count = lines.count(",") + 1
    failed, text, after = await _edit(ws, call, data, old_text=old_text, new_text="CHANGED")
    assert failed
    assert f"old_text occurs {count} times in f.txt (at lines {lines})" in text
    assert after == data


async def test_the_realistic_blank_lines_case_is_refused(ws: Path, call: Call) -> None:
    data = b"def f():\n    pass\n\n\n\ndef g():\n    pass\n"
    failed, text, after = await _edit(ws, call, data, old_text="\n\n", new_text="\n")
    assert failed and "old_text occurs 3 times" in text
    assert after == data


@pytest.mark.parametrize(
    ("data", "old_text", "new_text", "expected", "count"),
    [
        (b"}\n}\n}\n", "}\n}", "} // x\n}", b"} // x\n}\n}\n", 1),
        (b"}\n}\n}\n}\n", "}\n}", "]\n]", b"]\n]\n]\n]\n", 2),
        (b"x = 1.1.1\n", "1.1", "2", b"x = 2.1\n", 1),
        (b"aaaaa\n", "aa", "b", b"bba\n", 2),
        (b"a\r\na\r\na\r\n", "a\na", "b\nb", b"b\r\nb\r\na\r\n", 1),
    ],
)
async def test_replace_all_replaces_non_overlapping_occurrences(
    ws: Path, call: Call, data: bytes, old_text: str, new_text: str, expected: bytes, count: int
) -> None:
    failed, text, after = await _edit(
        ws, call, data, old_text=old_text, new_text=new_text, replace_all=True
    )
    assert not failed, text
    assert after == expected
    assert f"replaced {count} occurrence(s)" in text


async def test_a_unique_match_is_still_applied(ws: Path, call: Call) -> None:
    failed, text, after = await _edit(ws, call, b"}\n}\n", old_text="}\n}", new_text="} // x\n}")
    assert not failed, text
    assert after == b"} // x\n}\n"


@pytest.mark.parametrize(
    ("text", "needle", "spans"),
    [
        # a run of carriage returns before a line feed is one line ending, not one occurrence per \r
        ("a\r\r\nx\n", "\nx", [(1, 5)]),
        ("a\r\r\nx\r\nx", "\nx", [(1, 5), (5, 8)]),
        ("\r\n\r\n", "\n", [(0, 2), (2, 4)]),
        ("a\r\r\r\nx", "\r\nx", [(1, 6)]),  # (old_text "\r\r\nx" after its CRLF became LF)
        ("}\n}\n}", "}\n}", [(0, 3), (2, 5)]),
        ("abc", "d", []),
    ],
)
def test_occurrences_counts_each_place_once(text: str, needle: str, spans: list[tuple[int, int]]) -> None:
    assert occurrences(text, needle) == spans


async def test_a_leading_line_ending_in_a_carriage_return_run_is_one_occurrence(ws: Path, call: Call) -> None:
    failed, text, after = await _edit(ws, call, b"a\r\r\nx\r\r\ny\n", old_text="\nx", new_text="\nX")
    assert not failed, text
    assert after == b"a\r\r\nX\r\r\ny\n"
