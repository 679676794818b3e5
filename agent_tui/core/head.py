"""The stable head segment: the system prompt, the tool definitions and the pins.

It changes only when the user pins or unpins something or the loaded tool set
changes (DESIGN §1), so a provider's prompt cache serves it on every request.
This module owns the system prompt item and the tool items, and sorts the
session's non-message items into what the head carries and what waits for the
compaction block (or has left the window), with the reason for the trace.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_tui.core.block import CompactionBlock
from agent_tui.core.items import Category, ContextItem, Scope, State
from agent_tui.core.text import clean_text
from agent_tui.core.tokens import TokenCounter
from agent_tui.core.tool_items import ToolItems

DEFAULT_SYSTEM = "You are a careful coding agent."


class Head:
    """The head's own state: the system prompt and the tool definitions."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.system = ContextItem(id="sys", category=Category.SYSTEM, content=DEFAULT_SYSTEM,
                                  tokens=counter.count(DEFAULT_SYSTEM), pinned=True, scope=Scope.GLOBAL)
        """The system prompt (always sent first)."""
        self.tool_items = ToolItems()
        """Tool definitions as items (``tool:NAME``): their tokens, and the ones the user disabled."""
        self.tools_tokens = 0
        """Tokens of the tool definitions the latest request sent (the cost model counts them)."""

    def set_prompt(self, text: str) -> None:
        self.system.content = clean_text(text)
        self.system.tokens = self.counter.count(self.system.content)

    def pins(self, blocks: Iterable[ContextItem]) -> list[ContextItem]:
        """Pinned items that are not messages (rules, pinned memos or summaries)."""
        return [it for it in blocks if it.pinned]

    def sort(self, blocks: Iterable[ContextItem], block: CompactionBlock,
             carried: Iterable[ContextItem]) -> tuple[list[ContextItem], list[tuple[ContextItem, str]]]:
        """The head's items (pins, and pinned messages carried out of their groups) and the
        non-message items it leaves out, with why (superseded, evicted, waiting for an event)."""
        head: list[ContextItem] = []
        excluded: list[tuple[ContextItem, str]] = []
        for it in blocks:
            if it.category == Category.SUMMARY:
                if it.pinned:
                    head.append(it)
                elif it.state != State.IN:
                    excluded.append((it, f"superseded by {it.summarised_into}" if it.summarised_into else str(it.state)))
                elif not block.covers(it.id):
                    excluded.append((it, "waits for the next compaction event"))
                continue
            if it.pinned:
                head.append(it)
            elif it.category == Category.RULES:  # (no compaction event carries a rule: it rides pinned or not at all)
                excluded.append((it, "unpinned: no longer sent (pin it again to send it with every request)"))
            elif not it.in_window:
                excluded.append((it, str(it.state)))
            elif not block.covers(it.id):
                excluded.append((it, "waits for the next compaction event"))
        head += [carried_rule(it) for it in carried]
        return head, excluded


def carried_rule(item: ContextItem) -> ContextItem:
    """A pinned message whose group left the window, shown as a quoted rule (and counted in the gauge under its
    own category, as the inspector lists it: a pinned tool output is results, not a rule)."""
    text = f"Pinned {item.role} message {item.id}: {item.content}"
    return ContextItem(id=item.id, category=Category.RULES, content=text, tokens=item.tokens + 8, pinned=True,
                       turn=item.turn, created_at=item.created_at, provenance={"counted_as": str(item.category)})
