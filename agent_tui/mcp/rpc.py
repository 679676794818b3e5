"""Requests to a live server, with every failure turned into one classified error.

A call can time out, meet a dead server, get a result that breaks the schema or be
refused; the caller (and the model) should get one sentence saying which, and the
connection should learn of a death at once so it restarts.  This mixin holds that
classification; ``ServerConnection`` supplies the live client and the restart hooks.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp import Client, MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from pydantic import ValidationError

from agent_tui.mcp.config import ServerConfig
from agent_tui.mcp.errors import McpCallError, describe

T = TypeVar("T")
#: Pages walked at most in one listing (a paginator that never ends cannot hang us).
MAX_PAGES = 1000


async def all_pages(fetch: Callable[[str | None], Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a paginated MCP listing (``tools``, ``resources``, ``prompts``)."""
    found: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        found.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return found


class ServerRequests:
    """Classified requests; the subclass provides the client and the restart hooks."""

    name: str
    config: ServerConfig
    timeout: float
    capabilities: types.ServerCapabilities | None
    _timeouts: int

    async def _ready_client(self, timeout: float) -> Client:
        raise NotImplementedError

    def _mark_dead(self, client: Client | None, reason: str) -> None:
        raise NotImplementedError

    def restart(self, reason: str = "restart requested") -> None:
        raise NotImplementedError

    def stderr_tail(self, lines: int = 2) -> str:
        raise NotImplementedError

    async def stderr_settled(self) -> None:
        raise NotImplementedError

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
                tail = ""
                if self.config.transport == "stdio":
                    await self.stderr_settled()
                    tail = self.stderr_tail()
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
        return await self.request(
            "resources/list",
            lambda c, left: all_pages(lambda cursor: c.list_resources(cursor=cursor), "resources"),
            timeout,
        )

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
        return await self.request(
            "prompts/list",
            lambda c, left: all_pages(lambda cursor: c.list_prompts(cursor=cursor), "prompts"),
            timeout,
        )

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None, timeout: float | None = None
    ) -> types.GetPromptResult:
        return await self.request(
            f"prompt {name!r}", lambda c, left: c.get_prompt(name, arguments), timeout
        )
