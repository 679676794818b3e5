"""The compaction block: what a compaction event carries forward, frozen until the next one.

Between the stable head (system prompt, tools, pins) and the append-only
history sits one message holding the rolling summary, the latest progress memo,
recalled memories and the current text of the protected files, as they were at
the last compaction event.  It is rebuilt only by an event (or a resume), so
every request between two events starts with the same bytes and a provider's
prompt cache serves it.  A file that changes afterwards is not rewritten here:
its new text is appended to the history as a file note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.items import Category, ContextItem
from agent_tui.core.tokens import MESSAGE_OVERHEAD, TokenCounter

SECTION_HEADERS: dict[Category, str] = {
    Category.RULES: "## Project rules and pins (always apply)",
    Category.MEMORY: "## Memory and progress memos (for reference; may be outdated — verify before relying on it)",
    Category.SUMMARY: "## Summary of earlier conversation (extracted; originals are searchable with `recall`)",
    Category.FILES: "## Active files (content as of the last compaction; later changes follow as file notes)",
}
BLOCK_ORDER = (Category.MEMORY, Category.SUMMARY, Category.FILES)


def section_of(item: ContextItem) -> Category:
    """The block section an item renders in (anything unknown counts as a rule)."""
    return item.category if item.category in SECTION_HEADERS else Category.RULES


def render_sections(items: Sequence[ContextItem], order: Sequence[Category]) -> list[str]:
    """Items grouped under their section headers, in ``order``."""
    parts: list[str] = []
    for cat in order:
        these = [it for it in items if section_of(it) == cat]
        if cat == Category.MEMORY:
            these.sort(key=lambda x: x.created_at)
        if these:
            parts.append(SECTION_HEADERS[cat] + "\n" + "\n".join(it.content for it in these))
    return parts


@dataclass
class CompactionBlock:
    """The frozen block; ``items`` are copies as rendered at the event."""

    items: list[ContextItem] = field(default_factory=list)
    """What the block shows (summary, memo, recalled memories, files), as of the event."""
    text: str = ""
    """The message content, byte-identical until the next event."""
    tokens: int = 0
    """Tokens of the message (with its overhead)."""
    version: int = 0
    """Bumped by every rebuild (an event)."""

    def rebuild(self, items: Sequence[ContextItem], counter: TokenCounter) -> None:
        """Freeze ``items`` as the new block (called by a compaction event)."""
        self.items = [_copy(it) for it in items]
        self.text = "\n\n".join(render_sections(self.items, BLOCK_ORDER))
        self.tokens = counter.count(self.text) + MESSAGE_OVERHEAD if self.text else 0
        self.version += 1

    def message(self) -> dict[str, Any] | None:
        """The block as a system message right after the head (None when empty)."""
        return {"role": "system", "content": self.text} if self.text else None

    def covers(self, item_id: str) -> bool:
        return any(it.id == item_id for it in self.items)


def _copy(it: ContextItem) -> ContextItem:
    return ContextItem(id=it.id, category=it.category, content=it.content, tokens=it.tokens, role=None,
                       pinned=it.pinned, priority=it.priority, scope=it.scope, state=it.state, turn=it.turn,
                       provenance=dict(it.provenance), created_at=it.created_at)
