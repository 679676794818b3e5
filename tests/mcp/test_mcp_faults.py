"""The in-repo fault server hangs, crashes, floods and lies; the client stays clear and recovers."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mcp_testkit import fault_server

from agent_tui.mcp.config import load_mcp_config
from agent_tui.mcp.connection import Backoff
from agent_tui.mcp.manager import McpManager

pytestmark = pytest.mark.asyncio(loop_scope="module")

TIMEOUT = 5.0  # room for a Python server's restart (about 1.2 s here)
SLOW_TIMEOUT = 1.0  # per-tool setting for fault__slow


async def started(
    tmp_path: Path, slow_timeout: float = SLOW_TIMEOUT, **server: object
) -> McpManager:
    table = {
        "servers": {"fault": fault_server(**server)},
        "timeout": TIMEOUT,
        "tools": {"fault__slow": {"timeout": slow_timeout}},
        "always_load": ["fault__echo"],
    }
    manager = McpManager(
        load_mcp_config(table, tmp_path), tmp_path / "logs", backoff=Backoff(first=0.1)
    )
    await manager.start()
    return manager


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpManager]:
    """One fault server shared by the tests that leave it working (they recover from what they do)."""
    home = tmp_path_factory.mktemp("fault")
    mgr = await started(home, env={"FAULT_FLAG": "on"}, cwd=str(home))
    yield mgr
    await mgr.close()


def restarts(manager: McpManager) -> int:
    return manager.status()[0].restarts


async def pid_of(manager: McpManager) -> int:
    out = await manager.call("fault__pid", {})
    return int(out.text)


async def new_pid_after_restart(manager: McpManager, old: int, patience: float = 60.0) -> int:
    """The server's pid once it answers again: a restart on a loaded machine can outlast one short call timeout."""
    deadline = time.monotonic() + patience
    while True:
        out = await manager.call("fault__pid", {})
        if not out.is_error:
            return int(out.text)
        assert "restarting" in out.text, out.text
        assert time.monotonic() < deadline, f"server did not come back within {patience:g}s: {out.text}"
        await asyncio.sleep(0.2)


async def test_paged_listing_env_cwd_and_stderr_log(manager: McpManager) -> None:
    assert len(manager.entries) == 12  # listed three per page
    assert manager.toolset.loaded.get("fault__echo") == "always"
    out = await manager.call("fault__env", {"name": "FAULT_FLAG"})
    cwd = manager.config.servers["fault"].cwd
    assert '"value": "on"' in out.text and f'"cwd": "{cwd}"' in out.text
    log = Path(manager.status()[0].log_path or "")
    assert "fault server starting" in log.read_text()


async def test_a_hang_times_out_clearly_and_the_server_stays_usable(manager: McpManager) -> None:
    started_at = time.monotonic()
    out = await manager.call("fault__slow", {"seconds": 60})
    elapsed = time.monotonic() - started_at
    assert out.is_error and out.error_kind == "timeout" and f"within {SLOW_TIMEOUT:g}s" in out.text
    assert elapsed < SLOW_TIMEOUT + 0.5
    assert (await manager.call("fault__echo", {"text": "still here"})).text == "still here"


async def test_cancelling_a_call_cancels_it_and_keeps_the_connection(manager: McpManager) -> None:
    task = asyncio.create_task(manager.call("fault__slow", {"seconds": 60}))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    started_at = time.monotonic()
    assert (await manager.call("fault__echo", {"text": "after cancel"})).text == "after cancel"
    assert time.monotonic() - started_at < 1.0


async def test_a_killed_server_fails_the_call_at_once_and_the_next_call_works(
    manager: McpManager,
) -> None:
    pid = await pid_of(manager)
    before = restarts(manager)
    in_flight = asyncio.create_task(manager.call("fault__slow", {"seconds": 60}))
    await asyncio.sleep(0.2)
    killed_at = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    out = await in_flight
    failed_after = time.monotonic() - killed_at
    assert out.is_error and out.error_kind == "died" and "restarted" in out.text
    assert failed_after < SLOW_TIMEOUT  # long before the call's own timeout
    nxt = await manager.call("fault__echo", {"text": "back"})
    back_after = time.monotonic() - killed_at
    print(
        f"\nkilled stdio server: call failed after {failed_after:.3f}s, next call answered after {back_after:.2f}s"
    )
    assert nxt.text == "back" and not nxt.is_error
    assert await pid_of(manager) != pid
    assert restarts(manager) == before + 1


