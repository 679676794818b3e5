"""The UI's side of MCP: build the manager from the session's settings, and read what the
MCP panel and the status line show (servers, state, tools and their token costs).

Imported in workers only: the MCP SDK is not on the first-frame path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.ui.controller import SessionController


@dataclass(frozen=True)
class ToolCost:
    name: str
    tokens_raw: int
    tokens_shaped: int
    loaded: bool


@dataclass(frozen=True)
class ServerView:
    name: str
    transport: str
    state: str
    error: str | None
    tools: tuple[ToolCost, ...]
    log_path: str | None = None
    """The server's log (its whole stderr and our notes), for a stdio server."""


@dataclass(frozen=True)
class McpView:
    """Everything the MCP panel shows."""

    servers: tuple[ServerView, ...]
    tokens_raw: int
    tokens_sent: int
    errors: tuple[str, ...]


def make_manager(ctl: SessionController) -> Any | None:
    """An McpManager for the session's `[mcp]` settings and `.mcp.json`, or None when none is configured."""
    from agent_tui.agent.mcp_setup import make_mcp_manager

    return make_mcp_manager(ctl.engine, ctl.root, workspace_json=ctl.ws.trust.trusted)


def summary(manager: Any | None) -> str:
    """'none configured', or '2/3 up'."""
    if manager is None:
        return "none configured"
    states = [s.state for s in manager.status()]
    return f"{sum(1 for s in states if s == 'up')}/{len(states)} up"


def view(manager: Any | None) -> McpView:
    if manager is None:
        return McpView((), 0, 0, ())
    loaded = set(getattr(manager.toolset, "loaded", ()))
    by_server: dict[str, list[ToolCost]] = {}
    for entry in manager.entries.values():
        by_server.setdefault(entry.server, []).append(
            ToolCost(entry.qualified, entry.tokens_raw, entry.tokens_shaped, entry.qualified in loaded))
    servers = tuple(ServerView(s.name, s.transport, s.state, s.error, tuple(by_server.get(s.name, [])), s.log_path)
                    for s in manager.status())
    costs = manager.costs()
    return McpView(servers, costs.tokens_raw, costs.tokens_sent, tuple(manager.config.errors))


def waiting_for_trust(ctl: SessionController | None) -> str:
    """What the MCP panel says when no server runs because the folder is not trusted ("" otherwise): the
    servers the folder's config names (or the user's own, which wait for a folder's trust too)."""
    if ctl is None or not ctl.ws.trust.pending:
        return ""
    from agent_tui.core.terminal import printable

    servers = [a for a in ctl.ws.trust.asks if a.key.startswith(("mcp.servers.", "mcpServers."))]
    if not servers:
        return ""
    names = ", ".join(printable(a.key.split(".", 2)[-1], newlines=False) for a in servers)
    one = len(servers) == 1
    return (f"{len(servers)} MCP server{'' if one else 's'} ({names}) {'waits' if one else 'wait'} for you to trust "
            f"this folder: {'it starts' if one else 'they start'} once you do (the trust dialog at start, or "
            "`agent-tui trust --yes`, then reopen).")

