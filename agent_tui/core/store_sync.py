"""Keeping one engine in step with other processes writing the same store.

The CLI (`agent-tui memory pin`) and a second TUI write the same database as an open TUI.
Ids come from the store's atomic counters (so no two writers give one id to two items), and
before each step the engine adopts what others changed since it last looked: new project
rules, pins and unpins, evictions — so a pin made elsewhere reaches the next request and
the inspector.  ``PRAGMA data_version`` tells, without reading a table, whether anyone else
committed at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from agent_tui.core.items import Category, ContextItem

GLOBAL_SCOPE_PREFIXES = ("rule",)
"""Id prefixes of workspace-wide items (project rules): numbered under the global session."""


class SyncStore(Protocol):
    def allocate_id(self, scope: str, prefix: str, floor: int = 0) -> int: ...
    def data_version(self) -> int: ...
    def items_changed_since(self, session_ids: list[str], since: float) -> list[ContextItem]: ...


def id_backend(store: Any, session_id: str, global_session: str) -> Callable[[str, int], int] | None:
    """The store's atomic id counter for this session (None for a store without one, or no store)."""
    allocate = getattr(store, "allocate_id", None)
    if allocate is None:
        return None

    def backend(prefix: str, floor: int) -> int:
        scope = global_session if prefix in GLOBAL_SCOPE_PREFIXES else session_id
        return int(allocate(scope, prefix, floor))

    return backend


class StoreSync:
    """What another process changed in this engine's session and in the workspace-wide pins."""

    def __init__(self, store: Any, session_ids: list[str]) -> None:
        self.store = store
        self.session_ids = session_ids
        self.enabled = all(hasattr(store, n) for n in ("data_version", "items_changed_since"))
        self._version = store.data_version() if self.enabled else 0
        self._since = time.time()

    def changed(self) -> list[ContextItem]:
        """Items written by someone else since the last call ([] when nobody else committed)."""
        if not self.enabled:
            return []
        version = self.store.data_version()
        if version == self._version:
            return []
        self._version = version
        since, self._since = self._since, time.time()
        return self.store.items_changed_since(self.session_ids, since - 1.0)


def adopt(items: dict[str, ContextItem], order: list[str], incoming: list[ContextItem]) -> list[ContextItem]:
    """Apply ``incoming`` store rows to an engine's items; returns the ones that changed anything.

    New rules are added; known items take the stored pinned flag, state and
    (for rules) content.  Active files (``f:``) and tool definitions (``tool:``) are left to the caller."""
    touched: list[ContextItem] = []
    for row in incoming:
        if row.id.startswith(("f:", "tool:")) or row.id == "sys":
            continue
        mine = items.get(row.id)
        if mine is None:
            if row.category == Category.RULES:
                items[row.id] = row
                order.append(row.id)
                touched.append(row)
            continue
        same = (mine.pinned, mine.state, mine.summarised_into) == (row.pinned, row.state, row.summarised_into)
        if same and (mine.category != Category.RULES or mine.content == row.content):
            continue
        mine.pinned, mine.state, mine.summarised_into = row.pinned, row.state, row.summarised_into
        if mine.category == Category.RULES:
            mine.content, mine.tokens = row.content, row.tokens
        touched.append(mine)
    return touched
