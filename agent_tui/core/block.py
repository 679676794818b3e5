"""The compaction block: what a compaction event carries forward, frozen until the next one.

Between the stable head (system prompt, tools, pins) and the append-only
history sit the protected files' text, one message per file, and one message
holding the rolling summary, the latest progress memo and recalled memories, as
they were at the last compaction event.  It is rebuilt only by an event (or a
resume), so every request between two events starts with the same bytes and a
provider's prompt cache serves it.  A file that changes afterwards is not
rewritten here: its new text is appended to the history as a file note.

Across events the files come first and keep their order: a file whose text did
not change since the last event keeps its byte-identical message in the same
place, ahead of the files that changed and of the summary (which every event
rewrites), so an event re-bills only what changed — on sessions that carry many
files, most of the block stays a cached prefix.
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
FILE_HEADER = "## Active file (content as of the last compaction; later changes follow as file notes)"
FILE_HEADER_TOKENS = 20
"""About what the header and its newline cost (the cost model's estimate, not the budget's)."""


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
    """What the block shows (files first, in message order; then summary, memo, recalled memories)."""
    texts: list[str] = field(default_factory=list)
    """The messages' contents, byte-identical until the next event (one per file, then the rest)."""
    tokens: int = 0
    """Tokens of the messages (with their overhead)."""
    version: int = 0
    """Bumped by every rebuild (an event)."""

    @property
    def text(self) -> str:
        """All of the block as one string (empty when there is nothing to carry)."""
        return "\n\n".join(self.texts)

    def rebuild(self, items: Sequence[ContextItem], counter: TokenCounter) -> None:
        """Freeze ``items`` as the new block (called by a compaction event).  Files whose text is
        unchanged keep their place at the front, in the order of the last block; changed or new
        files follow, in the order given."""
        was = {it.id: (n, it.content) for n, it in enumerate(self.items) if it.category == Category.FILES}
        files = [it for it in items if it.category == Category.FILES]
        kept = sorted((it for it in files if was.get(it.id, (0, None))[1] == it.content),
                      key=lambda it: was[it.id][0])
        kept_ids = {it.id for it in kept}
        files = kept + [it for it in files if it.id not in kept_ids]
        rest = [it for it in items if it.category != Category.FILES]
        self.items = [_copy(it) for it in files + rest]
        self.texts = [f"{FILE_HEADER}\n{it.content}" for it in self.items[:len(files)]]
        tail = "\n\n".join(render_sections(self.items[len(files):], BLOCK_ORDER))
        if tail:
            self.texts.append(tail)
        self.tokens = sum(counter.count(t) + MESSAGE_OVERHEAD for t in self.texts)
        self.version += 1

    def stable_prefix(self, current: dict[str, str]) -> int:
        """Tokens of the block's leading file messages an event would keep byte-identical, given
        each active file's ``current`` rendered text by item id (a provider's cache keeps them)."""
        n = 0
        for it in self.items:
            if it.category != Category.FILES or current.get(it.id) != it.content:
                break
            n += it.tokens + FILE_HEADER_TOKENS + MESSAGE_OVERHEAD
        return n

    def messages(self) -> list[dict[str, Any]]:
        """The block as system messages right after the head (none when empty)."""
        return [{"role": "system", "content": t} for t in self.texts]

    def covers(self, item_id: str) -> bool:
        return any(it.id == item_id for it in self.items)


def _copy(it: ContextItem) -> ContextItem:
    return ContextItem(id=it.id, category=it.category, content=it.content, tokens=it.tokens, role=None,
                       pinned=it.pinned, priority=it.priority, scope=it.scope, state=it.state, turn=it.turn,
                       provenance=dict(it.provenance), created_at=it.created_at)
