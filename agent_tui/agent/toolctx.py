"""The ToolContext the built-in tools run against: the engine and store of one session.

Tools never see the engine directly; this adapter is the only door, so what a
tool reads becomes an active file, what it edits updates the active copy, and
memos and recall go through the same store the UI shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import State
from agent_tui.core.results import ResultStore
from agent_tui.tools.undo_journal import UndoJournal


class EngineToolContext:
    """Implements agent_tui.tools.base.ToolContext over a ContextEngine."""

    def __init__(self, engine: ContextEngine, workspace: Path, store: Any | None = None) -> None:
        self.engine = engine
        self.workspace = workspace
        self.store = store
        self.results: ResultStore = engine.results
        self.model = engine.settings.model
        self.memos_saved: list[str] = []
        self.sandbox: Any = None
        """The ``agent_tui.tools.sandbox.Sandbox`` commands run in, or None (set by the session)."""
        self.pass_env: tuple[str, ...] = ()
        """Secret-named environment variables commands still get (``[sandbox] pass_env``)."""
        self._journal: tuple[str, UndoJournal] | None = None
        self.store_trusted: bool = True
        """False for a store the user did not create (``core/store_owner.py``) while the folder is not
        trusted: ``recall`` then searches only this session, never the memos and sessions it shipped with."""

    def note_read(self, path: str, content: str, lines: list[tuple[int, int]] | None = None) -> None:
        self.engine.note_file_read(path, content, lines=lines)

    def note_edit(self, path: str, content: str, kind: str = "edit") -> None:
        self.engine.note_file_edit(path, content, kind=kind)

    def last_seen_hash(self, path: str) -> str | None:
        return self.engine.last_seen_hash(path)

    def seen_part(self, path: str) -> list[tuple[int, int]] | None:
        return self.engine.seen_part(path)

    def undo_journal(self) -> UndoJournal:
        """The journal of the session the engine holds now (``/undo`` reads the same one)."""
        sid = self.engine.session_id
        if self._journal is None or self._journal[0] != sid:
            self._journal = (sid, UndoJournal.for_session(self.workspace, sid))
        return self._journal[1]

    @contextmanager
    def journaled(self, path: str, before: bytes | None, after: bytes) -> Iterator[None]:
        with self.undo_journal().journaled(self.engine.turn, path, before, after):
            yield

    def save_memo(self, text: str) -> str:
        item = self.engine.save_memo(text, kind="manual", show_now=False)  # its call shows it already
        self.memos_saved.append(item.id)
        return item.id

    def recall(self, query: str, limit: int = 5) -> list[dict[str, Any]]:
        if self.store is not None:
            from agent_tui.store.recall import recall

            sid = self.engine.session_id
            shown = {f"{it.id}@{sid}": it.content for it in self.engine.all_items() if it.state == State.IN}
            asking = {f"{it.id}@{sid}" for it in self.engine.all_items()  # (the task itself: no news to anyone)
                      if it.role == "user" and it.turn == self.engine.turn}
            min_score = self.engine.settings.memory.recall_min_score
            scope: dict[str, Any] = {} if self.store_trusted else {"kinds": ("archive",), "session_id": sid}
            hits = recall(self.store, query, limit=limit, min_score=min_score, shown=shown, **scope)
            return [h for h in hits if h.get("id") not in asking]  # (in the window: it took no place)
        return _recall_in_memory(self.engine, query, limit)


def _recall_in_memory(engine: ContextEngine, query: str, limit: int) -> list[dict[str, Any]]:
    """Storeless fallback: substring match over the session's items, newest first."""
    words = [w for w in query.lower().split() if len(w) > 2]
    hits = []
    for item in reversed(engine.all_items()):
        low = item.content.lower()
        score = sum(1 for w in words if w in low) / max(1, len(words))
        if score >= 0.5:
            hits.append({"id": item.id, "kind": "archive", "content": item.content[:2000], "score": score,
                         "in_context": item.state == State.IN})
    from agent_tui.store.recall import in_context_last

    hits.sort(key=lambda h: -h["score"])
    return in_context_last(hits, limit)
