"""Plain events the agent loop yields; the TUI renders them, headless prints them.

Every event is a small dataclass with a ``type`` tag and ``to_json()`` (the
JSON Lines schema of `agent-tui run --json`, documented in README.md).  No
event holds a reference into the engine, so a consumer may keep them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar


@dataclass
class Event:
    """Base of all loop events."""

    type: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}


@dataclass
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    turn: int
    """Turn number within the session."""
    session: str
    """Session id."""
    task: str
    """The user's message."""


@dataclass
class StepStarted(Event):
    type: ClassVar[str] = "step_started"
    step: int
    """Model call number within the turn (1-based)."""


@dataclass
class BudgetUpdated(Event):
    """The breakdown of the request about to be sent (shaped like `context --json`)."""

    type: ClassVar[str] = "budget"
    step: int
    """Model call number within the turn."""
    turn: int
    """Turn number."""
    window: int
    """Context window."""
    reserve: int
    """Output reserve."""
    input_budget: int
    """window - reserve - margin."""
    total: int
    """Tokens of the request."""
    used_pct: float
    """total / input_budget, in percent."""
    categories: dict[str, int]
    """Tokens per category."""
    over_budget: bool
    """Mandatory parts alone exceed the budget."""
    compact_at: float = 0.75
    """Compaction threshold."""
    fresh_at: float = 0.90
    """Fresh-session threshold."""
    calibration: float = 1.0
    """Provider tokens per engine-counted token for this model (learnt; scales the input budget)."""
    estimated_prompt_tokens: int = 0
    """What the provider is expected to report as prompt_tokens for this request (total x calibration)."""
    compaction: str = ""
    """Why the request was or was not compacted first (the cost model's latest answer: 'not worth it yet',
    'near the window: an event would free too little yet', ...; "" before any)."""

    @classmethod
    def from_breakdown(cls, bd: dict[str, Any], step: int, turn: int) -> BudgetUpdated:
        return cls(step=step, turn=turn, window=bd["window"], reserve=bd["reserve"],
                   input_budget=bd["input_budget"], total=bd["total"], used_pct=bd["used_pct"],
                   categories=dict(bd["categories"]), over_budget=bd["over_budget"],
                   compact_at=bd.get("compact_at", 0.75), fresh_at=bd.get("fresh_at", 0.9))


@dataclass
class ThresholdCrossed(Event):
    type: ClassVar[str] = "threshold"
    level: str
    """`compact` (75 %) or `fresh` (90 %)."""
    used_pct: float
    """Share used when it was crossed."""
    message: str
    """What the user is told and offered."""


@dataclass
class TextDelta(Event):
    type: ClassVar[str] = "text"
    text: str
    """A piece of the streamed answer."""


@dataclass
class Retrying(Event):
    type: ClassVar[str] = "retrying"
    attempt: int
    """Retry number."""
    delay: float
    """Seconds waited before it."""
    reason: str
    """What failed (rate limit, server error, timeout)."""
    discarded: int = 0
    """Characters of a reply that broke off mid-stream, thrown away: the step is asked again."""


@dataclass
class ToolCallStarted(Event):
    type: ClassVar[str] = "tool_started"
    call_id: str
    """The model's tool call id."""
    name: str
    """Tool name (MCP tools: server__tool)."""
    arguments: Any
    """Parsed arguments (or the raw string if they were not valid JSON)."""
    kind: str = "read"
    """read, write or command."""


@dataclass
class ApprovalRequested(Event):
    type: ClassVar[str] = "approval"
    call_id: str
    """The call awaiting a decision."""
    name: str
    """Tool name."""
    kind: str
    """write or command."""
    preview: str
    """A diff for edits, the command line for shell."""
    prefix: str | None = None
    """A command prefix the user may allow always instead of the exact line (None: not offered)."""
    reason: str = ""
    """Why the policy asks (e.g. which part of the command no allow rule covers)."""
    path: str | None = None
    """A write's ``path`` argument as the model gave it (None for a command): what the write targets, which
    text parsed from the preview is not (a path can hold a line that reads as a diff header)."""
    server: str | None = None
    """The MCP server whose tool asks (None for a built-in tool): the call runs a program, it changes no file."""


