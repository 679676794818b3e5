"""Pilot test: a real MCP server (mcp-server-time, stdio) shows up on the status line and in the
MCP panel with its tools and their token costs, and its tool definitions count in the gauge."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable

from agent_tui.ui.screens.mcp import McpScreen

from .conftest import Recorder, demo_app, gauge_agrees, ready, wait_for

SERVER = Path(sys.executable).parent / "mcp-server-time"


@pytest.mark.skipif(not SERVER.exists() and shutil.which("mcp-server-time") is None,
                    reason="mcp-server-time comes with the dev extras")
async def test_mcp_server_status_tools_and_costs(demo_workspace: Path, recorder: Recorder) -> None:
    command = str(SERVER) if SERVER.exists() else shutil.which("mcp-server-time")
    (demo_workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"time": {"command": command}}}))
    app = demo_app(demo_workspace)
    app.options.session = replace(app.options.session, trust=True)  # the user trusted the folder's .mcp.json
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.main.status.mcp == "1/1 up", "the MCP server")
        assert app.controller.agent.runner.mcp is app.mcp
        shown = await gauge_agrees(pilot)
        schemas = app.controller.schemas()
        assert any(s["function"]["name"] not in app.controller.agent.runner.registry for s in schemas)
        assert shown["categories"]["tools"] == app.controller.engine.tools_tokens(schemas)

        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP panel")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count > 1, "the server and its tools")
        rows = [[str(c) for c in table.get_row_at(n)] for n in range(table.row_count)]
        assert rows[0][0] == "time" and rows[0][1] == "up"
        tools = {r[0].strip(): r for r in rows[1:]}
        assert "time__get_current_time" in tools
        raw, sent = (int(x.replace(",", "")) for x in tools["time__get_current_time"][2:4])
        assert 0 < sent <= raw
        summary = str(app.screen.query_one("#mcp-summary").render())
        assert "1 server ·" in summary and "tokens raw" in summary


async def test_a_down_servers_whole_error_is_shown_under_the_table(demo_workspace: Path) -> None:
    """The error column was cut to 20 characters ("MCPError: Connection") with no way to read the rest."""
    crash = "import sys; sys.stderr.write('boom: the token is missing'); sys.exit(3)"
    (demo_workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"dies": {
        "command": sys.executable, "args": ["-c", crash]}}}))
    app = demo_app(demo_workspace)
    app.options.session = replace(app.options.session, trust=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.main.status.mcp not in ("", "none configured", "starting…")
                       and "up" in app.main.status.mcp, "the MCP status")
        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP panel")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count >= 1, "the server row")
        table.move_cursor(row=0)
        await pilot.pause()
        error = str(table.get_row_at(0)[4])
        assert len(error) > 20 and error.startswith("MCPError: Connection closed"), error  # the column is not cut
        assert "(stderr: boom: the token is missing)" in error, "what the server said before it died"
        log = app.mcp.status()[0].log_path
        await wait_for(pilot, lambda: str(app.screen.query_one("#mcp-detail").render())
                       == f"dies: {error}\nwhole log (stderr): {log}", "the whole error and the log under the table")


async def test_servers_waiting_for_trust_are_named_not_called_unconfigured(demo_workspace: Path) -> None:
    """The folder's .mcp.json names a server the user has not trusted yet: the panel said "No MCP servers
    configured. Add them…", which sends the user to add what is already there."""
    (demo_workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"git": {
        "command": sys.executable, "args": ["-c", "print('never started')"]}}}))
    app = demo_app(demo_workspace)
    app.options.session = replace(app.options.session, trust=False)  # the user said no in the trust dialog
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.mcp is None
        await wait_for(pilot, lambda: app.main.status.mcp == "waiting for trust", "the status line's word")
        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP panel")
        await wait_for(pilot, lambda: "for you to trust" in str(app.screen.query_one("#mcp-summary").render()),
                       "the waiting server")
        text = str(app.screen.query_one("#mcp-summary").render())
        assert text.startswith("1 MCP server (git) waits for you to trust this folder: it starts") and "No MCP servers configured" not in text


@pytest.mark.skipif(not SERVER.exists() and shutil.which("mcp-server-time") is None,
                    reason="mcp-server-time comes with the dev extras")
async def test_the_transport_column_is_readable_at_80_columns(demo_workspace: Path) -> None:
    """The last column (transport, or the error) was one cell wide at 80 columns, and unlabelled."""
    from agent_tui.ui.screens.mcp import DETAIL_MIN

    command = str(SERVER) if SERVER.exists() else shutil.which("mcp-server-time")
    (demo_workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"time": {"command": command}}}))
    app = demo_app(demo_workspace)
    app.options.session = replace(app.options.session, trust=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.main.status.mcp == "1/1 up", "the MCP server")
        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP panel")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count > 1, "the server and its tools")
        last = list(table.columns.values())[-1]
        assert str(last.label) == "transport / error" and last.get_render_width(table) >= DETAIL_MIN
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= table.size.width
        assert "stdio" in str(table.get_row_at(0)[-1])
