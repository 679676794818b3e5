"""One MCP server connection that survives its server: timeouts, death, restart with backoff.

The SDK's ``Client`` is an async context manager whose task groups must be entered and
left by the same task, so each server gets one long-lived *runner* task that holds the
connection open, lists the tools, follows list-changed notices, and reconnects when the
server dies or the HTTP link drops (0.25 s, then doubling, capped).  Calls come from any
task; they wait (within their timeout) for a restarting server instead of failing, and
every failure leaves as a one-line ``McpCallError``.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_tui.core.redact import register_secret
from agent_tui.core.secret_names import secret_name
from agent_tui.mcp.config import ServerConfig
from agent_tui.mcp.errors import McpCallError, describe
from agent_tui.mcp.rpc import ServerRequests, all_pages
from agent_tui.mcp.server_log import ServerLog, clean_line
from agent_tui.mcp.state import Backoff, ServerState, ServerStatus
from agent_tui.mcp.transport import open_transport

__all__ = ["Backoff", "ChangeCallback", "ServerConnection", "ServerState", "ServerStatus"]
ChangeCallback = Callable[[str, str], Awaitable[None]]
"""Called with (server name, what changed: ``tools``/``prompts``/``resources``)."""
STDERR_SETTLE = 2.0
"""Seconds an error message waits for a dead server's last stderr lines to reach its log."""


def register_config_secrets(config: ServerConfig) -> None:
    """Mask the secrets the user gives a server (a secret-named ``env`` value, an auth header) everywhere:
    a server that dumps its environment or its request headers on failure must not put them in a log,
    an error or the model's context."""
    for name, value in config.env.items():
        if secret_name(name):
            register_secret(value, name)
    for name, value in config.headers.items():
        if name.lower() in ("authorization", "proxy-authorization", "cookie") or secret_name(name):
            register_secret(value, name)
            register_secret(value.partition(" ")[2], name)  # the token of ``Bearer TOKEN`` alone


