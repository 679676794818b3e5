"""``agent-tui mcp list``: every server, its state, its tools and what they cost.

Before trusting the agent with a set of MCP servers, a user wants to see which ones
start, what they offer and how many tokens their definitions take raw against what
we send; ``--json`` gives the same to scripts and CI.  Exit status: 0 when every
enabled server is up, 1 when one is not, 2 when the config cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from agent_tui.core.config import ConfigError
from agent_tui.core.parse import loads_toml
from agent_tui.core.terminal import printable
from agent_tui.mcp.config import McpConfig, load_mcp_config
from agent_tui.mcp.manager import McpManager
from agent_tui.mcp.state import ServerState


def add_list_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``mcp list`` (for the main CLI to mount)."""
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--config", help="a TOML config ([mcp] table) or an mcpServers JSON file")
    parser.add_argument("--workspace", help="workspace directory (default: current directory)")


def _toml_mcp_table(path: Path) -> dict[str, Any]:
    data = loads_toml(path.read_text(encoding="utf-8"))
    table = data.get("mcp")
    if isinstance(table, dict):
        return table
    return data if "servers" in data else {}


def load_for_cli(config: str | None, workspace: Path) -> McpConfig:
    """The config ``mcp list`` uses: ``--config FILE`` alone, else the user's and workspace's files."""
    if config:
        path = Path(config).expanduser().resolve()
        if path.suffix.lower() == ".json":
            return load_mcp_config({}, workspace, mcp_json=path)
        return load_mcp_config(_toml_mcp_table(path), workspace, workspace_json=False)
    from agent_tui.core.config import load_config

    loaded = load_config(workspace)
    if loaded.trust.pending:
        print(f"agent-tui: {loaded.trust.notice()}", file=sys.stderr)
    return load_mcp_config(loaded.settings.mcp, workspace, workspace_json=loaded.trust.trusted)


def cli_log_dir(workspace: Path) -> Path:
    """Server logs go under the workspace's ``.agent-tui/`` when it has one; a read-only command never
    creates that folder (it would look like a store), so otherwise they go to the user's cache dir."""
    from agent_tui.core.store_owner import agent_dir, agent_subdir

    own = agent_dir(workspace)  # None when `.agent-tui` is a link out of the workspace
    logs = agent_subdir(workspace, "logs", "mcp")  # None when `.agent-tui/logs` (or `logs/mcp`) is one
    if own is not None and own.is_dir() and logs is not None:
        return logs
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "agent-tui" / "logs" / "mcp"


NOTICE_AFTER = 2.0
"""Seconds of silence after which ``mcp list`` says which servers it is still waiting for."""


async def _start_telling_who_is_awaited(manager: McpManager, limit: float) -> None:
    """``manager.start()``; past ``NOTICE_AFTER`` seconds, a line on stderr names the servers that have not
    answered yet and how long they may take (a mute server holds the list up to ``connect_timeout``)."""
    start = asyncio.ensure_future(manager.start())
    done, _ = await asyncio.wait({start}, timeout=NOTICE_AFTER)
    if not done:
        waiting = [s.name for s in manager.status() if s.state == ServerState.STARTING.value]
        if waiting:
            print(f"agent-tui mcp list: waiting for {', '.join(printable(n) for n in waiting)} to answer "
                  f"(at most {limit:g} s; connect_timeout in [mcp] sets it)…", file=sys.stderr, flush=True)
    await start


