"""edit_file on files with mixed line endings: only the replaced text changes, byte for byte."""

from __future__ import annotations

from pathlib import Path

from .fakes import Call, FakeContext


async def _edit(call: Call, path: str, **args: object) -> str:
    read = await call("read_file", path=path)
    assert not read.is_error, read.text
    result = await call("edit_file", path=path, **args)
    assert not result.is_error, result.text
    return result.text


async def test_edit_in_mostly_crlf_file_leaves_other_lf_line_alone(
    ws: Path, call: Call, ctx: FakeContext
) -> None:
    (ws / "m.txt").write_bytes(b"a\r\nb\r\nc\nd\r\n")
    text = await _edit(call, "m.txt", old_text="a", new_text="A")
    assert (ws / "m.txt").read_bytes() == b"A\r\nb\r\nc\nd\r\n"
    assert "+1 -1 lines" in text and "-a\n+A" in text
    assert ctx.edits[-1][1] == "A\r\nb\r\nc\nd\r\n"


async def test_crlf_block_in_lf_file_is_editable_and_keeps_crlf(ws: Path, call: Call) -> None:
    (ws / "m.txt").write_bytes(b"a\nb\nc\nd\r\ne\r\n")
    await _edit(call, "m.txt", old_text="d\ne", new_text="D\nE\nF")
    assert (ws / "m.txt").read_bytes() == b"a\nb\nc\nD\r\nE\r\nF\r\n"
    await _edit(call, "m.txt", old_text="c\r\nD", new_text="C\r\nD")  # CRLF as given also matches
    assert (ws / "m.txt").read_bytes() == b"a\nb\nC\nD\r\nE\r\nF\r\n"


async def test_edit_across_mixed_endings_keeps_each_unchanged_line_ending(ws: Path, call: Call) -> None:
    (ws / "m.txt").write_bytes(b"x\r\ny\nz\r\nend\n")
    text = await _edit(call, "m.txt", old_text="x\ny\nz", new_text="x\nY\nz\nw")
    assert (ws / "m.txt").read_bytes() == b"x\r\nY\nz\r\nw\r\nend\n"
    assert "+2 -1 lines" in text


async def test_replace_all_uses_each_match_line_ending(ws: Path, call: Call) -> None:
    (ws / "m.txt").write_bytes(b"k\r\nk\nk\r\n")
    await _edit(call, "m.txt", old_text="k", new_text="k\nj", replace_all=True)
    assert (ws / "m.txt").read_bytes() == b"k\r\nj\r\nk\nj\nk\r\nj\r\n"


