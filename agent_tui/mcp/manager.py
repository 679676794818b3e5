"""All MCP servers behind one object: what the agent loop and the UI talk to.

The loop needs four things from MCP and nothing else: the tool definitions for this
step (few and stable), a way to call any tool by its namespaced name and get back a
shaped result, the read-only flag for the approval policy, and resources/prompts for
the user.  Servers that fail never raise here; they show as down with their error,
and their tools answer with a clear error until the server is back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_tui.core.results import MemoryResultStore, ResultStore
from agent_tui.core.tokens import counter_for
from agent_tui.mcp import meta, results
from agent_tui.mcp.catalog import ToolEntry, build_entries
from agent_tui.mcp.config import McpConfig
from agent_tui.mcp.connection import Backoff, ServerConnection, ServerState, ServerStatus
from agent_tui.mcp.costs import DefinitionCosts, definition_costs
from agent_tui.mcp.errors import McpCallError
from agent_tui.mcp.resources import (
    PromptCommand,
    ResourceContent,
    ResourceInfo,
    prompt_command,
    prompt_messages,
    resource_content,
    resource_info,
)
from agent_tui.mcp.results import McpResult
from agent_tui.mcp.selection import Selection, ToolSet, build_groups, resolve
from agent_tui.mcp.server_log import RedactingFormatter
from agent_tui.mcp.validation import check_arguments

Listener = Callable[[str, str], Awaitable[None] | None]


def _int(value: Any, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True)
class McpCall:
    """One tool call of a (possibly parallel) batch."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    intent: str = ""


