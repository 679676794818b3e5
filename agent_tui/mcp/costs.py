"""What MCP tool definitions cost, raw against shaped, so the saving is a measured number.

Three raw figures are kept apart because they answer different questions: the full
tools/list JSON (what the server sends), the tools as plain LLM functions (what a naive
client puts in every request) and what we actually send (meta-tools plus the loaded set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.core.tokens import counter_for
from agent_tui.mcp.catalog import ToolEntry
from agent_tui.mcp.defs import definition_text


@dataclass(frozen=True)
class ServerCosts:
    server: str
    tools: int
    tokens_listing: int
    tokens_raw: int
    tokens_shaped: int


@dataclass(frozen=True)
class DefinitionCosts:
    servers: tuple[ServerCosts, ...]
    tokens_listing: int
    """Full tools/list JSON of every server."""
    tokens_raw: int
    """Every tool as a plain LLM function (full description and schema)."""
    tokens_shaped_all: int
    """Every tool shaped, as if all were loaded."""
    tokens_meta: int
    """The two meta-tools with the catalogue."""
    tokens_sent: int
    """What the current tool schemas cost: meta-tools plus the loaded set."""

    @property
    def saving(self) -> float:
        """Share of the raw cost not sent (0.8 = 80 % fewer tokens)."""
        return 1 - self.tokens_sent / self.tokens_raw if self.tokens_raw else 0.0


def schemas_tokens(schemas: list[dict[str, Any]], model: str | None = None) -> int:
    counter = counter_for(model)
    return sum(counter.count(definition_text(s)) for s in schemas)


def definition_costs(
    entries: dict[str, ToolEntry],
    sent: list[dict[str, Any]],
    meta: list[dict[str, Any]],
    model: str | None = None,
) -> DefinitionCosts:
    per: dict[str, list[ToolEntry]] = {}
    for entry in entries.values():
        per.setdefault(entry.server, []).append(entry)
    servers = tuple(
        ServerCosts(
            server=name,
            tools=len(items),
            tokens_listing=sum(e.tokens_listing for e in items),
            tokens_raw=sum(e.tokens_raw for e in items),
            tokens_shaped=sum(e.tokens_shaped for e in items),
        )
        for name, items in per.items()
    )
    return DefinitionCosts(
        servers=servers,
        tokens_listing=sum(s.tokens_listing for s in servers),
        tokens_raw=sum(s.tokens_raw for s in servers),
        tokens_shaped_all=sum(s.tokens_shaped for s in servers),
        tokens_meta=schemas_tokens(meta, model),
        tokens_sent=schemas_tokens(sent, model),
    )
