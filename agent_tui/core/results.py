"""Where whole tool outputs live while the model only sees a shaped view.

A large result is stored whole behind a *handle*; the model gets a summary, the
size and the handle, and pages the original with ``fetch_result``.  The SQLite
store implements the same protocol, so compaction never destroys an output.
"""

from __future__ import annotations

import itertools
from typing import Any, Protocol


class ResultStore(Protocol):
    """Keeps whole outputs behind short handles (``r12``)."""

    def put(self, content: str, meta: dict[str, Any] | None = None) -> str:
        """Store ``content`` whole and return its handle."""
        ...

    def get(self, handle: str) -> str | None:
        """The exact stored content, or None for an unknown handle."""
        ...


class MemoryResultStore:
    """An in-memory ResultStore for tests, the benchmark and storeless runs."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self.meta: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)

    def put(self, content: str, meta: dict[str, Any] | None = None) -> str:
        handle = f"r{next(self._ids)}"
        self._data[handle] = content
        self.meta[handle] = dict(meta or {})
        return handle

    def get(self, handle: str) -> str | None:
        return self._data.get(handle)


class SessionResults:
    """A ResultStore over the session store, tagging blobs with the session (and redacting them)."""

    def __init__(self, store: Any, session_id: str, engine: Any) -> None:
        self.store, self.session_id, self.engine = store, session_id, engine
        self.own_only = False
        """Only this session's blobs are read (a store the user did not make: a handle named in the
        repository's text must not bring the repository's own blob into the request)."""

    def put(self, content: str, meta: dict[str, Any] | None = None) -> str:
        return self.store.put(self.engine.redact(content), meta, session_id=self.session_id)

    def get(self, handle: str) -> str | None:
        return self.store.get(handle, self.session_id) if self.own_only else self.store.get(handle)
