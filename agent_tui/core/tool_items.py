"""Tool definitions as items: one ``tool:NAME`` per tool, with its token cost.

Tool definitions are often the largest part of a request (1,910 tokens, 35 % of the demo's),
yet they were a single number nobody could inspect, and the inspector's total disagreed with
the gauge's.  Each definition is now an item of category ``tools`` — built-in and MCP alike —
listed by the inspector and ``memory list --all``; the tools category of the breakdown is the
sum of the items sent.  Evicting one disables the tool for the session (it leaves the next
request; restore brings it back).  Rows are written to the store only when the tool set or a
tool's state changes, so the CLI sees them and a resumed session keeps what was disabled.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_tui.core.item_actions import EngineError
from agent_tui.core.items import Category, ContextItem, Priority, Scope, State
from agent_tui.core.tool_names import spellings

PREFIX = "tool:"
META_TOOLS = ("find_tools", "enable_tools")
"""The MCP context-mode tools that load groups of MCP tools on demand."""


def tool_name(schema: dict[str, Any]) -> str:
    fn = schema.get("function") if isinstance(schema.get("function"), dict) else schema
    return str(fn.get("name") or "?")


def source_of(name: str) -> str:
    if "__" in name:
        return f"mcp:{spellings(name)[-1].split('__', 1)[0]}"  # the server as the user named it
    return "mcp" if name in META_TOOLS else "built-in"


class ToolItems:
    """The tool definitions of one engine's requests, as items."""

    def __init__(self) -> None:
        self.items: dict[str, ContextItem] = {}
        self.disabled: set[str] = set()
        self._tokens: dict[str, tuple[str, int]] = {}
        self._saved: dict[str, tuple[str, str]] = {}

    def load(self, rows: Sequence[ContextItem]) -> None:
        """Rows from the store: the tools seen, and the ones the user disabled."""
        for row in rows:
            name = row.id[len(PREFIX):]
            self.items[row.id] = row
            self._saved[row.id] = (row.content, str(row.state))
            if row.state == State.EVICTED:
                self.disabled.add(name)
            else:
                self.disabled.discard(name)

    def adopt(self, rows: Sequence[ContextItem]) -> bool:
        """Rows another process wrote (``memory evict tool:NAME``); True if a tool's state changed."""
        before = set(self.disabled)
        for row in rows:
            mine = self.items.get(row.id)
            if mine is None or str(mine.state) != str(row.state):
                self.load([row])
        return self.disabled != before

    def apply(self, engine: Any, tools: Sequence[dict[str, Any]] | None) -> tuple[list[dict[str, Any]], int]:
        """(the tools to send, their tokens): disabled tools left out, one item per tool kept current."""
        sent: list[dict[str, Any]] = []
        total = 0
        writes: list[ContextItem] = []
        for schema in tools or ():
            name, text, n = self._count(engine, schema)
            cached = (text, n)
            item_id = PREFIX + name
            state = State.EVICTED if name in self.disabled else State.IN
            item = self.items.get(item_id)
            if item is None or item.content != text or item.tokens != cached[1]:
                item = ContextItem(id=item_id, category=Category.TOOLS, content=text, tokens=cached[1],
                                   priority=Priority.MEDIUM, scope=Scope.SESSION, state=state, turn=engine.turn,
                                   provenance={"tool": name, "source": source_of(name)})
                self.items[item_id] = item
            item.state = state
            if self._saved.get(item_id) != (text, str(state)):
                writes.append(item)
                self._saved[item_id] = (text, str(state))
            if state == State.IN:
                sent.append(schema)
                total += cached[1]
        if writes and engine.store is not None:
            with engine._store_batch():
                for item in writes:
                    engine.store.save_item(engine.session_id, item)
        return sent, total

    def _count(self, engine: Any, schema: dict[str, Any]) -> tuple[str, str, int]:
        name = tool_name(schema)
        text = json.dumps(schema, sort_keys=True, ensure_ascii=False)
        cached = self._tokens.get(name)
        if cached is None or cached[0] != text:
            cached = self._tokens[name] = (text, engine.counter.count(text))
        return name, text, cached[1]

    def tokens(self, engine: Any, tools: Sequence[dict[str, Any]] | None) -> int:
        """What ``tools`` cost as sent (disabled ones cost nothing); writes nothing."""
        return sum(n for name, _, n in (self._count(engine, s) for s in tools or ()) if name not in self.disabled)

    def trace(self, asm: Any, sent: Sequence[dict[str, Any]]) -> None:
        """Trace entries for the tools: each one sent with its tokens, each disabled one left out."""
        from agent_tui.core.assembler import TraceEntry

        names = {tool_name(s) for s in sent}
        for item_id, item in self.items.items():
            name = item_id[len(PREFIX):]
            if name in names:
                asm.trace.append(TraceEntry(item_id, True, "tool definition", item.tokens))
            elif name in self.disabled:
                asm.trace.append(TraceEntry(item_id, False, "disabled for this session", item.tokens))

    def action(self, engine: Any, action: str, item_id: str) -> ContextItem:
        """evict disables a tool for the session, restore enables it; tools are not pinned."""
        item = self.items.get(item_id)
        if item is None:
            if not self.items:
                raise EngineError(f"no item {item_id} (tools appear once a request has been assembled)")
            known = ", ".join(sorted(i[len(PREFIX):] for i in self.items)[:12])
            raise EngineError(f"no tool {item_id[len(PREFIX):]!r}; the tools are: {known}"
                              + (" …" if len(self.items) > 12 else ""))
        name = item_id[len(PREFIX):]
        if action == "evict":
            self.disabled.add(name)
            item.state = State.EVICTED
        elif action == "restore":
            self.disabled.discard(name)
            item.state = State.IN
        else:
            raise EngineError(f"{item_id} is a tool definition: evict disables it for the session, "
                              "restore enables it; it cannot be pinned")
        if engine.store is not None:
            engine.store.save_item(engine.session_id, item)
        self._saved[item_id] = (item.content, str(item.state))
        engine.history.version += 1
        return item
