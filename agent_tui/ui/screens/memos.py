"""Progress memos: the list, one in full, and writing one now.

A task has one rolling memo whose text is replaced in place (``agent_tui.core.memos``), and the store
keeps every text it held, so one id (memo1) stands for several rows.  Each row says which version of
its memo it is and whether it is the current text; the memo shown says so in full, with its session
(ids restart in every session), so a memo can be told apart and referred to.
"""

from __future__ import annotations

import time
from typing import Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Markdown, OptionList
from textual.widgets.option_list import Option

from agent_tui.ui.messages import AgentEventReceived
from agent_tui.ui.screens.to_box import TypesToBox


def _when(row: dict[str, Any], fmt: str = "%m-%d %H:%M") -> str:
    return time.strftime(fmt, time.localtime(float(row.get("created") or 0)))


def _current(row: dict[str, Any]) -> bool:
    return int(row.get("version") or 1) == int(row.get("versions") or 1)


def memo_label(row: dict[str, Any], session_id: str | None = None) -> Content:
    """Two lines: which version of which memo (and whether current), then its kind and time; a memo of another
    session says so (ids restart in each: a seed from the last session and this one's were both "memo1 v1")."""
    name = f"{row.get('item_id')} v{row.get('version') or 1}"
    state = (" · current", "$success") if _current(row) else (" · replaced", "$text-muted")
    other = session_id is not None and row.get("session_id") not in (None, session_id)
    where = (f" · session …{str(row.get('session_id'))[-6:]}", "$text-muted") if other else ""
    return Content.assemble((name, "bold"), state, where, "\n",
                            (f"{row.get('kind')} · {_when(row)}", "$text-muted"))


def memo_head(row: dict[str, Any], session_id: str | None) -> str:
    """The shown memo in full: its id, version, kind, time and session, and what replaced it."""
    version, versions = int(row.get("version") or 1), int(row.get("versions") or 1)
    state = "current" if _current(row) else f"replaced by v{version + 1}"
    session = row.get("session_id") or "?"
    where = f"this session ({session})" if session == session_id else f"session {session}"
    return (f"{row.get('item_id')} · version {version} of {versions} ({state}) · {row.get('kind')} · "
            f"{_when(row, '%Y-%m-%d %H:%M:%S')} · {where}")


NARROW = 80
"""Columns under which the list is stacked above the memo."""
SHORT = 20
"""Rows under which the memo's heading is cut to one line."""


class MemosScreen(TypesToBox, ModalScreen[None]):
    """Memos of this workspace, newest first."""

    CSS_PATH = "memos.tcss"
    BINDINGS = [Binding("escape", "dismiss", "Close", priority=True), Binding("q", "dismiss", "Close", show=False), Binding("w", "write", "Write a memo now")]
    VIEW_KEYS = frozenset("qw")
    """The printable keys this screen binds (letters typed on go into the message box)."""

    def __init__(self) -> None:
        super().__init__()
        self.memos: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="memos-dialog"):
            yield Label("Progress memos", id="memos-title")
            with Horizontal(id="memos-body"):
                yield OptionList(id="memo-list")
                with Vertical(id="memo-pane"):
                    yield Label("", id="memo-head", markup=False)
                    with VerticalScroll(id="memo-scroll"):  # (focusable: tab, then the arrows and pgdn scroll it)
                        yield Markdown("", id="memo-text")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        """Below :data:`NARROW` columns the list goes above the memo (beside it, it left the memo no columns at
        40x12); below :data:`SHORT` rows the memo's heading takes one line (at 60x15 it took every row)."""
        self.set_class(event.size.width < NARROW, "-narrow")
        self.set_class(event.size.height < SHORT, "-short")

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
        ctl = getattr(self.app, "controller", None)
        session = ctl.session_id if ctl is not None else None
        options.add_options([Option(memo_label(r, session), id=str(n)) for n, r in enumerate(rows)])
        self.query_one("#memos-title", Label).update(
            f"Progress memos ({len(rows)})" if rows else "No memos yet — press w to write one now")
        if rows:
            options.highlighted = 0
            options.focus()

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        row = self.memos[int(event.option.id or 0)]
        ctl = getattr(self.app, "controller", None)
        self.query_one("#memo-head", Label).update(memo_head(row, ctl.session_id if ctl is not None else None))
        self.query_one("#memo-text", Markdown).update(str(row.get("content") or ""))

    def action_write(self) -> None:
        self.app.run_command("memo", "")  # type: ignore[attr-defined]

    @on(AgentEventReceived)
    def _memo_written(self) -> None:
        self.load()
