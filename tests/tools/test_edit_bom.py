"""edit_file keeps a file's byte order mark, whatever old_text and new_text say about it.

read_file shows the BOM as part of line 1, so a model copies it into old_text, and then either
keeps it in new_text or not; or it leaves it out of old_text and puts one in new_text.  The
file keeps exactly one BOM if it had one, and gets none if it had none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .fakes import Call

BOM = "\ufeff"
BOM_BYTES = b"\xef\xbb\xbf"


async def _edit(ws: Path, call: Call, data: bytes, old_text: str, new_text: str) -> tuple[bool, str, bytes]:
    (ws / "f.txt").write_bytes(data)
    read = await call("read_file", path="f.txt")
    assert not read.is_error, read.text
    result = await call("edit_file", path="f.txt", old_text=old_text, new_text=new_text)
    return result.is_error, result.text, (ws / "f.txt").read_bytes()


@pytest.mark.parametrize(
    ("old_text", "new_text"),
    [
        (BOM + "a", "A"),  # copied from line 1 as shown, BOM left out of the new text
        (BOM + "a", BOM + "A"),
        ("a", "A"),
        ("a", BOM + "A"),  # a BOM at the start of new_text is the file's BOM, not a second one
        (BOM + "a\nb", "A\nB"),
        (BOM + "a\n", ""),  # the first line deleted
    ],
)
async def test_a_bom_file_keeps_exactly_one_bom(ws: Path, call: Call, old_text: str, new_text: str) -> None:
    failed, text, after = await _edit(ws, call, BOM_BYTES + b"a\nb\n", old_text, new_text)
    assert not failed, text
    expected = ("a\nb\n".replace(old_text.lstrip(BOM), new_text.lstrip(BOM), 1)).encode()
    assert after == BOM_BYTES + expected


async def test_a_bom_file_edited_below_the_first_line_keeps_its_bom(ws: Path, call: Call) -> None:
    failed, text, after = await _edit(ws, call, BOM_BYTES + b"a\r\nb\r\n", "b", "B")
    assert not failed, text
    assert after == BOM_BYTES + b"a\r\nB\r\n"


async def test_a_file_without_a_bom_gets_none_from_new_text(ws: Path, call: Call) -> None:
    failed, text, after = await _edit(ws, call, b"a\nb\n", "a", BOM + "A")
    assert not failed, text
    assert after == b"A\nb\n"


async def test_a_bom_in_old_text_does_not_match_a_file_without_one(ws: Path, call: Call) -> None:
    failed, text, after = await _edit(ws, call, b"a\nb\n", BOM + "a", "A")
    assert failed and "old_text was not found" in text
    assert after == b"a\nb\n"


async def test_a_zero_width_no_break_space_inside_the_text_is_ordinary_text(ws: Path, call: Call) -> None:
    """U+FEFF anywhere but at the very start is a character of the text, edited like any other."""
    data = BOM_BYTES + f"a{BOM}b\nc\n".encode()
    failed, text, after = await _edit(ws, call, data, f"{BOM}b", "B")
    assert not failed, text
    assert after == BOM_BYTES + b"aB\nc\n"


async def test_an_edit_only_removing_the_bom_is_refused_as_no_change(ws: Path, call: Call) -> None:
    failed, text, after = await _edit(ws, call, BOM_BYTES + b"a\nb\n", BOM + "a", "a")
    assert failed and "differ only in the byte order mark" in text
    assert after == BOM_BYTES + b"a\nb\n"


@pytest.mark.parametrize(("data", "content", "written"), [
    (b"a\n", BOM + "b\n", b"b\n"),  # a file without one gets none from the content
    (BOM_BYTES + b"a\n", BOM + BOM + "b\n", BOM_BYTES + b"b\n"),  # one, not two
    (BOM_BYTES + b"a\n", "b\n", BOM_BYTES + b"b\n"),  # kept when the content leaves it out
])
async def test_write_file_keeps_exactly_the_files_bom(ws: Path, call: Call, data: bytes, content: str,
                                                      written: bytes) -> None:
    (ws / "w.txt").write_bytes(data)
    assert not (await call("read_file", path="w.txt")).is_error
    result = await call("write_file", path="w.txt", content=content)
    assert not result.is_error, result.text
    assert (ws / "w.txt").read_bytes() == written
