"""The pieces of the conversation that are not tool calls or answers: the user's messages,
the model's reasoning (collapsed), and the notes and offers that make compaction, memos and
warnings visible in the flow."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button, Collapsible, Static

from agent_tui.agent.demo import DEMO_MODEL


class UserMessage(Static):
    """What the user asked."""

    def __init__(self, text: str, item_id: str = "") -> None:
        super().__init__(text, classes="user-message", markup=False)
        self.message_text = text
        self.border_title = f"you{f' · {item_id}' if item_id else ''}"


class ThinkingBlock(Collapsible):
    """The model's reasoning for one step (Claude's thinking, DeepSeek's reasoning_content, Gemini's
    thought summary), collapsed to ``▶ thinking · 12 lines`` so it is there without taking the screen."""

    def __init__(self, text: str) -> None:
        self.text = text
        lines = len(text.strip().splitlines()) or 1
        super().__init__(Static(text, markup=False, classes="thinking-text"),
                         title=f"thinking · {lines:,} line{'s' if lines != 1 else ''}", collapsed=True,
                         classes="thinking")


class EventNote(Static):
    """A one-line fact in the flow: compaction, memo, threshold, retry, error, info."""

    def __init__(self, text: str, kind: str) -> None:
        super().__init__(text, classes=f"event-note -{kind}", markup=False)
        self.kind = kind


class Banner(Static):
    """The offline-demo banner (and how to configure a real model).  Once a session runs another model
    (``/model``) it says so: that model works on the demo's copy, which the next demo start puts back."""

    model: reactive[str] = reactive("")
    """The model of the open session ('' before the first one opens)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, id="banner", markup=False)
        self.demo_text = text

    def watch_model(self, model: str) -> None:
        if model in ("", DEMO_MODEL):
            self.update(self.demo_text)
        else:
            self.update(f"Demo project, now with {model}: it works on the demo's copy of the sample project, "
                        "which the next `agent-tui --demo` puts back as shipped. For your own project, start "
                        "agent-tui in its folder.")


class ThresholdOffer(Horizontal):
    """At 75 % / 90 %: what happened, and the matching action one key or click away.

    It stays true: it follows the gauge (the share it shows is the current one), says when a
    compaction ran or found nothing to fold, and loses its button once the window is back
    below the point.
    """

    @dataclass
    class Accepted(Message):
        """The user took the offered action (a slash command name)."""

        command: str

    def __init__(self, level: str, message: str) -> None:
        super().__init__(classes=f"threshold-offer -{level}")
        self.level = level
        self.message = message
        self.command = "new" if level == "fresh" else "compact"
        self.resolved = False
        """The offer no longer applies (compacted, or back below the point)."""

    def compose(self) -> ComposeResult:
        yield Static(self.message, classes="offer-text", markup=False)
        label = "Fresh session from a memo (/new)" if self.command == "new" else "Compact now (/compact)"
        yield Button(label, id=f"offer-{self.command}", compact=True, variant="warning")

    def say(self, text: str) -> None:
        self.message = text
        self.query_one(".offer-text", Static).update(text)

    def resolve(self, text: str) -> None:
        """It happened (or no longer applies): say so, and take the button away."""
        self.resolved = True
        self.add_class("-resolved")
        self.say(text)
        for button in self.query(Button):
            button.display = False

    def track(self, used_pct: float, point: float) -> None:
        """Follow the gauge: the share now, or resolved once below the point."""
        what = "fresh-session" if self.level == "fresh" else "compaction"
        if used_pct < point * 100:
            self.resolve(f"Now {used_pct:.0f} % full: below the {what} point ({point:.0%}) again.")
        elif self.level == "fresh":
            self.say(f"The window is {used_pct:.0f} % full, past the fresh-session point ({point:.0%}): "
                     "start a fresh session seeded by a memo (/new).")
        else:
            self.say(f"The window is {used_pct:.0f} % full, past the compaction point ({point:.0%}): "
                     "the oldest rounds are summarised when they exceed their share; /compact does it now.")

    @on(Button.Pressed)
    def _accepted(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Accepted(self.command))
