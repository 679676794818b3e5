"""A fake ToolContext that records what the tools told it (the agent implements the real one)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.activefiles import covers, line_count
from agent_tui.core.hashing import content_hash
from agent_tui.core.results import MemoryResultStore
from agent_tui.tools.base import ToolResult


@dataclass
class FakeContext:
    """A ToolContext that records what the tools told it."""

    workspace: Path
    results: MemoryResultStore = field(default_factory=MemoryResultStore)
    model: str | None = None
    seen: dict[str, str] = field(default_factory=dict)
    parts: dict[str, list[tuple[int, int]] | None] = field(default_factory=dict)
    """What the model was shown of each seen text: line spans, or None for all of it."""
    reads: list[tuple[str, str]] = field(default_factory=list)
    edits: list[tuple[str, str]] = field(default_factory=list)
    memos: list[str] = field(default_factory=list)
    edit_kinds: list[str] = field(default_factory=list)
    memories: list[dict[str, Any]] = field(default_factory=list)
    journal: list[tuple[str, bytes | None, bytes]] = field(default_factory=list)

    def note_read(self, path: str, content: str, lines: list[tuple[int, int]] | None = None) -> None:
        h = content_hash(content)
        known = self.parts.get(path, []) if self.seen.get(path) == h else []
        spans = None if lines is None or known is None else [*known, *lines]
        self.parts[path] = None if spans is not None and covers(spans, line_count(content)) else spans
        self.seen[path] = h
        self.reads.append((path, content))

    def note_edit(self, path: str, content: str, kind: str = "edit") -> None:
        self.parts[path] = None if kind != "edit" else self.parts.get(path, [])
        self.seen[path] = content_hash(content)
        self.edits.append((path, content))
        self.edit_kinds.append(kind)

    def last_seen_hash(self, path: str) -> str | None:
        return self.seen.get(path)

    def seen_part(self, path: str) -> list[tuple[int, int]] | None:
        return self.parts.get(path, [])

    @contextmanager
    def journaled(self, path: str, before: bytes | None, after: bytes) -> Iterator[None]:
        self.journal.append((path, before, after))
        try:
            yield
        except BaseException:
            self.journal.pop()
            raise

    def save_memo(self, text: str) -> str:
        self.memos.append(text)
        return f"memo{len(self.memos)}"

    def recall(self, query: str, limit: int = 5) -> list[dict[str, Any]]:
        words = query.lower().split()
        found = [m for m in self.memories if any(w in m["content"].lower() for w in words)]
        return found[:limit]


Call = Callable[..., Awaitable[ToolResult]]
