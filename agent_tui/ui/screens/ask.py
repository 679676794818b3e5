"""A one-line question (a model name, a threshold, an item id): the palette's way to take arguments."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class AskScreen(ModalScreen[str | None]):
    """Dismisses with the text entered, or None on escape (``typed`` keeps what the box held, so a caller can
    give it back)."""

    CSS_PATH = "ask.tcss"
    AUTO_FOCUS = "#answer"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, question: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder
        self.typed = value
        """What the answer box holds now (kept after the screen closes)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-dialog"):
            yield Label(self.question, id="ask-question", markup=False)
            yield Input(self.value, placeholder=self.placeholder, id="answer")

    @on(Input.Changed, "#answer")
    def _changed(self, event: Input.Changed) -> None:
        self.typed = event.value

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)
