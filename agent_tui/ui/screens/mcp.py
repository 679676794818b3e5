"""The MCP panel: each server's state, and its tools with what their definitions cost."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Label

from agent_tui.ui.screens.to_box import TypesToBox

NONE_CONFIGURED = ("No MCP servers configured. Add them under [mcp.servers] in .agent-tui/config.toml "
                   "or in a .mcp.json file (the usual mcpServers layout).")


DETAIL_MIN = 18
"""The transport / error column keeps at least this many cells (it was one wide at 80 columns)."""


def column_widths(screen_width: int) -> list[tuple[str, int]]:
    """The table's columns and widths for a screen ``screen_width`` cells wide: the dialog is 90 % of it,
    each column pads a cell either side, and the name column gives way so the last one keeps
    :data:`DETAIL_MIN` cells."""
    inner = int(screen_width * 0.9) - 2  # the dialog's border
    fixed = [("state", 10), ("raw tok", 8), ("sent tok", 8)]
    spare = inner - sum(w for _, w in fixed) - 2 * (len(fixed) + 2)
    name = max(12, min(36, spare - DETAIL_MIN))
    return [("server / tool", name), *fixed, ("transport / error", max(DETAIL_MIN, spare - name))]


class McpScreen(TypesToBox, ModalScreen[None]):
    """Servers and tools with their token costs."""

    CSS_PATH = "mcp.tcss"
    BINDINGS = [Binding("escape", "dismiss", "Close", priority=True), Binding("q", "dismiss", "Close", show=False), Binding("r", "reload", "Refresh")]
    VIEW_KEYS = frozenset("qr")
    """The printable keys this screen binds (letters typed on go into the message box)."""
    _errors: dict[Any, str]
    """The full error of each server row (by row key), shown under the table when it is highlighted."""

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp-dialog"):
            yield Label("MCP servers", id="mcp-title")
            yield Label("", id="mcp-summary")
            yield DataTable(id="mcp-table", cursor_type="row", zebra_stripes=True)
            yield Label("", id="mcp-detail")
        yield Footer()

    def on_mount(self) -> None:
        self._errors = {}
        table = self.query_one(DataTable)
        for name, width in column_widths(self.app.size.width):
            table.add_column(name, width=width)
        self.action_reload()

    def action_reload(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="mcp-view", exit_on_error=False)
    def load(self) -> None:
        from agent_tui.ui.mcp_link import view, waiting_for_trust

        manager = getattr(self.app, "mcp", None)
        if manager is None:
            self.app.call_from_thread(self._show, None, waiting_for_trust(getattr(self.app, "controller", None)))
            return

        self.app.call_from_thread(self._show, view(manager))

    def _show(self, view: Any | None, waiting: str = "") -> None:
        summary = self.query_one("#mcp-summary", Label)
        table = self.query_one(DataTable)
        table.clear()
        if view is None or not view.servers:
            summary.update(Content(waiting) if waiting else NONE_CONFIGURED)
            return
        count = len(view.servers)
        summary.update(f"{count} server{'' if count == 1 else 's'} · definitions {view.tokens_raw:,} tokens raw, "
                       f"{view.tokens_sent:,} sent now" + ("; errors: " + "; ".join(view.errors) if view.errors else ""))
        self._errors = {}
        for s in view.servers:
            colour = "$success" if s.state == "up" else "$error"
            key = table.add_row(Content.styled(s.name, "bold"), Content.styled(s.state, colour), "", "",
                                Content(s.error or s.transport))
            if s.error:
                self._errors[key] = f"{s.name}: {s.error}" + (f"\nwhole log (stderr): {s.log_path}" if s.log_path else "")
            for t in s.tools:
                table.add_row(Content(f"  {t.name}"), "loaded" if t.loaded else "", f"{t.tokens_raw:,}",
                              f"{t.tokens_shaped:,}", "")


    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted server's whole error, wrapped under the table (its column is cut to the screen)."""
        self.query_one("#mcp-detail", Label).update(Content(self._errors.get(event.row_key, "")))
