"""The compaction block: what a compaction event carries forward, frozen until the next one.

Between the stable head (system prompt, tools, pins) and the append-only
history sit the protected files' text, one message per file, the rolling
summary, one message per event that added to it, and one message holding the
latest progress memo and recalled memories, as they were at the last compaction
event.  It is rebuilt only by an event (or a resume), so every request between
two events starts with the same bytes and a provider's prompt cache serves it.
A file that changes afterwards is not rewritten here: its new text is appended
to the history as a file note.

Across events the block is append-only too, as far as it can be: every message
of the last block that is still current — a file whose text did not change, a
summary segment not yet consolidated — keeps its bytes and its place at the
front; changed or new files follow, then the event's new summary segment, then
the memo.  So an event re-bills only what changed, and files that change often
drift to the back, where a change displaces little.
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
"""About what a message's header and its newline cost (the cost model's estimate, not the budget's)."""
HEAD_HEADER = "## Released file (only its import lines, as last read)"
"""The header of a released file's import lines (core/file_heads)."""
_SINGLE = (Category.FILES, Category.SUMMARY)
"""Categories carried one item per message (each can stay byte-identical across events)."""
_HEADER = {Category.FILES: FILE_HEADER, Category.SUMMARY: SECTION_HEADERS[Category.SUMMARY]}


LLM_SUMMARY_HEADER = "## Summary of earlier conversation (written by the model; originals are searchable with `recall`)"
"""A segment the summarising call wrote (the extractive one copies lines: "extracted")."""


def _header_of(item: ContextItem) -> str:
    if item.provenance.get("head"):
        return HEAD_HEADER
    if item.category == Category.SUMMARY and item.provenance.get("summariser") == "llm":
        return LLM_SUMMARY_HEADER
    return _HEADER[item.category]


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
    """What the block shows: files and summary segments in message order, then memo and recalls."""
    texts: list[str] = field(default_factory=list)
    """The messages' contents, byte-identical until the next event (one per file or segment, then
    one for the rest)."""
    tokens: int = 0
    """Tokens of the messages (with their overhead)."""
    version: int = 0
    """Bumped by every rebuild (an event)."""

    @property
    def text(self) -> str:
        """All of the block as one string (empty when there is nothing to carry)."""
        return "\n\n".join(self.texts)

    def rebuild(self, items: Sequence[ContextItem], counter: TokenCounter) -> None:
        """Freeze ``items`` as the new block (called by a compaction event).  Files and summary
        segments whose text is unchanged keep their place at the front, in the order of the last
        block; changed or new files follow, then new summary segments (in the order given), then
        the memo and recalled memories in one message."""
        was = {(it.id, it.content): n for n, it in enumerate(self.items) if it.category in _SINGLE}
        singles = [it for it in items if it.category in _SINGLE]
        kept = sorted((it for it in singles if (it.id, it.content) in was), key=lambda it: was[(it.id, it.content)])
        kept_ids = {it.id for it in kept}
        ordered = kept + [it for it in singles if it.id not in kept_ids and it.category == Category.FILES] \
            + [it for it in singles if it.id not in kept_ids and it.category == Category.SUMMARY]
        rest = [it for it in items if it.category not in _SINGLE]
        self.items = [_copy(it) for it in ordered + rest]
        heads = [f"{_header_of(it)}\n" for it in self.items[:len(ordered)]]
        self.texts = [h + it.content for h, it in zip(heads, self.items, strict=False)]
        # a file's or segment's text was counted when it was made: counted apart from its header
        tokens = [counter.count_joined(h, it.content) for h, it in zip(heads, self.items, strict=False)]
        tail = "\n\n".join(render_sections(self.items[len(ordered):], BLOCK_ORDER))
        if tail:
            self.texts.append(tail)
            tokens.append(counter.count(tail))
        self.tokens = sum(n + MESSAGE_OVERHEAD for n in tokens)
        self.version += 1

    def stable_prefix(self, current: dict[str, str]) -> int:
        """Tokens of the block's leading messages an event would keep byte-identical, given the
        ``current`` text by item id of every file and summary segment the next block will carry
        (a provider's cache keeps them)."""
        n = 0
        for it in self.items:
            if it.category not in _SINGLE or current.get(it.id) != it.content:
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
