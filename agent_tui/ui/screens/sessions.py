"""The session picker for /resume: past sessions of this workspace, newest first.

Its rows are read in a thread, and keys typed on with the F5 that opened it (F5, down, enter at once) came before
them and were lost on the empty list: the list's keys and letters that come before the rows wait for them and then
apply in order (esc does not wait)."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.ui.screens.to_box import TypesToBox, box_of


def session_label(row: dict[str, Any], current: str, width: int = 60) -> str:
    """``fix the restock bug · 12 messages · openai/gpt-4o · 2025-01-01 09:00 · 20250101-…`` (title first)."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(row.get("updated") or 0)))
    mark = " (current)" if row["id"] == current else ""
    title = " ".join(str(row.get("title") or "").split()) or "(no message yet)"
    if len(title) > width:
        title = title[: width - 1] + "…"
    return (f"{title}{mark}\n  {row.get('messages', 0)} messages · {row.get('model') or '?'} · {when} · "
            f"{row['id']}")


class SessionList(OptionList):
    """The sessions, taking keys strictly in the order they came.

    Bindings run only once a key has bubbled up to the app, after the keys queued behind it reached this
    list: a priority enter on the screen ran ahead of a down typed just before it (tmux, down and enter
    at once, resumed the current session), and a plain one ran after the letters typed on with it (so
    they were lost, and a `q` among them cancelled).  So navigation and enter act here, in key order."""

    KEY_ACTIONS: ClassVar[dict[str, str]] = {
        "down": "cursor_down", "up": "cursor_up", "home": "first", "end": "last",
        "pagedown": "page_down", "pageup": "page_up", "enter": "select"}
    """Keys handled on arrival, and the list action each runs."""

    def action_select(self) -> None:
        screen = self.screen
        if isinstance(screen, SessionsScreen):
            screen.action_choose()

    async def on_key(self, event: events.Key) -> None:
        screen = self.screen
        if isinstance(screen, SessionsScreen) and screen.took(event.key, event.character):
            event.stop()
            event.prevent_default()


class SessionsScreen(TypesToBox, ModalScreen[str | None]):
    """Pick a session; dismisses with its id (None to keep the current one)."""

    VIEW_KEYS = frozenset("q")
    """The printable keys this screen binds (letters typed on go into the message box)."""

    CSS_PATH = "sessions.tcss"
    BINDINGS = [Binding("escape", "close", "Cancel", priority=True), Binding("q", "close", "Cancel", show=False),
                Binding("enter", "choose", "Resume", tooltip="resume the highlighted session")]
    """(The list takes enter on arrival, ``SessionList``; the binding names it in the footer and the help.)"""

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current
        self.answered = False
        """Answered already: keys still arriving (typed on with the enter) are for the message box."""
        self._early: list[tuple[str, str | None]] | None = []
        """Keys (and their characters) that came before the rows, applied when they are shown (None from then)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog"):
            yield Label("Resume a session", id="sessions-title")
            yield SessionList(id="session-list")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def load(self) -> None:
        ctl = getattr(self.app, "controller", None)
        rows = ctl.sessions() if ctl is not None else []
        self.app.call_from_thread(self._show, rows)

    def _show(self, rows: list[dict[str, Any]]) -> None:
        rows = [r for r in rows if r.get("messages") or r["id"] == self.current]  # a start that sent nothing
        options = self.query_one(OptionList)
        options.add_options([Option(Content(session_label(r, self.current)), id=r["id"]) for r in rows])
        if rows:
            options.highlighted = 0
        self.set_focus(options)
        early, self._early = self._early or [], None
        for key, character in early:
            if not self.took(key, character) and key == "q":
                self.action_close()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._close(event.option.id)

    def action_choose(self) -> None:
        """Enter answers at once, with the highlighted session: the keys typed on with it are then for the box
        (the list's own selection message came after them, and a `q` among them cancelled the picker first)."""
        options = self.query_one(OptionList)
        if self.answered or options.highlighted is None:
            return
        self._close(options.get_option_at_index(options.highlighted).id)

    def action_close(self) -> None:
        if self.answered:  # (a `q` typed on after the enter: text for the box, not a second answer)
            self._to_box("q")
            return
        self._close(None)

    def _close(self, result: str | None) -> None:
        """Answer once: a second dismiss of a screen already gone raised ScreenStackError and ended the app."""
        if not self.answered:
            self.answered = True
            self.dismiss(result)

    def on_key(self, event: events.Key) -> None:
        if self.took(event.key, event.character):
            event.stop()
            event.prevent_default()

    def took(self, key: str, character: str | None) -> bool:
        """Act on a key here, on arrival (True: it was taken): before the rows a letter or a key of the list waits
        for them (esc does not); after the answer a printable key is text for the box; else the list's keys move
        in it or choose, and a letter goes into the box (q cancels, until another letter was typed)."""
        printable = bool(character and character.isprintable())
        if self._early is not None:
            if key in SessionList.KEY_ACTIONS or printable:
                self._early.append((key, character))
                return True
            return False
        if self.answered:
            if printable and character:
                self._to_box(character)
                return True
            return False
        action = SessionList.KEY_ACTIONS.get(key)
        if action is None:
            return bool(printable and character) and self.to_box(character)  # (q cancels until a letter was typed)
        getattr(self.query_one(SessionList), f"action_{action}")()
        return True

    def _to_box(self, text: str) -> None:
        """Keys typed on after the picker was answered go to the message box, as typed."""
        box = box_of(self.app)
        if box is not None:
            box.type_text(text)
