"""The normalised session every trace format is read into, and the adapter interface.

Why one model: the strategies and metrics must not know where a session came
from.  An adapter turns one recorded file into a :class:`Session`:

* ``messages`` — the recorded conversation as OpenAI-style messages (user,
  assistant with tool calls, tool results), in the order a client would send
  them.  The system prompt is kept apart in ``system_prompt``.
* ``calls`` — one :class:`ModelCall` per recorded model request: how many
  messages of history existed when it was made and the input tokens the
  provider billed for it (the ground truth for the sanity check).
* ``file_events`` — what the agent saw or wrote of files (reads, writes,
  edits), keyed by the message after which it is known; the ``agent-tui``
  strategy feeds them to the engine's active-file tracker.
* ``edits`` — the text each edit replaced, keyed by the call whose reply made
  the edit: the active-file retention metric checks it was in that request.
* ``compactions`` — compactions the recording agent did itself (Claude Code);
  the ``full`` strategy reproduces them because that is what was sent.

A new format is one module with an object satisfying :class:`Adapter`
(``name``, ``detect(path)``, ``load(path)``) added to
``agent_tui.bench.adapters.ADAPTERS``.  Adapters never raise on bad input:
malformed lines or records are counted in ``Session.malformed`` and skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

Role = Literal["user", "assistant", "tool"]
FileEventKind = Literal["read", "write", "edit", "revert", "copy"]

#: Message kind of a summary the recording agent wrote when it compacted itself.
COMPACT_SUMMARY = "compact_summary"


@dataclass(frozen=True)
class ToolCall:
    """One tool call of an assistant message (OpenAI shape, arguments as JSON text)."""

    id: str
    name: str
    arguments: str

    def to_openai(self) -> dict[str, Any]:
        """The call as an OpenAI ``tool_calls`` entry."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    def argument_values(self) -> list[str]:
        """Every string value in the arguments (what a search for code should see)."""
        try:
            data = json.loads(self.arguments)
        except (ValueError, TypeError):
            return [self.arguments]
        out: list[str] = []
        _collect_strings(data, out)
        return out


def _collect_strings(data: Any, out: list[str]) -> None:
    if isinstance(data, str):
        out.append(data)
    elif isinstance(data, dict):
        for v in data.values():
            _collect_strings(v, out)
    elif isinstance(data, list):
        for v in data:
            _collect_strings(v, out)


@dataclass
class Message:
    """One recorded message, as a client would send it."""

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    name: str = ""
    """Tool name, for tool results."""
    raw: str | None = None
    """The tool's whole output when the recorded ``content`` was already cut by the agent."""
    kind: str = ""
    """``compact_summary`` for the recording agent's own compaction summary, else empty."""
    continues: bool | None = None
    """A user message the agent framework wrote (a format error, a meta or interruption line): True, it continues
    the task; None, the engine decides (``core/task_statement``)."""

    @property
    def raw_output(self) -> str:
        """The whole tool output (``raw`` if recorded, else ``content``)."""
        return self.raw if self.raw is not None else self.content

    def to_openai(self, content: str | None = None) -> dict[str, Any]:
        """The message as an OpenAI request message (``content`` overrides the text)."""
        msg: dict[str, Any] = {"role": self.role, "content": self.content if content is None else content}
        if self.tool_calls:
            msg["tool_calls"] = [tc.to_openai() for tc in self.tool_calls]
        if self.role == "tool":
            msg["tool_call_id"] = self.tool_call_id
            if self.name:
                msg["name"] = self.name
        return msg


@dataclass(frozen=True)
class ModelCall:
    """One recorded model request."""

    history_len: int
    """Messages of ``Session.messages`` that existed when the call was made."""
    recorded_input_tokens: int | None
    """Input tokens the provider billed (incl. cache reads/creation), if recorded."""


@dataclass(frozen=True)
class FileEvent:
    """What the agent saw or wrote of a file, known once message ``at`` exists."""

    at: int
    """Index into ``Session.messages`` (the message that revealed or confirmed it)."""
    path: str
    kind: FileEventKind
    content: str = ""
    """read: the text seen; write: the whole new file; edit: unused."""
    start_line: int = 1
    """read: first line number of ``content`` (1 = from the top)."""
    whole: bool = False
    """read/write: ``content`` is the whole file."""
    old: str = ""
    """edit: the text replaced."""
    new: str = ""
    """edit: its replacement."""
    full_after: str | None = None
    """edit: the whole file after the edit, when the recording knows it."""
    source: str = ""
    """copy: the file copied onto ``path`` (``cp``/``mv``)."""


@dataclass(frozen=True)
class Edit:
    """An edit the model made: ``old`` must have been visible in request ``call``."""

    call: int
    """Index into ``Session.calls``: the request whose reply made the edit."""
    path: str
    old: str


@dataclass(frozen=True)
class Compaction:
    """The recording agent compacted: history before ``at`` was replaced by message ``at``."""

    at: int
    """Index of the compaction summary message in ``Session.messages``."""
    input_tokens: int
    """Input tokens of the summarising call (Claude Code's ``preTokens``)."""
    restored_tokens: int = 0
    """Unrecorded tokens the client re-injected after compacting (re-read files, todos),
    estimated from the first call after it; only the ``full`` strategy sends them."""


@dataclass
class Session:
    """One recorded agent session, normalised."""

    id: str
    source: str
    """Adapter name: ``mini-swe-agent`` or ``claude-code``."""
    model: str
    default_window: int
    """The recorded model's window, used unless ``--window`` is given."""
    system_prompt: str = ""
    messages: list[Message] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    file_events: list[FileEvent] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    prefix_tokens: int = 0
    """Unrecorded stable prefix (tool definitions, the client's hidden prompt),
    estimated from the first call; added to every request of every strategy."""
    malformed: int = 0
    """Lines or records that could not be read and were skipped."""
    path: str = ""

    def first_user(self) -> str:
        """The first user message (the task statement), or ''."""
        for m in self.messages:
            if m.role == "user" and m.kind != COMPACT_SUMMARY:
                return m.content
        return ""

    def events_by_message(self) -> dict[int, list[FileEvent]]:
        """File events grouped by the message index at which they become known."""
        out: dict[int, list[FileEvent]] = {}
        for ev in self.file_events:
            out.setdefault(ev.at, []).append(ev)
        return out


class Adapter(Protocol):
    """Reads one recorded format. A new format is one module implementing this."""

    name: str
    """Short name shown in reports (``mini-swe-agent``)."""

    def detect(self, path: Path) -> bool:
        """True if ``path`` looks like a file of this format (cheap: name and first bytes)."""
        ...

    def load(self, path: Path) -> Session:
        """The normalised session; malformed parts are counted and skipped, never raised."""
        ...