async def test_a_crash_inside_a_call_is_reported_and_recovered(manager: McpManager) -> None:
    out = await manager.call("fault__crash", {})
    assert out.is_error and out.error_kind == "died"
    assert (await manager.call("fault__echo", {"text": "x"})).text == "x"


async def test_a_server_that_dies_after_starting_shows_its_last_stderr_line_with_the_error(tmp_path: Path) -> None:
    """What a dead server last wrote usually says why; the status (MCP panel, status line) carries it, not
    only "connection ended" (it was added only when the first connection failed)."""
    manager = McpManager(load_mcp_config({"servers": {"fault": fault_server()}, "timeout": TIMEOUT}, tmp_path),
                         tmp_path / "logs", backoff=Backoff(first=60.0))
    await manager.start()
    try:
        out = await manager.call("fault__die", {"message": "FATAL: the licence expired on 2026-12-01"})
        assert out.is_error and out.error_kind == "died"
        deadline = time.monotonic() + 30  # (the connection task records the error once the pipe is drained)
        while "stderr:" not in (manager.status()[0].error or "") and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        status = manager.status()[0]
        error = status.error or ""
        assert status.state != "up" and "(stderr: " in error and "FATAL: the licence expired on 2026-12-01)" in error, \
            status
    finally:
        await manager.close()


async def test_huge_output_is_stored_whole_and_summarised(manager: McpManager) -> None:
    out = await manager.call("fault__huge", {"kb": 400}, intent="items/7")
    assert out.handle is not None and out.shaped_tokens <= 2000 and out.raw_tokens > 50_000
    assert "ERROR" in out.text  # error lines always kept
    whole = manager.store.get(out.handle)
    assert whole is not None and len(whole) >= 400 * 1024
    rows = await manager.call("fault__rows", {"n": 2000})
    assert rows.handle is not None and "2000" in rows.text.replace(",", "")


async def test_malformed_results_and_noise(manager: McpManager) -> None:
    out = await manager.call("fault__malformed", {})
    assert out.is_error and out.error_kind == "malformed" and "malformed" in out.text
    assert (await manager.call("fault__echo", {"text": "ok"})).text == "ok"
    noisy = await manager.call("fault__noisy", {})
    assert "FAILED" in noisy.text and "\x1b" not in noisy.text and "<p>" not in noisy.text
    assert noisy.shaped_tokens < noisy.raw_tokens / 3
    picture = await manager.call("fault__picture", {})
    assert picture.text.startswith("[image image/png")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_tool_list_changes_are_picked_up_in_both_eras(tmp_path: Path, protocol: str) -> None:
    manager = await started(tmp_path, protocol=protocol)
    try:
        status = manager.status()[0]
        assert status.protocol == ("2026-07-28" if protocol == "auto" else "2025-11-25")
        seen: list[tuple[str, str]] = []
        manager.add_listener(lambda server, kind: seen.append((server, kind)))
        manager.select_for_task("echo this")
        await manager.call("fault__add_tool", {"name": "late_tool"})
        before = [s["function"]["name"] for s in manager.tool_schemas()]
        for _ in range(50):
            if "fault__late_tool" in manager.entries:
                break
            await asyncio.sleep(0.05)
        assert "fault__late_tool" in manager.entries and ("fault", "tools") in seen
        assert [
            s["function"]["name"] for s in manager.tool_schemas()
        ] == before  # stable: not auto-loaded
        assert "fault__late_tool" not in before
        assert "late_tool" in manager.tool_schemas()[1]["function"]["description"]
        assert (await manager.call("fault__late_tool", {"text": "hi"})).text == "late_tool: hi"
    finally:
        await manager.close()


