"""Active files: the files this task reads or edits keep their latest content in the window.

An active file is protected even past the history cap.  Before each request the
engine checks each one's mtime and size; a file changed on disk is re-read and
flagged, so the model never edits from an old copy (the edit tool also refuses
when the hash it last saw differs).  A re-read goes through the same guard as the
read tools (inside the workspace after symlinks, a regular file): a file swapped for
a link to something outside is dropped with a notice, never re-read.  Files are
released when the task ends or when they have not been touched for ``release_after``
turns.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core import file_regions
from agent_tui.core.file_regions import Region
from agent_tui.core.hashing import content_hash
from agent_tui.core.safe_files import UnsafeFileError, read_inside
from agent_tui.core.scripts_run import same_file


@dataclass
class ActiveFile:
    """The latest known content of one file."""

    path: str
    """Workspace-relative path."""
    content: str
    """Latest content (as read, edited, or re-read after an outside change)."""
    hash: str
    """content_hash of ``content``."""
    mtime: float
    """mtime when last read (0 when the file is not on disk, e.g. replayed sessions)."""
    size: int
    """Size in bytes when last read."""
    last_touched: int
    """Turn of the last read or edit."""
    changed_on_disk: bool = False
    """True when the last refresh found an outside change."""
    missing: bool = False
    """True when the file disappeared from disk (the item is then stale)."""
    edited: bool = False
    """The agent edited or wrote it in this task (kept longer than files only read)."""
    written: bool = False
    """The agent created it in this task and has only written it whole since (a scratch script:
    it leaves the block when idle, see ``Compactor.release_idle_written``)."""
    ran: bool = False
    """A command ran it as a program (``python x.py``, ``./x.sh``): with ``written``, the agent's own
    scratch script (core/scripts_run)."""
    last_step: int = 0
    """Engine step of the last read or edit."""
    read_step: int = -1
    """Engine step of the last read (-1: never read): files read at one step are a working set."""
    shown_by: str | None = None
    """The read output (tool result id) that showed the model this version of the file."""
    outline: bool = False
    """That read showed only an outline, a range or query hits, not the text."""
    shown_whole: bool = False
    """``shown_by`` shows this exact text whole (a plain read, or the write call that made it)."""
    pinned: bool = False
    """Pinned by the user: kept across tasks, never released automatically (evict releases it)."""
    dropped: str = ""
    """Why the content was dropped on re-read (swapped for a link outside, a FIFO…); "" if not."""
    regions: list[Region] = field(default_factory=list)
    """Line spans the agent was shown (ranged or query reads) or changed (edits), oldest first
    (core/file_regions): what the block carries of a file it cannot carry whole."""
    seen: str = ""
    """content_hash of the text the model's edits may be based on: it moves with the model's reads
    and edits and with a request sent to it (``mark_sent``), never with a re-read alone, so a call
    already on its way when the user saved the file is refused ("" until set: ``hash``)."""
    seen_part: list[tuple[int, int]] | None = None
    """The 1-based line spans of that text the model was shown (ranged or query reads, ``[]`` for an
    outline); None when it saw all of it or wrote it whole (what write_file requires)."""

    def __post_init__(self) -> None:
        self.seen = self.seen or self.hash

    @property
    def item_id(self) -> str:
        return f"f:{self.path}"


TRUNCATED = "[… truncated in the window; use read_file with line ranges]"
"""Where a pinned file past the per-file limit is cut."""
TOO_LARGE = ("Too large to keep whole in the window: the read_file results in the conversation show the parts "
             "read (after a compaction, the lines read or edited last follow here); read more with read_file "
             "start_line/end_line or query.")
"""What an active file over its share shows instead of a cut copy (a pinned one keeps its head)."""


def _seen_part(old: ActiveFile | None, content: str, new_hash: str, edited: bool, kind: str,
               lines: list[tuple[int, int]] | None) -> list[tuple[int, int]] | None:
    """What the model knows of a file after a read (``lines`` shown, None for all) or an edit: a whole
    write is known whole, an edit keeps what was known whole, a read adds its lines to those already
    seen of the same text (all of them: known whole)."""
    before = old.seen_part if old is not None and old.seen == new_hash else []
    if edited:
        return None if kind != "edit" or (old is not None and old.seen_part is None) else []
    if lines is None or before is None:
        return None
    spans = merge_spans([*before, *lines])
    return None if covers(spans, line_count(content)) else spans


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """1-based inclusive line spans, sorted, with touching or overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def covers(spans: list[tuple[int, int]], total: int) -> bool:
    """True when ``spans`` cover lines 1..``total``."""
    merged = merge_spans(spans)
    return total == 0 or (bool(merged) and merged[0][0] <= 1 and merged[0][1] >= total)


def line_count(text: str) -> int:
    """Lines of ``text`` as read_file numbers them (a last line without its newline counts)."""
    return 0 if not text else text.count("\n") + (0 if text.endswith("\n") else 1)


def _stat(root: Path | None, path: str) -> tuple[float, int] | None:
    if root is None:
        return None
    try:
        st = os.stat(root / path)
    except OSError:
        return None
    return st.st_mtime, st.st_size


