"""Server resources as pinnable context items, server prompts as slash commands.

Resources are reference material the *user* chooses to inject (a schema, a runbook),
so each becomes a context item with its token count and provenance, which the user
can pin like a project rule.  Prompts are templates the user invokes: each becomes a
``/server__prompt`` command whose arguments are given as ``key=value`` or in order.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from agent_tui.core.tokens import counter_for
from agent_tui.core.tool_names import qualify
from agent_tui.mcp.results import render_block


@dataclass(frozen=True)
class ResourceInfo:
    """One listed resource (not read yet)."""

    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class ResourceContent:
    """A read resource, ready to be injected (and pinned) as a context item."""

    server: str
    uri: str
    text: str
    tokens: int
    mime_type: str | None = None

    @property
    def item_id(self) -> str:
        return f"res:{self.server}:{self.uri}"

    def to_item(self, pinned: bool = False, turn: int = 0) -> Any:
        """A ``ContextItem`` (category ``files``) carrying the resource text and its provenance."""
        from agent_tui.core.items import Category, ContextItem, Priority, Scope

        return ContextItem(
            id=self.item_id,
            category=Category.FILES,
            content=self.text,
            tokens=self.tokens,
            pinned=pinned,
            priority=Priority.HIGH if pinned else Priority.MEDIUM,
            scope=Scope.SESSION,
            turn=turn,
            provenance={"mcp_server": self.server, "uri": self.uri, "mime_type": self.mime_type},
        )


def resource_info(server: str, resource: types.Resource) -> ResourceInfo:
    return ResourceInfo(
        server=server,
        uri=str(resource.uri),
        name=resource.title or resource.name,
        description=resource.description or "",
        mime_type=resource.mime_type,
        size=resource.size,
    )


def resource_content(
    server: str, uri: str, result: types.ReadResourceResult, model: str | None = None
) -> ResourceContent:
    """The text of a read resource (binary parts described, not inlined)."""
    parts: list[str] = []
    mime: str | None = None
    for content in result.contents:
        mime = mime or content.mime_type
        if isinstance(content, types.TextResourceContents):
            parts.append(content.text)
        else:
            parts.append(render_block(types.EmbeddedResource(type="resource", resource=content)))
    text = "\n".join(parts)
    return ResourceContent(server, uri, text, counter_for(model).count(text), mime)


@dataclass(frozen=True)
class PromptArg:
    name: str
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class PromptCommand:
    """A server prompt offered as a slash command."""

    server: str
    name: str
    command: str
    description: str = ""
    arguments: tuple[PromptArg, ...] = field(default_factory=tuple)

    def usage(self) -> str:
        args = " ".join(f"{a.name}=…" if a.required else f"[{a.name}=…]" for a in self.arguments)
        return f"/{self.command} {args}".rstrip()

    def parse(self, text: str) -> dict[str, str]:
        """Arguments from the text after the command: ``key=value`` words or values in order."""
        values: dict[str, str] = {}
        positional = [a.name for a in self.arguments]
        try:
            tokens = shlex.split(text)
        except ValueError:
            tokens = text.split()
        for token in tokens:
            key, sep, value = token.partition("=")
            if sep and key in positional:
                values[key] = value
            else:
                free = [n for n in positional if n not in values]
                if free:
                    values[free[0]] = token
        missing = [a.name for a in self.arguments if a.required and a.name not in values]
        if missing:
            raise ValueError(
                f"/{self.command}: missing {', '.join(missing)}; usage: {self.usage()}"
            )
        return values


def prompt_command(server: str, prompt: types.Prompt) -> PromptCommand:
    args = tuple(
        PromptArg(a.name, bool(a.required), a.description or "") for a in (prompt.arguments or [])
    )
    return PromptCommand(
        server, prompt.name, qualify(server, prompt.name), prompt.description or "", args
    )


def prompt_messages(result: types.GetPromptResult) -> list[dict[str, str]]:
    """The prompt's messages as chat messages (content blocks rendered to text)."""
    return [{"role": str(m.role), "content": render_block(m.content)} for m in result.messages]