class ServerConnection(ServerRequests):
    """A supervised connection to one server (see the module docstring)."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        log_dir: Path | None = None,
        timeout: float = 10.0,
        connect_timeout: float = 20.0,
        backoff: Backoff | None = None,
        on_change: ChangeCallback | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        register_config_secrets(config)
        self.timeout = config.timeout or timeout
        self.connect_timeout = connect_timeout
        self.backoff = backoff or Backoff()
        self.log_path = log_dir / f"{config.name}.log" if log_dir is not None else None
        self._on_change = on_change
        self.state = ServerState.STARTING if config.enabled else ServerState.DISABLED
        self.error: str | None = None
        self.protocol: str | None = None
        self.capabilities: types.ServerCapabilities | None = None
        self.tools: list[types.Tool] = []
        self.connects = 0
        self._client: Client | None = None
        self._up = asyncio.Event()
        self._settled = asyncio.Event()  # first attempt finished, either way
        self._wake = asyncio.Event()
        self._wake_reason = ""
        self._closing = False
        self._dirty: set[str] = set()
        self._dirty_event = asyncio.Event()
        self._timeouts = 0
        self._task: asyncio.Task[None] | None = None
        self._errlog: ServerLog | None = None

    # ----------------------------------------------------------------- lifecycle
    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            transport=self.config.transport,
            state=str(self.state),
            protocol=self.protocol,
            tools=len(self.tools),
            error=self.error,
            restarts=max(0, self.connects - 1),
            log_path=str(self.log_path) if self.log_path else None,
        )

    def start(self) -> None:
        """Start the runner task (idempotent); use ``wait_settled`` to wait for the first try."""
        if self.state is ServerState.DISABLED or self._task is not None:
            self._settled.set()
            return
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp:{self.name}")

    async def wait_settled(self, timeout: float) -> None:
        """Wait until the first connection attempt succeeded or failed (or ``timeout``)."""
        with anyio.move_on_after(timeout):
            await self._settled.wait()

    def restart(self, reason: str = "restart requested") -> None:
        """Drop the current connection and reconnect (also revives a server left down)."""
        if self._client is not None:
            self._mark_dead(self._client, reason)  # new calls wait for the new connection
            return
        self._wake_reason = reason
        self._wake.set()

    async def close(self) -> None:
        self._closing = True
        self._wake_reason = "closing"
        self._wake.set()
        if self._task is not None:
            with anyio.move_on_after(10):
                await asyncio.shield(self._task)
            if not self._task.done():
                self._task.cancel()
        self.state = ServerState.STOPPED if self.state is not ServerState.DISABLED else self.state

    def _log(self, line: str) -> None:
        if self._errlog is not None:
            self._errlog.note(line)

    async def stderr_settled(self) -> None:
        """Wait (briefly) until what the server wrote to stderr so far is in its log."""
        if self._errlog is not None:
            await anyio.to_thread.run_sync(self._errlog.settle, STDERR_SETTLE)

    async def _with_stderr(self, error: str) -> str:
        """``error`` of a stdio server that failed or died, with the last lines it wrote to stderr (they
        usually say why): what the status line, the MCP panel and ``mcp list`` show.  Set whole, once the
        pipe is drained: the panel read "Connection closed" while the stderr was still on its way."""
        if self.config.transport != "stdio":
            return error
        await self.stderr_settled()
        tail = self.stderr_tail()
        return f"{error} (stderr: {tail})" if tail else error

    def stderr_tail(self, lines: int = 2) -> str:
        """The last lines the server wrote to stderr (our own notes skipped), redacted and printable
        (the log is written so; an older log is cleaned here)."""
        if self.log_path is None or not self.log_path.is_file():
            return ""
        with self.log_path.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            tail = f.read().decode("utf-8", "replace").splitlines()
        starts = [
            i for i, x in enumerate(tail) if x.startswith("[agent-tui ") and "connecting (" in x
        ]
        tail = tail[starts[-1] + 1 :] if starts else tail
        own = [x for x in tail if x.strip() and not x.startswith("[agent-tui ")]
        return " | ".join(clean_line(x) for x in own[-lines:])

    # ----------------------------------------------------------------- runner
    async def _run(self) -> None:
        failures = 0
        while not self._closing:
            connected = await self._connect_once()
            if self._closing:
                break
            if connected:
                failures = 0
            else:
                failures += 1
            self._settled.set()
            # A command that keeps failing is a config problem: stop spawning it.  A URL
            # may come back at any time: keep trying at the capped delay.
            if failures >= self.backoff.max_failures and self.config.transport == "stdio":
                self.state = ServerState.DOWN
                self._log(f"giving up after {failures} failed starts: {self.error}")
                await self._wake.wait()  # restart() or close()
                self._wake.clear()
                failures = 0
                continue
            delay = self.backoff.delay(failures if not connected else 0)
            # RESTARTING: it was up a moment ago; DOWN: it does not start (retried in the background).
            self.state = ServerState.RESTARTING if connected else ServerState.DOWN
            self._log(f"reconnecting in {delay:.2f}s ({self.error})")
            with anyio.move_on_after(delay):
                await self._wake.wait()
            self._wake.clear()
        self.state = ServerState.STOPPED
        self._settled.set()

    def _mark_dead(self, client: Client | None, reason: str) -> None:
        """The connection of ``client`` is gone: stop handing it out and wake the runner."""
        if self._closing or client is None or client is not self._client:
            return
        self._client = None
        self._up.clear()
        self.state = ServerState.RESTARTING
        self._wake_reason = reason
        self._wake.set()

    async def _connect_once(self) -> bool:
        """One connection's whole life; True if it got as far as listing the tools."""
        connected = False
        self._wake.clear()
        log = ServerLog(self.log_path)
        try:
            self._errlog = log
            self._log(f"connecting ({self.config.transport})")
            holder: list[Client] = []

            def on_eof() -> None:
                self._mark_dead(holder[0] if holder else None, "the server closed the connection")

            scope = anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout)
            try:
                with scope:
                    client = Client(
                        open_transport(self.config, log.child_stderr, on_eof),
                        read_timeout_seconds=self.timeout,
                        message_handler=self._on_message,
                        client_info=types.Implementation(name="agent-tui", version="0.1"),
                        mode=self.config.protocol,
                    )
                    holder.append(client)
                    async with client:
                        self.protocol = client.protocol_version
                        self.capabilities = client.server_capabilities
                        self.tools = await self._fetch_tools(client)
                        scope.deadline = math.inf
                        connected = True
                        self.connects += 1
                        self._client, self.error, self._timeouts = client, None, 0
                        self.state = ServerState.UP
                        self._up.set()
                        self._settled.set()
                        self._log(f"up: protocol {self.protocol}, {len(self.tools)} tools")
                        await self._notify("tools")
                        await self._serve(client)
                if scope.cancelled_caught and not connected:
                    self.error = f"no answer within {self.connect_timeout:g}s while connecting"
                elif connected:
                    ended = self._wake_reason or "connection ended"
                    self.error = ended if self._closing else await self._with_stderr(ended)
            except Exception as exc:  # a dead server must never take the agent down
                self.error = await self._with_stderr(clean_line(describe(exc)))
            finally:
                self._client = None
                self._up.clear()
                if not self._closing:
                    self._wake.clear()  # a late EOF from this connection must not skip the backoff
                self._log(f"disconnected: {self.error}")
                self._errlog = None
        finally:
            log.close()
        return connected

    async def _serve(self, client: Client) -> None:
        """Hold the connection until it dies, a restart is asked for, or we close."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._refresher, client)
            if self.protocol in MODERN_PROTOCOL_VERSIONS and self._wants_listen():
                tg.start_soon(self._listen, client)
            await self._wake.wait()
            tg.cancel_scope.cancel()

    def _wants_listen(self) -> bool:
        caps = self.capabilities
        if caps is None:
            return False
        return any(
            c is not None and getattr(c, "list_changed", False)
            for c in (caps.tools, caps.prompts, caps.resources)
        )

    async def _listen(self, client: Client) -> None:
        """2026-07-28 servers announce changes only on a listen stream (they arrive as notices)."""
        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as sub:
                async for _event in sub:
                    pass  # the same events reach _on_message, which does the work
        except Exception as exc:
            self._log(f"listen ended: {describe(exc)}")

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._dirty.add("tools")
        elif isinstance(message, types.PromptListChangedNotification):
            self._dirty.add("prompts")
        elif isinstance(message, types.ResourceListChangedNotification):
            self._dirty.add("resources")
        elif isinstance(message, Exception):
            self._log(f"bad message from server: {describe(message)}")
            return
        else:
            return
        self._dirty_event.set()

    async def _refresher(self, client: Client) -> None:
        while True:
            await self._dirty_event.wait()
            self._dirty_event.clear()
            await anyio.sleep(0.05)  # coalesce bursts
            kinds, self._dirty = self._dirty, set()
            for kind in sorted(kinds):
                try:
                    if kind == "tools":
                        self.tools = await self._fetch_tools(client)
                        self._log(f"tool list changed: {len(self.tools)} tools")
                    await self._notify(kind)
                except Exception as exc:
                    self._log(f"refresh of {kind} failed: {describe(exc)}")

    async def _notify(self, kind: str) -> None:
        if self._on_change is not None:
            await self._on_change(self.name, kind)

    @staticmethod
    async def _fetch_tools(client: Client) -> list[types.Tool]:
        """All pages of tools/list, fresh (not from the response cache)."""
        return await all_pages(
            lambda cursor: client.list_tools(cursor=cursor, cache_mode="refresh"), "tools"
        )

    # ----------------------------------------------------------------- for requests
    async def _ready_client(self, timeout: float) -> Client:
        if self.state is ServerState.DISABLED:
            raise McpCallError("down", f"MCP server {self.name!r} is disabled in the config")
        if self._client is None and self.state is ServerState.DOWN:
            raise McpCallError("down", f"MCP server {self.name!r} is down: {self.error}")
        with anyio.move_on_after(timeout):
            await self._up.wait()
        if self._client is None:
            why = self.error or "not connected"
            raise McpCallError(
                "down", f"MCP server {self.name!r} is not available ({self.state}): {why}"
            )
        return self._client
