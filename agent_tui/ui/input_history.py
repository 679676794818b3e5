"""What the user typed before, kept per workspace across runs, in the user's state directory.

The history lives in ``$XDG_STATE_HOME/agent-tui/input-history/<key>.jsonl``, keyed by the workspace's
real path — never in the workspace.  It used to be ``<workspace>/.agent-tui/input_history.jsonl``, and a
cloned repository can ship that file: ↑ in the message box would offer the attacker's text, and enter
would send it as the user's own prompt.  Such a file (the user's own, from an older agent-tui) is imported
once, and only when the user trusted the folder (an entry in ``trusted.toml``, which a repository cannot
write) and git does not track it (a tracked file came with the clone); otherwise it is never read.

One JSON object a line (``{"text": ..., "at": ...}``), appended as messages are sent, so a
crash loses at most the line being written and another running instance never clobbers
it.  Reading skips lines it cannot parse.  Secrets are masked before a line is written (``core/redact``:
a key pasted into the prompt must not land in a file).  An unwritable state directory keeps the history in
memory for the run.  What is in the box and not yet sent is kept beside the history (``ui/drafts``: one
file per running instance, rewritten as the user types) and put back in the box at the next start.  The file is trimmed to the newest ``LIMIT``
entries when it grows past twice that.  No Textual here: the prompt widget drives it.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
from pathlib import Path

from agent_tui.ui.drafts import Drafts, Folded, expand, folded_of, folded_record

FILE_NAME = "input_history.jsonl"
"""The old, in-workspace file (``.agent-tui/input_history.jsonl``): imported only as described above."""
IMPORTED = "imported"
"""The key of the line that records the old file's import (so it is imported once)."""
LIMIT = 500
"""Entries kept (the newest)."""
MAX_CHARS = 100_000
"""A longer message (a huge paste) is not kept in the history (the user is told when it is sent)."""


