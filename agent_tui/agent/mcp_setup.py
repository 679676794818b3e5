"""Building the MCP manager of a session from its settings and the workspace's `.mcp.json`.

Shared by headless runs and the TUI, so both see the same servers.  The MCP SDK is
imported here, inside the function, so nothing pays for it unless servers are configured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.engine import ContextEngine


def make_mcp_manager(engine: ContextEngine, root: Path, *, workspace_json: bool = False) -> Any | None:
    """An McpManager for the session, or None when no server is configured.

    ``workspace_json``: also start the servers of ``<root>/.mcp.json`` — only for a trusted
    workspace (``Workspace.trust.trusted``); an untrusted one's servers never start.
    """
    from agent_tui.mcp.config import load_mcp_config

    config = load_mcp_config(engine.settings.mcp, root, workspace_json=workspace_json)
    if not config.servers:
        return None
    # the MCP SDK costs ~1.4 s of imports: only when a server is configured
    from agent_tui.core.store_owner import agent_subdir
    from agent_tui.mcp.cli import cli_log_dir
    from agent_tui.mcp.manager import McpManager

    logs = agent_subdir(root, "logs", make=True) or cli_log_dir(root).parent  # never through a link the repository shipped
    return McpManager(config, logs, store=engine.results, model=engine.settings.model)
