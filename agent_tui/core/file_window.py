"""Active files in the window: which files stay, how much of each, and in what order.

The engine's promise is that the files a task works on keep their latest content in
every request; the limits here keep that promise bounded — files the task edited or
names are kept before files only read, a file only read gets a third of the files
share, and when the share is full the least recently touched read-only files go
first, always visibly in the trace.
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.activefiles import ActiveFiles
from agent_tui.core.budget import BudgetPlan
from agent_tui.core.config import Settings
from agent_tui.core.items import Category, ContextItem, Priority, State
from agent_tui.core.text import clean_text
from agent_tui.core.tokens import TokenCounter


class ActiveFileWindow:
    """Mixin for ContextEngine: active files as context items."""

    files: ActiveFiles
    plan: BudgetPlan
    settings: Settings
    counter: TokenCounter
    items: dict[str, ContextItem]
    order: list[str]
    turn: int
    steps_total: int
    _file_cache: dict[str, tuple[tuple[Any, ...], ContextItem]]
    _file_releases: list[tuple[ContextItem, str]]
    _file_ledger: Any

    def note_file_read(self, path: str, content: str, *, edited: bool = False) -> ContextItem:
        af = self.files.note(path, content, self.turn, step=self.steps_total, edited=edited)
        if getattr(self, "instructions", None) is not None:
            self.instructions.touch(self, path)  # type: ignore[attr-defined]  # a subfolder's AGENTS.md
        item = self._file_item(af)
        self._release_crowded_files()
        self._file_ledger.flush(self)
        return item

    def _release_crowded_files(self) -> None:
        """Keep active files within the files share: release the least recently touched (never the newest).

        Active files are protected (always sent, whole up to the per-file limit), so the set
        itself is bounded; a released file leaves the window visibly (trace) and is re-read
        when the agent needs it again.
        """
        cap = self.plan.caps[Category.FILES]
        ordered = list(self.files.files.values())  # least recently touched first
        # files only read go before the task's files (edited, or named in the task); the newest always stays
        # pinned files are never released here: the user asked to keep them
        files = [af for af in ordered[:-1] if not self._task_file(af) and not af.pinned] + \
                [af for af in ordered[:-1] if self._task_file(af) and not af.pinned]
        total = sum(self._file_item(af).tokens for af in ordered)
        for af in files:
            if total <= cap:
                break
            n = self._file_item(af).tokens
            del self.files.files[af.path]
            total -= n
            self._file_releases.append((self._file_item(af), "released: the files share is full "
                                                             "(read-only files first, least recently touched)"))

    def note_file_edit(self, path: str, content: str) -> ContextItem:
        return self.note_file_read(path, content, edited=True)

    def last_seen_hash(self, path: str) -> str | None:
        return self.files.last_seen_hash(path)

    def _file_item(self, af: Any) -> ContextItem:
        key = ("file", af.path, af.hash, af.changed_on_disk, af.missing, self._task_file(af), af.pinned)
        cached = self._file_cache.get(af.path)
        if cached is not None and cached[0] == key:
            return cached[1]
        limit_chars = self._file_char_limit(af)
        text = clean_text(self.files.render(af, limit_chars))
        item = ContextItem(id=af.item_id, category=Category.FILES, content=text, tokens=self.counter.count(text),
                           turn=af.last_touched, pinned=af.pinned, priority=Priority.HIGH,
                           state=State.STALE if af.missing else State.IN,
                           provenance={"path": af.path, "hash": af.hash, "mtime": af.mtime})
        self._file_cache[af.path] = (key, item)
        return item

    def _task_file(self, af: Any) -> bool:
        """Edited in this task, or named in the current task message: kept before files only read."""
        if af.edited:
            return True
        task = self._current_task_text()
        return bool(task) and (af.path in task or af.path.rsplit("/", 1)[-1] in task)

    def _current_task_text(self) -> str:
        for i in reversed(self.order):
            it = self.items[i]
            if it.role == "user":
                return it.content
        return ""

    def _file_char_limit(self, af: Any | None = None) -> int:
        """Characters of a file kept in the window: a file only read gets a third of the files share."""
        share = max(256, self.plan.caps[Category.FILES])
        if af is not None and not self._task_file(af):
            share = max(256, share // 3)
        return int(min(self.settings.memory.max_file_tokens, share) * 3.2)

    def _file_blocks(self, excluded: list[tuple[ContextItem, str]]) -> list[ContextItem]:
        """Every active file, most recently touched first (protected: the set is bounded on note)."""
        self._release_crowded_files()
        self._file_ledger.flush(self)
        reported = {it.id for it, _ in self._file_releases}
        excluded.extend((row, str(row.provenance.get("why") or "released"))  # released earlier, or elsewhere
                        for row in self._file_ledger.released.values()
                        if row.id not in reported and row.provenance.get("path") not in self.files.files)
        excluded.extend(self._file_releases)
        self._file_releases = []
        return [self._file_item(af) for af in reversed(list(self.files.files.values()))]

