"""Progress memos: the list, one in full, and writing one now."""

from __future__ import annotations

import time
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Markdown, OptionList
from textual.widgets.option_list import Option

from agent_tui.ui.messages import AgentEventReceived


def memo_label(row: dict[str, Any]) -> str:
    when = time.strftime("%m-%d %H:%M", time.localtime(float(row.get("created") or 0)))
    return f"{row.get('item_id')} · {row.get('kind')} · {when}"


class MemosScreen(ModalScreen[None]):
    """Memos of this workspace, newest first."""

    CSS_PATH = "memos.tcss"
    BINDINGS = [Binding("escape,q", "dismiss", "Close"), Binding("w", "write", "Write a memo now")]

    def __init__(self) -> None:
        super().__init__()
        self.memos: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="memos-dialog"):
            yield Label("Progress memos", id="memos-title")
            with Horizontal():
                yield OptionList(id="memo-list")
                yield Markdown("", id="memo-text")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="memos", exit_on_error=False)
    def load(self) -> None:
        ctl = getattr(self.app, "controller", None)
        rows = ctl.memos() if ctl is not None else []
        self.app.call_from_thread(self._show, rows)

    def _show(self, rows: list[dict[str, Any]]) -> None:
        self.memos = rows
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(memo_label(r), id=str(n)) for n, r in enumerate(rows)])
        self.query_one("#memos-title", Label).update(
            f"Progress memos ({len(rows)})" if rows else "No memos yet — press w to write one now")
        if rows:
            options.highlighted = 0
            options.focus()

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        row = self.memos[int(event.option.id or 0)]
        self.query_one("#memo-text", Markdown).update(str(row.get("content") or ""))

    def action_write(self) -> None:
        self.app.run_command("memo", "")  # type: ignore[attr-defined]

    @on(AgentEventReceived)
    def _memo_written(self) -> None:
        self.load()
