"""MCP settings: the ``[mcp]`` TOML table merged with a workspace ``.mcp.json``.

Users already keep MCP servers in the common ``{"mcpServers": {...}}`` JSON layout
that other agents read, so a workspace's ``.mcp.json`` is honoured as is; the TOML
table adds what that layout cannot say (tool groups, per-tool result settings, token
budgets) and wins on a name clash.  A bad entry never stops the others: it is kept
with its problem in ``errors`` so ``mcp list`` and the MCP panel can show it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.parse import loads_json, read_config

Scope = Literal["turn", "session", "global"]
Shape = Literal["exact", "summary"]

SCOPES: tuple[str, ...] = ("turn", "session", "global")
SHAPES: tuple[str, ...] = ("exact", "summary")
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerConfig:
    """One server: a command to spawn (stdio) or a URL (streamable HTTP)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    """Working directory of a stdio server (default: the workspace)."""
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None
    """Per-call timeout for this server's tools; None uses the global one."""
    enabled: bool = True
    protocol: str = "auto"
    """``auto`` (discover, fall back to the handshake), ``legacy`` (force the 2025 handshake)
    or a 2026+ protocol version to adopt directly."""
    source: str = "config"
    """Where it was declared: ``config`` (TOML) or the path of the ``.mcp.json``."""

    @property
    def transport(self) -> str:
        """``http`` when the server has a URL, else ``stdio``."""
        return "http" if self.url else "stdio"


@dataclass(frozen=True)
class ToolSettings:
    """How one tool's results are kept and shaped (``[mcp.tools."server__tool"]``)."""

    scope: Scope = "turn"
    shape: Shape = "summary"
    max_tokens: int | None = None
    timeout: float | None = None
    read_only: bool | None = None
    """Overrides the server's ``readOnlyHint`` for the approval policy."""


@dataclass(frozen=True)
class McpConfig:
    """Everything the MCP layer needs, already validated."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Named tool groups: glob patterns over namespaced names (``git__*``)."""
    tools: dict[str, ToolSettings] = field(default_factory=dict)
    """Per-tool settings keyed by namespaced name or glob."""
    always_load: tuple[str, ...] = ()
    """Groups or tool globs loaded for every task."""
    timeout: float = 10.0
    result_max_tokens: int = 2000
    tool_budget: int = 1200
    """Tokens the loaded tool definitions may take (meta-tools excluded)."""
    description_words: int = 30
    param_words: int = 0
    """Words of each argument's description kept (0 drops them)."""
    catalog_tokens: int = 400
    """Largest tool catalog written into the meta-tool description."""
    connect_timeout: float = 20.0
    errors: tuple[str, ...] = ()

    def tool_settings(self, name: str) -> ToolSettings:
        """Settings for namespaced tool ``name`` (exact key first, then globs)."""
        from fnmatch import fnmatchcase

        from agent_tui.core.tool_names import spellings

        names = spellings(name)
        for n in names:
            if n in self.tools:
                return self.tools[n]
        for pattern, settings in self.tools.items():
            if any(fnmatchcase(n, pattern) for n in names):
                return settings
        return ToolSettings()


def expand_env(value: str, env: dict[str, str] | None = None) -> str:
    """``${VAR}`` and ``${VAR:-default}`` from the environment, as ``.mcp.json`` files use."""
    source = os.environ if env is None else env

    def sub(match: re.Match[str]) -> str:
        found = source.get(match.group(1))
        if found is None:
            return match.group(2) if match.group(2) is not None else ""
        return found

    return _ENV_RE.sub(sub, value)


def _number(raw: Any, key: str, errors: list[str], default: float | None) -> float | None:
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw <= 0:
        errors.append(f"{key}: expected a positive number, got {raw!r}")
        return default
    return float(raw)


def _str_map(raw: Any, key: str, errors: list[str]) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        errors.append(f"{key}: expected a table of strings")
        return {}
    return {str(k): expand_env(str(v)) for k, v in raw.items()}


def parse_server(
    name: str, raw: Any, source: str, workspace: Path, errors: list[str]
) -> ServerConfig | None:
    """One server entry from either layout; None (and an error) when unusable."""
    where = f"{source}: server {name!r}"
    if not isinstance(raw, dict):
        errors.append(f"{where}: expected a table")
        return None
    kind = str(raw.get("type") or raw.get("transport") or "").lower()
    url = raw.get("url")
    command = raw.get("command")
    if kind == "sse":
        errors.append(f"{where}: the legacy SSE transport is not supported; use streamable HTTP")
        return None
    if url is None and command is None:
        errors.append(f"{where}: needs `command` (stdio) or `url` (streamable HTTP)")
        return None
    args = raw.get("args") or []
    if not isinstance(args, list):
        errors.append(f"{where}: `args` must be a list")
        args = []
    cwd = raw.get("cwd")
    if cwd is not None:
        cwd_path = Path(expand_env(str(cwd))).expanduser()
        cwd = str(cwd_path if cwd_path.is_absolute() else workspace / cwd_path)
    elif command is not None:
        cwd = str(workspace)  # a stdio server runs in the workspace, not wherever agent-tui was started
    return ServerConfig(
        name=name,
        command=expand_env(str(command)) if command is not None else None,
        args=tuple(expand_env(str(a)) for a in args),
        env=_str_map(raw.get("env"), f"{where}.env", errors),
        cwd=cwd,
        url=expand_env(str(url)) if url is not None else None,
        headers=_str_map(raw.get("headers"), f"{where}.headers", errors),
        timeout=_number(raw.get("timeout"), f"{where}.timeout", errors, None),
        enabled=not raw.get("disabled", False) and bool(raw.get("enabled", True)),
        protocol=str(raw.get("protocol") or "auto"),
        source=source,
    )


