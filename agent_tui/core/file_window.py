"""Active files in the window: which files stay, how much of each, and in what order.

The engine's promise is that the files a task works on keep their latest content in
every request; the limits here keep that promise bounded — files the task edited or
names are kept before files only read, a file only read gets a third of the files
share, and when the share is full read-only files go first, the one holding the most
tokens for the least recent use first, always visibly in the trace.

Without churning the request's prefix: the compaction block carries each file's
text as of the last event, and a file whose text changes later (an edit, a change on
disk, a first read) gets a *file note* appended to the history — once per version,
never rewritten in place.  A file the model just read in full is shown by that read
output already, so it gets no note unless the task protects it (edited or named).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_tui.core import file_regions
from agent_tui.core.activefiles import TOO_LARGE, ActiveFiles
from agent_tui.core.assembler import TraceEntry
from agent_tui.core.file_items import FileLedger
from agent_tui.core.filenotes import REGION_MIN_TOKENS, changed_region
from agent_tui.core.items import Category, ContextItem, Priority, Scope, State
from agent_tui.core.released_heads import ReleasedHeads
from agent_tui.core.text import clean_text

SAMPLE_CHARS_PER_TOKEN = 6
"""A file longer than this many characters per token of its limit is measured on a sample of that
length (counting a huge file whole at every render would cost more than it tells)."""

FIT_ROUNDS = 4
"""Renders tried to bring a cut entry within its token limit."""
FIT_MARGIN = 0.97
"""Each round aims a little under the limit (the ratio drifts with what the cut keeps)."""


class FileWindow:
    """The active files of one session, as context items (owns every per-file record)."""

    def __init__(self, engine: Any, workspace: Path | None) -> None:
        self.engine = engine
        """The engine it serves (items, turn and step clocks, plan, settings, counter)."""
        self.files = ActiveFiles(workspace)
        """The files the task works on, least recently touched first."""
        self.cache: dict[str, tuple[tuple[Any, ...], ContextItem]] = {}
        """Per path, the rendered item and the key it was rendered for."""
        self.releases: list[tuple[ContextItem, str]] = []
        """Files released since the last assembly, with the reason (reported in its trace)."""
        self.ledger = FileLedger()
        """Which active files the store holds (they persist with the session: core/file_items)."""
        self.shown: dict[str, str] = {}
        """Per active file, the rendered text the request already shows (block or a file note)."""
        self.shown_raw: dict[str, str | None] = {}
        """Per active file, the raw text the request shows (what a change-region note diffs against)."""
        self.shown_note: dict[str, str | None] = {}
        """Per active file, the history item showing it (a note or a read output), None for the block."""
        self._task_key: tuple[int, str | None] | None = None
        self._task = ""
        self._named: dict[str, bool] = {}
        self.heads = ReleasedHeads(engine)
        """The import headers released files leave in the next blocks (core/released_heads)."""
        self.known_raw: dict[str, str] = {}
        """Per active file, the raw text the engine knew at the last request (an edit's note diffs
        against it when the file is too large to show)."""
        self.views: dict[str, tuple[str, str]] = {}
        """Per active file changed outside the model's tools, how the request shows its text: (hash, ``whole``,
        ``region`` or ``none``); what a request sent makes the model's view (``ActiveFiles.mark_sent``)."""

    def release(self, af: Any, why: str, *, head: bool = True) -> None:
        """Report ``af`` as released (it has left ``files`` already); its import header stays
        behind unless ``head`` is False (the user evicted it, or the task ended)."""
        self.releases.append((self.file_item(af), why))
        if head:
            self.heads.keep(af)

    def flush(self) -> None:
        self.ledger.flush(self.engine)

    def note_read(self, path: str, content: str, *, edited: bool = False, shown_by: str | None = None,
                       outline: bool = False, whole: bool = False, kind: str = "edit",
                       lines: list[tuple[int, int]] | None = None) -> ContextItem:
        """The model now knows ``content`` of ``path`` (``shown_by``: the history item showing it;
        ``whole``: that item shows exactly this text, so no file note is needed even for a task file;
        ``lines``: the spans a read showed, None for all of it)."""
        af = self.files.note(path, content, self.engine.turn, step=self.engine.steps_total, edited=edited, kind=kind,
                             lines=lines)
        if shown_by is not None:
            af.shown_by, af.outline, af.shown_whole = shown_by, outline, whole
        if self.engine.instructions is not None:
            self.engine.instructions.touch(self.engine, path)  # a subfolder's AGENTS.md
        item = self.file_item(af)
        self.release_crowded()
        self.flush()
        return item

    def note_shown(self, path: str, item_id: str, *, outline: bool = False) -> None:
        """Tool output ``item_id`` showed the model the current version of ``path`` (a read); the
        line spans it showed (its provenance ``lines``: a ranged or query read) become regions."""
        af = self.files.files.get(path)
        if af is None:
            return
        item = self.engine.items.get(item_id)
        spans = item.provenance.get("lines") if item is not None else None
        if outline and isinstance(spans, list):
            self.note_lines(path, [tuple(s) for s in spans if isinstance(s, (list, tuple)) and len(s) == 2])
        if not af.edited:
            af.shown_by, af.outline = item_id, outline

    def note_written(self, path: str, call_id: str, text: str) -> None:
        """The write call ``call_id`` made ``text`` the whole of ``path``: that call's arguments, in the
        history, show the model the current text, so no file note repeats it.  Only when the file holds
        exactly what the call wrote (line endings aside): otherwise the note shows what is there."""
        af = self.files.files.get(path)
        owner = self.engine.actions.call_owner(call_id)
        if af is None or owner is None or af.content.replace("\r\n", "\n") != text.replace("\r\n", "\n"):
            return
        af.shown_by, af.outline, af.shown_whole = owner.id, False, True

    def forget_shown_by(self, item_ids: set[str]) -> None:
        """These history items no longer show their files' text (their long arguments were shortened):
        the next request shows each such file again in a note."""
        for af in self.files.files.values():
            if af.shown_by in item_ids:
                af.shown_by, af.shown_whole = None, False
                if self.shown_note.get(af.path) in item_ids:
                    self.shown.pop(af.path, None)

    def note_lines(self, path: str, spans: Iterable[tuple[int, int]]) -> None:
        """The agent was just shown lines ``a``..``b`` of ``path`` (1-based, inclusive, per span):
        the next compaction block carries them if it cannot carry the whole file."""
        self.files.note_lines(path, spans, self.engine.steps_total)

    def views_now(self) -> dict[str, tuple[str, str]]:
        """``views`` of the files as they stand (a view of an older text of a file is no view of it)."""
        files = self.files.files
        return {p: v for p, v in self.views.items() if p in files and files[p].hash == v[0]}

    def note_block(self, items: list[ContextItem]) -> None:
        """A compaction event carries these files in its block, and the read outputs that showed them may
        be stubbed from now on: a file the block does not carry whole is no longer known whole."""
        for item in items:
            af = self.files.files.get(str(item.provenance.get("path")))
            if af is None:
                continue
            whole = af.content in item.content
            self.views[af.path] = (af.hash, "whole" if whole else "none")
            if not whole and af.seen == af.hash and af.seen_part is None:
                af.seen_part = []

    def sync_notes(self) -> list[TraceEntry]:
        """Append a file note for every active file whose current text the request does not show
        yet; returns trace entries for the files (what shows each)."""
        trace: list[TraceEntry] = []
        for af in list(self.files.files.values()):
            trace.extend(self.sync_note(af))
            self.known_raw[af.path] = af.content
        return trace

    def sync_note(self, af: Any) -> list[TraceEntry]:
        """The trace entry of one active file, appending its note when the request does not show it."""
        item = self.file_item(af)
        shown = self.shown.get(af.path)
        note_id = self.shown_note.get(af.path)
        if note_id is not None and not self.engine.items[note_id].in_window:
            shown = None  # the user evicted the note that showed it: show it again
        if shown == item.content:
            where = f"its current text is in {note_id}" if note_id is not None else "protected"
            return [TraceEntry(item.id, True, f"active file ({where})", 0)]
        fresh = not af.changed_on_disk and not af.missing
        if shown is not None and fresh and file_regions.base(shown) == file_regions.base(item.content):
            # only the regions differ: the reads that showed them are in the history (append-only);
            # the next event's block carries them
            self.shown[af.path] = item.content
            return [TraceEntry(item.id, True, "active file (new regions shown by their reads)", 0)]
        if af.shown_by is not None and fresh and (af.shown_whole or not self.task_file(af)):
            self.shown[af.path] = item.content  # the read output shows it
            self.shown_raw[af.path] = af.content if not af.outline or af.edited else None
            self.shown_note[af.path] = af.shown_by if af.shown_by in self.engine.items else None
            return [TraceEntry(item.id, True, f"active file (shown by {af.shown_by})", 0)]
        why = "changed on disk" if af.changed_on_disk else "deleted" if af.missing else \
            "after an edit" if af.edited else "as read"
        before = self.shown_raw.get(af.path) if shown is not None else None  # (None: only an outline)
        too_large = TOO_LARGE in item.content  # the file itself is not shown: its reads are
        if too_large and before is None:
            before = self.known_raw.get(af.path)  # the changed lines are all a note can show
        region = changed_region(af.path, before, af.content, why) if before is not None and not af.missing \
            and (item.tokens > REGION_MIN_TOKENS or too_large) else None
        shown_text = file_regions.base(item.content) if af.shown_by is not None else item.content
        text = region or f"[file note: current text of {af.path}, {why}]\n{shown_text}"
        self.views[af.path] = (af.hash, "none" if af.missing or af.dropped else "region" if region
                               else "whole" if af.content in shown_text else "none")
        note = self.engine._new_item("m", Category.FILES, text, role="user", scope=Scope.SESSION,
                              priority=Priority.HIGH,
                              provenance={"note": "file", "path": af.path, "hash": af.hash,
                                          "region": region is not None})
        self.engine._add(note)
        self.shown[af.path] = item.content
        self.shown_raw[af.path] = af.content if not af.outline or af.edited else None
        self.shown_note[af.path] = note.id
        return [TraceEntry(item.id, True, f"active file (file note {note.id})", 0)]

    def release_crowded(self) -> None:
        """Keep active files within the files share: release files only read before the task's files,
        and within each group the one that holds the most tokens for the least use (never the newest).

        Active files are protected (always sent, whole up to the per-file limit), so the set itself
        is bounded.  Which file goes is a size-aware cache choice (as GreedyDual-Size): a file's
        weight is its tokens times the steps since it was last touched, so one large file read a
        while ago goes before several small ones the agent may edit next — evicting by recency
        alone lets one big read push out every small file read before it.  A released file leaves
        the window visibly (trace) and is re-read when the agent needs it again.
        """
        cap = self.engine.plan.caps[Category.FILES]
        ordered = list(self.files.files.values())  # least recently touched first
        total = sum(self.file_item(af).tokens for af in ordered)
        if total <= cap:
            return
        now = max(af.last_step for af in ordered)

        def weight(af: Any) -> int:
            return self.file_item(af).tokens * (now - af.last_step + 1)

        # pinned files are never released here (the user asked to keep them); the newest always stays
        movable = [af for af in ordered[:-1] if not af.pinned]
        files = sorted((af for af in movable if not self.task_file(af)), key=weight, reverse=True) + \
            sorted((af for af in movable if self.task_file(af)), key=weight, reverse=True)
        for af in files:
            if total <= cap:
                break
            n = self.file_item(af).tokens
            del self.files.files[af.path]
            total -= n
            self.release(af, "released: the files share is full (read-only files first, the most tokens for the "
                             "least use)")

    def note_edit(self, path: str, content: str, *, shown_by: str | None = None, kind: str = "edit") -> ContextItem:
        """An edit or write made ``content`` current (``shown_by``: a call that shows it whole)."""
        return self.note_read(path, content, edited=True, shown_by=shown_by, whole=shown_by is not None, kind=kind)

    def file_item(self, af: Any) -> ContextItem:
        since = self.regions_since()
        key = ("file", af.path, af.hash, af.changed_on_disk, af.missing, self.task_file(af), af.pinned,
               af.outline, af.shown_by if af.outline else None, tuple(af.regions), since)
        cached = self.cache.get(af.path)
        if cached is not None and cached[0] == key:
            return cached[1]
        text, tokens = self._render_within(af, since)
        item = ContextItem(id=af.item_id, category=Category.FILES, content=text, tokens=tokens,
                           turn=af.last_touched, pinned=af.pinned, priority=Priority.HIGH,
                           state=State.STALE if af.missing else State.IN,
                           provenance={"path": af.path, "hash": af.hash, "mtime": af.mtime})
        self.cache[af.path] = (key, item)
        return item

    def regions_since(self) -> int:
        """The step of the last compaction event: a block carries the regions seen after it."""
        compactor = getattr(self.engine, "compactor", None)
        return int(compactor.region_step) if compactor is not None else -1

    def task_file(self, af: Any) -> bool:
        """Edited in this task, or named in the current task message: kept before files only read."""
        if af.edited:
            return True
        task = self.current_task_text()
        named = self._named.get(af.path)
        if named is None:
            named = self._named[af.path] = bool(task) and (af.path in task or af.path.rsplit("/", 1)[-1] in task)
        return named

    def current_task_text(self) -> str:
        """The latest user message that is not an engine note (cached until a message is added)."""
        order = self.engine.order
        key = (len(order), order[-1] if order else None)
        if self._task_key == key:
            return self._task
        text = ""
        for i in reversed(order):
            it = self.engine.items[i]
            if it.role == "user" and not it.provenance.get("note"):
                text = it.content
                break
        if text != self._task:
            self._named = {}
        self._task_key, self._task = key, text
        return text

    def token_limit(self, af: Any | None = None) -> int:
        """Tokens of a file kept in the window: a file only read gets a third of the files share."""
        share = max(256, self.engine.plan.caps[Category.FILES])
        if af is not None and not self.task_file(af):
            share = max(256, share // 3)
        return int(min(self.engine.settings.memory.max_file_tokens, share))

    def _render_within(self, af: Any, since: int) -> tuple[str, int]:
        """``af``'s entry and its tokens: whole when its tokens fit :meth:`token_limit`, else cut to
        the characters that many tokens of this file's own text take.  The limit is in tokens and
        measured, not guessed from a fixed characters-per-token ratio: code with long identifiers
        packs more characters into a token, and a file just over a guessed limit used to lose all
        but its latest regions."""
        limit = self.token_limit(af)
        count = self.engine.counter.count
        text = clean_text(self.files.render(af, None, since))
        sample = text if len(text) <= limit * SAMPLE_CHARS_PER_TOKEN else text[:limit * SAMPLE_CHARS_PER_TOKEN]
        tokens = count(sample)
        if sample is text and tokens <= limit:
            return text, tokens
        chars = len(sample)
        for _ in range(FIT_ROUNDS):  # the cut entry (regions, numbered lines) packs text differently
            chars = max(256, int(chars * limit / max(1, tokens) * FIT_MARGIN))
            text = clean_text(self.files.render(af, chars, since))
            tokens = count(text)
            if tokens <= limit or chars == 256:
                break
        return text, tokens

    def blocks(self, excluded: list[tuple[ContextItem, str]]) -> list[ContextItem]:
        """Every active file, most recently touched first (protected: the set is bounded on note)."""
        self.release_crowded()
        self.flush()
        reported = {it.id for it, _ in self.releases}
        excluded.extend((row, str(row.provenance.get("why") or "released"))  # released earlier, or elsewhere
                        for row in self.ledger.released.values()
                        if row.id not in reported and row.provenance.get("path") not in self.files.files)
        excluded.extend(self.releases)
        self.releases = []
        return [self.file_item(af) for af in reversed(list(self.files.files.values()))]

