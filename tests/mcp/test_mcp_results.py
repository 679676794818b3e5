"""MCP results are said once, cleaned, and shaped to their tool's cap with the whole kept behind a handle."""

from __future__ import annotations

import base64
import json

import mcp_types as types

from agent_tui.core.results import MemoryResultStore
from agent_tui.core.tokens import count_tokens
from agent_tui.mcp.config import ToolSettings
from agent_tui.mcp.results import render, shape
from agent_tui.tools.paging import get_page, page_count

PNG = base64.b64encode(b"\x89PNG" + bytes(range(256)) * 8).decode()


def text(t: str) -> types.TextContent:
    return types.TextContent(type="text", text=t)


def test_text_duplicated_in_structured_content_is_sent_once() -> None:
    body = "line one\nline two"
    same = types.CallToolResult(content=[text(body)], structured_content={"content": body})
    assert render(same) == body
    rows = [{"id": i, "name": f"n{i}"} for i in range(3)]
    pieces = [text(json.dumps(r, indent=2)) for r in rows]
    as_rows = types.CallToolResult(content=pieces, structured_content={"result": rows})
    assert json.loads(render(as_rows)) == rows  # one compact JSON document
    weather = types.CallToolResult(
        content=[text('{"temperature":33,"conditions":"Cloudy"}')],
        structured_content={"temperature": 33, "conditions": "Cloudy"},
    )
    assert render(weather).count("Cloudy") == 1
    different = types.CallToolResult(content=[text("Done.")], structured_content={"count": 41})
    assert "Done." in render(different) and '"count": 41' in render(different)
    only_structured = types.CallToolResult(content=[], structured_content={"a": 1})
    assert render(only_structured) == '{"a": 1}'


def test_binary_blocks_are_described_not_inlined() -> None:
    result = types.CallToolResult(
        content=[
            text("Here is the image:"),
            types.ImageContent(type="image", data=PNG, mime_type="image/png"),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="file:///a.bin", mime_type="application/zip", blob=PNG
                ),
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="demo://t/1", text="resource text"),
            ),
            types.ResourceLink(
                type="resource_link", name="Doc", uri="demo://d/2", description="a doc"
            ),
        ],
        structured_content={"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]},
    )
    out = render(result)
    assert PNG[:40] not in out
    assert "[image image/png, 2.0 KB not shown]" in out
    assert "[resource file:///a.bin application/zip, 2.0 KB not shown]" in out
    assert "[resource demo://t/1]\nresource text" in out
    assert "[resource link Doc demo://d/2]: a doc" in out


def test_noise_is_cleaned_in_the_view_but_kept_in_the_store() -> None:
    blob = base64.b64encode(bytes(range(256)) * 40).decode()
    noisy = f"<html><body><p>\x1b[31mFAILED\x1b[0m test_x</p><img src='data:image/png;base64,{blob}'/></body></html>"
    store = MemoryResultStore()
    out = shape(
        types.CallToolResult(content=[text(noisy)]),
        name="s__t",
        server="s",
        settings=ToolSettings(),
        max_tokens=2000,
        intent="",
        store=store,
    )
    assert (
        "FAILED" in out.text
        and "\x1b[" not in out.text
        and "<p>" not in out.text
        and blob[:50] not in out.text
    )
    assert out.handle is None and out.shaped_tokens < out.raw_tokens


def test_large_json_is_stored_and_summarised_and_exact_pages_rebuild_it() -> None:
    rows = [{"id": i, "name": f"item-{i}", "price": i * 1.5} for i in range(3000)]
    result = types.CallToolResult(
        content=[text(json.dumps(rows))], structured_content={"result": rows}
    )
    store = MemoryResultStore()
    out = shape(
        result,
        name="s__rows",
        server="s",
        settings=ToolSettings(scope="session"),
        max_tokens=500,
        intent="",
        store=store,
    )
    assert out.handle is not None and out.shaped_tokens <= 500 and out.scope == "session"
    assert "3000" in out.text.replace(",", "") and "price" in out.text
    whole = store.get(out.handle)
    assert whole is not None and json.loads(whole) == rows
    exact = shape(
        types.CallToolResult(content=[text("x" * 50_000)]),
        name="s__t",
        server="s",
        settings=ToolSettings(shape="exact", max_tokens=300),
        max_tokens=2000,
        intent="",
        store=store,
    )
    assert (
        exact.handle is not None
        and count_tokens(exact.text) <= 300
        and exact.text.startswith("xxxx")
    )
    stored = store.get(exact.handle)
    assert stored is not None
    assert "".join(get_page(stored, p) for p in range(1, page_count(stored) + 1)) == "x" * 50_000


def test_error_results_are_marked() -> None:
    result = types.CallToolResult(
        content=[text("Access denied - path outside allowed directories")], is_error=True
    )
    out = shape(
        result,
        name="fs__read",
        server="fs",
        settings=ToolSettings(),
        max_tokens=100,
        intent="",
        store=MemoryResultStore(),
    )
    assert out.is_error and out.text.startswith("Error from fs__read: Access denied")
