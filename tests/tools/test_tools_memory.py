"""save_memo, recall and fetch_result go through the context and format compactly."""

from __future__ import annotations

import pytest

from .fakes import Call, FakeContext


async def test_save_memo_delegates_and_returns_id(call: Call, ctx: FakeContext) -> None:
    result = await call("save_memo", text="Done: parser. Left: tests for edge cases.")
    assert result.text == "Saved memo memo1."
    assert ctx.memos == ["Done: parser. Left: tests for edge cases."]
    assert result.meta["memo_id"] == "memo1"


async def test_recall_formats_compactly(call: Call, ctx: FakeContext) -> None:
    ctx.memories = [
        {
            "id": "c1",
            "kind": "preference",
            "content": "User prefers  pytest\n fixtures",
            "score": 0.91,
        },
        {
            "id": "c2",
            "kind": "constraint",
            "content": "Never touch pytest.ini " + "x" * 600,
            "score": 0.5,
        },
        {"id": "c3", "kind": "fact", "content": "unrelated", "score": 0.4},
    ]
    result = await call("recall", query="pytest")
    lines = result.text.splitlines()
    assert lines[0] == "2 memories for 'pytest' (for reference):"
    assert lines[1] == "[c1 preference 0.91] User prefers pytest fixtures"
    assert lines[2].startswith("[c2 constraint 0.50] Never touch pytest.ini xxx")
    assert lines[2].endswith("…") and len(lines[2]) < 450
    assert result.meta["ids"] == ["c1", "c2"]
    none = await call("recall", query="golang")
    assert none.text == "No memories match 'golang'."


async def test_fetch_result_errors(call: Call, ctx: FakeContext) -> None:
    handle = ctx.results.put("short")
    page = await call("fetch_result", handle=handle)
    assert page.text == f"[{handle} page 1/1, chars 0-5 of 5; last page]\nshort"
    assert page.meta["page_text"] == "short"
    past = await call("fetch_result", handle=handle, page=2)
    assert past.is_error and "page 2 is out of range" in past.text
    unknown = await call("fetch_result", handle="r999")
    assert unknown.is_error and "Unknown handle 'r999'" in unknown.text


@pytest.mark.parametrize("size", [0, 1, 7999, 8000, 8001, 20000])
async def test_fetch_pages_rebuild_exactly(call: Call, ctx: FakeContext, size: int) -> None:
    content = "".join(chr(0x41 + i % 26) if i % 97 else "\n" for i in range(size))
    handle = ctx.results.put(content)
    first = await call("fetch_result", handle=handle)
    pages = first.meta["pages"]
    rebuilt = "".join(
        [
            (await call("fetch_result", handle=handle, page=p)).text.split("\n", 1)[1]
            for p in range(1, pages + 1)
        ]
    )
    assert rebuilt == content
