"""What the agent's file tools overwrote, kept so the user can take a turn's changes back (``/undo``).

Every ``write_file`` and ``edit_file`` saves the file's bytes as they were (or that it did not
exist) just before it writes, with the hash of what it writes.  ``/undo`` then puts back the files
of the latest turn not yet undone, newest change first, but only a file that still holds exactly
what the agent wrote: a file the user (or a command) changed since is left alone and named, so an
undo never drops anyone's later work.  Changes made by shell commands are not journaled and not
undone (they can touch anything; git is the tool for those).

The journal lives in agent-tui's state folder, one folder per workspace and session, never in the
workspace: a cloned repository could otherwise ship a journal that makes ``/undo`` write what it
chose.  Every sandbox hides that folder (``sandbox_hide``), so no command can plant or read an entry
either.  The saved bytes are the user's own file as it was, in a 0700 folder, like an editor's
backup; they never go to the model, the logs or the memory store.  A session keeps its latest
``MAX_ENTRIES`` changes and ``MAX_BYTES`` of saved text, dropping the oldest turns whole (an undo
never finds half a turn; the latest turn is always kept); journals untouched for ``MAX_AGE_DAYS``
are removed.  A change whose old text could not be saved (a full disk) still happens; the undo of
its turn names it.  The model is told what was undone by a note (a file it no longer holds would
get no note that it changed on disk).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.safe_files import UnsafeFileError, open_folder, read_inside
from agent_tui.tools.fs_atomic import atomic_write
from agent_tui.tools.sandbox_guard import state_folder
from agent_tui.tools.workspace import WorkspaceError, refuse_protected, resolve

MAX_ENTRIES = 500
"""Changes a session keeps (the oldest go first)."""
MAX_BYTES = 64 << 20
"""Saved bytes a session keeps."""
MAX_FILE_BYTES = 8 << 20
"""A file larger than this before the change is not saved (its change cannot be undone; /undo says so)."""
MAX_AGE_DAYS = 30
"""A session's journal untouched this long is removed when another is opened."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def journal_root() -> Path:
    """Where every workspace's journals live (beside the sandbox's records, hidden the same way)."""
    return state_folder().parent / "undo"


@dataclass(frozen=True)
class Change:
    """One journaled write."""

    seq: int
    """Order of the change in the session."""
    turn: int
    """The user turn the agent made it in."""
    path: str
    """Workspace-relative path."""
    existed: bool
    """The file existed before (False: the write created it)."""
    kept: bool
    """Its old bytes were saved (False: too large to keep)."""
    after_sha: str
    """sha256 of what the agent wrote."""
    undone: bool = False
    """Already taken back (or passed over) by an undo."""
    made: tuple[str, ...] = ()
    """Folders the write made for a new file, deepest first."""


@dataclass
class UndoReport:
    """What one ``/undo`` did."""

    turn: int | None
    """The turn undone (None: nothing left to undo)."""
    restored: list[str] = field(default_factory=list)
    """Files put back as they were before the turn."""
    removed: list[str] = field(default_factory=list)
    """Files the turn created, deleted again."""
    kept: list[tuple[str, str]] = field(default_factory=list)
    """(path, why) of files left as they are."""
    missed: list[str] = field(default_factory=list)
    """Files the turn changed whose old text could not be saved (the journal could not be written)."""
    all_undone: bool = False
    """Nothing to undo because every journaled change is undone already (not: none was made)."""

    @property
    def changed(self) -> list[str]:
        """Every file the undo changed on disk."""
        return self.restored + self.removed

    def model_note(self) -> str:
        """What the model is told: which of its changes are gone (the active files' notes show their text)."""
        done = [f"restored {', '.join(self.restored)}" if self.restored else "",
                f"deleted {', '.join(self.removed)}" if self.removed else ""]
        return (f"[Note from agent-tui: the user undid your file changes of turn {self.turn}: "
                f"{'; '.join(x for x in done if x)}. Read a file again before you edit it.]")

    def text(self) -> str:
        """One paragraph for the user."""
        if self.turn is None and self.all_undone:
            return "Nothing left to undo: every file change the agent's file tools made in this session is undone " \
                   "(or was passed over)."
        if self.turn is None:
            return "Nothing to undo: the agent's file tools changed no file in this session (changes made by " \
                   "shell commands are not journaled; /resume an earlier session to undo its changes)."
        parts = []
        if self.restored:
            parts.append("restored " + ", ".join(self.restored))
        if self.removed:
            parts.append("deleted the new " + ", ".join(self.removed))
        head = f"Undid turn {self.turn}: " + "; ".join(parts) + "." if parts else \
            f"Turn {self.turn}: no file was changed back."
        kept = " ".join(f"Left {p} as it is: {why}." for p, why in self.kept)
        missed = f" Not undone (its old text could not be saved): {', '.join(self.missed)}." if self.missed else ""
        on = " This turn counts as undone: the next /undo goes to the one before." if self.kept or self.missed else ""
        return f"{head} {kept}".strip() + missed + on


