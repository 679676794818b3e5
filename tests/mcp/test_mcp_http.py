"""Streamable HTTP in both eras: server-everything (2025-11-25) and the fault server (2026-07-28).

The HTTP server is a separate process the test kills and restarts on the same port: the
call in between fails clearly, and the client reconnects by itself.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from mcp_testkit import FAULT_SERVER, HttpServer, free_port, wait_port

from agent_tui.mcp.config import load_mcp_config
from agent_tui.mcp.connection import Backoff
from agent_tui.mcp.manager import McpManager


async def test_everything_over_http_reconnects_after_the_server_restarts(
    http_everything: HttpServer, tmp_path: Path
) -> None:
    (tmp_path / ".mcp.json").write_text(
        f'{{"mcpServers": {{"web": {{"type": "http", "url": "{http_everything.url}"}}}}}}'
    )
    config = load_mcp_config({"timeout": 5}, tmp_path)
    manager = McpManager(
        config, tmp_path / "logs", backoff=Backoff(first=0.1, cap=0.5, max_failures=50)
    )
    await manager.start()
    try:
        status = manager.status()[0]
        assert (status.state, status.transport, status.protocol) == ("up", "http", "2025-11-25")
        assert len(manager.entries) == 13
        assert "Echo: over http" in (await manager.call("web__echo", {"message": "over http"})).text
        http_everything.kill()
        started = time.monotonic()
        down = await manager.call("web__echo", {"message": "nobody home"})
        print("\n" + down.text)
        assert down.is_error and down.error_kind in ("died", "down") and "'web'" in down.text
        assert time.monotonic() - started < 5
        http_everything.start()
        back = await manager.call("web__echo", {"message": "back"})
        print(
            f"\nHTTP server restarted: reconnected, next call answered after {time.monotonic() - started:.2f}s"
        )
        assert "Echo: back" in back.text, back.text
        assert manager.status()[0].restarts >= 1
    finally:
        await manager.close()


async def test_a_2026_era_server_over_http(tmp_path: Path) -> None:
    port = free_port()
    with (tmp_path / "fault-http.log").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, str(FAULT_SERVER), "--http", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        wait_port(port)
        table = {"servers": {"f": {"url": f"http://127.0.0.1:{port}/mcp"}}, "timeout": 5}
        manager = McpManager(load_mcp_config(table, tmp_path), tmp_path / "logs")
        await manager.start()
        try:
            status = manager.status()[0]
            assert (status.state, status.protocol, status.tools) == ("up", "2026-07-28", 12)
            assert (await manager.call("f__echo", {"text": "modern"})).text == "modern"
        finally:
            await manager.close()
    finally:
        proc.kill()
        proc.wait(10)