async def test_uniform_bom_and_no_final_newline_files_unchanged_in_behaviour(ws: Path, call: Call) -> None:
    (ws / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree")
    await _edit(call, "crlf.txt", old_text="three", new_text="three\nfour")
    assert (ws / "crlf.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\nfour"
    (ws / "lf.txt").write_bytes(b"one\ntwo")
    await _edit(call, "lf.txt", old_text="one\r\ntwo", new_text="1\r\n2\r\n")
    assert (ws / "lf.txt").read_bytes() == b"1\n2\n"
    (ws / "bom.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    await _edit(call, "bom.txt", old_text="one\ntwo", new_text="1\n2")
    assert (ws / "bom.txt").read_bytes() == b"\xef\xbb\xbf1\r\n2\r\n"
    (ws / "single.txt").write_bytes(b"solo")
    await _edit(call, "single.txt", old_text="solo", new_text="a\nb")
    assert (ws / "single.txt").read_bytes() == b"a\nb"


async def test_not_found_that_differs_only_in_line_endings_says_so(ws: Path, call: Call) -> None:
    (ws / "mac.txt").write_bytes(b"one\rtwo\rthree\n")
    await call("read_file", path="mac.txt")
    result = await call("edit_file", path="mac.txt", old_text="one\ntwo", new_text="1\n2")
    assert result.is_error and "only in line endings" in result.text
    assert "bare carriage return" in result.text and "whitespace/indentation" not in result.text
    assert (ws / "mac.txt").read_bytes() == b"one\rtwo\rthree\n"
    (ws / "u.txt").write_bytes(b"a\nb\n")
    await call("read_file", path="u.txt")
    result = await call("edit_file", path="u.txt", old_text="a\rb", new_text="x")
    assert result.is_error and "only in line endings" in result.text and "without \\r" in result.text
    assert (ws / "u.txt").read_bytes() == b"a\nb\n"


async def test_write_over_mixed_file_keeps_endings_of_unchanged_lines(ws: Path, call: Call) -> None:
    (ws / "m.txt").write_bytes(b"a\nb\nc\r\nd\r\n")
    await call("read_file", path="m.txt")
    result = await call("write_file", path="m.txt", content="a\nB\nc\nX\nd\n")
    assert not result.is_error, result.text
    assert (ws / "m.txt").read_bytes() == b"a\nB\nc\r\nX\r\nd\r\n"
    assert "+2 -1 lines" in result.text


async def test_write_over_uniform_files_keeps_their_style(ws: Path, call: Call) -> None:
    (ws / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    await call("read_file", path="crlf.txt")
    await call("write_file", path="crlf.txt", content="1\n2\n3")
    assert (ws / "crlf.txt").read_bytes() == b"1\r\n2\r\n3\r\n"  # (its final newline too)
    (ws / "lf.txt").write_bytes(b"one\ntwo\n")
    await call("read_file", path="lf.txt")
    await call("write_file", path="lf.txt", content="1\r\n2\r\n")  # explicit CRLF content is the model's choice
    assert (ws / "lf.txt").read_bytes() == b"1\r\n2\r\n"


async def test_write_over_a_file_keeps_its_bom_and_final_newline(ws: Path, call: Call, ctx: FakeContext) -> None:
    """The model never sees a BOM and often leaves the last newline out: neither is dropped behind
    the user's back (nor shown as a change in the diff)."""
    (ws / "b.cs").write_bytes(b"\xef\xbb\xbfusing System;\r\nclass A {}\r\n")
    await call("read_file", path="b.cs")
    result = await call("write_file", path="b.cs", content="using System;\nclass B {}")
    assert not result.is_error, result.text
    assert (ws / "b.cs").read_bytes() == b"\xef\xbb\xbfusing System;\r\nclass B {}\r\n"
    assert "+1 -1 lines" in result.text and "-class A {}" in result.text and "-\ufeffusing" not in result.text
    assert ctx.edits[-1][1] == "\ufeffusing System;\r\nclass B {}\r\n", "the engine holds what is on disk"
    (ws / "lf.txt").write_bytes(b"one\ntwo\n")
    await call("read_file", path="lf.txt")
    await call("write_file", path="lf.txt", content="1\n2")
    assert (ws / "lf.txt").read_bytes() == b"1\n2\n"
    (ws / "none.txt").write_bytes(b"one\ntwo")  # no final newline, no BOM: none added
    await call("read_file", path="none.txt")
    await call("write_file", path="none.txt", content="1\n2")
    assert (ws / "none.txt").read_bytes() == b"1\n2"
    await call("read_file", path="lf.txt")
    await call("write_file", path="lf.txt", content="")  # emptied on purpose: stays empty
    assert (ws / "lf.txt").read_bytes() == b""
    await call("write_file", path="new.txt", content="\ufeffx\r\ny")  # a new file is written as given
    assert (ws / "new.txt").read_bytes() == b"\xef\xbb\xbfx\r\ny"


async def test_the_final_newline_added_to_crlf_content_is_crlf(ws: Path, call: Call) -> None:
    """Content with CRLF of its own (the model's choice) over an LF file that ended with a newline: the
    newline added at its end was the old file's LF, a mixed-ending file nobody asked for."""
    (ws / "lf.txt").write_bytes(b"one\ntwo\n")
    await call("read_file", path="lf.txt")
    await call("write_file", path="lf.txt", content="1\r\n2")
    assert (ws / "lf.txt").read_bytes() == b"1\r\n2\r\n"
