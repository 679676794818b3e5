"""A tool call in the conversation: collapsed to one line, expandable to its arguments,
the shaped result the model saw, and where the whole output is kept."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Collapsible, Static

from agent_tui.agent import events as ev
from agent_tui.ui.columns import clip
from agent_tui.ui.diffview import args_summary, diff_content, pretty_args

RESULT_LINES = 40
WHY_CHARS = 56
"""How much of a failed call's reason its collapsed line shows (less when the line is narrower)."""
MIN_ARGS = 16
"""Cells the arguments keep on the line before a failure's reason takes any."""


def why_failed(text: str) -> str:
    """A failed call's reason, short, for its one line: a refusal before or after approval looked the same as a
    denial ("✗ edit_file new.py"), the reason only in the inspector."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "failed")
    if first.startswith("The user denied"):
        return "denied"
    if first.startswith("denied by user: "):
        return clip("denied: " + first[len("denied by user: "):], WHY_CHARS)
    if first.lower().startswith("refused: "):
        first = "refused: " + first[len("refused: "):]
    return clip(first, WHY_CHARS)


class ToolCallPanel(Collapsible):
    """One call: ``▶ ✓ read_file inventory/stock.py · 312 tok · t2``."""

    def __init__(self, call_id: str, name: str, arguments: Any, kind: str = "read") -> None:
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self.kind = kind
        self.status = "running"
        self._args = Static(Content(pretty_args(arguments)), classes="tool-args")
        self._result = Static("…", classes="tool-result")
        self._meta = Static("", classes="tool-meta")
        self._tail = ""
        self._why = ""
        super().__init__(self._args, self._result, self._meta, title=self._make_title(width=120), collapsed=True,
                         classes=f"tool-panel -{kind}")

    def _make_title(self, tail: str | None = None, width: int | None = None) -> Any:
        """``✓ read_file inventory/stock.py (t2, 330 tok)``, the argument cut so the tail (item id,
        tokens, status) always fits the panel's width."""
        if tail is not None:
            self._tail = tail
        mark = {"running": "⋯", "ok": "✓", "error": "✗", "asking": "?"}[self.status]
        head = f"{mark} {self.tool_name} "
        if width is None:
            width = self.size.width - 5 if self.size.width else 120
        tail = self._tail
        spare = width - len(head) - len(tail) - MIN_ARGS - 3
        if self._why and spare >= 8:  # why it failed, in what the arguments leave
            tail += " · " + clip(self._why, spare)
        room = max(8, width - len(head) - len(tail))
        return Content(f"{head}{clip(args_summary(self.tool_name, self.arguments, room), room)}{tail}")

    def on_resize(self) -> None:
        self.title = self._make_title()

    def asking(self) -> None:
        self.status = "asking"
        self.title = self._make_title(" · awaiting approval")

    def interrupted(self) -> None:
        """A stored call with no result (the app was killed while it ran): shown failed, as the model is told."""
        self.status = "error"
        self.set_class(True, "-error")
        self.title = self._make_title(" · interrupted: no result recorded")

    def cancelled(self) -> None:
        """The turn was cancelled while the call ran or waited for its approval: it is over, not running."""
        if self.status in ("running", "asking"):
            self.status = "error"
            self.set_class(True, "-error")
            self.title = self._make_title(" · cancelled")

    def answered(self, answer: str) -> None:
        """The user answered the approval: it runs now (or was denied, and its result follows)."""
        if self.status == "asking":
            self.status = "running"
            self.title = self._make_title(" · denied" if answer.startswith("deny") else " · running")

    def finish(self, text: str, *, is_error: bool = False, item_id: str = "", shaped_tokens: int = 0,
               raw_tokens: int = 0, handle: str | None = None, meta: dict[str, Any] | None = None) -> None:
        """Show the outcome (from a ToolCallFinished event or a stored tool item)."""
        self.status = "error" if is_error else "ok"
        self.set_class(is_error, "-error")
        self._why = why_failed(text) if is_error else ""
        self.title = self._make_title(f" ({item_id + ', ' if item_id else ''}{shaped_tokens:,} tok)")
        meta = meta or {}
        lines = text.splitlines()
        shown = "\n".join(lines[:RESULT_LINES]) + (f"\n… {len(lines) - RESULT_LINES} more lines"
                                                   if len(lines) > RESULT_LINES else "")
        self._result.update(diff_content(meta["diff"], 60) if meta.get("diff") else Content(shown))
        facts = [f"item {item_id}" if item_id else "", f"{shaped_tokens:,} tokens sent"]
        if handle:
            facts.append(f"whole output {raw_tokens:,} tokens behind handle {handle}")
        if "exit_code" in meta:
            facts.append(f"exit {meta['exit_code']}")
        self._meta.update(" · ".join(f for f in facts if f))

    def finish_event(self, e: ev.ToolCallFinished) -> None:
        self.finish(e.text, is_error=e.is_error, item_id=e.item_id, shaped_tokens=e.shaped_tokens,
                    raw_tokens=e.raw_tokens, handle=e.handle, meta=e.meta)