@dataclass
class ToolCallFinished(Event):
    type: ClassVar[str] = "tool_finished"
    call_id: str
    """The model's tool call id."""
    name: str
    """Tool name."""
    text: str
    """What the model sees."""
    is_error: bool = False
    """The tool failed or was denied."""
    handle: str | None = None
    """Where the whole output is stored, if shaped."""
    raw_tokens: int = 0
    """Tokens of the whole output."""
    shaped_tokens: int = 0
    """Tokens the model sees."""
    item_id: str = ""
    """The context item holding the result."""
    meta: dict[str, Any] = field(default_factory=dict)
    """UI details (diff, path, exit code)."""


@dataclass
class AssistantMessage(Event):
    type: ClassVar[str] = "assistant"
    item_id: str
    """The stored message item."""
    text: str
    """The full text of this step's answer."""
    tool_calls: int
    """How many tools it called."""
    reasoning: str = ""
    """The model's reasoning text for this step (thinking models); shown collapsed."""


@dataclass
class MemoSaved(Event):
    type: ClassVar[str] = "memo"
    memo_id: str
    """The memo item id."""
    kind: str
    """manual, auto (task end), pre-compaction, seed."""
    text: str
    """The memo."""


@dataclass
class Compacted(Event):
    type: ClassVar[str] = "compaction"
    evicted: int
    """Items folded into the summary."""
    summary_id: str | None
    """The new summary item (None if it failed)."""
    summariser: str
    """llm or extractive."""
    tokens_before: int
    """History tokens before."""
    tokens_after: int
    """History tokens after."""
    reason: str
    """Which cap tripped."""
    error: str | None = None
    """Why it failed (the rounds then stay verbatim)."""


@dataclass
class Usage(Event):
    type: ClassVar[str] = "usage"
    prompt_tokens: int
    """Input tokens of the call (provider's count)."""
    completion_tokens: int
    """Output tokens."""
    cost_usd: float
    """Cost of the call."""
    session_cost_usd: float
    """Cost so far in the session."""
    cached_tokens: int = 0
    """Input tokens the provider served from its prompt cache (reads)."""
    cache_write_tokens: int = 0
    """Input tokens the provider wrote to its prompt cache on this call."""
    cache_hit_pct: float = 0.0
    """cached_tokens / prompt_tokens, in percent."""
    session_cache_hit_pct: float = 0.0
    """Cache reads over all input tokens of the session so far, in percent."""
    reasoning_tokens: int = 0
    """Output tokens the model spent reasoning (part of completion_tokens)."""


@dataclass
class ErrorEvent(Event):
    type: ClassVar[str] = "error"
    message: str
    """A clear, one-line message."""
    fatal: bool = False
    """The turn cannot continue."""


@dataclass
class WarningRaised(Event):
    """Something the user should know that does not stop the turn: an instruction file not loaded, the
    session's cost not saved.  Each engine warning is raised once."""

    type: ClassVar[str] = "warning"
    message: str
    """The warning, one sentence."""


@dataclass
class TurnFinished(Event):
    type: ClassVar[str] = "turn_finished"
    turn: int
    """Turn number."""
    steps: int
    """Model calls made."""
    text: str
    """The final answer (partial if cut)."""
    status: str = "done"
    """done, cut (cancelled), step_limit, error; truncated (output limit), filtered (content
    filter) or empty (no text, no calls) when the last reply ended that way."""


@dataclass
class TrustReported(Event):
    """What the workspace's own config asks for and whether it applies (before the turn)."""

    type: ClassVar[str] = "trust"
    workspace: str
    """The workspace's real path."""
    trusted: bool
    """True: the workspace's asks apply; False: they are ignored."""
    changed: bool
    """The folder was trusted before for different asks."""
    asks: list[dict[str, Any]] = field(default_factory=list)
    """Each ask: source file, dotted key, value, summary."""
    ignored: list[str] = field(default_factory=list)
    """One line per ignored ask (empty when trusted)."""
    problems: list[str] = field(default_factory=list)
    """Workspace files that could not be read (a broken .mcp.json)."""


@dataclass
class SessionOpened(Event):
    """Which session runs, on which model, and what the engine warned about on opening (before the turn)."""

    type: ClassVar[str] = "session"
    session: str
    """Session id."""
    model: str
    """The model string the session calls."""
    window: int
    """The context window in tokens."""
    warnings: list[str] = field(default_factory=list)
    """Warnings of the opening: a repaired sandbox, a memory store git tracks, a window the model cannot take."""


@dataclass
class McpStarted(Event):
    """The MCP servers after start-up (before the turn)."""

    type: ClassVar[str] = "mcp"
    servers: list[dict[str, Any]] = field(default_factory=list)
    """Each server: name, state, error."""
    errors: list[str] = field(default_factory=list)
    """Config entries that could not be used."""
