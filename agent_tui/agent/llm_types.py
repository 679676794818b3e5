"""Plain data for the LLM layer: config, streamed events, tool calls, usage.

No litellm here (it is imported lazily by :mod:`agent_tui.agent.llm`), so the UI
and the loop can import these types for free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.parse import loads_json


@dataclass
class LLMConfig:
    """How to reach one model through litellm."""

    model: str = ""
    """Any litellm model string (``openai/gpt-4o``, ``anthropic/claude-sonnet-4-5``, ...)."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible or self-hosted endpoint (None: provider default)."""
    api_key: str | None = None
    """API key; None lets litellm read the provider's usual env var (``OPENAI_API_KEY``...)."""
    temperature: float | None = None
    """Sampling temperature (None: provider default, not sent; dropped for models that refuse it)."""
    max_output_tokens: int | None = None
    """Cap on the reply's tokens (sent as ``max_tokens``; None: provider default)."""
    timeout: float = 120.0
    """Seconds to wait for the connection and for each read of the stream."""
    max_retries: int = 4
    """Retries after the first attempt on 429, 5xx, timeouts and connection errors."""
    backoff_base: float = 1.0
    """First retry delay in seconds; doubles per retry, with jitter."""
    backoff_cap: float = 30.0
    """Longest computed backoff delay in seconds."""
    max_retry_after: float = 120.0
    """Longest ``Retry-After`` we agree to wait; a longer one fails the call at once."""
    extra: dict[str, Any] = field(default_factory=dict)
    """More keyword arguments for ``litellm.acompletion`` (e.g. ``extra_headers``)."""
    prices: dict[str, float] = field(default_factory=dict)
    """USD per token from the config (``input_cost_per_token``...); empty: litellm's price table."""
    cache: bool = True
    """Ask for provider prompt caching (Anthropic ``cache_control``, OpenAI ``prompt_cache_key``)."""
    reasoning_effort: str | None = None
    """``low``/``medium``/``high`` for reasoning models (OpenAI o-series and GPT-5, Gemini, Claude)."""
    thinking: int | None = None
    """Extended-thinking budget in tokens (Anthropic, Gemini); None: off."""
    num_ctx: int | None = None
    """Ollama's context length (sent as ``num_ctx``; Ollama's own default truncates at 2-4K)."""

    def __repr__(self) -> str:  # never show the key
        key = "***" if self.api_key else None
        return (
            f"LLMConfig(model={self.model!r}, api_base={self.api_base!r}, api_key={key!r}, "
            f"temperature={self.temperature!r}, max_output_tokens={self.max_output_tokens!r}, "
            f"timeout={self.timeout!r}, max_retries={self.max_retries!r})"
        )


# --------------------------------------------------------------------------- usage