class ActiveFiles:
    """The set of active files of one session."""

    def __init__(self, workspace: Path | None = None) -> None:
        self.workspace = workspace
        self.files: dict[str, ActiveFile] = {}
        self.clock = 0
        """Ticks at every region noted (a region's recency)."""
        self.run_words: dict[str, None] = {}
        """Every script path a command of this session ran, in order (a file written later can match)."""

    def note(self, path: str, content: str, turn: int, *, step: int = 0, edited: bool = False,
             kind: str = "edit", lines: list[tuple[int, int]] | None = None) -> ActiveFile:
        """Record a read or an edit: this content is what the model now knows (the regions seen
        so far move with the text; an edit's changed lines become the newest region).  ``kind``
        of an edit: ``create`` (a file that did not exist), ``write`` (whole) or ``edit`` (in part).
        ``lines``: the spans a read showed (None: all of it)."""
        st = _stat(self.workspace, path)
        mtime, size = st if st else (0.0, len(content.encode("utf-8", "surrogateescape")))
        old = self.files.get(path)
        was_edited = edited or (old is not None and old.edited)
        regions: list[Region] = []
        if old is not None:
            self.clock += 1
            regions = file_regions.shift(old.regions, old.content, content, edit_seq=self.clock if edited else None,
                                         step=step)
        elif edited:  # a file the agent wrote: all of it is what it was just looking at
            self.clock += 1
            regions = file_regions.add([], 1, content.count("\n") + 1, self.clock, content.count("\n") + 1, step)
        read_step = step if not edited else (old.read_step if old is not None else -1)
        was_written = old is not None and old.written
        written = (kind == "create" or (kind == "write" and was_written)) if edited else was_written
        af = ActiveFile(path, content, content_hash(content), mtime, size, turn, edited=was_edited, last_step=step,
                        pinned=old is not None and old.pinned, regions=regions, written=written,
                        read_step=read_step,
                        ran=(old is not None and old.ran) or any(same_file(path, w) for w in self.run_words))
        af.seen_part = _seen_part(old, content, af.hash, edited, kind, lines)
        self.files.pop(path, None)  # keep the dict ordered by last touch
        self.files[path] = af
        if edited and read_step >= 0:
            self.touch_read_with(af, step)
        return af

    def note_ran(self, words: list[str]) -> None:
        """Commands ran these script paths (core/scripts_run): mark the files they name."""
        for w in words:
            self.run_words[w] = None
            for af in self.files.values():
                af.ran = af.ran or same_file(af.path, w)

    def touch_named(self, text: str, step: int) -> list[ActiveFile]:
        """Files the agent names in ``text`` (its message and its calls' arguments) stay as fresh as
        this step: an agent that greps in a file, runs its test or says it will change it is still
        working with it, however long ago it last read it.  A file is named by its path, or by its
        file name when no other active file has that name."""
        if not text:
            return []
        names: dict[str, int] = {}
        for af in self.files.values():
            base = af.path.rsplit("/", 1)[-1]
            names[base] = names.get(base, 0) + 1
        touched = []
        for af in self.files.values():
            base = af.path.rsplit("/", 1)[-1]
            if (af.path in text or (names[base] == 1 and "." in base and base in text)) and af.last_step < step:
                af.last_step = step
                touched.append(af)
        return touched

    def touch_read_with(self, edited: ActiveFile, step: int) -> None:
        """An edit keeps the files read at the same step as the edited one (and only read since) as
        fresh as it: an agent that reads several files at once and starts editing one of them is
        working through that set, and the next edit is likely in another of them."""
        for af in self.files.values():
            if af is not edited and not af.edited and af.read_step == edited.read_step:
                af.last_step = max(af.last_step, step)

    def note_lines(self, path: str, spans: Iterable[tuple[int, int]], step: int = 0) -> bool:
        """The agent was just shown (at ``step``) lines ``a``..``b`` (1-based, inclusive) of each
        span of ``path`` (a ranged or query read); False when the file is not active."""
        af = self.files.get(path)
        if af is None:
            return False
        total = af.content.count("\n") + 1
        for a, b in spans:
            self.clock += 1
            af.regions = file_regions.add(af.regions, int(a), int(b), self.clock, total, step)
        return True

    def last_seen_hash(self, path: str) -> str | None:
        af = self.files.get(path)
        return (af.seen or None) if af else None

    def seen_part(self, path: str) -> list[tuple[int, int]] | None:
        """What the model was shown of the text ``last_seen_hash`` names (``ActiveFile.seen_part``)."""
        af = self.files.get(path)
        return af.seen_part if af else []

    def mark_sent(self, views: dict[str, tuple[str, str]]) -> None:
        """A request is going to the model, showing the files that changed since it last saw them as
        ``views`` says (path: the hash shown, and how: ``whole`` text, the changed ``region``, or ``none``,
        a pointer).  What the model answers may be based on what it was shown: a file it knew whole and
        now sees changed in full or by its changed lines is still known whole; one it knew in parts is
        known in no part any more (the lines moved); one shown only by a pointer is not seen anew."""
        for path, (shown, how) in views.items():
            af = self.files.get(path)
            if af is None or af.seen == shown or how == "none":
                continue
            af.seen = shown
            if how == "whole":
                af.seen_part = None
            elif af.seen_part is not None:
                af.seen_part = []

    def view_cut(self, path: str) -> None:
        """The read the model just made of ``path`` reached it shortened (its output was over the results'
        cap): it saw some of the lines, which ones is not known."""
        af = self.files.get(path)
        if af is not None and af.seen == af.hash:
            af.seen_part = []

    def refresh(self) -> list[ActiveFile]:
        """Re-read files changed on disk since last seen; returns the ones that changed."""
        changed: list[ActiveFile] = []
        if self.workspace is None:
            return changed
        for af in self.files.values():
            st = _stat(self.workspace, af.path)
            if st is None:
                if af.mtime and not af.missing:
                    af.missing = True
                    changed.append(af)
                continue
            if st == (af.mtime, af.size) and not af.missing:
                continue
            try:
                text = read_inside(self.workspace, af.path).decode("utf-8", "surrogateescape")
            except UnsafeFileError as exc:
                if not af.dropped:
                    af.content, af.hash, af.missing, af.dropped = "", content_hash(""), True, str(exc)
                    changed.append(af)
                continue
            except OSError:
                continue
            af.dropped = ""
            h = content_hash(text)
            af.mtime, af.size, af.missing = st[0], st[1], False
            if h != af.hash:
                af.regions = file_regions.shift(af.regions, af.content, text)
                af.content, af.hash, af.changed_on_disk = text, h, True
                changed.append(af)
        return changed

    def release_idle(self, turn: int, after: int, quiet: Collection[int] = ()) -> list[ActiveFile]:
        """Release files untouched for more than ``after`` turns as of ``turn``.  The ``quiet`` turns
        (no answer from the agent in them) do not count: five user messages in a row before the
        agent answers are one request, not five turns away from the file."""
        def idle(af: ActiveFile) -> int:
            return turn - af.last_touched - sum(1 for t in quiet if af.last_touched < t < turn)

        gone = [af for af in self.files.values() if idle(af) > after and not af.pinned]
        for af in gone:
            del self.files[af.path]
        return gone

    def release_idle_reads(self, step: int, after: int) -> list[ActiveFile]:
        """Release files only read (never edited) and untouched for more than ``after`` steps."""
        gone = [af for af in self.files.values() if not af.edited and not af.pinned and step - af.last_step > after]
        for af in gone:
            del self.files[af.path]
        return gone

    def release_all(self) -> list[ActiveFile]:
        """Release every file the user has not pinned (pinned files are kept across tasks)."""
        gone = [af for af in self.files.values() if not af.pinned]
        for af in gone:
            del self.files[af.path]
        return gone

    def render(self, af: ActiveFile, max_tokens_chars: int | None = None, regions_since: int = -1) -> str:
        """The block shown to the model for one file (a pointer for a big file seen as an outline:
        its text was never shown, and copying its head would pay for it twice).  A file shown only
        in parts, or too large to carry whole, carries the lines the agent read or edited after
        step ``regions_since`` (the last event) instead (core/file_regions), within ``max_tokens_chars``."""
        lines = af.content.count("\n") + (0 if af.content.endswith("\n") else 1)
        if af.outline and not af.edited and not af.changed_on_disk and not af.missing and not af.dropped:
            how = "in parts" if af.regions else f"as an outline (tool output {af.shown_by})"
            head = (f"### {af.path} ({lines} lines, sha {af.hash[:10]}): read {how}; "
                    f"read_file with start_line/end_line for the text")
            return self._with_regions(head, af, max_tokens_chars, regions_since)
        note = ""
        if af.dropped:
            return f"### {af.path} — content dropped, not re-read: {af.dropped}"
        if af.missing:
            note = " — DELETED on disk since it was read"
        elif af.changed_on_disk:
            note = " — changed on disk since the agent last saw it; this is the current content"
        body = af.content
        if max_tokens_chars is not None and len(body) > max_tokens_chars:
            if not af.pinned:
                # Its head would repeat what the read results already show (the whole read, the range,
                # the outline's own lines) and add a part nobody asked for: send where it stands, and
                # the lines the agent read or edited last (what an event would otherwise take away).
                if note:
                    note += " (re-read what you need before editing)"
                head = (f"### {af.path} ({lines:,} lines, {len(af.content):,} characters, sha {af.hash[:10]}){note}"
                        f"\n{TOO_LARGE}")
                return self._with_regions(head, af, max_tokens_chars, regions_since) if not af.missing else head
            body = body[:max_tokens_chars] + "\n" + TRUNCATED
        return f"### {af.path} ({lines} lines, sha {af.hash[:10]}){note}\n```\n{body}\n```"

    @staticmethod
    def _with_regions(head: str, af: ActiveFile, max_chars: int | None, since: int) -> str:
        budget = (max_chars if max_chars is not None else len(af.content)) - len(head)
        part = file_regions.render(af.regions, af.content, budget, since)
        return f"{head}\n{part}" if part else head
