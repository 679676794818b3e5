"""The two meta-tools that keep every MCP tool reachable while few are loaded.

``find_tools(query)`` searches all tools (loaded or not) and answers with one line
each: name, arguments, what it does.  ``enable_tools(names)`` loads tools, groups or
globs so they are in the next request.  The ``enable_tools`` description carries a
compact catalogue of the groups (and tool names while they fit), so the model knows
what exists without a round trip; it changes only when a server's tool list does.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_tui.core.tokens import counter_for
from agent_tui.mcp import defs
from agent_tui.mcp.catalog import ToolEntry, words
from agent_tui.mcp.selection import score

FIND_TOOLS = "find_tools"
ENABLE_TOOLS = "enable_tools"
META_TOOLS = (FIND_TOOLS, ENABLE_TOOLS)


def catalog(
    groups: dict[str, list[str]],
    entries: dict[str, ToolEntry],
    notes: dict[str, Iterable[str]],
    max_tokens: int,
) -> str:
    """``group: tool, tool, ...`` lines (plus server-wide notes); group names only if too long."""
    counter = counter_for(None)
    full_lines: list[str] = []
    short_lines: list[str] = []
    for group, members in groups.items():
        names = [entries[m].name for m in members if m in entries]
        if not names:
            continue
        note = " ".join(notes.get(group, ()))
        suffix = f" ({note})" if note else ""
        full_lines.append(f"{group}: {', '.join(names)}{suffix}")
        short_lines.append(f"{group} ({len(names)} tools){suffix}")
    text = "\n".join(full_lines)
    if counter.count(text) <= max_tokens:
        return text
    return "\n".join(short_lines)


def definitions(catalog_text: str) -> list[dict[str, object]]:
    """The meta-tools as OpenAI function definitions."""
    find = defs.function(
        FIND_TOOLS,
        "Search all MCP tools, loaded or not, by what you need; returns name, arguments and purpose. "
        "Use when no loaded tool fits.",
        {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
        },
    )
    enable = defs.function(
        ENABLE_TOOLS,
        "Load MCP tools (server__tool names, groups or globs) so you can call them. "
        "Tools are named server__tool. Available:\n" + catalog_text,
        {
            "type": "object",
            "properties": {"names": {"type": "array", "items": {"type": "string"}}},
            "required": ["names"],
        },
    )
    return [find, enable]


def line(entry: ToolEntry, loaded: bool) -> str:
    mark = " [loaded]" if loaded else ""
    return f"- {entry.qualified}{entry.signature}: {entry.summary}{mark}"


def find_tools(
    query: str, entries: dict[str, ToolEntry], loaded: Iterable[str], limit: int = 8
) -> str:
    """The best matches for ``query`` (words and substrings of names), one line each."""
    loaded_set = set(loaded)
    wanted = set(words(query))
    needle = query.strip().lower()
    ranked = []
    for q, entry in entries.items():
        points = score(wanted, entry) + (3 if wanted & set(words(entry.server)) else 0)
        if needle and needle in q.lower():
            points += 5
        if points > 0:
            ranked.append((points, q))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    hits = [entries[q] for _, q in ranked[: max(1, min(limit, 25))]]
    if not hits:
        return f"No MCP tool matches {query!r}. Try other words, or enable a group by name."
    body = "\n".join(line(e, e.qualified in loaded_set) for e in hits)
    return f"{len(hits)} of {len(ranked)} matching tools (call enable_tools with the names you need):\n{body}"


def enable_tools(
    added: list[str], already: list[str], unknown: list[str], entries: dict[str, ToolEntry]
) -> str:
    """What ``enable_tools`` tells the model: what is now callable, and what was not found."""
    parts: list[str] = []
    if added:
        parts.append(
            "Enabled (callable now):\n" + "\n".join(line(entries[q], False) for q in added)
        )
    if already:
        parts.append("Already loaded: " + ", ".join(already))
    if unknown:
        parts.append("Unknown (use find_tools): " + ", ".join(unknown))
    return "\n".join(parts) or "Nothing to enable."