class UndoJournal:
    """One session's journal in ``folder`` (made 0700 on the first change)."""

    def __init__(self, folder: Path, workspace: Path) -> None:
        self.folder = folder
        self.workspace = workspace
        self.lock = threading.Lock()
        """Held while a change is recorded or a turn undone: two /undo at once take two turns, in order."""
        self.missed: dict[int, list[str]] = {}
        """Paths by turn whose change could not be journaled in this process (said by the undo of that turn)."""

    @classmethod
    def for_session(cls, workspace: Path, session_id: str) -> UndoJournal:
        """The journal of ``session_id`` in ``workspace``."""
        ws = hashlib.sha256(os.fsencode(workspace.resolve())).hexdigest()[:24]
        safe = "".join(c for c in session_id if c.isalnum() or c in "-_")[:80] or "session"
        return cls(journal_root() / ws / safe, workspace.resolve())

    # recording ------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def journaled(self, turn: int, path: str, before: bytes | None, after: bytes) -> Iterator[None]:
        """Save ``path``'s old bytes, then run the write; the entry is dropped if the write fails.
        A journal that cannot be written (a full disk) does not stop the write: that change just
        cannot be undone."""
        with self.lock:
            seq = self._record(turn, path, before, after)
        try:
            yield
        except BaseException:
            if seq is not None:
                self._drop(seq)
            raise
        with self.lock:
            if seq is None:
                self.missed.setdefault(turn, []).append(path)
            else:
                self._prune()

    def _record(self, turn: int, path: str, before: bytes | None, after: bytes) -> int | None:
        seq = None
        try:
            self._make_folder()
            seq = self._next_seq()
            kept = before is not None and len(before) <= MAX_FILE_BYTES
            if kept:
                assert before is not None
                self._write_new(f"{seq:06d}.before", before)
            meta = {"turn": turn, "path": path, "existed": before is not None, "kept": kept,
                    "after_sha": _sha(after), "made": self._missing_folders(path) if before is None else [],
                    "time": time.time()}
            self._write_new(f"{seq:06d}.json", json.dumps(meta).encode())
            return seq
        except OSError:
            if seq is not None:
                self._drop(seq)  # (a half-written entry would hold its number and stop every later one)
            return None

    def _missing_folders(self, path: str) -> list[str]:
        """The folders on ``path`` the write will make, deepest first (an undo removes them again if empty)."""
        made: list[str] = []
        parent = Path(path).parent
        while str(parent) not in ("", "."):
            if (self.workspace / parent).exists():
                break
            made.append(parent.as_posix())
            parent = parent.parent
        return made

    def _make_folder(self) -> None:
        root = journal_root()
        root.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for level in (root, self.folder.parent, self.folder):  # (each 0700: not even the session ids show)
            level.mkdir(exist_ok=True, mode=0o700)
        st = os.lstat(self.folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            raise OSError(f"{self.folder} is not a folder of ours")
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(self.folder, 0o700)

    def _next_seq(self) -> int:
        """One past every number in the folder, whatever the file (a leftover never blocks a new entry)."""
        seqs = [int(n[:6]) for n in os.listdir(self.folder) if n[:6].isdigit()]
        return (max(seqs) + 1) if seqs else 1

    def _write_new(self, name: str, data: bytes) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.folder / name, flags, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)

    def _drop(self, seq: int) -> None:
        for suffix in (".json", ".before", ".undone"):
            with contextlib.suppress(OSError):
                os.unlink(self.folder / f"{seq:06d}{suffix}")

    def _prune(self) -> None:
        """Drop the oldest turns, each whole (an undo never finds half a turn), until the entries and bytes
        are within bounds; the latest turn is always kept.  Runs after every write: the bounds are checked from the
        folder's listing and file sizes, and the entries are read only when they are passed."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        if sum(n.endswith(".json") for n in names) <= MAX_ENTRIES and \
                sum(self._size(int(n[:6])) for n in names if n.endswith(".before") and n[:6].isdigit()) <= MAX_BYTES:
            return
        changes = self.changes()
        turns = sorted({c.turn for c in changes})
        sizes = {c.seq: self._size(c.seq) for c in changes}
        count, total = len(changes), sum(sizes.values())
        for turn in turns[:-1]:
            if count <= MAX_ENTRIES and total <= MAX_BYTES:
                break
            for c in changes:
                if c.turn == turn:
                    count, total = count - 1, total - sizes[c.seq]
                    self._drop(c.seq)

    def _size(self, seq: int) -> int:
        try:
            return os.lstat(self.folder / f"{seq:06d}.before").st_size
        except OSError:
            return 0

    # reading -------------------------------------------------------------------------------------
    def changes(self) -> list[Change]:
        """Every change kept, oldest first (an entry that cannot be read is passed over)."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return []
        undone = {n.split(".")[0] for n in names if n.endswith(".undone")}
        out: list[Change] = []
        for name in sorted(n for n in names if n.endswith(".json") and n[:6].isdigit()):
            try:
                meta = json.loads((self.folder / name).read_bytes())
                out.append(Change(int(name[:6]), int(meta["turn"]), str(meta["path"]), bool(meta["existed"]),
                                  bool(meta["kept"]), str(meta["after_sha"]), name[:6] in undone,
                                  tuple(str(d) for d in meta.get("made") or ())))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return out

    # undoing -------------------------------------------------------------------------------------
    def undo_last(self) -> UndoReport:
        """Take back the latest turn's changes that are not undone yet (see the module docstring)."""
        with self.lock:
            return self._undo_last()

    def _undo_last(self) -> UndoReport:
        changes = self.changes()
        turns = [c.turn for c in changes if not c.undone] + list(self.missed)
        turn = max(turns) if turns else None
        report = UndoReport(turn, missed=_unique(self.missed.pop(turn, [])) if turn is not None else [],
                            all_undone=bool(changes))
        if turn is None:
            return report
        todo = [c for c in changes if c.turn == turn and not c.undone]
        left: set[str] = set()
        for c in reversed(todo):
            if c.path in left:  # a later change of it stays: the earlier ones cannot apply
                self._mark(c.seq)
                continue
            why = self._undo(c, report)
            if why is not None:
                left.add(c.path)
                report.kept.append((c.path, why))
            self._mark(c.seq)
        report.restored = _unique(report.restored)
        report.removed = _unique(report.removed)
        return report

    def _mark(self, seq: int) -> None:
        with contextlib.suppress(OSError):
            self._write_new(f"{seq:06d}.undone", b"")

    def _undo(self, c: Change, report: UndoReport) -> str | None:
        """Undo one change; None when done, else why the file was left."""
        try:
            target = resolve(self.workspace, c.path)
            refuse_protected(self.workspace, target)
            current: bytes | None = read_inside(self.workspace, c.path)
        except FileNotFoundError:
            current = None
        except (WorkspaceError, UnsafeFileError, OSError) as exc:
            return f"it cannot be read safely ({exc})"
        if current is None:
            return None if not c.existed else "it was deleted since"
        if _sha(current) != c.after_sha:
            return "it changed since the agent wrote it"
        if not c.existed:
            return self._remove(target, c.path, current, report, c.made)
        if not c.kept:
            return f"it was larger than {MAX_FILE_BYTES >> 20} MiB before the change, so it was not saved"
        try:
            before = (self.folder / f"{c.seq:06d}.before").read_bytes()
        except OSError as exc:
            return f"its saved copy cannot be read ({exc.strerror or exc})"
        try:
            atomic_write(target, before, c.path, expected=current)
        except WorkspaceError as exc:
            return "writing it back failed: " + _first_clause(str(exc))
        report.restored.append(c.path)
        return None

    def _remove(self, target: Path, rel: str, current: bytes, report: UndoReport, made: tuple[str, ...]) -> str | None:
        try:
            folder = open_folder(target.parent, shown=rel)
        except (UnsafeFileError, OSError) as exc:
            return f"its folder cannot be opened safely ({exc})"
        try:
            st = os.lstat(target.name, dir_fd=folder)
            if not stat.S_ISREG(st.st_mode) or st.st_size != len(current):
                return "it changed since the agent wrote it"
            os.unlink(target.name, dir_fd=folder)
        except OSError as exc:
            return f"it could not be deleted ({exc.strerror or exc})"
        finally:
            os.close(folder)
        report.removed.append(rel)
        self._remove_folders(made)
        return None

    def _remove_folders(self, made: tuple[str, ...]) -> None:
        """Remove the folders a created file's write made, deepest first, each only if empty now."""
        for rel in made:
            try:
                target = resolve(self.workspace, rel)
                parent = open_folder(target.parent, shown=rel)
            except (WorkspaceError, UnsafeFileError, OSError):
                return
            try:
                os.rmdir(target.name, dir_fd=parent)
            except OSError:
                return  # (not empty: something else lives there now)
            finally:
                os.close(parent)


def _unique(paths: list[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def _first_clause(message: str) -> str:
    """The start of a tool's refusal, without its advice to the model ("Read it again and redo …")."""
    text = message.removeprefix("Refused: ")
    return text.split("; ")[0].split(". ")[0].rstrip(".")


def remove_stale(now: float | None = None, keep: Path | None = None) -> int:
    """Delete session journals untouched for ``MAX_AGE_DAYS`` (best effort), except ``keep`` (the session
    being opened: it is touched instead, as in use); how many were removed."""
    if keep is not None:
        with contextlib.suppress(OSError):
            os.utime(keep)
    cutoff = (now or time.time()) - MAX_AGE_DAYS * 86400
    removed = 0
    root = journal_root()
    with contextlib.suppress(OSError):
        for ws in os.scandir(root):
            if not ws.is_dir(follow_symlinks=False):
                continue
            for sess in os.scandir(ws.path):
                if sess.is_dir(follow_symlinks=False) and sess.stat(follow_symlinks=False).st_mtime < cutoff \
                        and (keep is None or Path(sess.path) != keep):
                    shutil.rmtree(sess.path, ignore_errors=True)
                    removed += 1
    return removed