class InputHistory:
    """The entries, oldest first, and a cursor for up/down browsing."""

    def __init__(self, path: Path | None, workspace: Path | None = None) -> None:
        self.path = path
        self.workspace = workspace
        """The workspace this history belongs to (None: in memory only)."""
        self.folds: dict[str, Folded] = {}
        """Sent messages that held folded pastes, by their text: the box as it showed them (↑ brings them back
        folded; a 2,000-line paste came back as 2,000 lines)."""
        self.entries: list[str] = self._load()
        self.cursor = len(self.entries)
        self.draft = ""
        """What was in the prompt when browsing started (restored past the newest entry)."""
        self.edits: dict[int, str] = {}
        """Entries changed in the box while browsing, by index: ↑/↓ away and back brings the change back, as
        readline does (a recalled entry that was edited, or typed over after a clear, was lost on ↑↓)."""
        self.drafts = Drafts(path) if path is not None else None
        """This run's unsent draft on disk (ui/drafts; None: in memory only)."""
        self.older_drafts = 0
        """How many older unsent drafts the start put into the history."""
        self.restored_folded: Folded | None = None
        """The restored draft as its box showed it (large pastes folded), when that was kept."""
        self.waiting_for_trust = False
        """An old in-workspace history that git does not track waits, unread, for the user to trust the
        folder (the user is told, rather than finding their history gone)."""

    @classmethod
    def for_workspace(cls, workspace: Path | None) -> InputHistory:
        """The history of ``workspace`` (in memory only without one), with the old in-workspace file
        imported when it is the user's (see the module docstring)."""
        if workspace is None:
            return cls(None)
        path = history_path(workspace)
        waiting = _import_legacy(workspace, path)
        history = cls(path, workspace)
        history.waiting_for_trust = waiting
        return history

    def adopt_after_trust(self) -> int:
        """The user has just trusted the folder: import the old in-workspace history now (at most once)
        and offer it on ↑ in this run.  Returns how many entries that added (0: nothing waited)."""
        if self.path is None or self.workspace is None or not self.waiting_for_trust:
            return 0
        self.waiting_for_trust = _import_legacy(self.workspace, self.path)
        if self.waiting_for_trust:
            return 0  # not trusted after all, or the import could not be written: keep what is here
        before = len(self.entries)
        self.entries = self._load()
        self.cursor = len(self.entries)
        self.draft = ""
        return max(0, len(self.entries) - before)

    def _load(self) -> list[str]:
        out: list[str] = []
        for record in _records(self.path):
            text = record.get("text")
            if not isinstance(text, str) or not text:
                continue
            if (folded := folded_of(record)) is not None:
                self.folds[text] = folded
            if not out or out[-1] != text:
                out.append(text)
        return out[-LIMIT:]

    def add(self, text: str, *, keep_long: bool = False, folded: Folded | None = None) -> bool:
        """Remember a sent message (not a repeat of the last one) and reset the cursor.  ``keep_long``:
        also past ``MAX_CHARS`` (an unsent draft taken over from an ended run: it has no other copy).
        ``folded``: the box as it showed the message, when it held folded pastes.  True when the text is on
        disk (or was already the last entry)."""
        self.cursor = len(self.entries)
        self.draft = ""
        self.edits.clear()
        if not text.strip() or (len(text) > MAX_CHARS and not keep_long):
            return False
        if folded is not None and folded[1] and expand(*folded) == text:
            self.folds[text] = folded
        if self.entries and self.entries[-1] == text:
            return True
        self.entries.append(text)
        self.cursor = len(self.entries)
        if self.path is None:
            return False
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # what the user typed: theirs alone
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({**self._record(text), "at": round(time.time(), 3)}, ensure_ascii=False) + "\n")
            if len(self.entries) > 2 * LIMIT:
                self.entries = self.entries[-LIMIT:]
                self.cursor = len(self.entries)
                kept = set(self.entries)
                self.folds = {t: f for t, f in self.folds.items() if t in kept}
                body = "".join(json.dumps(self._record(t), ensure_ascii=False) + "\n" for t in self.entries)
                self.path.write_text(_import_mark(self.path) + body, encoding="utf-8")
        except OSError:
            return False  # an unwritable state directory: history stays in memory
        return True

    def _record(self, text: str) -> dict[str, object]:
        """The line kept for ``text``: masked (``core/redact``), with its folded form when masking leaves it whole."""
        from agent_tui.core.redact import redact_text

        record: dict[str, object] = {"text": redact_text(text)}
        if (kept := folded_record(str(record["text"]), self.folds.get(text))) is not None:
            record["folded"] = kept
        return record

    # the unsent draft -----------------------------------------------------------------------------
    def save_draft(self, text: str, folded: Folded | None = None, before: str = "") -> str:
        """Keep ``text`` (the box's whole text, pastes expanded; ``folded``: as the box shows it) so a crash,
        a kill or a quit loses no typing; an empty box removes it (``ui/drafts``: one file per running
        instance).  ``before``: what was typed before browsing, when the box holds an edited earlier entry
        (both come back: the box's text in the box, this under ↑).  Returns why it could not be kept ("" when
        it was, or when this history keeps no drafts)."""
        if self.drafts is None or (self.drafts.save(text, folded) and self.drafts.save(before, slot="before")):
            return ""
        return self.drafts.problem or "the draft could not be written"

    def saved_draft(self) -> str:
        """The newest draft that runs no longer running left unsent ("" when none); this run takes it
        over (sending it, or emptying the box, removes it).  Older ones, from other instances on this
        folder, go into the history, so ↑ offers them; a draft file goes only once its text is kept
        elsewhere (this run's own draft, or the history file)."""
        if self.drafts is None:
            return ""
        taken = self.drafts.take_over()
        if not taken:
            return ""
        newest, older = taken[0], taken[1:]
        self.older_drafts = 0
        for draft in reversed(older):
            if self.add(draft.text, keep_long=True):
                self.drafts.drop(draft)
                self.older_drafts += 1
        if self.drafts.save(newest.text, newest.folded):
            self.drafts.drop(newest)
        self.restored_folded = newest.folded
        return newest.text

    def close(self) -> None:
        """The run is over (its last draft saved): the next start may take the draft over."""
        if self.drafts is not None:
            self.drafts.close()

    def step(self, delta: int, current: str) -> str | None:
        """The entry ``delta`` steps away (-1 older, +1 newer), or None when there is none."""
        if not self.entries:
            return None
        target = self.cursor + delta
        if target < 0 or target > len(self.entries):
            return None
        if self.cursor == len(self.entries):
            self.draft = current
        elif current != self.entries[self.cursor]:
            self.edits[self.cursor] = current
        else:
            self.edits.pop(self.cursor, None)
        self.cursor = target
        return self.edits.get(target, self.entries[target]) if target < len(self.entries) else self.draft

    def browsing_edit(self, current: str) -> bool:
        """The box (``current``) holds an earlier entry the user changed (not what was typed before browsing)."""
        return self.cursor < len(self.entries) and current != self.entries[self.cursor]


