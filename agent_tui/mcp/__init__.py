"""MCP client connections with context-mode shaping; imports no Textual (import-linter).

The public names are loaded lazily: importing the MCP SDK costs time the UI's first
frame should not pay, so ``from agent_tui.mcp import McpManager`` imports it on use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "McpCall": "agent_tui.mcp.manager",
    "McpManager": "agent_tui.mcp.manager",
    "McpCallError": "agent_tui.mcp.errors",
    "McpConfig": "agent_tui.mcp.config",
    "ServerConfig": "agent_tui.mcp.config",
    "ToolSettings": "agent_tui.mcp.config",
    "load_mcp_config": "agent_tui.mcp.config",
    "McpResult": "agent_tui.mcp.results",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'agent_tui.mcp' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
