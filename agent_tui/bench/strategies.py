"""Context strategies the replay compares, behind one small interface.

A strategy sees the recorded session message by message (``observe``) and,
at each recorded model call, says what it would send (``build``).  It may
change what a tool result looks like (shaping), drop or summarise history,
add pins or file copies; it never changes the recorded replies.

* ``full`` — send everything, as the recording agent did.  When the agent
  compacted itself (Claude Code), ``full`` follows: history before the
  compaction summary is dropped and the summarising call's input is charged.
  After a compaction it also sends the unrecorded context the client
  re-injected (re-read files, todos; ``Compaction.restored_tokens``).  That
  is what was really sent, so its token series matches the recorded usage
  (the sanity test checks r > 0.99).
* ``window`` — the system prompt plus the last N rounds (a round is one
  assistant message with its tool results, or one user message), plain
  truncation: nothing summarised, nothing pinned, the token window ignored.
* ``masking``, ``auto-compact``, ``batch`` — anchors from published context
  managers, in :mod:`agent_tui.bench.anchors`.
* ``agent-tui`` — this project's engine, in :mod:`agent_tui.bench.engine_strategy`.

Neither ``window`` nor ``agent-tui`` sees the recording agent's compaction
summary: they manage the full recorded history themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tui.bench.trace import COMPACT_SUMMARY, Message, Session
from agent_tui.core.config import MemoryConfig

#: Rounds ``window`` keeps: the engine's own cap on rounds kept verbatim, so both
#: strategies get the same verbatim budget and differ only in what the engine adds.
DEFAULT_ROUNDS = MemoryConfig().max_rounds


@dataclass
class Request:
    """What a strategy sends for one model call."""

    messages: list[dict[str, Any]]
    summarising_input_tokens: int = 0
    """Input tokens of summarising calls made to build this request."""
    summary_tokens: int = 0
    """Output tokens of those summarising calls."""
    summarising_cached: int = 0
    """Of ``summarising_input_tokens``, the tokens the summarising call reads from the prompt cache
    (a call that resends the cached request with the instruction at the end)."""
    opaque_tokens: int = 0
    """Tokens sent that the recording does not show (re-injected after the client's
    own compaction); counted, never searched."""
    extra: dict[str, Any] = field(default_factory=dict)


class Strategy(Protocol):
    """A way of building requests from a growing recorded history."""

    name: str

    def start(self, session: Session, window: int) -> None:
        """Begin a session; ``window`` is the token window requests should fit."""
        ...

    def observe(self, index: int, message: Message) -> str | None:
        """Take recorded message ``index``; for a tool result, return the text it will send."""
        ...

    def build(self, call_index: int) -> Request:
        """The request for recorded model call ``call_index`` given everything observed."""
        ...


def system_message(session: Session) -> list[dict[str, Any]]:
    """The system message list for a session (empty when nothing was recorded)."""
    return [{"role": "system", "content": session.system_prompt}] if session.system_prompt else []


class FullStrategy:
    """Append everything; follow the recording agent's own compactions."""

    name = "full"

    def __init__(self) -> None:
        self.history: list[dict[str, Any]] = []
        self.system: list[dict[str, Any]] = []
        self.pending_summarising = 0
        self.opaque = 0
        self.compaction_at: dict[int, tuple[int, int]] = {}

    def start(self, session: Session, window: int) -> None:
        self.system = system_message(session)
        self.history = []
        self.pending_summarising = 0
        self.opaque = 0
        self.compaction_at = {c.at: (c.input_tokens, c.restored_tokens) for c in session.compactions}

    def observe(self, index: int, message: Message) -> str | None:
        if index in self.compaction_at:
            self.history = []
            summarising, self.opaque = self.compaction_at[index]
            self.pending_summarising += summarising
        self.history.append(message.to_openai())
        return message.content if message.role == "tool" else None

    def build(self, call_index: int) -> Request:
        req = Request([*self.system, *self.history], summarising_input_tokens=self.pending_summarising,
                      opaque_tokens=self.opaque)
        self.pending_summarising = 0
        return req


class WindowStrategy:
    """System prompt + the last N rounds, plain truncation."""

    name = "window"

    def __init__(self, rounds: int = DEFAULT_ROUNDS) -> None:
        if rounds < 1:
            raise ValueError("rounds must be >= 1")
        self.rounds = rounds
        self.history: list[dict[str, Any]] = []
        self.round_starts: list[int] = []
        self.system: list[dict[str, Any]] = []

    def start(self, session: Session, window: int) -> None:
        self.system = system_message(session)
        self.history = []
        self.round_starts = []

    def observe(self, index: int, message: Message) -> str | None:
        if message.kind == COMPACT_SUMMARY:
            return None
        if message.role != "tool" or not self.history:
            self.round_starts.append(len(self.history))
        self.history.append(message.to_openai())
        return message.content if message.role == "tool" else None

    def build(self, call_index: int) -> Request:
        start = self.round_starts[-self.rounds] if len(self.round_starts) >= self.rounds else 0
        return Request([*self.system, *self.history[start:]])
