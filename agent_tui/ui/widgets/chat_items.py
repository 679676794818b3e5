"""The pieces of the conversation that are not tool calls or answers: the user's messages
and the notes and offers that make compaction, memos and warnings visible in the flow."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static


class UserMessage(Static):
    """What the user asked."""

    def __init__(self, text: str, item_id: str = "") -> None:
        super().__init__(text, classes="user-message", markup=False)
        self.border_title = f"you{f' · {item_id}' if item_id else ''}"


class EventNote(Static):
    """A one-line fact in the flow: compaction, memo, threshold, retry, error, info."""

    def __init__(self, text: str, kind: str) -> None:
        super().__init__(text, classes=f"event-note -{kind}", markup=False)
        self.kind = kind


class Banner(Static):
    """The offline-demo banner (and how to configure a real model)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, id="banner", markup=False)


class ThresholdOffer(Horizontal):
    """At 75 % / 90 %: what happened, and the matching action one key or click away."""

    @dataclass
    class Accepted(Message):
        """The user took the offered action (a slash command name)."""

        command: str

    def __init__(self, level: str, message: str) -> None:
        super().__init__(classes=f"threshold-offer -{level}")
        self.level = level
        self.message = message
        self.command = "new" if level == "fresh" else "compact"

    def compose(self) -> ComposeResult:
        yield Static(self.message, classes="offer-text", markup=False)
        label = "Fresh session from a memo (/new)" if self.command == "new" else "Compact now (/compact)"
        yield Button(label, id=f"offer-{self.command}", compact=True, variant="warning")

    @on(Button.Pressed)
    def _accepted(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Accepted(self.command))
