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
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import mcp_types as types
from mcp import Client, MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from agent_tui.mcp.config import ServerConfig
from agent_tui.mcp.errors import McpCallError, describe
from agent_tui.mcp.transport import open_transport

T = TypeVar("T")
ChangeCallback = Callable[[str, str], Awaitable[None]]
"""Called with (server name, what changed: ``tools``/``prompts``/``resources``)."""


class ServerState(StrEnum):
    STARTING = "starting"
    UP = "up"
    RESTARTING = "restarting"
    DOWN = "down"
    STOPPED = "stopped"
    DISABLED = "disabled"


@dataclass(frozen=True)
class Backoff:
    """Restart delays: ``first`` then ``factor`` times more, capped; give up after ``max_failures``."""

    first: float = 0.25
    factor: float = 2.0
    cap: float = 30.0
    max_failures: int = 6
    """Consecutive failed connects before the server is left down (``restart()`` revives it)."""

    def delay(self, failures: int) -> float:
        return min(self.cap, self.first * self.factor ** max(0, failures))


@dataclass(frozen=True)
class ServerStatus:
    """What the MCP panel and ``mcp list`` show for one server."""

    name: str
    transport: str
    state: str
    protocol: str | None
    tools: int
    error: str | None
    restarts: int
    log_path: str | None


class ServerConnection:
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
        self._errlog: TextIO | None = None

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
            stamp = time.strftime("%H:%M:%S")
            self._errlog.write(f"[agent-tui {stamp}] {line}\n")
            self._errlog.flush()

    def stderr_tail(self, lines: int = 2) -> str:
        """The last lines the server wrote to stderr (our own notes skipped)."""
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
        return " | ".join(own[-lines:])

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
            if failures >= self.backoff.max_failures:
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

    def _open_errlog(self) -> TextIO:
        if self.log_path is None:
            return open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        return self.log_path.open("a", encoding="utf-8")

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
        with self._open_errlog() as errlog:
            self._errlog = errlog
            self._log(f"connecting ({self.config.transport})")
            holder: list[Client] = []

            def on_eof() -> None:
                self._mark_dead(holder[0] if holder else None, "the server closed the connection")

            scope = anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout)
            try:
                with scope:
                    client = Client(
                        open_transport(self.config, errlog, on_eof),
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
                    self.error = self._wake_reason or "connection ended"
            except Exception as exc:  # a dead server must never take the agent down
                self.error = describe(exc)
                if (
                    not connected
                    and self.config.transport == "stdio"
                    and (tail := self.stderr_tail())
                ):
                    self.error += f" (stderr: {tail})"
            finally:
                self._client = None
                self._up.clear()
                if not self._closing:
                    self._wake.clear()  # a late EOF from this connection must not skip the backoff
                self._log(f"disconnected: {self.error}")
                self._errlog = None
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
        """All pages of tools/list (a cursor seen twice ends the walk)."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(1000):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor or cursor in seen:
                break
            seen.add(cursor)
        return tools

    # ----------------------------------------------------------------- requests
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

    async def request(
        self, what: str, send: Callable[[Client, float], Awaitable[T]], timeout: float | None = None
    ) -> T:
        """Run ``send(client, seconds_left)`` against the live connection, classifying failures."""
        timeout = timeout or self.timeout
        deadline = time.monotonic() + timeout
        client = await self._ready_client(timeout)
        left = max(0.05, deadline - time.monotonic())
        try:
            with anyio.fail_after(left + 1.0):  # guard in case the SDK's own timeout never fires
                result = await send(client, left)
            self._timeouts = 0
            return result
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise self._timed_out(what, timeout) from exc
            if exc.code == CONNECTION_CLOSED:
                self._mark_dead(client, f"connection closed during {what}")
                tail = self.stderr_tail() if self.config.transport == "stdio" else ""
                detail = f"; its last stderr: {tail}" if tail else ""
                raise McpCallError(
                    "died", self._lost(what) + detail + ". " + self._recovery()
                ) from exc
            raise McpCallError(
                "protocol",
                f"MCP server {self.name!r} rejected {what}: {exc.message} (code {exc.code})",
            ) from exc
        except TimeoutError as exc:
            raise self._timed_out(what, timeout) from exc
        except ValidationError as exc:
            raise McpCallError(
                "malformed", f"MCP server {self.name!r} answered {what} with a {describe(exc)}"
            ) from exc
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            self._mark_dead(client, f"connection lost during {what}")
            raise McpCallError(
                "died", f"{self._lost(what)} ({describe(exc)}). {self._recovery()}"
            ) from exc

    def _lost(self, what: str) -> str:
        if self.config.transport == "http":
            return f"the connection to MCP server {self.name!r} was lost during {what}"
        return f"MCP server {self.name!r} died during {what}"

    def _recovery(self) -> str:
        if self.config.transport == "http":
            return "Reconnecting; retry the call."
        return "It is being restarted; retry the call."

    def _timed_out(self, what: str, timeout: float) -> McpCallError:
        self._timeouts += 1
        if self._timeouts >= 3:
            self.restart(f"{self._timeouts} timeouts in a row")
        return McpCallError(
            "timeout",
            f"MCP server {self.name!r} did not finish {what} within {timeout:g}s; the call was cancelled.",
        )

    async def call_tool(
        self, name: str, arguments: dict[str, Any], timeout: float | None = None
    ) -> types.CallToolResult:
        return await self.request(
            f"tool {name!r}",
            lambda c, left: c.call_tool(name, arguments, read_timeout_seconds=left),
            timeout,
        )

    def supports(self, feature: str) -> bool:
        """Whether the server advertised ``tools``/``resources``/``prompts``."""
        caps = self.capabilities
        return caps is not None and getattr(caps, feature, None) is not None

    async def list_resources(self, timeout: float | None = None) -> list[types.Resource]:
        """All pages of resources/list ([] when the server has no resources)."""
        if not self.supports("resources"):
            return []

        async def send(client: Client, left: float) -> list[types.Resource]:
            found: list[types.Resource] = []
            cursor: str | None = None
            for _ in range(1000):
                page = await client.list_resources(cursor=cursor)
                found.extend(page.resources)
                cursor = page.next_cursor
                if not cursor:
                    break
            return found

        return await self.request("resources/list", send, timeout)

    async def read_resource(
        self, uri: str, timeout: float | None = None
    ) -> types.ReadResourceResult:
        return await self.request(
            f"resources/read {uri}", lambda c, left: c.read_resource(uri), timeout
        )

    async def list_prompts(self, timeout: float | None = None) -> list[types.Prompt]:
        """All pages of prompts/list ([] when the server has no prompts)."""
        if not self.supports("prompts"):
            return []

        async def send(client: Client, left: float) -> list[types.Prompt]:
            found: list[types.Prompt] = []
            cursor: str | None = None
            for _ in range(1000):
                page = await client.list_prompts(cursor=cursor)
                found.extend(page.prompts)
                cursor = page.next_cursor
                if not cursor:
                    break
            return found

        return await self.request("prompts/list", send, timeout)

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None, timeout: float | None = None
    ) -> types.GetPromptResult:
        return await self.request(
            f"prompt {name!r}", lambda c, left: c.get_prompt(name, arguments), timeout
        )
