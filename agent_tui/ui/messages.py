"""The UI's own messages: facts, named in the past tense, posted by workers and widgets.

Workers never touch widgets; they post these, and the widgets that care handle
them with ``@on``.  Tests capture them with ``run_test(message_hook=...)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual.message import Message

from agent_tui.agent.events import Event


@dataclass
class SessionOpened(Message):
    """A session is ready (first open, /new, /resume, /model)."""

    session_id: str
    model: str
    transcript: list[Any]
    """Its chat messages so far (ContextItems), to redraw the conversation."""
    note: str
    """What happened, shown in the flow ('resumed …', 'new session seeded by …')."""
    cost_usd: float = 0.0
    """What the session has spent in all its runs so far (a resumed session shows it at once)."""
    cache_hit_pct: float = 0.0
    """Cache reads over all the session's input tokens so far, in percent."""


@dataclass
class LlmLoaded(Message):
    """The model client (litellm) finished loading in the background."""

    seconds: float


@dataclass
class AgentEventReceived(Message, bubble=False):
    """One event from the agent loop (the UI renders it)."""

    event: Event


@dataclass
class BudgetChanged(Message, bubble=False):
    """What the gauges show now (delivered at most ~30 times a second)."""

    breakdown: dict[str, Any]
    """The breakdown of the latest assembly (the `context --json` shape)."""
    points: tuple[int, ...]
    """Request totals of the model calls since the last delivery (for the sparkline)."""
    output_tokens: int
    """Tokens of the answer streamed so far in this step (fills the output reserve)."""
    reset: bool = False
    """A different session: start the sparkline afresh."""


@dataclass
class CompactionSkipped(Message, bubble=False):
    """/compact found nothing worth folding; nothing was changed."""

    reason: str


@dataclass
class FilesUndone(Message, bubble=False):
    """/undo took back (some of) a turn's file changes, or found none to take back."""

    text: str
    """What was restored, deleted and left, for the user."""
    complete: bool
    """Every change of the turn was taken back (False: some file was left, or nothing to undo)."""


@dataclass
class TaskSubmitted(Message):
    """The user sent a message to the agent."""

    text: str


@dataclass
class CommandEntered(Message):
    """The user typed a slash command."""

    name: str
    arg: str


@dataclass
class ItemChanged(Message):
    """The user changed an item (base of the four below)."""

    item_id: str
    state: str
    pinned: bool
    note: str = ""
    """What the user should know beyond the new state (it was already in; it does not fit the budget)."""
    effect: str = ""
    """What it did to the next request's size ("next request 12,345 → 11,900 tokens"; "" during a turn)."""
    verb: ClassVar[str] = "changed"


class ItemPinned(ItemChanged):
    """An item was pinned."""

    verb = "pinned"


class ItemUnpinned(ItemChanged):
    """An item was unpinned."""

    verb = "unpinned"


class ItemEvicted(ItemChanged):
    """An item (a message, a tool output) was taken out of the window."""

    verb = "evicted"


class ItemRestored(ItemChanged):
    """An evicted or summarised item was brought back."""

    verb = "restored"


ITEM_MESSAGES: dict[str, type[ItemChanged]] = {
    "pin": ItemPinned, "unpin": ItemUnpinned, "evict": ItemEvicted, "restore": ItemRestored,
}


@dataclass
class TurnEnded(Message):
    """The running turn ended: done, cut (cancelled), step_limit or error."""

    status: str
    turn: int


@dataclass
class ApprovalAnswered(Message):
    """The user answered an approval request: once, always or deny."""

    call_id: str
    answer: str


@dataclass
class ActionFailed(Message):
    """Something the user asked for could not be done (shown, never a crash)."""

    message: str
