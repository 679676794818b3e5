"""A repository can ship links where agent-tui writes its MCP logs (``.agent-tui/logs/docs.log ->
~/.bashrc``, ``.agent-tui/logs -> ~/``): agent-tui appended its lines to the link's target, before any
trust, as soon as a user's own server was configured.  Logs are never written through a link."""

from __future__ import annotations

import logging
from pathlib import Path

from agent_tui.core.store_owner import agent_subdir
from agent_tui.mcp.cli import cli_log_dir
from agent_tui.mcp.server_log import ServerLog


def test_a_server_log_that_is_a_link_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    rc = outside / "bashrc"
    rc.write_text("# my rc\n")
    logs = tmp_path / "ws" / ".agent-tui" / "logs"
    logs.mkdir(parents=True)
    (logs / "docs.log").symlink_to(rc)
    log = ServerLog(logs / "docs.log")
    log.note("connecting (http)")
    assert rc.read_text() == "# my rc\n"
    real = ServerLog(logs / "other.log")
    real.note("connecting (stdio)")
    assert "connecting (stdio)" in (logs / "other.log").read_text()
    assert (logs / "other.log").stat().st_mode & 0o077 == 0


def test_a_logs_folder_that_links_out_is_not_used(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    ws = tmp_path / "ws"
    (ws / ".agent-tui").mkdir(parents=True)
    (ws / ".agent-tui" / "logs").symlink_to(outside)
    assert agent_subdir(ws, "logs") is None and agent_subdir(ws, "logs", "mcp") is None
    assert not cli_log_dir(ws).is_relative_to(ws)
    (ws / ".agent-tui" / "logs").unlink()
    (ws / ".agent-tui" / "logs").mkdir()
    (ws / ".agent-tui" / "logs" / "mcp").symlink_to(outside)
    assert agent_subdir(ws, "logs") == ws.resolve() / ".agent-tui" / "logs"
    assert agent_subdir(ws, "logs", "mcp") is None and not cli_log_dir(ws).is_relative_to(ws)


def test_the_sdk_log_is_not_created_through_a_link(tmp_path: Path) -> None:
    from agent_tui.mcp.config import McpConfig
    from agent_tui.mcp.manager import McpManager

    target = tmp_path / "created-by-sdk"
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "mcp-sdk.log").symlink_to(target)
    sdk = logging.getLogger("mcp")
    before = list(sdk.handlers)
    try:
        for h in [h for h in sdk.handlers if getattr(h, "_agent_tui", False)]:
            sdk.removeHandler(h)
        McpManager(McpConfig(), logs)._route_sdk_logs()
        logging.getLogger("mcp.client").warning("protocol noise")
        assert not target.exists()
    finally:
        for h in list(sdk.handlers):
            sdk.removeHandler(h)
        for h in before:
            sdk.addHandler(h)
