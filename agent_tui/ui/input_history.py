"""What the user typed before, kept per workspace across runs (``.agent-tui/input_history.jsonl``).

One JSON object a line (``{"text": ..., "at": ...}``), appended as messages are sent, so a
crash loses at most the line being written and another running instance never clobbers
it.  Reading skips lines it cannot parse.  Secrets are masked before a line is written (``core/redact``:
a key pasted into the prompt must not land in a file of the workspace).  The file is trimmed to the newest ``LIMIT``
entries when it grows past twice that.  No Textual here: the prompt widget drives it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

FILE_NAME = "input_history.jsonl"
LIMIT = 500
"""Entries kept (the newest)."""
MAX_CHARS = 20_000
"""A longer message (a huge paste) is not kept in the history."""


class InputHistory:
    """The entries, oldest first, and a cursor for up/down browsing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: list[str] = self._load()
        self.cursor = len(self.entries)
        self.draft = ""
        """What was in the prompt when browsing started (restored past the newest entry)."""

    @classmethod
    def for_workspace(cls, workspace: Path | None) -> InputHistory:
        """The history of ``workspace`` (kept in memory only when its ``.agent-tui`` links out of it)."""
        from agent_tui.core.store_owner import agent_dir

        folder = agent_dir(workspace) if workspace is not None else None
        return cls(folder / FILE_NAME if folder is not None else None)

    def _load(self) -> list[str]:
        if self.path is None or not self.path.is_file():
            return []
        out: list[str] = []
        try:
            lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        for line in lines:
            try:
                text = json.loads(line).get("text")
            except (ValueError, AttributeError):
                continue
            if isinstance(text, str) and text and (not out or out[-1] != text):
                out.append(text)
        return out[-LIMIT:]

    def add(self, text: str) -> None:
        """Remember a sent message (not a repeat of the last one) and reset the cursor."""
        self.cursor = len(self.entries)
        self.draft = ""
        if not text.strip() or len(text) > MAX_CHARS or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        self.cursor = len(self.entries)
        if self.path is None:
            return
        from agent_tui.core.redact import redact_text

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"text": redact_text(text), "at": round(time.time(), 3)}, ensure_ascii=False) + "\n")
            if len(self.entries) > 2 * LIMIT:
                self.entries = self.entries[-LIMIT:]
                self.cursor = len(self.entries)
                body = "".join(json.dumps({"text": redact_text(t)}, ensure_ascii=False) + "\n" for t in self.entries)
                self.path.write_text(body, encoding="utf-8")
        except OSError:
            pass  # a read-only workspace: history stays in memory

    def step(self, delta: int, current: str) -> str | None:
        """The entry ``delta`` steps away (-1 older, +1 newer), or None when there is none."""
        if not self.entries:
            return None
        if self.cursor == len(self.entries):
            self.draft = current
        target = self.cursor + delta
        if target < 0 or target > len(self.entries):
            return None
        self.cursor = target
        return self.entries[target] if target < len(self.entries) else self.draft
