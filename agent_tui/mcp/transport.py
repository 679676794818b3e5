"""Open a server's transport so that its death is noticed at once.

The SDK's stdio transport closes its read stream when the server's stdout ends
(the process died), and pending requests fail with "Connection closed" — but an
*idle* connection gives no sign, so the next call would fail too.  Wrapping the read
stream lets the connection learn of the end as it happens and restart the server
before anyone calls it.  Server stderr goes to a log file (redacted, ``server_log``), never to our
terminal.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from types import TracebackType
from typing import Any, TextIO

import anyio
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from agent_tui.mcp.config import ServerConfig


class EofWatchStream:
    """A read stream that calls ``on_eof`` once when the underlying stream ends."""

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._inner = inner
        self._on_eof = on_eof

    def _ended(self) -> None:
        callback, self._on_eof = self._on_eof, _nothing
        callback()

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended()
            raise

    def __aiter__(self) -> EofWatchStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.__anext__()
        except (StopAsyncIteration, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> EofWatchStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)

    def __getattr__(self, name: str) -> Any:  # last_context and friends
        return getattr(self._inner, name)


def _nothing() -> None:
    return None


def server_env(server: ServerConfig) -> dict[str, str]:
    """What a stdio server gets on top of the SDK's safe defaults: its own ``env``, and
    ``PYTHONSAFEPATH=1`` for a ``python -m``/``-c`` server from the TOML config, so Python (3.11+) does
    not import modules of the folder it runs in (a cloned ``mcp_server_time.py``) before the real one.

    A script (``python ~/srv/server.py``) keeps its own folder on ``sys.path`` (its siblings); a
    workspace ``.mcp.json`` server, trusted to run the project's code, runs as written; a server's
    own ``env = { PYTHONSAFEPATH = "" }`` turns it off."""
    env = dict(server.env)
    if server.source == "config" and any(a in ("-m", "-c") for a in server.args):
        env.setdefault("PYTHONSAFEPATH", "1")
    return env


def stdio_parameters(server: ServerConfig) -> StdioServerParameters:
    """The SDK's spawn parameters for a stdio server (env merged over the safe defaults)."""
    assert server.command is not None
    return StdioServerParameters(
        command=server.command,
        args=list(server.args),
        env=server_env(server) or None,
        cwd=server.cwd,
        encoding_error_handler="replace",
    )


@asynccontextmanager
async def open_transport(
    server: ServerConfig, stderr: Callable[[], TextIO], on_eof: Callable[[], None]
) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams for ``server``; ``on_eof`` fires when the server goes away.
    ``stderr`` gives the file a stdio server writes its stderr to (``server_log.ServerLog``)."""
    async with AsyncExitStack() as stack:
        if server.url:
            http_client = None
            if server.headers:
                from mcp.shared._httpx_utils import create_mcp_http_client

                client = create_mcp_http_client(headers=dict(server.headers))
                http_client = await stack.enter_async_context(client)
            transport = streamable_http_client(server.url, http_client=http_client)
        else:
            transport = stdio_client(stdio_parameters(server), errlog=stderr())
        read, write = await stack.enter_async_context(transport)
        yield EofWatchStream(read, on_eof), write
