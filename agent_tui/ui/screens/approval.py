"""The approval dialog: the exact change (a diff) or command, and allow once / always / deny."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from agent_tui.agent.events import ApprovalRequested
from agent_tui.ui.diffview import diff_content

ANSWERS = ("once", "always", "deny")


class ApprovalScreen(ModalScreen[str]):
    """Asks whether a write or a command may run; dismisses with once, always or deny."""

    CSS_PATH = "approval.tcss"
    AUTO_FOCUS = "#once"
    BINDINGS = [
        Binding("y,o", "answer('once')", "Allow once"),
        Binding("a", "answer('always')", "Always"),
        Binding("n,d,escape", "answer('deny')", "Deny"),
    ]

    def __init__(self, request: ApprovalRequested) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        req = self.request
        what = "run this command" if req.kind == "command" else "make this change"
        with Vertical(id="approval-dialog"):
            yield Label(f"Allow {req.name} to {what}?", id="approval-title")
            with VerticalScroll(id="approval-preview"):
                if req.kind == "command":
                    yield Static(Content.styled(req.preview, "bold"), id="approval-command")
                else:
                    yield Static(diff_content(req.preview), id="approval-diff")
            with Horizontal(id="approval-buttons"):
                yield Button(Content("Allow once (y)"), id="once", variant="success")
                yield Button(Content("Always (a)"), id="always", variant="primary")
                yield Button(Content("Deny (n)"), id="deny", variant="error")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id in ANSWERS:
            self.dismiss(event.button.id)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
