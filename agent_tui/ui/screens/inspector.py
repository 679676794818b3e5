"""The inspector: every context item, one key away from pin, unpin, evict, restore and view.

Rows come from the engine (via the controller) with the latest trace's reason
each item is in or out, so the user sees not only what is in the window but
why.  Actions go through the app's engine worker; the table reloads when the
app reports the item changed.

Keys act when they reach the screen, strictly in the order they came.  Bindings run only once a key has bubbled
up to the app, after the keys queued behind it have reached the old focus: "/red" typed at once restored,
evicted and evicted the selected row, as `/` moved the keyboard to the filter box too late.  And the rows are read
in a thread: keys typed on with the F2 that opened it (F2, down, down, p at once) came before them, acted on an
empty table and were lost; letters and the table's keys that come before the first rows wait for them, then apply
in order (esc does not wait).
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Label

from agent_tui.ui.columns import clip, fit_widths
from agent_tui.ui.messages import BudgetChanged, ItemChanged
from agent_tui.ui.rows import SORT_KEYS, ItemRow, filter_rows, red_flags, sort_rows
from agent_tui.ui.screens.to_box import TypesToBox

PREVIEW = 80
HEADER = ("id", "category", "sent", "age", "state", "pin", "preview")
"""The columns; "sent" is what each item cost in the latest request, message framing included (the rows add
up to the gauge's total); an item not in it shows "—" (its own count is in its view, and sorting by tokens
still uses it)."""
NARROW_WIDTH = 60
"""Below this width the table shows only ``NARROW_COLUMNS``: at 40 columns all seven cut off state and pin."""
NARROW_COLUMNS = (0, 2, 4, 5)
"""id, sent, state, pin: what an action needs (the preview and the reason show below the table)."""
ID_FLOOR = 16
"""The id column keeps up to this many cells however narrow the terminal (at 40 columns `memo1` showed as `memo`)."""
WAITING_KEYS = frozenset({"up", "down", "left", "right", "pageup", "pagedown", "home", "end", "enter"})
"""Besides letters, the keys that wait for the first rows (the table's; esc, tab and the rest act at once)."""
STATE_STYLE = {"in": "$success", "evicted": "$error", "summarised": "$accent", "stale": "$warning",
               "stubbed": "$warning", "released": "$foreground 50%"}


class InspectorScreen(TypesToBox, Screen[None]):
    """A sortable, filterable table of context items.  Its letters act on the selected row until the user types
    a letter it does not bind; from then on every letter goes into the message box (``TypesToBox``): typing
    "do it" here evicted the row on `d` and dropped the rest."""

    CSS_PATH = "inspector.tcss"
    AUTO_FOCUS = "#items"
    BINDINGS = [
        Binding("escape", "close", "Back", priority=True),
        Binding("p", "act('pin')", "Pin"),
        Binding("u", "act('unpin')", "Unpin"),
        Binding("e,d", "act('evict')", "Evict"),
        Binding("r", "act('restore')", "Restore"),
        Binding("enter,v", "view", "View"),
        Binding("x", "app.request", "Request"),
        Binding("s", "sort", "Sort"),
        Binding("slash,f", "filter", "Filter"),
    ]
    VIEW_KEYS = frozenset("puedrvxsf/")
    """The printable keys bound above."""

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.query_text = query
        """The filter it opens with (``/tools`` opens it on ``cat:tools``)."""
        self.sort_key = "order"
        self.rows: list[ItemRow] = []
        self._early: list[tuple[str, str | None]] | None = []
        """Keys (and their characters) that came before the first rows, applied when they are shown (None from then)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="inspector-head"):
            yield Label("Context items", id="inspector-title")
            yield Input(self.query_text, placeholder="filter: text, cat:history, state:evicted, pinned, out",
                        id="filter")
        yield Label("", id="flags", markup=False)
        yield DataTable(id="items", cursor_type="row", zebra_stripes=True)
        yield Label("", id="why", markup=False)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.reload()

    def on_resize(self) -> None:
        if self.rows:
            self._show(self.rows, self.controller.breakdown() if self.controller else None)

    # data ---------------------------------------------------------------------------------------
    @property
    def controller(self) -> Any:
        return getattr(self.app, "controller", None)

    @work(thread=True, exclusive=True, group="inspector", exit_on_error=False)
    def reload(self) -> None:
        """Read the rows off the UI thread, then show them."""
        ctl = self.controller
        if ctl is None:
            self.app.call_from_thread(self._rows_read, [], None)
            return
        rows = ctl.rows()
        self.app.call_from_thread(self._rows_read, rows, ctl.breakdown())

    async def _rows_read(self, rows: list[ItemRow], breakdown: dict[str, Any] | None) -> None:
        """Show the rows; the first time, then apply the keys that waited for them, in order."""
        self._show(rows, breakdown)
        early, self._early = self._early or [], None
        for key, character in early:
            if self.app.screen is not self:
                break  # (one of them opened another screen: the rest were typed for the inspector)
            await self._take(key, character)

    async def _take(self, key: str, character: str | None) -> bool:
        """Act on a key now (True: it was taken): a letter into the filter box when that has the focus (it was sent
        to the table before the focus moved there), else the first binding for it from the focused widget up to
        this screen, as the app would run it later."""
        focused = self.focused
        if isinstance(focused, Input) and character and character.isprintable():
            focused.insert_text_at_cursor(character)
            return True
        if character and character.isprintable() and self.to_box(character):
            return True
        for node in (focused or self).ancestors_with_self:
            for binding in node._bindings.key_to_bindings.get(key, ()):
                if not binding.priority and await self.app.run_action(binding.action, node):
                    return True
            if node is self:
                break
        return False

    def _show(self, rows: list[ItemRow], breakdown: dict[str, Any] | None) -> None:
        self.rows = rows
        table = self.query_one(DataTable)
        before = [str(key.value) for key in table.rows]
        at = table.cursor_row if before else 0
        shown = sort_rows(filter_rows(rows, self.query_one("#filter", Input).value), self.sort_key)
        cells = [(r.id, r.category, f"{r.tokens:,}" if r.in_request is not False else "—", str(r.age), r.state,
                  "●" if r.pinned else "", r.preview[:PREVIEW]) for r in shown]
        ids = min(ID_FLOOR, max((cell_len(c[0]) for c in cells), default=2))  # (an id is what /pin takes: whole)
        keep = NARROW_COLUMNS if self.app.size.width < NARROW_WIDTH else tuple(range(len(HEADER)))
        floors, caps = (max(2, ids), 3, 6, 3, 5, 3, 10), (48, None, None, None, None, None, PREVIEW)
        widths = fit_widths([HEADER[i] for i in keep], [[c[i] for i in keep] for c in cells], self.app.size.width - 2,
                            flex=keep.index(6) if 6 in keep else 0, floors=[floors[i] for i in keep], caps=[caps[i] for i in keep])
        table.clear(columns=True)
        for i, width in zip(keep, widths, strict=True):
            table.add_column(HEADER[i], key=HEADER[i], width=width)
        for r, c in zip(shown, cells, strict=True):
            row = (Content(c[0]), Content(c[1]), Content(c[2]), Content(c[3]),  # (a str cell is read as markup:
                   Content.styled(r.state, STATE_STYLE.get(r.state, "")), Content(c[5]),  # an id holds a file name)
                   Content(clip(c[6], widths[-1])))
            table.add_row(*(row[i] for i in keep), key=r.id)
        if (target := _cursor_target(before, at, {r.id for r in shown})) is not None:
            table.move_cursor(row=table.get_row_index(target))
        total = sum(r.tokens for r in rows if r.in_request)
        self.query_one("#inspector-title", Label).update(
            f"{len(shown)}/{len(rows)} items · {total:,} tok sent · by {self.sort_key}")
        flags = red_flags(rows, breakdown)
        self.query_one("#flags", Label).update("⚠ " + "; ".join(flags) if flags else "")
        self._explain()

    def selected_id(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def selected_row(self) -> ItemRow | None:
        item_id = self.selected_id()
        return next((r for r in self.rows if r.id == item_id), None)

    def _explain(self) -> None:
        row = self.selected_row()
        text = ""
        if row is not None:
            where = {True: "in the last request", False: "not in the last request", None: "not assembled yet"}
            text = f"{row.id}: {where[row.in_request]} — {row.reason}"
        self.query_one("#why", Label).update(text)

    # events ---------------------------------------------------------------------------------------
    async def on_key(self, event: events.Key) -> None:
        waits = event.is_printable or event.key in WAITING_KEYS
        if self._early is not None and waits and not isinstance(self.focused, Input):
            self._early.append((event.key, event.character))
        elif not await self._take(event.key, event.character):
            return
        event.stop()
        event.prevent_default()

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._explain()

    @on(DataTable.RowSelected)
    def _selected(self) -> None:
        self.action_view()

    @on(Input.Changed, "#filter")
    def _filtered(self) -> None:
        self._show(self.rows, self.controller.breakdown() if self.controller else None)

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one(DataTable).focus()

    @on(ItemChanged)
    def _item_changed(self) -> None:
        self.reload()

    @on(BudgetChanged)
    def _budget_changed(self) -> None:
        self.reload()

    # actions --------------------------------------------------------------------------------------
    def action_act(self, action: str) -> None:
        item_id = self.selected_id()
        if item_id is not None:
            self.app.item_action(action, item_id)  # type: ignore[attr-defined]

    def action_view(self) -> None:
        item_id = self.selected_id()
        if item_id is not None:
            self.app.view_item(item_id)  # type: ignore[attr-defined]

    def action_sort(self) -> None:
        self.sort_key = SORT_KEYS[(SORT_KEYS.index(self.sort_key) + 1) % len(SORT_KEYS)]
        self._show(self.rows, self.controller.breakdown() if self.controller else None)

    def action_filter(self) -> None:
        """Focus the filter box now (not later, as ``focus()`` does): the keys typed on with ``/`` are its text."""
        self.set_focus(self.query_one("#filter", Input))

    def action_close(self) -> None:
        if self.focused is self.query_one("#filter", Input):
            self.set_focus(self.query_one(DataTable))
            return
        self.dismiss()


def _cursor_target(before: list[str], at: int, now: set[str]) -> str | None:
    """Where the cursor goes after the rows change: the same item, or, when it left the view (restored
    out of ``state:summarised``), the row that followed it, else the one before — never an unrelated
    first row, on which the next key (a second r) would act."""
    if not before:
        return None
    after = before[at:] + before[:at][::-1]
    return next((item_id for item_id in after if item_id in now), None)
