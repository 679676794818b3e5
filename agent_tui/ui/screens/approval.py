"""The approval dialog: the exact change (a diff) or command, and allow once / always / deny.

For a command, "always" remembers that exact line; when the policy offers a prefix
(``pytest``, ``git status``) a fourth choice remembers the prefix, shown on its button,
so the user sees exactly what later commands it will let through.
"""

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

ANSWERS = ("once", "always", "prefix", "deny")


class ApprovalScreen(ModalScreen[str]):
    """Asks whether a write or a command may run; dismisses with once, always, prefix or deny."""

    CSS_PATH = "approval.tcss"
    AUTO_FOCUS = "#once"
    BINDINGS = [
        Binding("y,o", "answer('once')", "Allow once"),
        Binding("a", "answer('always')", "Always"),
        Binding("p", "answer('prefix')", "Always this prefix", show=False),
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
            if req.reason and req.kind == "command":
                yield Static(Content(f"Why asked: {req.reason}"), id="approval-reason")
            with Horizontal(id="approval-buttons"):
                yield Button(Content("Allow once (y)"), id="once", variant="success")
                always = "Always this exact command (a)" if req.kind == "command" else "Always (a)"
                yield Button(Content(always), id="always", variant="primary")
                if req.prefix:
                    yield Button(Content(f"Always `{req.prefix} …` (p)"), id="prefix", variant="primary")
                yield Button(Content("Deny (n)"), id="deny", variant="error")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id in ANSWERS:
            self.dismiss(event.button.id)

    def action_answer(self, answer: str) -> None:
        if answer == "prefix" and not self.request.prefix:
            return
        self.dismiss(answer)