def history_path(workspace: Path) -> Path:
    """``<state dir>/input-history/<name>-<digest of the real path>.jsonl``."""
    from agent_tui.core.config import user_state_dir

    real = workspace.resolve()
    digest = hashlib.sha256(str(real).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", real.name)[:40] or "root"
    return user_state_dir() / "input-history" / f"{name}-{digest}.jsonl"


def _records(path: Path | None) -> list[dict[str, object]]:
    if path is None or not path.is_file():
        return []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    out: list[dict[str, object]] = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def _texts(path: Path | None) -> list[str]:
    return [t for r in _records(path) if isinstance(t := r.get("text"), str) and t]


def _import_mark(path: Path) -> str:
    """The import line of ``path`` (kept when the file is trimmed), or ""."""
    marks = [r for r in _records(path) if IMPORTED in r]
    return json.dumps(marks[0], ensure_ascii=False) + "\n" if marks else ""


def _import_legacy(workspace: Path, path: Path) -> bool:
    """Copy ``<workspace>/.agent-tui/input_history.jsonl`` in front of ``path`` once, when it is the user's.
    True when such a file waits for the folder to be trusted (git does not track it, so it may be the
    user's own; it stays unread until then)."""
    from agent_tui.core.store_owner import agent_dir

    folder = agent_dir(workspace)
    legacy = folder / FILE_NAME if folder is not None else None
    if legacy is None or not legacy.is_file() or _import_mark(path):
        return False
    if not _trusted(workspace):
        return bool(_texts(legacy)) and not _tracked(legacy)  # (git runs only for a file with lines)
    if _tracked(legacy):
        return False
    from agent_tui.core.redact import redact_text

    mark = json.dumps({IMPORTED: str(legacy), "at": round(time.time(), 3)}, ensure_ascii=False) + "\n"
    old = "".join(json.dumps({"text": redact_text(t)}, ensure_ascii=False) + "\n" for t in _texts(legacy)[-LIMIT:])
    try:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(mark + old + current, encoding="utf-8")
        tmp.replace(path)
    except OSError:
        return True  # not imported this time (the old file is untouched): it still waits
    return False


def _trusted(workspace: Path) -> bool:
    """The user trusted the folder (an entry in their ``trusted.toml``, which a repository cannot write)."""
    from agent_tui.core.config import ConfigError
    from agent_tui.core.trust_store import TrustStore

    try:
        return TrustStore().entry(workspace) is not None
    except ConfigError:
        return False


def _tracked(path: Path) -> bool:
    """Git tracks ``path`` (run with the repository's programs switched off: ``tools.git_safe``);
    False when there is no git or no repository."""
    from agent_tui.tools.git_safe import git_argv, safe_env

    try:
        done = subprocess.run(git_argv("ls-files", "--error-unmatch", "--", path.name), cwd=path.parent,
                              capture_output=True, timeout=10, env=safe_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
