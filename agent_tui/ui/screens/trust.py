"""The trust dialog: what a workspace's own config asks for, before any of it applies.

Shown at start-up when the folder's `.agent-tui/config.toml` or `.mcp.json` asks for something
that loosens approval, sets an endpoint or model, or starts a program, and the user has not
trusted exactly these asks before.  Each ask is listed with its value (MCP servers with their
command line); "Trust" applies them and remembers the folder, "Don't trust" runs with the
tightened config.  Dismisses with True (trust) or False.  It opens by itself right after the
first frame, so keys the user is already typing go to the message box, never to ``t``
(``agent_tui.ui.typing_guard``), and so does a paste (``to_box``).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from agent_tui.core.trust import USER_MCP_SOURCE, TrustReport
from agent_tui.ui.screens.to_box import PastesToBox
from agent_tui.ui.typing_guard import HELD_NOTE, GuardsTyping

SMALL_HEIGHT = 24
"""Rows under which the dialog may take the whole height."""


class _Foot(Vertical):
    """The docked buttons (and the held note): when their height settles or changes, the list above is fitted
    again.  A fit scheduled when the note appeared could run before the note took its rows, and then the list
    stayed over the buttons (a test on a busy machine, 1 time in 7)."""

    def on_resize(self) -> None:
        fit = getattr(self.screen, "_fit", None)
        if fit is not None:
            self.call_after_refresh(fit)


class TrustScreen(PastesToBox, GuardsTyping, ModalScreen[bool]):
    """Asks whether to trust the workspace's own config; dismisses with True or False."""

    CSS_PATH = "trust.tcss"
    AUTO_FOCUS = "#distrust"
    SAFE_ANSWER = "distrust"
    BINDINGS = [
        Binding("t", "answer(True)", "Trust"),
        Binding("n,d,escape", "answer(False)", "Don't trust"),
        Binding("left,up", "move_answer(-1)", "Previous answer", show=False),
        Binding("right,down", "move_answer(1)", "Next answer", show=False),
    ]

    def __init__(self, report: TrustReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        rep = self.report
        why = ("Its config changed since you trusted it." if rep.changed
               else "You have not trusted this folder yet.")
        with Vertical(id="trust-dialog"):
            with _Foot(id="trust-foot"):  # (docked: on a short terminal the asks give up rows, not the buttons)
                yield Static(HELD_NOTE, id="typing-held")
                with Horizontal(id="trust-buttons"):
                    yield Button(Content("Trust (t)"), id="trust", variant="warning")
                    yield Button(Content("Don't trust (n)"), id="distrust", variant="primary")
            with VerticalScroll(id="trust-body"):
                yield Label(Content.styled(f"Trust the config in {rep.root}?", "bold"), id="trust-title")
                own = (" and your own MCP servers do not start in it"
                       if any(a.source == USER_MCP_SOURCE for a in rep.asks) else "")
                yield Label(f"{why} Until you trust it, it may only tighten what the agent may do{own}. It asks for:",
                            id="trust-why")
                with Vertical(id="trust-asks"):
                    for n, ask in enumerate(rep.asks):
                        yield Static(Content.assemble((f"{ask.source}  ", "dim"), (ask.line(), "bold")),
                                     id=f"trust-ask-{n}", classes="trust-ask")

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def typing_held(self, note: str = HELD_NOTE) -> None:
        super().typing_held(note)
        self.call_after_refresh(self._fit)  # (the note takes rows of the foot)

    def _fit(self) -> None:
        """The asks scroll within what the terminal leaves once the buttons are placed: on a short one the
        dialog may take the whole height, and the list gives up rows (at 60x15 the buttons were below it)."""
        dialog = next(self.query("#trust-dialog").results(), None)
        if dialog is None:
            return
        share = 1.0 if self.size.height < SMALL_HEIGHT else 0.8
        dialog.styles.max_height = f"{share:.0%}"
        foot = self.query_one("#trust-foot").outer_size.height
        room = int(self.size.height * share) - foot - dialog.styles.gutter.height
        self.query_one("#trust-body").styles.max_height = max(2, room)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id in ("trust", "distrust"):
            self.dismiss(event.button.id == "trust")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
