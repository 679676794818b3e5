"""What a user does to items: pin, unpin, evict (drop), restore.

Kept apart from the engine's bookkeeping because the rules are the product's
promises: a pin is never evicted, the current task and active files cannot be
dropped, an evicted call takes its results with it, and a restored item comes
back verbatim with its call or results and is spared by compaction for a while.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tui.core.items import Category, ContextItem, Scope, State

SPECIAL = ("f:", "h:", "ins:", "tool:")
"""Id prefixes of items that are not messages (active files, released files' import lines, instruction
files, tool definitions)."""


class EngineError(Exception):
    """A user action on items that cannot be done (unknown id, unpinning the system prompt...)."""


def restorable(item: ContextItem) -> bool:
    """Whether restoring ``item`` brings something back: it is out of the window, or in as a stub."""
    return item.state not in (State.IN, State.STALE) or "stub" in item.provenance


class ItemActions:
    """The user's actions on one session's items (pin, unpin, evict, restore)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        """The engine whose items these act on (its items, turn, tool items and ``_save``)."""

    def pin(self, item_id: str) -> ContextItem:
        """Keep the item in every request (in the head) until unpinned; never evicted."""
        return self._moving_block(item_id, self._pin)

    def unpin(self, item_id: str) -> ContextItem:
        """Let the item age and be compacted like any other again."""
        return self._moving_block(item_id, self._unpin)

    def evict(self, item_id: str) -> ContextItem:
        """Drop the item from the window (kept in the store; ``restore`` brings it back)."""
        return self._moving_block(item_id, self._evict)

    def restore(self, item_id: str) -> ContextItem:
        """Bring the item back verbatim (see ``_restore``)."""
        return self._moving_block(item_id, self._restore)

    def _moving_block(self, item_id: str, action: Callable[[str], ContextItem]) -> ContextItem:
        """Run ``action``; if it moved an item into or out of what the compaction block carries (a
        summary segment or memo pinned into the head, unpinned, evicted or restored; an active file the block
        carries evicted), freeze the block again, so the request carries the item once, where it now belongs.  The user changed
        the prefix on purpose: one cache break, as a pin in the head already is."""
        comp = self.engine.compactor
        was = any(it.id == item_id for it in comp.block.items)
        item = action(item_id)
        if item_id.startswith("f:"):  # an active file the block froze: evicted, it leaves it now (an evict said
            if was and item_id[2:] not in self.engine.files.files:  # "released", and every request carried it)
                self.engine.rebuild_block()  # (one brought back rides in a file note until the next event)
        elif item.role is None and not item_id.startswith(SPECIAL) \
                and was != any(it.id == item_id for it in comp.carried()):
            self.engine.rebuild_block()
        return item

    def _pin(self, item_id: str) -> ContextItem:
        if item_id.startswith(SPECIAL):
            return self._special_action("pin", item_id)
        item = self._mutable(item_id)
        item.pinned = True
        if item.state in (State.EVICTED, State.SUMMARISED):
            item.state = State.IN
        self.engine._save(item)
        return item

    def _unpin(self, item_id: str) -> ContextItem:
        if item_id.startswith(SPECIAL):
            return self._special_action("unpin", item_id)
        item = self._mutable(item_id)
        item.pinned = False
        if item.category == Category.RULES:  # a rule rides pinned or not at all: unpinned, it is out (it showed "in")
            item.state = State.EVICTED
        self.engine._save(item)
        return item

    def _evict(self, item_id: str) -> ContextItem:
        if item_id.startswith(SPECIAL):
            return self._special_action("evict", item_id)
        item = self._mutable(item_id)
        if item.pinned:
            raise EngineError(f"{item_id} is pinned; unpin it before evicting")
        if item.role == "user" and item.turn == self.engine.turn:
            raise EngineError(f"{item_id} is the current task; it cannot be evicted")
        item.state = State.EVICTED
        item.provenance.pop("restored_turn", None)
        for other in self.results_of(item):
            if not other.pinned:
                other.state = State.EVICTED
                other.provenance.pop("restored_turn", None)
                self.engine._save(other)
        self.engine._save(item)
        return item

    def results_of(self, item: ContextItem) -> list[ContextItem]:
        """The tool results answering an assistant message's calls (none for other items)."""
        if item.role != "assistant" or not item.tool_calls:
            return []
        ids = {c.get("id") for c in item.tool_calls}
        return [o for o in self.engine.items.values() if o.role == "tool" and o.tool_call_id in ids]

    def _bring_back(self, item: ContextItem) -> None:
        item.state = State.IN
        item.summarised_into = None
        for key in ("stub", "stub_tokens"):
            item.provenance.pop(key, None)
        if item.role == "tool":
            item.scope = Scope.SESSION
        self.engine._save(item)

    def _restore(self, item_id: str) -> ContextItem:
        """Bring an item back verbatim; it goes into the next request and is spared by the
        automatic compaction for this turn and the next (its call or its results come with it)."""
        if item_id.startswith(SPECIAL):
            return self._special_action("restore", item_id)
        item = self._mutable(item_id)
        if item.category == Category.RULES and item.role is None:  # (restored, a rule is sent again: pinned)
            return self._pin(item_id)
        was = (item.state, item.summarised_into)
        if restorable(item):
            item.provenance["restored_turn"] = self.engine.turn
        self._bring_back(item)
        if item.role == "tool":
            owner = self.call_owner(item.tool_call_id)
            if owner is not None and owner.state not in (State.IN, State.STALE):
                self._bring_back(owner)
        for other in self.results_of(item):
            if was[0] not in (State.IN, State.STALE) and not other.pinned \
                    and (other.state, other.summarised_into) == was:
                self._bring_back(other)
        return item

    def left_out(self, item_id: str) -> str | None:
        """Why the latest assembly left ``item_id`` out (None when it is in, or was not considered): what
        a restore or a pin that the budget cannot honour tells the user."""
        last = self.engine.last
        entry = next((t for t in last.trace if t.item_id == item_id), None) if last is not None else None
        return entry.reason if entry is not None and not entry.included else None

    def call_owner(self, call_id: str | None) -> ContextItem | None:
        for other in self.engine.items.values():
            if other.role == "assistant" and any(c.get("id") == call_id for c in other.tool_calls or []):
                return other
        return None

    def _special_action(self, action: str, item_id: str) -> ContextItem:
        """Items that are not messages: instruction files, tool definitions and active files."""
        if item_id.startswith("ins:"):
            raise EngineError(f"{item_id} is an instruction file: it is sent while it exists; edit or delete "
                              f"{item_id[4:]} to change it")
        if item_id.startswith("tool:"):
            return self.engine.tool_items.action(self.engine, action, item_id)
        if item_id.startswith("h:"):
            return self.engine.window.heads.action(action, item_id)
        # an active file: pin keeps it across tasks, evict releases it
        from agent_tui.core.file_items import file_action

        return file_action(self.engine, action, item_id)

    def _mutable(self, item_id: str) -> ContextItem:
        if item_id == "sys":
            raise EngineError("the system prompt is always sent; it cannot be pinned, evicted or restored")
        if item_id.startswith("f:"):
            raise EngineError(f"{item_id} is an active file; it is protected while the task uses it")
        if item_id not in self.engine.items:
            raise EngineError(f"no item {item_id!r} (see the inspector or `agent-tui memory list`)")
        return self.engine.items[item_id]