async def test_repeated_timeouts_restart_a_wedged_server(tmp_path: Path) -> None:
    manager = await started(tmp_path, slow_timeout=0.4)
    try:
        pid = await pid_of(manager)
        for _ in range(3):
            out = await manager.call("fault__slow", {"seconds": 60}, intent="")
            assert out.error_kind == "timeout"
        assert await new_pid_after_restart(manager, pid) != pid
    finally:
        await manager.close()


async def test_a_server_that_cannot_start_is_down_with_its_error(tmp_path: Path) -> None:
    table = {
        "servers": {
            "ghost": {"command": str(tmp_path / "no-such-binary")},
            "dies": {
                "command": "python3",
                "args": ["-c", "import sys; print('boom: bad flag', file=sys.stderr)"],
            },
        },
        "timeout": TIMEOUT,
    }
    manager = McpManager(
        load_mcp_config(table, tmp_path),
        tmp_path / "logs",
        backoff=Backoff(first=0.05, max_failures=2),
    )
    await manager.start()
    try:
        status = {s.name: s for s in manager.status()}
        assert status["ghost"].state in ("restarting", "down") and "no-such-binary" in (
            status["ghost"].error or ""
        )
        assert "boom: bad flag" in (status["dies"].error or "")
        await asyncio.sleep(0.5)
        assert {s.state for s in manager.status()} == {"down"}
        # the agent still runs, and its requests carry no find_tools/enable_tools over an empty catalogue
        assert manager.tool_schemas() == [] and manager.costs().tokens_sent == 0
    finally:
        await manager.close()


async def test_a_tool_runs_unasked_only_when_it_reads_and_reaches_nothing_outside(
        manager: McpManager, tmp_path: Path) -> None:
    """``readOnlyHint`` alone is not enough: a web search or fetch also "only reads", and its arguments
    can carry the workspace's text anywhere (the spec's default is an open world)."""
    assert not manager.is_read_only("fault__echo")  # readOnlyHint, openWorldHint absent
    assert manager.is_read_only("fault__pid")  # readOnlyHint and openWorldHint: false
    assert not manager.is_read_only("fault__crash")  # no annotations
    assert manager.server_of("fault__echo") == "fault" and manager.server_of("find_tools") is None
    assert "not closed to the outside world (openWorldHint)" in manager.why_asked("fault__echo")
    assert "does not mark it read-only (readOnlyHint)" in manager.why_asked("fault__crash")
    mine = McpManager(load_mcp_config({"servers": {"fault": fault_server()},
                                       "tools": {"fault__echo": {"read_only": True},
                                                 "fault__pid": {"read_only": False}}}, tmp_path), tmp_path / "l")
    assert mine.is_read_only("fault__echo") and not mine.is_read_only("fault__pid")  # the user's word wins
    assert mine.why_asked("fault__pid") == "your config says it is not read-only"


async def test_a_down_servers_tools_leave_the_request_at_the_next_compaction(tmp_path: Path) -> None:
    """A server that died for good kept its tools in every request (each call could only answer "down"); the
    tool set changes only at a compaction, and there they go, even the ones used since the last."""
    from agent_tui.mcp.connection import ServerState

    manager = await started(tmp_path)
    try:
        await pid_of(manager)  # used since the last compaction: a compaction would keep it
        manager.enable(["fault__pid", "fault__slow"])
        loaded = set(manager.toolset.loaded)
        assert {"fault__pid", "fault__echo"} <= loaded
        manager.connections["fault"].state = ServerState.DOWN  # (as when its restarts have run out)
        assert set(manager.toolset.loaded) == loaded, "between compactions the tool set stays"
        dropped = manager.compact()
        assert "fault__pid" in dropped and "fault__slow" in dropped
        assert [n for n in manager.toolset.loaded if n.startswith("fault__")] == ["fault__echo"], \
            "an always_load tool stays: only start() loads it, and down is retried"
    finally:
        await manager.close()
