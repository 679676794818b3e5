"""The import headers released files leave in the compaction block, as items the user controls.

When a file only read leaves the window (idle, or crowded out of the files share), its
import lines stay behind (:mod:`agent_tui.core.file_heads` says why and which lines).
Each one is an ``h:<path>`` item: carried by the next compaction blocks (so, like the
rest of the block, it enters and leaves the request only at an event), listed in the
inspector and ``memory list``, stored with the session so a resume carries the same ones.
A head goes when its file is active again (the whole text is back), when the heads
outgrow their share of the files budget (oldest first), when the task ends, or when the
user evicts it; pinning or restoring it brings the whole file back instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from agent_tui.core.file_heads import import_head
from agent_tui.core.item_actions import EngineError
from agent_tui.core.items import Category, ContextItem, Priority, Scope, State

PREFIX = "h:"
"""Id prefix of a released file's head (``h:<path>``)."""
HEADS_SHARE = 0.1
"""Share of the files budget the heads may take together (the oldest go first)."""


class ReleasedHeads:
    """The heads the next compaction blocks carry, oldest release first."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        """The engine served (plan, counter, active files, store)."""
        self.items: dict[str, ContextItem] = {}
        """Current heads by path, oldest first."""

    def keep(self, af: Any) -> None:
        """``af`` was just released: keep its import lines (if it has any and the model saw its top)."""
        self.drop(af.path, "replaced by a newer release")
        shown = not af.outline or af.edited  # a file seen as an outline or in parts: its top was not shown
        text = import_head(af.path, af.content) if shown and not af.missing and not af.dropped else None
        if text is None:
            return
        content = (f"### {af.path}: its import lines as last read (the file itself is no longer carried; "
                   f"read_file before other edits)\n```\n{text}\n```")
        item = ContextItem(id=PREFIX + af.path, category=Category.FILES, content=content,
                           tokens=self.engine.counter.count(content), priority=Priority.MEDIUM,
                           scope=Scope.SESSION, turn=self.engine.turn,
                           provenance={"path": af.path, "head": True, "step": self.engine.steps_total})
        self.items[af.path] = item
        self._save(item)
        cap = max(256, int(self.engine.plan.caps[Category.FILES] * HEADS_SHARE))
        total = sum(it.tokens for it in self.items.values())
        while total > cap and self.items:
            oldest = next(iter(self.items))
            total -= self.items[oldest].tokens
            self.drop(oldest, "the heads outgrew their share of the files budget")

    def drop(self, path: str, why: str) -> ContextItem | None:
        """Stop carrying ``path``'s head (from the next block on); the dropped item, if there was one."""
        item = self.items.pop(path, None)
        if item is not None:
            item.state = State.RELEASED
            item.provenance["why"] = why
            self._save(item)
        return item

    def clear(self, why: str) -> None:
        """Drop every head (the task ended)."""
        for path in list(self.items):
            self.drop(path, why)

    def current(self) -> list[ContextItem]:
        """The heads a block frozen now carries (a file active again carries its whole text instead)."""
        for path in [p for p in self.items if p in self.engine.files.files]:
            self.drop(path, "the file is active again")
        return list(self.items.values())

    def get(self, item_id: str) -> ContextItem | None:
        return self.items.get(item_id[len(PREFIX):])

    def load(self, rows: Iterable[ContextItem]) -> None:
        """A resumed session's current heads (stored rows still in)."""
        live = sorted((r for r in rows if r.state == State.IN), key=lambda r: r.created_at)
        self.items = {str(r.provenance.get("path") or r.id[len(PREFIX):]): r for r in live}

    def action(self, action: str, item_id: str) -> ContextItem:
        """The user's pin / unpin / evict / restore of a head: evicting drops it (one cache break: the
        block is frozen again now); pinning or restoring brings the whole file back as an active file."""
        path = item_id[len(PREFIX):]
        item = self.items.get(path)
        if action == "evict":
            if item is None:
                raise EngineError(f"{item_id} is not carried now")
            self.drop(path, "evicted by the user")
            self.engine.rebuild_block()
            return dataclasses.replace(item)
        if action == "unpin":
            raise EngineError(f"{item_id} is not pinned (pin f:{path} to keep the whole file)")
        from agent_tui.core.file_items import file_action

        return file_action(self.engine, action, f"f:{path}")

    def _save(self, item: ContextItem) -> None:
        store = self.engine.store
        if store is not None:
            store.save_item(self.engine.session_id, item)
