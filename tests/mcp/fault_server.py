"""An MCP server that misbehaves on demand, so the client's fault handling is tested for real.

Real servers rarely hang, crash or lie on cue; this one does: ``slow`` hangs, ``crash``
exits the process, ``huge`` floods, ``malformed`` writes a junk line and a result that
breaks the schema, ``add_tool`` changes the tool list at run time.  It lists its tools in
pages of three, so the client's pagination is exercised too.  It speaks the 2026-07-28
protocol (the SDK's Python servers do), over stdio by default or streamable HTTP with
``--http PORT``.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import sys
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context, Image
from mcp.server.stdio import stdio_server
from mcp_types import ListToolsResult, PaginatedRequestParams, ToolAnnotations

PAGE = 3

# A real PNG (1x1) so image blocks carry valid base64.
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

_raw_stdout: Any = None  # the wire, kept so ``malformed`` can write around the SDK


class PagedServer(MCPServer):
    """MCPServer lists all tools at once; this one pages them to test client pagination."""

    async def _handle_list_tools(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        tools = await self.list_tools()
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE
        return ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )


mcp = PagedServer("fault")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Echo the text back. Use when checking that the server answers."""
    return text


@mcp.tool()
async def slow(seconds: float = 3600.0) -> str:
    """Sleep for the given seconds, then answer (a hang when long)."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@mcp.tool()
def crash(code: int = 7) -> str:
    """Exit the server process at once, without answering."""
    os._exit(code)


@mcp.tool()
def die(message: str = "FATAL: the licence expired", code: int = 3) -> str:
    """Write a last line to stderr and exit (a server that gives up after it started)."""
    print(message, file=sys.stderr, flush=True)
    os._exit(code)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def env(name: str) -> str:
    """An environment variable and the working directory of the server."""
    return json.dumps({"value": os.environ.get(name), "cwd": os.getcwd()})


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def huge(kb: int = 400, error_every: int = 997) -> str:
    """A large log-like text of ``kb`` kilobytes with an ERROR line every ``error_every`` lines."""
    out = io.StringIO()
    i = 0
    while out.tell() < kb * 1024:
        i += 1
        if i % error_every == 0:
            out.write(
                f"{i:06d} ERROR worker-{i % 5} request /api/v1/items/{i} failed: ValueError: bad item\n"
            )
        else:
            out.write(
                f"{i:06d} INFO worker-{i % 5} handled request /api/v1/items/{i * 7 % 1000} in {i % 97} ms\n"
            )
    return out.getvalue()


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def rows(n: int = 500) -> list[dict[str, Any]]:
    """``n`` JSON rows (structured output, sent as text and structured content)."""
    return [
        {"id": i, "name": f"item-{i}", "price": round(i * 1.25, 2), "tags": ["a", "b"]}
        for i in range(n)
    ]


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def noisy() -> str:
    """HTML with ANSI colour codes and a base64 blob: noise the client must clean."""
    blob = base64.b64encode(os.urandom(3000)).decode()
    return (
        "<html><body><h1>Report</h1><p>\x1b[31mFAILED\x1b[0m test_login</p>"
        f"<img src='data:image/png;base64,{blob}'/><p>\x1b[32mpassed\x1b[0m 41 tests</p></body></html>"
    )


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def picture() -> Image:
    """A tiny PNG image block."""
    return Image(data=_PNG, format="png")


@mcp.tool()
async def malformed(ctx: Context) -> str:
    """Write a junk line, then a result for this call that breaks the schema."""
    request_id: Any = ctx.request_id
    if isinstance(request_id, str) and request_id.isdigit():
        request_id = int(request_id)
    bad = {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"content": "not-a-list", "isError": "maybe"},
    }
    await _raw_stdout.write("this is not json {{{\n" + json.dumps(bad) + "\n")
    await _raw_stdout.flush()
    await anyio.sleep(0.5)
    return "the real answer, too late"


@mcp.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Register a new tool ``name`` at run time and announce the tool-list change."""

    def extra(text: str = "") -> str:
        return f"{name}: {text}"

    mcp.add_tool(extra, name=name, description=f"Dynamically added tool {name}.")
    try:  # 2026-07-28: to subscriptions/listen streams
        await ctx.notify_tools_changed()
    except Exception as exc:  # no listener is fine
        print(f"notify failed: {exc!r}", file=sys.stderr)
    if ctx.protocol_version and ctx.protocol_version < "2026":  # handshake era: a notification
        await ctx.session.send_tool_list_changed()
    return f"added {name}"


@mcp.resource("fault://readme", mime_type="text/markdown")
def readme() -> str:
    """The fault server's readme."""
    return "# Fault server\nHangs, crashes and floods on demand.\n"


@mcp.prompt()
def triage(component: str) -> str:
    """Ask the model to triage a failing component."""
    return f"Triage the failures in {component}: list causes, then the first thing to check."


async def _serve_stdio() -> None:
    global _raw_stdout
    stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(os.dup(0), "rb"), encoding="utf-8"))
    _raw_stdout = anyio.wrap_file(io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), encoding="utf-8"))
    async with stdio_server(stdin, _raw_stdout) as (read_stream, write_stream):
        low = mcp._lowlevel_server
        await low.run(read_stream, write_stream, low.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=0, help="serve streamable HTTP on this port")
    args = parser.parse_args()
    print(f"fault server starting pid={os.getpid()}", file=sys.stderr, flush=True)
    if args.http:
        mcp.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        anyio.run(_serve_stdio)


if __name__ == "__main__":
    main()
