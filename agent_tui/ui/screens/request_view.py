"""The exact last request: what the model was (or will be) sent, the diff against the
previous request, and the trace's reason every item is in or out.

Read from the store's assembly log — the same rows `agent-tui context` reads —
in a worker, never on the UI thread.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static, TabbedContent, TabPane, TextArea

from agent_tui.ui.columns import clip, fit_widths
from agent_tui.ui.diffview import diff_content, unified
from agent_tui.ui.request_text import header, request_text
from agent_tui.ui.screens.to_box import TypesToBox

DIFF_LINES = 3000


class RequestScreen(TypesToBox, Screen[None]):
    """Request / Diff / Trace tabs for the latest logged assembly."""

    CSS_PATH = "request_view.tcss"
    VIEW_KEYS = frozenset("q123")
    """The printable keys this view binds (see ``BINDINGS``)."""
    AUTO_FOCUS = "#request-text"
    """The request text has the keys from the start (↓, pgdn, end scroll it; the tab strip had them)."""
    BINDINGS = [
        Binding("escape", "close", "Back", priority=True),
        Binding("q", "close", "Back", show=False),
        Binding("1", "tab('request')", "Request"),
        Binding("2", "tab('diff')", "Diff"),
        Binding("3", "tab('trace')", "Trace"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.latest: dict[str, Any] | None = None
        self.previous: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield Label("loading the last request…", id="request-head")
        with TabbedContent(initial="request"):
            with TabPane("Request", id="request"):
                yield TextArea("", read_only=True, id="request-text", soft_wrap=True)
            with TabPane("Diff", id="diff"):
                with VerticalScroll(id="diff-scroll"):
                    yield Static("", id="diff-text")
            with TabPane("Trace", id="trace"):
                yield DataTable(id="trace-table", cursor_type="row", zebra_stripes=True)
                yield Label("", id="trace-why", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.load()

    def on_resize(self) -> None:
        if self.latest is not None:
            self._fill_trace()

    @work(thread=True, exclusive=True, group="request", exit_on_error=False)
    def load(self) -> None:
        ctl = getattr(self.app, "controller", None)
        rows = ctl.requests(2) if ctl is not None else []
        self.app.call_from_thread(self._show, rows)

    def _show(self, rows: list[dict[str, Any]]) -> None:
        head = self.query_one("#request-head", Label)
        if not rows:
            head.update("no request has been assembled in this session yet")
            return
        self.latest = rows[0]
        self.previous = rows[1] if len(rows) > 1 else None
        text = request_text(self.latest["request"])
        self.query_one("#request-text", TextArea).load_text(text)
        head.update(f"Last request: {header(self.latest)}"
                    + (f" — diff against {header(self.previous)}" if self.previous else ""))
        if self.previous is None:
            self.query_one("#diff-text", Static).update("(no previous request to compare with)")
        else:
            diff = unified(request_text(self.previous["request"]), text)
            self.query_one("#diff-text", Static).update(
                diff_content(diff, DIFF_LINES) if diff else Content("(identical to the previous request)"))
        self._fill_trace()

    def _fill_trace(self) -> None:
        """The trace table with widths from its content: whole ids, the reason taking the rest."""
        assert self.latest is not None
        table = self.query_one("#trace-table", DataTable)
        trace = self.latest["trace"]
        cells = [(str(t["item_id"]), "✓", f"{int(t.get('tokens') or 0):,}", str(t["reason"])) for t in trace]
        header = ("item", "in", "tokens", "reason")
        widths = fit_widths(header, cells, self.app.size.width - 2, flex=3, floors=(4, 2, 6, 12),
                            caps=(40, None, None, None))
        keep = table.cursor_row
        table.clear(columns=True)
        for name, width in zip(header, widths, strict=True):
            table.add_column(name, key=name, width=width)
        for t, (item, _, tokens, reason) in zip(trace, cells, strict=True):
            mark = Content.styled("✓", "$success") if t["included"] else Content.styled("✗", "$error")
            table.add_row(Content(clip(item, widths[0])), mark, Content(tokens), Content(clip(reason, widths[3])))
        if cells:
            table.move_cursor(row=min(keep, len(cells) - 1))
        self._explain_trace()

    @on(DataTable.RowHighlighted, "#trace-table")
    def _explain_trace(self) -> None:
        """The highlighted row's whole reason (the table cuts one only on a very narrow screen)."""
        if self.latest is None:
            return
        trace = self.latest["trace"]
        row = self.query_one("#trace-table", DataTable).cursor_row
        text = ""
        if 0 <= row < len(trace):
            t = trace[row]
            text = f"{t['item_id']}: {'in' if t['included'] else 'out'} — {t['reason']}"
        self.query_one("#trace-why", Label).update(text)

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        target = {"request": "#request-text", "diff": "#diff-scroll", "trace": "#trace-table"}.get(tab)
        if target and self.query(target):
            self.query_one(target).focus()

    def action_close(self) -> None:
        self.dismiss()
