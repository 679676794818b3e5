"""The catalogue of every MCP tool: namespaced names, raw and shaped definitions, costs.

Tools from different servers share one flat namespace in the model's request, so each
is called ``server__tool``; names are made safe for provider function-name rules
(``^[A-Za-z0-9_-]{1,64}$``).  An entry is built once per listing and carries both its
raw cost (what a naive client sends) and its shaped cost (what we send), so every
token spent on definitions can be shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from agent_tui.core.tokens import counter_for
from agent_tui.core.tool_names import qualify
from agent_tui.mcp import defs

_WORD_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
STOPWORDS = frozenset(
    "a an and are as at be by can do for from get has have how i in into is it its me my of on or "
    "please the this that to use using was what when which with you your tool tools all any some "
    "then than there these those will would could should not no yes".split()
)


def stem(word: str) -> str:
    """A crude English stemmer: enough to match ``files``/``file``, ``reading``/``read``."""
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    """Lower-cased, stemmed words of ``text`` (camelCase, snake_case and kebab-case split)."""
    return [stem(w.lower()) for w in _WORD_RE.findall(text or "") if w.lower() not in STOPWORDS]


@dataclass(frozen=True)
class ToolEntry:
    """One MCP tool as the agent knows it."""

    server: str
    name: str
    qualified: str
    title: str
    raw: dict[str, Any]
    """The definition a naive client would send (full description and schema)."""
    shaped: dict[str, Any]
    """The definition we send."""
    listing: dict[str, Any]
    """The server's full tools/list entry (camelCase, as on the wire)."""
    tokens_raw: int
    tokens_shaped: int
    tokens_listing: int
    read_only: bool | None
    """The server's ``readOnlyHint`` (None when absent)."""
    open_world: bool | None
    """The server's ``openWorldHint`` (None when absent, which the MCP spec reads as true: the tool may
    reach outside systems, such as a web search)."""
    name_words: frozenset[str]
    desc_words: frozenset[str]
    summary: str
    signature: str
    deprecated: bool = False
    """Says so in its title or description: never loaded automatically."""

    @property
    def description(self) -> str:
        return str(self.shaped["function"]["description"])


def build_entries(
    server: str,
    tools: list[types.Tool],
    *,
    description_words: int = 30,
    param_words: int = 0,
    model: str | None = None,
) -> tuple[list[ToolEntry], frozenset[str]]:
    """Entries for one server's tools, and the clauses common to them (said once per server)."""
    counter = counter_for(model)
    dumps = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    common = defs.common_clauses([d.get("description") or "" for d in dumps])
    entries: list[ToolEntry] = []
    seen: set[str] = set()
    for tool, dump in zip(tools, dumps, strict=True):
        qualified = qualify(server, tool.name)
        if qualified in seen:  # two names that sanitise alike: keep them apart
            qualified = qualify(server, f"{tool.name}_{len(seen)}")
        seen.add(qualified)
        raw = defs.raw_function(qualified, dump)
        description = defs.shape_description(
            dump.get("description") or tool.title or "", description_words, common
        )
        params = defs.parameters(dump.get("inputSchema"), param_words)
        shaped = defs.function(qualified, description, params)
        annotations = tool.annotations
        entries.append(
            ToolEntry(
                server=server,
                name=tool.name,
                qualified=qualified,
                title=tool.title or "",
                raw=raw,
                shaped=shaped,
                listing=dump,
                tokens_raw=counter.count(defs.definition_text(raw)),
                tokens_shaped=counter.count(defs.definition_text(shaped)),
                tokens_listing=counter.count(defs.definition_text(dump)),
                read_only=annotations.read_only_hint if annotations is not None else None,
                open_world=annotations.open_world_hint if annotations is not None else None,
                name_words=frozenset(words(f"{tool.name} {tool.title or ''}")),
                desc_words=frozenset(words(dump.get("description") or "")),
                summary=defs.first_sentence(dump.get("description") or tool.title or ""),
                signature=defs.signature(params),
                deprecated="deprecated"
                in f"{tool.title or ''} {dump.get('description') or ''}".lower(),
            )
        )
    return entries, common
