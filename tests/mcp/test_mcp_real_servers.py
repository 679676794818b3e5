"""Against the four real servers at once: both protocol eras, shaped definitions, shaped results.

server-everything and server-filesystem (npm, 2025-11-25 handshake) and mcp-server-git
and mcp-server-time (pip, 2026-07-28) run as local stdio processes for the whole module.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import pytest_asyncio
from mcp_testkit import BIG_FILE_BYTES, child_pids, four_servers

from agent_tui.core.results import MemoryResultStore
from agent_tui.mcp.config import load_mcp_config
from agent_tui.mcp.connection import Backoff
from agent_tui.mcp.manager import McpCall, McpManager
from agent_tui.mcp.meta import ENABLE_TOOLS, FIND_TOOLS

pytestmark = pytest.mark.asyncio(loop_scope="module")

TASKS = {
    "read a log": "Read big.log and tell me which worker was slowest",
    "git review": "show git status and the diff of my changes",
    "clock": "What time is it in Tokyo right now?",
    "demo echo": "echo hello back to me",
}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(workspace: Path) -> AsyncIterator[McpManager]:
    config = load_mcp_config({"servers": four_servers(workspace), "timeout": 10}, workspace)
    mgr = McpManager(
        config, workspace / "logs", store=MemoryResultStore(), backoff=Backoff(first=0.1)
    )
    await mgr.start()
    yield mgr
    await mgr.close()


def names(schemas: list[dict]) -> list[str]:
    return [s["function"]["name"] for s in schemas]


async def test_all_four_servers_are_up_in_both_protocol_eras(manager: McpManager) -> None:
    status = {s.name: s for s in manager.status()}
    assert {n: s.state for n, s in status.items()} == dict.fromkeys(
        ["everything", "filesystem", "git", "time"], "up"
    )
    assert status["everything"].protocol == status["filesystem"].protocol == "2025-11-25"
    assert status["git"].protocol == status["time"].protocol == "2026-07-28"
    assert {n: s.tools for n, s in status.items()} == {
        "everything": 13,
        "filesystem": 14,
        "git": 12,
        "time": 2,
    }
    assert all(name.count("__") >= 1 for name in manager.entries)
    assert (
        Path(status["everything"].log_path or "")
        .read_text()
        .count("Starting default (STDIO) server")
        >= 1
    )


async def test_definition_tokens_raw_vs_shaped(manager: McpManager, tmp_path: Path) -> None:
    """The headline numbers: printed, saved, and at least 70 % fewer tokens for real tasks."""
    manager.toolset.loaded.clear()
    costs = manager.costs()
    report: dict[str, object] = {
        "servers": {
            s.server: {
                "tools": s.tools,
                "listing": s.tokens_listing,
                "raw": s.tokens_raw,
                "shaped_all": s.tokens_shaped,
            }
            for s in costs.servers
        },
        "tools": sum(s.tools for s in costs.servers),
        "listing_json": costs.tokens_listing,
        "raw_functions": costs.tokens_raw,
        "shaped_all_tools": costs.tokens_shaped_all,
        "meta_only": costs.tokens_sent,
        "tasks": {},
    }
    assert costs.tokens_sent == costs.tokens_meta  # nothing loaded: only the meta-tools go out
    assert costs.tokens_shaped_all < 0.6 * costs.tokens_raw  # trimming alone
    assert costs.saving >= 0.9
    for label, message in TASKS.items():
        manager.toolset.loaded.clear()
        selection = manager.select_for_task(message)
        sent = manager.costs()
        report["tasks"][label] = {  # type: ignore[index]
            "message": message,
            "loaded": list(manager.toolset.loaded),
            "sent": sent.tokens_sent,
            "saving": round(sent.saving, 3),
        }
        assert selection.added, label
        assert sent.saving >= 0.70, (label, sent.tokens_sent, costs.tokens_raw)
    manager.toolset.loaded.clear()
    manager.enable(["*"])
    report["all_loaded"] = manager.costs().tokens_sent
    manager.toolset.loaded.clear()
    out = json.dumps(report, indent=2)
    (tmp_path / "mcp-definition-tokens.json").write_text(out)
    print("\nMCP definition tokens (cl100k):\n" + out)
    assert report["tasks"]["git review"]["loaded"][:2] != []  # type: ignore[index]
    assert "git__git_status" in report["tasks"]["git review"]["loaded"]  # type: ignore[index]
    assert "filesystem__read_text_file" in report["tasks"]["read a log"]["loaded"]  # type: ignore[index]
    assert "time__get_current_time" in report["tasks"]["clock"]["loaded"]  # type: ignore[index]


async def test_every_tool_is_reachable_through_the_meta_tools(manager: McpManager) -> None:
    manager.toolset.loaded.clear()
    assert names(manager.tool_schemas()) == [FIND_TOOLS, ENABLE_TOOLS]
    catalogue = manager.tool_schemas()[1]["function"]["description"]
    for entry in manager.entries.values():
        assert entry.name in catalogue
        query = entry.name.replace("_", " ").replace("-", " ")
        found = await manager.call(FIND_TOOLS, {"query": query, "limit": 25})
        assert entry.qualified in found.text, (entry.qualified, found.text)
    result = await manager.call(ENABLE_TOOLS, {"names": list(manager.entries)})
    assert "Enabled" in result.text and not result.is_error
    assert names(manager.tool_schemas())[2:] == list(manager.entries)
    manager.toolset.loaded.clear()
    # Calling a tool that is not loaded works too, and loads it.
    out = await manager.call("everything__get-sum", {"a": 2, "b": 3})
    assert "5" in out.text and "everything__get-sum" in manager.toolset.loaded


async def test_calls_through_each_server_with_a_stable_loaded_set(
    manager: McpManager, workspace: Path
) -> None:
    manager.toolset.loaded.clear()
    manager.select_for_task("show git status")
    first = names(manager.tool_schemas())
    results = await manager.call_parallel(
        [
            McpCall("c1", "git__git_status", {"repo_path": str(workspace / "repo")}),
            McpCall("c2", "time__get_current_time", {"timezone": "Asia/Tokyo"}),
            McpCall("c3", "everything__echo", {"message": "parallel"}),
            McpCall("c4", "filesystem__list_directory", {"path": str(workspace)}),
        ]
    )
    assert [r.call_id for r in results] == ["c1", "c2", "c3", "c4"]
    assert [r.is_error for r in results] == [False] * 4, [r.text for r in results]
    assert (
        "app.py" in results[0].text and "Tokyo" in results[1].text and "parallel" in results[2].text
    )
    assert "big.log" in results[3].text
    after = names(manager.tool_schemas())
    assert after[: len(first)] == first  # calls append, never reorder: prompt caches stay valid
    dropped = manager.compact()
    assert set(names(manager.tool_schemas())[2:]) == {r.name for r in results} and dropped


async def test_structured_duplicates_and_images_are_cleaned(manager: McpManager) -> None:
    weather = await manager.call("everything__get-structured-content", {"location": "New York"})
    assert weather.text.count("temperature") == 1
    image = await manager.call("everything__get-tiny-image", {})
    assert "[image image/png" in image.text and "iVBORw0KGgo" not in image.text
    ref = await manager.call(
        "everything__get-resource-reference", {"resourceType": "Text", "resourceId": 1}
    )
    assert "[resource demo://resource/dynamic/text/1]" in ref.text


async def test_a_382_kb_file_reaches_the_model_as_2k_tokens_and_a_handle(
    manager: McpManager, workspace: Path
) -> None:
    from agent_tui.tools.fetch import fetch_result

    big = workspace / "big.log"
    original = big.read_bytes()
    assert len(original) == BIG_FILE_BYTES
    out = await manager.call(
        "filesystem__read_text_file", {"path": str(big)}, intent="timeout errors"
    )
    print(
        f"\n382 KB read: raw {out.raw_tokens} tokens -> shaped {out.shaped_tokens} tokens, handle {out.handle}"
    )
    assert out.handle is not None and out.shaped_tokens <= 2000 and out.raw_tokens > 80_000
    assert out.handle in out.text and "ERROR" in out.text
    ctx = SimpleNamespace(results=manager.store, model=None)
    first = await fetch_result({"handle": out.handle, "page": 1}, ctx)  # type: ignore[arg-type]
    pages = [first.meta["page_text"]]
    for page in range(2, first.meta["pages"] + 1):
        fetched = await fetch_result({"handle": out.handle, "page": page}, ctx)  # type: ignore[arg-type]
        pages.append(fetched.meta["page_text"])
    assert "".join(pages).encode() == original


async def test_errors_are_clear_and_read_only_hints_feed_the_policy(manager: McpManager) -> None:
    denied = await manager.call("filesystem__read_text_file", {"path": "/etc/passwd"})
    assert denied.is_error and "outside allowed directories" in denied.text
    bad = await manager.call("time__convert_time", {"time": "10:00"})
    assert bad.is_error and bad.error_kind == "bad_arguments" and "source_timezone" in bad.text
    unknown = await manager.call("git__git_teleport", {})
    assert unknown.error_kind == "unknown_tool" and "git__" in unknown.text
    assert manager.is_read_only("git__git_status") and manager.is_read_only(FIND_TOOLS)
    assert not manager.is_read_only("git__git_commit") and not manager.is_read_only(
        "filesystem__write_file"
    )


async def test_resources_are_pinnable_items_and_prompts_are_commands(manager: McpManager) -> None:
    resources = await manager.list_resources()
    uris = [r.uri for r in resources if r.server == "everything"]
    assert "demo://resource/static/document/architecture.md" in uris
    content = await manager.read_resource(
        "everything", "demo://resource/static/document/architecture.md"
    )
    assert content.tokens > 0 and content.text
    item = content.to_item(pinned=True)
    assert (
        item.pinned
        and item.tokens == content.tokens
        and item.provenance["mcp_server"] == "everything"
    )
    commands = {c.command: c for c in await manager.prompt_commands()}
    args_prompt = commands["everything__args-prompt"]
    assert args_prompt.usage() == "/everything__args-prompt city=… [state=…]"
    values = args_prompt.parse("Paris state=IDF")
    messages = await manager.run_prompt(args_prompt, values)
    assert messages and "Paris" in messages[0]["content"]
    with pytest.raises(ValueError, match="missing city"):
        args_prompt.parse("")


async def test_a_killed_idle_server_is_restarted_before_the_next_call(manager: McpManager) -> None:
    pids = child_pids("mcp_server_time")
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    started = time.monotonic()
    await asyncio.sleep(0.05)
    out = await manager.call("time__get_current_time", {"timezone": "UTC"})
    elapsed = time.monotonic() - started
    print(f"\nkilled idle mcp-server-time: next call answered after {elapsed:.2f}s")
    assert not out.is_error, out.text
    assert elapsed < 10
    assert {s.name: s.restarts for s in manager.status()}["time"] == 1