@dataclass
class Usage:
    """Tokens and cost of one model call."""

    prompt_tokens: int = 0
    """Input tokens as billed (reported by the provider, or estimated)."""
    completion_tokens: int = 0
    """Output tokens as billed."""
    cost_usd: float = 0.0
    """Cost from litellm's price table; 0.0 for models it does not know."""
    estimated: bool = False
    """True when the provider reported no usage and we counted locally."""
    cached_tokens: int = 0
    """Input tokens served from the provider's prompt cache (part of ``prompt_tokens``)."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache (Anthropic; part of ``prompt_tokens``)."""
    reasoning_tokens: int = 0
    """Output tokens spent on reasoning (part of ``completion_tokens``)."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost_usd + other.cost_usd,
            self.estimated or other.estimated,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


@dataclass
class UsageTotals:
    """Running totals for a session (add each call's :class:`Usage`)."""

    calls: int = 0
    """Model calls that completed."""
    prompt_tokens: int = 0
    """Sum of input tokens."""
    completion_tokens: int = 0
    """Sum of output tokens."""
    cost_usd: float = 0.0
    """Sum of costs in USD."""
    cached_tokens: int = 0
    """Sum of input tokens served from the provider's prompt cache."""
    last: Usage | None = None
    """The most recent call's usage."""

    def add(self, usage: Usage) -> None:
        self.calls += 1
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.cost_usd += usage.cost_usd
        self.cached_tokens += usage.cached_tokens
        self.last = usage

    @property
    def cache_hit_pct(self) -> float:
        """Cache reads over all input tokens so far, in percent."""
        return 100.0 * self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# --------------------------------------------------------------------------- tool calls


@dataclass
class ToolCall:
    """One assembled tool call from the model."""

    id: str
    """The provider's call id (answer it with a ``tool`` message of this id)."""
    name: str
    """Tool name as the model wrote it."""
    arguments: str
    """The raw arguments JSON string, exactly as received."""
    arguments_error: str | None = None
    """Why ``arguments`` is unusable (not JSON, not an object); None when fine."""

    @property
    def args(self) -> dict[str, Any]:
        """Parsed arguments ({} when ``arguments_error`` is set)."""
        if self.arguments_error:
            return {}
        value = loads_json(self.arguments or "{}")
        return value if isinstance(value, dict) else {}

    def to_message_dict(self, raw: bool = False) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry for the assistant message.

        Unparsable arguments are replaced by ``{}`` unless ``raw`` (some providers
        re-parse the history and would reject the request).
        """
        arguments = self.arguments if (raw or not self.arguments_error) else "{}"
        if not raw and not arguments.strip():
            arguments = "{}"  # (run as no arguments; a strict server re-parsing the history rejects "")
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": arguments}}


_NAME_OK = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]+")


def history_name(name: str) -> str:
    """A tool name as the history may carry it: a model that calls ``functions.read_file`` or ``read file``
    gets "unknown tool" back, but its call stays in every later request, and OpenAI answers 400 ("Invalid
    'messages[1].tool_calls[0].function.name': string does not match pattern '^[a-zA-Z0-9_-]+$'") from then
    on; Anthropic's names follow the same rule.  Other characters become ``_``, and it is cut to 64."""
    if _NAME_OK.fullmatch(name):
        return name
    return _NAME_BAD.sub("_", name).strip("_")[:64] or "unknown_tool"


def check_arguments(name: str, arguments: str) -> str | None:
    """The problem with a tool call's arguments string, or None if it is a JSON object."""
    if not name:
        return "the tool call has no tool name"
    if not arguments.strip():
        return None  # no arguments at all: treated as {}
    try:
        value = loads_json(arguments)
    except ValueError as e:
        return f"arguments are not valid JSON ({e.msg} at position {e.pos})"
    if not isinstance(value, dict):
        return f"arguments must be a JSON object, got {type(value).__name__}"
    return None


def unique_call_ids(calls: list[ToolCall], used: set[str]) -> int:
    """Give each call an id no earlier call of the session has (in place; ``used`` grows); returns how many
    changed.  Kimi K2 behind vLLM or SGLang numbers its calls ``functions.NAME:N`` from 0 in every reply, so a
    session repeats ids, and Claude refuses a request where two ``tool_use`` blocks share one (after ``/model``),
    while results kept by id would answer the wrong call.  A repeated id ending in a number takes the next free
    number (the model's own pattern stays), any other gets ``-2``, ``-3``…"""
    changed = 0
    for call in calls:
        if call.id in used:
            stem, digits = re.match(r"(.*?)(\d*)$", call.id, re.S).groups()  # type: ignore[union-attr]
            n, fresh = (int(digits) if digits else 1), call.id
            while fresh in used:
                n += 1
                fresh = f"{stem}{n}" if digits else f"{call.id}-{n}"
            call.id = fresh
            changed += 1
        used.add(call.id)
    return changed


def assistant_calls(calls: list[ToolCall]) -> list[dict[str, Any]]:
    """The ``tool_calls`` entries to store and resend: unparsable arguments become ``{}``
    (every provider re-parses the history; the raw string is kept in the item's provenance)."""
    return [c.to_message_dict() for c in calls]


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's visible text."""

    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of the model's reasoning text (models that stream it); not part of the reply."""

    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A fragment of a streamed tool call (``id``/``name`` arrive on the first one)."""

    index: int
    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True)
class Retrying:
    """The call failed and will be retried after ``delay`` s (when part of the reply had streamed,
    ``discarded`` says how much of it the retry replaces)."""

    attempt: int
    """Retry number, 1 for the first retry."""
    delay: float
    """Seconds we wait before the retry."""
    reason: str
    """One line: why (``rate limited (HTTP 429)``...), key-free."""
    max_retries: int = 0
    """The configured number of retries, for ``retry 1/4`` displays."""
    discarded: int = 0
    """Characters of a reply that broke off mid-stream and are thrown away: the retry asks again."""


@dataclass
class Completion:
    """The end of one model call: the whole reply."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model: str = ""
    reasoning: str = ""
    attempts: int = 1
    """How many HTTP attempts the call took (1 = no retry)."""
    thinking_blocks: list[dict[str, Any]] = field(default_factory=list)
    """Anthropic thinking blocks with their signatures, exactly as received (sent back in the tool loop)."""
    prefix: str = ""
    """Fingerprint of the request that produced this reply, for a model that binds thinking to it (llm_binding)."""

    @property
    def provider_data(self) -> dict[str, Any]:
        """Reasoning state the provider may require back: thinking blocks, reasoning_content."""
        data: dict[str, Any] = {}
        if self.thinking_blocks:
            data["thinking_blocks"] = self.thinking_blocks
            if self.prefix:
                data["prefix"] = self.prefix
        if self.reasoning:
            data["reasoning_content"] = self.reasoning
        return data

    def to_message(self) -> dict[str, Any]:
        """The assistant message to append to the history."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            msg["tool_calls"] = [tc.to_message_dict() for tc in self.tool_calls]
        return msg


LLMEvent = TextDelta | ReasoningDelta | ToolCallDelta | Retrying | Completion