class McpManager:
    """Connections, the tool catalogue, the loaded set and shaped calls (see module docstring)."""

    def __init__(
        self,
        config: McpConfig,
        log_dir: Path | None = None,
        *,
        store: ResultStore | None = None,
        model: str | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        self.config = config
        self.log_dir = log_dir
        self.store: ResultStore = store if store is not None else MemoryResultStore()
        self.model = model
        self.connections: dict[str, ServerConnection] = {
            name: ServerConnection(
                server,
                log_dir=log_dir,
                timeout=config.timeout,
                connect_timeout=config.connect_timeout,
                backoff=backoff,
                on_change=self._changed,
            )
            for name, server in config.servers.items()
        }
        self.toolset = ToolSet(config.tool_budget)
        self._entries: dict[str, ToolEntry] = {}
        self._notes: dict[str, frozenset[str]] = {}
        self._groups: dict[str, list[str]] = {}
        self._catalog = ""
        self._listeners: list[Listener] = []

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Connect every enabled server at once; wait for each first attempt (never raises)."""
        self._route_sdk_logs()
        for conn in self.connections.values():
            conn.start()
        waits = [c.wait_settled(self.config.connect_timeout) for c in self.connections.values()]
        await asyncio.gather(*waits)
        self._rebuild()
        self.toolset.add(self._always(), "always")

    async def close(self) -> None:
        await asyncio.gather(
            *(c.close() for c in self.connections.values()), return_exceptions=True
        )

    async def restart(self, server: str) -> None:
        """Reconnect ``server`` now (also revives one that was given up on)."""
        self.connections[server].restart("restart requested by the user")

    def status(self) -> list[ServerStatus]:
        return [c.status() for c in self.connections.values()]

    def add_listener(self, listener: Listener) -> None:
        """Called with (server, ``tools``/``prompts``/``resources``) when a server's lists change."""
        self._listeners.append(listener)

    def _route_sdk_logs(self) -> None:
        """The SDK logs protocol noise to stderr, which would scribble over the TUI; to a file instead, redacted
        as the servers' stderr is (it quotes a server's stray stdout line, a token printed there included)."""
        if self.log_dir is None:
            return
        sdk = logging.getLogger("mcp")
        if not any(getattr(h, "_agent_tui", False) for h in sdk.handlers):
            from agent_tui.core.safe_files import UnsafeFileError, open_append

            try:
                self.log_dir.mkdir(parents=True, exist_ok=True)
                handler: logging.Handler = logging.StreamHandler(open_append(self.log_dir / "mcp-sdk.log"))
            except (OSError, UnsafeFileError):  # a link in its place: no SDK log rather than one written through it
                handler = logging.NullHandler()
            handler._agent_tui = True  # type: ignore[attr-defined]
            handler.setFormatter(RedactingFormatter())
            sdk.addHandler(handler)
            sdk.propagate = False

    async def _changed(self, server: str, kind: str) -> None:
        if kind == "tools":
            self._rebuild()
        for listener in self._listeners:
            try:
                outcome = listener(server, kind)
                if asyncio.iscoroutine(outcome):
                    await outcome
            except Exception:  # a UI callback must not break a server connection
                logging.getLogger(__name__).exception("MCP change listener failed")

    def _rebuild(self) -> None:
        entries: dict[str, ToolEntry] = {}
        notes: dict[str, frozenset[str]] = {}
        for name, conn in self.connections.items():
            built, common = build_entries(
                name,
                conn.tools,
                description_words=self.config.description_words,
                param_words=self.config.param_words,
                model=self.model,
            )
            entries.update((e.qualified, e) for e in built)
            notes[name] = common
        self._entries, self._notes = entries, notes
        self._groups = build_groups(entries.values(), self.config.groups)
        self._catalog = meta.catalog(self._groups, entries, notes, self.config.catalog_tokens)
        self.toolset.forget_missing(entries)

    def _always(self) -> list[str]:
        found, _ = resolve(self.config.always_load, self._entries, self._groups)
        return found

    # ----------------------------------------------------------------- definitions
    @property
    def entries(self) -> dict[str, ToolEntry]:
        """Every known tool by namespaced name (a down server keeps its last listing)."""
        return self._entries

    @property
    def groups(self) -> dict[str, list[str]]:
        return self._groups

    def select_for_task(self, message: str) -> Selection:
        """Load the groups ``message`` needs (adds only; the loaded set never shrinks here)."""
        return self.toolset.select(message, self._entries, self._groups)

    def enable(self, names: Iterable[str]) -> tuple[list[str], list[str], list[str]]:
        """Load tools by name, group or glob: (added, already loaded, unknown)."""
        found, unknown = resolve(names, self._entries, self._groups)
        already = [n for n in found if n in self.toolset.loaded]
        added = self.toolset.add(found, "enabled")
        return added, already, unknown

    def compact(self, keep: Iterable[str] = ()) -> list[str]:
        """At compaction: keep only the tools used since the last one, none of a server that is down (each call
        would only answer "down", and its definitions cost every request) except those ``always_load`` names,
        which only ``start`` loads; returns those unloaded.  A server back up gets its tools back as any other:
        by the task's words or ``enable_tools``."""
        dropped = self.toolset.compact(keep)
        down = {name for name, why in self.toolset.loaded.items() if why != "always" and self._down(name)}
        for name in down:
            del self.toolset.loaded[name]
        return dropped + sorted(down)

    def _down(self, name: str) -> bool:
        entry = self._entries.get(name)
        conn = self.connections.get(entry.server) if entry is not None else None
        return conn is not None and conn.state is ServerState.DOWN

    def meta_schemas(self) -> list[dict[str, Any]]:
        """``find_tools`` and ``enable_tools``, while some server has a tool to find (with every server down or
        still connecting they offered an empty catalogue, for their tokens in every request)."""
        return meta.definitions(self._catalog) if self._entries else []

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The definitions to send this step: the meta-tools, then the loaded tools in load order."""
        loaded = [self._entries[n].shaped for n in self.toolset.loaded if n in self._entries]
        return self.meta_schemas() + loaded

    def costs(self) -> DefinitionCosts:
        """Raw vs shaped definition tokens, per server and for what is sent now."""
        return definition_costs(self._entries, self.tool_schemas(), self.meta_schemas(), self.model)

    def is_mcp_tool(self, name: str) -> bool:
        return name in self._entries or name in meta.META_TOOLS

    def is_read_only(self, name: str) -> bool:
        """For the approval policy (a read-only tool runs unasked): the user's ``read_only`` setting
        first; else the server must say both ``readOnlyHint`` and ``openWorldHint: false``.  A tool that
        only reads but reaches the outside world (a web search or fetch, the spec's default) is not
        read-only here: its arguments can carry the workspace's text anywhere, so it is asked."""
        if name in meta.META_TOOLS:
            return True
        setting = self.config.tool_settings(name).read_only
        if setting is not None:
            return setting
        entry = self._entries.get(name)
        return bool(entry is not None and entry.read_only and entry.open_world is False)

    def server_of(self, name: str) -> str | None:
        """The server a namespaced tool comes from (None for a meta-tool or an unknown name)."""
        entry = self._entries.get(name)
        return entry.server if entry is not None else None

    def why_asked(self, name: str) -> str:
        """Why a call of ``name`` is not read-only for the approval policy, in the user's words."""
        if self.config.tool_settings(name).read_only is False:
            return "your config says it is not read-only"
        entry = self._entries.get(name)
        if entry is None or not entry.read_only:
            return "its server does not mark it read-only (readOnlyHint), so it may change things"
        return ("its server marks it read-only, but not closed to the outside world (openWorldHint), "
                "so its arguments could carry the workspace's text anywhere")

    # ----------------------------------------------------------------- calls
    async def call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        intent: str = "",
        call_id: str | None = None,
    ) -> McpResult:
        """Call a namespaced tool (or a meta-tool) and return its shaped result; never raises
        for server trouble (the result carries the error), but cancellation propagates."""
        started = time.monotonic()
        args = dict(arguments or {})
        try:
            result = await self._call(name, args, intent)
        except McpCallError as exc:
            entry = self._entries.get(name)
            result = results.error(
                name, exc.message, exc.kind, entry.server if entry else None, self.model
            )
        elapsed = time.monotonic() - started
        return replace(result, call_id=call_id, elapsed=elapsed)

    async def call_parallel(self, calls: Sequence[McpCall]) -> list[McpResult]:
        """Run calls concurrently; results come back in call order, each with its call id."""
        return list(
            await asyncio.gather(
                *(self.call(c.name, c.arguments, intent=c.intent, call_id=c.call_id) for c in calls)
            )
        )

    async def _call(self, name: str, args: dict[str, Any], intent: str) -> McpResult:
        if name == meta.FIND_TOOLS:
            text = meta.find_tools(
                str(args.get("query", "")),
                self._entries,
                self.toolset.loaded,
                _int(args.get("limit"), 8),
            )
            return self._plain(name, text)
        if name == meta.ENABLE_TOOLS:
            names = args.get("names") or []
            names = [names] if isinstance(names, str) else list(names)
            added, already, unknown = self.enable(names)
            return self._plain(name, meta.enable_tools(added, already, unknown, self._entries))
        entry = self._entries.get(name)
        if entry is None:
            hint = meta.find_tools(name.replace("__", " "), self._entries, self.toolset.loaded, 5)
            raise McpCallError("unknown_tool", f"no MCP tool named {name!r}. {hint}")
        problem = check_arguments(entry.listing.get("inputSchema"), args)
        if problem:
            raise McpCallError("bad_arguments", f"{name}: {problem}; expected {entry.signature}")
        conn = self.connections[entry.server]
        settings = self.config.tool_settings(name)
        self.toolset.add([name], "called")  # calling an unloaded tool loads it
        raw = await conn.call_tool(entry.name, args, settings.timeout or conn.timeout)
        self.toolset.used.add(name)
        return results.shape(
            raw,
            name=name,
            server=entry.server,
            settings=settings,
            max_tokens=self.config.result_max_tokens,
            intent=intent,
            store=self.store,
            model=self.model,
        )

    def _plain(self, name: str, text: str) -> McpResult:
        tokens = counter_for(self.model).count(text)
        return McpResult(name, text, False, None, tokens, tokens, "turn")

    # ----------------------------------------------------------------- resources and prompts
    async def list_resources(self) -> list[ResourceInfo]:
        """Resources of every server that is up (a failing server is skipped)."""
        found: list[ResourceInfo] = []
        for name, conn in self.connections.items():
            if conn.state is not ServerState.UP:
                continue
            try:
                found.extend(resource_info(name, r) for r in await conn.list_resources())
            except McpCallError:
                continue
        return found

    async def read_resource(self, server: str, uri: str) -> ResourceContent:
        """Read one resource for injection as a (pinnable) context item; raises McpCallError."""
        conn = self.connections.get(server)
        if conn is None:
            raise McpCallError("down", f"no MCP server named {server!r}")
        return resource_content(server, uri, await conn.read_resource(uri), self.model)

    async def prompt_commands(self) -> list[PromptCommand]:
        """Server prompts as slash commands (``/server__prompt``)."""
        found: list[PromptCommand] = []
        for name, conn in self.connections.items():
            if conn.state is not ServerState.UP:
                continue
            try:
                found.extend(prompt_command(name, p) for p in await conn.list_prompts())
            except McpCallError:
                continue
        return found

    async def run_prompt(
        self, command: PromptCommand, arguments: dict[str, str]
    ) -> list[dict[str, str]]:
        """The messages of a prompt, to add to the conversation; raises McpCallError."""
        conn = self.connections[command.server]
        return prompt_messages(await conn.get_prompt(command.name, arguments))
