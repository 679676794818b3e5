"""One item in full: its content as sent, its facts, and the whole output behind its handle."""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, TabbedContent, TabPane, TextArea

from agent_tui.ui.screens.to_box import TypesToBox


def item_facts(item: Any, sent: int | None = None) -> str:
    """The item's facts; ``sent``: what it cost in the latest request (its text and message framing), the
    inspector's "sent" column, said beside its own count when they differ."""
    tokens = f"{item.tokens:,} tokens" + (f" ({sent:,} sent, with framing)" if sent and sent != item.tokens else "")
    parts = [item.id, str(item.category), tokens, str(item.state), f"turn {item.turn}"]
    if item.pinned:
        parts.append("pinned")
    if item.role:
        parts.append(f"role {item.role}")
    if item.name:
        parts.append(f"tool {item.name}")
    if item.summarised_into:
        parts.append(f"summarised into {item.summarised_into}")
    return " · ".join(parts)


class ItemScreen(TypesToBox, ModalScreen[None]):
    """The full content of one context item."""

    CSS_PATH = "item_view.tcss"
    BINDINGS = [Binding("escape", "dismiss", "Close", priority=True), Binding("q", "dismiss", "Close", show=False)]
    VIEW_KEYS = frozenset("q")
    """The printable keys this screen binds (letters typed on go into the message box)."""

    def __init__(self, item: Any, whole: str | None, sent: int | None = None, sent_text: str | None = None) -> None:
        super().__init__()
        self.item = item
        self.whole = whole
        self.sent = sent
        self.sent_text = sent_text
        """The whole message the latest request carried it in, when that was more than its text (None: it alone)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="item-dialog"):
            yield Label(item_facts(self.item, self.sent), id="item-facts")
            with TabbedContent():
                with TabPane("As sent", id="sent"):
                    yield TextArea(self.sent_text or self.item.content, read_only=True, soft_wrap=True,
                                   id="item-content")
                if self.sent_text is not None:
                    with TabPane("Item", id="own"):
                        yield TextArea(self.item.content, read_only=True, soft_wrap=True, id="item-own")
                if self.whole is not None:
                    with TabPane("Whole output", id="whole"):
                        yield TextArea(self.whole, read_only=True, soft_wrap=True, id="item-whole")
                with TabPane("Provenance", id="provenance"):
                    yield TextArea(json.dumps(self.item.provenance, indent=2, ensure_ascii=False, default=str),
                                   read_only=True, id="item-provenance")
        yield Footer()
