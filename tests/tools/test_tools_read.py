"""read_file: ranges and queries with line numbers, outlines and handles for huge files."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.tokens import count_tokens
from agent_tui.tools.fs_read import READ_TOKEN_CAP

from .fakes import Call, FakeContext

SOURCE = "\n".join(f"line {i}" for i in range(1, 101)) + "\n"


async def test_whole_small_file_numbered_and_noted(ws: Path, call: Call, ctx: FakeContext) -> None:
    (ws / "a.txt").write_text("alpha\nbeta\n")
    result = await call("read_file", path="a.txt")
    assert not result.is_error
    assert result.text.splitlines() == ["a.txt (2 lines)", "1| alpha", "2| beta"]
    assert ctx.reads == [("a.txt", "alpha\nbeta\n")]
    assert result.handle is None


async def test_range_has_line_numbers_and_notes_full_text(
    ws: Path, call: Call, ctx: FakeContext
) -> None:
    (ws / "f.txt").write_text(SOURCE)
    result = await call("read_file", path="f.txt", start_line=10, end_line=12)
    lines = result.text.splitlines()
    assert lines[0] == "f.txt (lines 10-12 of 100)"
    assert lines[1:] == [" 10| line 10", " 11| line 11", " 12| line 12"]
    assert ctx.reads == [("f.txt", SOURCE)]  # partial read still records the full content
    assert result.meta["range"] == [10, 12]


async def test_range_errors(ws: Path, call: Call) -> None:
    (ws / "f.txt").write_text(SOURCE)
    past = await call("read_file", path="f.txt", start_line=500)
    assert past.is_error and "past the end" in past.text and "100 lines" in past.text
    backwards = await call("read_file", path="f.txt", start_line=20, end_line=5)
    assert backwards.is_error and "before start_line" in backwards.text


async def test_query_sections_merged_with_context(ws: Path, call: Call) -> None:
    lines = [f"filler {i}" for i in range(1, 41)]
    lines[9] = "def target_one():"
    lines[12] = "    return target_two"
    lines[34] = "TARGET again"
    (ws / "q.py").write_text("\n".join(lines) + "\n")
    result = await call("read_file", path="q.py", query="target")
    text = result.text
    assert "3 matching line(s) in 2 section(s)" in text
    # first section: lines 7..16 (10 and 13 merged, ±3), second: 32..38
    assert " 7| filler 7" in text and "16| filler 16" in text
    assert " 6| filler 6" not in text and "17| filler 17" not in text
    assert "35| TARGET again" in text and "38| filler 38" in text and "39|" not in text
    assert result.meta["matches"] == 3
    assert result.meta["ranges"] == [[7, 16], [32, 38]]  # the spans shown: the engine keeps them as regions


async def test_query_without_match(ws: Path, call: Call) -> None:
    (ws / "q.txt").write_text("nothing here\n")
    result = await call("read_file", path="q.txt", query="absent")
    assert not result.is_error and "No match for 'absent'" in result.text


def _big_python(n_funcs: int) -> str:
    parts = ['"""A big module."""\n']
    for i in range(n_funcs):
        parts.append(f"\n\nclass Thing{i}:\n    def method_{i}(self, a, b):\n")
        parts += [f"        value_{j} = a * {j} + b  # some arithmetic padding\n" for j in range(8)]
        parts.append("        return a\n")
    return "".join(parts)


async def test_huge_file_outline_handle_and_paging_rebuilds(
    ws: Path, call: Call, ctx: FakeContext
) -> None:
    text = _big_python(120)
    (ws / "big.py").write_text(text)
    assert count_tokens(text) > READ_TOKEN_CAP
    result = await call("read_file", path="big.py")
    assert not result.is_error
    assert result.handle is not None
    assert "is large" in result.text and "outline" in result.text
    assert "class Thing0" in result.text and "def method_0(self, a, b)" in result.text
    assert "L4-" in result.text  # classes come with their line spans
    assert f'fetch_result("{result.handle}"' in result.text
    assert result.shaped_tokens <= READ_TOKEN_CAP
    assert result.raw_tokens > READ_TOKEN_CAP
    assert ctx.reads == [("big.py", text)]
    pages = result.text.split("N=1..")[1].split("]")[0]
    rebuilt = ""
    for page in range(1, int(pages) + 1):
        fetched = await call("fetch_result", handle=result.handle, page=page)
        assert fetched.text.startswith(f"[{result.handle} page {page}/{pages}")
        assert fetched.text.split("\n", 1)[1] == fetched.meta["page_text"]
        rebuilt += fetched.meta["page_text"]
    assert rebuilt == text


async def test_huge_non_python_file_gets_sampled_outline(ws: Path, call: Call) -> None:
    text = "".join(f"record {i}: " + "payload " * 12 + "\n" for i in range(3000))
    (ws / "data.log").write_text(text)
    result = await call("read_file", path="data.log")
    assert result.handle is not None
    assert "every Nth line" in result.text
    assert "L1 record 0:" in result.text and "L21 record 20:" in result.text


async def test_large_range_is_cut_with_continue_hint(ws: Path, call: Call) -> None:
    text = "".join(f"row {i} " + "word " * 30 + "\n" for i in range(2000))
    (ws / "rows.txt").write_text(text)
    result = await call("read_file", path="rows.txt", start_line=1, end_line=2000)
    assert "continue with start_line=" in result.text
    assert result.shaped_tokens <= READ_TOKEN_CAP + 100
    last = int(result.text.split("continue with start_line=")[1].rstrip("]")) - 1
    assert f"{last:>4}| row {last - 1} " in result.text