def _tool_settings(key: str, raw: Any, errors: list[str]) -> ToolSettings:
    where = f"mcp.tools.{key!r}"
    if not isinstance(raw, dict):
        errors.append(f"{where}: expected a table")
        return ToolSettings()
    scope = raw.get("scope", "turn")
    if scope not in SCOPES:
        errors.append(f"{where}.scope: expected one of {SCOPES}, got {scope!r}")
        scope = "turn"
    shape = raw.get("shape", "summary")
    if shape not in SHAPES:
        errors.append(f"{where}.shape: expected one of {SHAPES}, got {shape!r}")
        shape = "summary"
    max_tokens = _number(raw.get("max_tokens"), f"{where}.max_tokens", errors, None)
    read_only = raw.get("read_only")
    return ToolSettings(
        scope=scope,
        shape=shape,
        max_tokens=int(max_tokens) if max_tokens else None,
        timeout=_number(raw.get("timeout"), f"{where}.timeout", errors, None),
        read_only=bool(read_only) if read_only is not None else None,
    )


def read_mcp_json(path: Path, workspace: Path, errors: list[str]) -> dict[str, ServerConfig]:
    """Servers from a ``{"mcpServers": {...}}`` file; missing file is no error."""
    if not path.is_file():
        return {}
    if path.parent == workspace:  # (a clone's link to another project's file, as core.config refuses it)
        from agent_tui.core.safe_files import UnsafeFileError, inside

        try:
            inside(workspace, path.name)
        except UnsafeFileError:
            errors.append(f"{path}: links outside the workspace (to {os.path.realpath(path)}); not read")
            return {}
    try:
        data = loads_json(read_config(path).decode("utf-8"))
    except (OSError, ValueError) as exc:
        errors.append(f"{path}: cannot read: {exc}")
        return {}
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        errors.append(f"{path}: no `mcpServers` object")
        return {}
    found: dict[str, ServerConfig] = {}
    for name, raw in entries.items():
        server = parse_server(str(name), raw, str(path), workspace, errors)
        if server is not None:
            found[server.name] = server
    return found


def _globs(raw: Any, key: str, errors: list[str]) -> tuple[str, ...]:
    if isinstance(raw, str):
        return (raw,)
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        return tuple(raw)
    errors.append(f"{key}: expected a list of names or globs")
    return ()


def load_mcp_config(
    mcp_table: dict[str, Any] | None,
    workspace: Path,
    mcp_json: Path | None = None,
    *,
    workspace_json: bool = True,
) -> McpConfig:
    """Build the MCP config from the parsed ``[mcp]`` table and ``<workspace>/.mcp.json``.

    ``mcp_json`` names another JSON file instead (``mcp list --config x.json``);
    ``workspace_json=False`` reads no JSON file.  TOML servers win over JSON ones
    with the same name.
    """
    table = dict(mcp_table or {})
    errors: list[str] = []
    json_path = mcp_json or (workspace / ".mcp.json" if workspace_json else None)
    servers = read_mcp_json(json_path, workspace, errors) if json_path is not None else {}
    raw_servers = table.get("servers") or {}
    if not isinstance(raw_servers, dict):
        errors.append("mcp.servers: expected a table of servers")
        raw_servers = {}
    for name, raw in raw_servers.items():
        server = parse_server(str(name), raw, "config", workspace, errors)
        if server is not None:
            servers[server.name] = server
    raw_groups = table.get("groups") or {}
    groups = {
        str(k): _globs(v, f"mcp.groups.{k}", errors)
        for k, v in (raw_groups.items() if isinstance(raw_groups, dict) else [])
    }
    raw_tools = table.get("tools") or {}
    tools = {
        str(k): _tool_settings(str(k), v, errors)
        for k, v in (raw_tools.items() if isinstance(raw_tools, dict) else [])
    }
    defaults = McpConfig()

    def num(key: str, default: float) -> float:
        value = _number(table.get(key), f"mcp.{key}", errors, default)
        return default if value is None else value

    param_words = table.get("param_words", 0)
    return McpConfig(
        servers=servers,
        groups=groups,
        tools=tools,
        always_load=_globs(table.get("always_load", []), "mcp.always_load", errors),
        timeout=num("timeout", defaults.timeout),
        result_max_tokens=int(num("result_max_tokens", defaults.result_max_tokens)),
        tool_budget=int(num("tool_budget", defaults.tool_budget)),
        description_words=int(num("description_words", defaults.description_words)),
        param_words=param_words if isinstance(param_words, int) and param_words >= 0 else 0,
        catalog_tokens=int(num("catalog_tokens", defaults.catalog_tokens)),
        connect_timeout=num("connect_timeout", defaults.connect_timeout),
        errors=tuple(errors),
    )