async def collect(config: McpConfig, log_dir: Path | None) -> dict[str, Any]:
    """Start every server, gather the report, stop them."""
    manager = McpManager(config, log_dir)
    try:
        await _start_telling_who_is_awaited(manager, config.connect_timeout)
        costs = manager.costs()
        by_server: dict[str, list[dict[str, Any]]] = {}
        for entry in manager.entries.values():
            by_server.setdefault(entry.server, []).append(
                {
                    "name": entry.qualified,
                    "tool": entry.name,
                    "tokens_raw": entry.tokens_raw,
                    "tokens_shaped": entry.tokens_shaped,
                    "read_only": entry.read_only,
                }
            )
        per = {s.server: s for s in costs.servers}
        servers = []
        for status in manager.status():
            tools = by_server.get(status.name, [])
            servers.append(
                {
                    "name": status.name,
                    "status": status.state,
                    "transport": status.transport,
                    "protocol": status.protocol,
                    "error": status.error,
                    "log": status.log_path,
                    "tokens_listing": per[status.name].tokens_listing if status.name in per else 0,
                    "tokens_raw": sum(t["tokens_raw"] for t in tools),
                    "tokens_shaped": sum(t["tokens_shaped"] for t in tools),
                    "tools": tools,
                }
            )
        totals = {
            "servers": len(servers),
            "servers_up": sum(1 for s in servers if s["status"] == "up"),
            "tools": sum(len(s["tools"]) for s in servers),
            "tokens_listing": costs.tokens_listing,
            "tokens_raw": costs.tokens_raw,
            "tokens_shaped": costs.tokens_shaped_all,
            "tokens_meta": costs.tokens_meta,
        }
        return {"servers": servers, "totals": totals, "errors": list(config.errors)}
    finally:
        await manager.close()


def render_text(report: dict[str, Any]) -> str:
    """The human table: one line per server, its tools indented under it."""
    lines = [f"{'SERVER / TOOL':<44} {'STATUS':<10} {'RAW':>6} {'SHAPED':>7}"]
    for server in report["servers"]:
        state = server["status"]
        lines.append(
            f"{server['name']:<44} {state:<10} {server['tokens_raw']:>6} {server['tokens_shaped']:>7}"
        )
        if server["error"] and state != "up":
            lines.append(f"  ! {server['error']}")
        for tool in server["tools"]:
            lines.append(
                f"  {tool['name']:<42} {'':<10} {tool['tokens_raw']:>6} {tool['tokens_shaped']:>7}"
            )
    t = report["totals"]
    saving = 1 - t["tokens_shaped"] / t["tokens_raw"] if t["tokens_raw"] else 0.0
    lines.append(
        f"{'TOTAL':<44} {t['servers_up']}/{t['servers']} up {t['tokens_raw']:>6} {t['tokens_shaped']:>7}"
        f"  ({saving:.0%} fewer; {t['tools']} tools)"
    )
    lines.append(
        f"Sent per request before any tool is loaded: {t['tokens_meta']} tokens (find_tools + enable_tools "
        f"with the catalogue); full tools/list JSON: {t['tokens_listing']} tokens."
    )
    lines.extend(f"config: {e}" for e in report["errors"])
    return "\n".join(lines)


def run_mcp_list(args: argparse.Namespace) -> int:
    """``agent-tui mcp list [--json] [--config FILE] [--workspace DIR]``."""
    workspace = Path(getattr(args, "workspace", None) or Path.cwd()).resolve()
    try:
        config = load_for_cli(getattr(args, "config", None), workspace)
    except (OSError, tomllib.TOMLDecodeError, ConfigError) as exc:
        print(f"agent-tui mcp list: cannot read config: {exc}", file=sys.stderr)
        return 2
    report = asyncio.run(collect(config, cli_log_dir(workspace)))
    if getattr(args, "json", False):
        print(json.dumps(report, indent=2))
    else:
        print(printable(render_text(report)))  # server-given tool names and errors: shown, not obeyed
    enabled = [s for s in report["servers"] if s["status"] != "disabled"]
    return 0 if all(s["status"] == "up" for s in enabled) else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m agent_tui.mcp.cli list ...`` until the main CLI mounts the command."""
    parser = argparse.ArgumentParser(prog="agent-tui mcp")
    sub = parser.add_subparsers(dest="command", required=True)
    add_list_arguments(sub.add_parser("list", help="servers, status, tools and their token costs"))
    args = parser.parse_args(argv)
    return run_mcp_list(args)


if __name__ == "__main__":
    raise SystemExit(main())
