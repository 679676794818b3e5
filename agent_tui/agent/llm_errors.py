"""Errors of the LLM layer, key redaction, and the mapping from litellm's exceptions.

Every error we raise carries a one-line, key-free message.  They are raised
``from None``: the original litellm exception (whose text may echo a key or a
request) is not chained into tracebacks; its type name is kept instead.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import email.utils
import json
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from .llm_types import LLMConfig


class LLMError(Exception):
    """A model call failed; ``str(err)`` is one clear, key-free line."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "other",
        status_code: int | None = None,
        model: str = "",
        attempts: int = 1,
        original_type: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        #: auth, not_found, bad_request, rate_limit, server, timeout, connection,
        #: no_model, unknown_provider, stream_interrupted, other.
        self.kind = kind
        self.status_code = status_code
        self.model = model
        self.attempts = attempts
        #: Class name of the underlying exception (the exception itself is dropped).
        self.original_type = original_type

    def __str__(self) -> str:
        return self.message


class NoModelConfigured(LLMError):
    """No model string was given."""

    def __init__(self) -> None:
        super().__init__(
            "No model configured: pass --model (e.g. --model openai/gpt-4o) or use /model in the TUI, set "
            "`model` in ~/.config/agent-tui/config.toml (a project's own config counts once you trust the "
            "project), or run with --demo to try the app without a model.",
            kind="no_model",
        )


class ContextOverflow(LLMError):
    """The request did not fit the model's context window (compact harder and retry once)."""

    def __init__(self, message: str, *, limit: int | None = None, size: int | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        #: The context limit the provider stated in its refusal (``… > 200000 maximum``), when it said one.
        self.limit = limit
        #: The refused request's size in the provider's tokens (``prompt is too long: 210345 tokens …``), when said.
        self.size = size


_STATED_LIMIT = (
    re.compile(r"\b\d[\d,]*\s+tokens?\s*>\s*(\d[\d,]*)\s+maximum"),  # Anthropic: "prompt is too long: N tokens > M maximum"
    re.compile(r"maximum context length is\s+(\d[\d,]*)\s+tokens"),  # OpenAI, DeepSeek, vLLM
    re.compile(r"maximum number of tokens allowed\s*\((\d[\d,]*)\)"),  # Gemini
)


_STATED_SIZE = (
    re.compile(r"\b(\d[\d,]*)\s+tokens?\s*>\s*\d[\d,]*\s+maximum"),
    re.compile(r"messages resulted in\s+(\d[\d,]*)\s+tokens"),
    re.compile(r"input token count\s*\((\d[\d,]*)\)"),
)


def _first_number(patterns: tuple[re.Pattern[str], ...], said: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(said)
        if found:
            return int(found.group(1).replace(",", "")) or None
    return None


def stated_limit(said: str) -> int | None:
    """The context limit a provider's refusal states, or None."""
    return _first_number(_STATED_LIMIT, said)


def stated_size(said: str) -> int | None:
    """The refused request's size a provider's refusal states (its own count), or None."""
    return _first_number(_STATED_SIZE, said)


class StreamInterrupted(LLMError):
    """The stream broke after part of the reply had been streamed (not retried)."""

    def __init__(self, message: str, *, partial_text: str, partial_tool_calls: list[Any], **kw: Any) -> None:
        super().__init__(message, kind="stream_interrupted", **kw)
        #: The text streamed before the break.
        self.partial_text = partial_text
        #: Tool calls (possibly incomplete) assembled before the break.
        self.partial_tool_calls = partial_tool_calls


# --------------------------------------------------------------------------- redaction

_KEY_PATTERNS = [
    (re.compile(r"sk-[A-Za-z0-9_\-\*]{6,}"), "sk-***"),
    (re.compile(r"AIza[0-9A-Za-z_\-]{20,}"), "AIza***"),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-~+/]{8,}=*"), r"\1***"),
    (re.compile(r"(?i)((?:api[_-]?key|x-api-key|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{6,}"), r"\1***"),
]


def secrets_for(config: LLMConfig | None) -> list[str]:
    """Strings that must never be shown: the configured key and ``*_API_KEY`` env values."""
    found: list[str] = []
    if config is not None and config.api_key:
        found.append(config.api_key)
    for name, value in os.environ.items():
        if value and len(value) >= 8 and (name.endswith("_API_KEY") or name.endswith("_TOKEN")):
            found.append(value)
    return sorted(set(found), key=len, reverse=True)


def redact(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with known secrets and anything that looks like an API key masked."""
    for s in secrets or []:
        if len(s) >= 6:
            text = text.replace(s, "***")
            if len(s) >= 12:  # providers often echo a key's head and tail only
                text = text.replace(s[-8:], "***")
    for pattern, repl in _KEY_PATTERNS:
        text = pattern.sub(repl, text)
    return text


# --------------------------------------------------------------------------- classification


@dataclass
class Failure:
    """How one failed attempt should be handled."""

    error: LLMError
    """What to raise if we do not retry."""
    retryable: bool = False
    retry_after: float | None = None
    """Seconds the provider asked us to wait (``Retry-After``)."""

    @property
    def reason(self) -> str:
        return self.error.message


_PREFIX = re.compile(r"^(?:litellm\.)?[A-Za-z]*(?:Error|Exception|Timeout)\s*[:\-]\s*")
#: A Python object's repr with its address (``ssl:<ssl.SSLContext object at 0x7f0d…>``).
_OBJECT_REPR = re.compile(r"(?:\b\w+:)?<[\w.]+ object at 0x[0-9a-fA-F]+>")
_BYTES_BODY = re.compile(r"""b(['"])(\{.*\})\1""", re.S)
"""A response body litellm passes on as Python bytes (``b'{"type": "error", ...}'``: Anthropic's streamed errors)."""


def _body_message(text: str) -> str:
    """``text`` with a JSON error body (bytes or plain) replaced by the message inside it."""
    found = _BYTES_BODY.search(text)
    raw = None
    if found is not None:
        start, end = found.span()
        with contextlib.suppress(ValueError, SyntaxError):
            raw = ast.literal_eval("b" + found.group(1) + found.group(2) + found.group(1)).decode("utf-8", "replace")
    elif (start := text.find("{")) >= 0 and text.rstrip().endswith("}"):
        raw, end = text[start:], len(text)
    if raw is None:
        return text
    try:
        body = json.loads(raw)
    except ValueError:
        return text
    err = body.get("error") if isinstance(body, dict) else None
    message = err.get("message") if isinstance(err, dict) else body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message.strip():
        return text
    return (text[:start] + message + text[end:]).strip()


def provider_message(exc: BaseException) -> str:
    """The provider's own words from a litellm exception, one line, prefixes removed."""
    text = str(getattr(exc, "message", "") or exc) or type(exc).__name__
    if "Exception - " in text:
        text = text.split("Exception - ", 1)[1]
    for _ in range(4):
        new = _PREFIX.sub("", text)
        if new == text:
            break
        text = new
    text = text.split("LiteLLM Retried:")[0]
    text = _body_message(text)
    text = _OBJECT_REPR.sub("", text)  # aiohttp's "ssl:<ssl.SSLContext object at 0x7f…>" says nothing to a user
    text = " ".join(text.split())
    return text[:300] + ("..." if len(text) > 300 else "")


def _headers(exc: BaseException) -> Any:
    for attr in ("litellm_response_headers", "headers"):
        h = getattr(exc, attr, None)
        if h:
            return h
    try:
        resp = getattr(exc, "response", None)
    except Exception:  # openai errors raise on a missing response
        resp = None
    return getattr(resp, "headers", None)


def retry_after_seconds(exc: BaseException) -> float | None:
    """``Retry-After`` (seconds or HTTP date) or ``retry-after-ms`` from an error's response."""
    headers = _headers(exc)
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except Exception:
        return None


def _status(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def _key_env_vars(model: str) -> list[str]:
    try:
        from agent_tui.agent.llm import preload_litellm

        litellm = preload_litellm()
        missing = litellm.validate_environment(model).get("missing_keys") or []
        if missing:
            return list(missing)
        provider = litellm.get_llm_provider(model)[1]
    except Exception:
        provider = model.split("/", 1)[0] if "/" in model else "openai"
    return [f"{provider.upper()}_API_KEY"]


#: What litellm says when it cannot turn the history into the provider's format (raised before any
#: HTTP is sent, sometimes as an APIConnectionError with status 500): retrying cannot help.
_CONVERSION_HINTS = ("unable to convert", "failed to parse tool call arguments", "invalid message passed",
                     "missing corresponding tool call")

_CONTEXT_HINTS = ("context_length_exceeded", "maximum context length", "context window", "too many tokens",
                  "prompt is too long", "input is too long")


_LOCAL_BUGS = (AttributeError, TypeError, KeyError, IndexError)
"""Errors of Python code, not of a network: litellm wraps one it hits while converting a request (a tool schema
it did not expect) in an APIConnectionError, which was retried five times, never sending anything."""


_RESPONSE_SIDE = ("response", "chunk", "stream", "iter", "anext", "next", "decode", "parse")
"""Words in the names of litellm's functions that read a reply: an error there is not "nothing was sent"."""


def _local_bug(exc: BaseException) -> BaseException | None:
    """The programming error an APIConnectionError wraps, when nothing network-like is in its chain."""
    seen: list[BaseException] = []
    cur: BaseException | None = exc.__cause__ or exc.__context__
    while cur is not None and cur not in seen and len(seen) < 8:
        seen.append(cur)
        cur = cur.__cause__ or cur.__context__
    if any(isinstance(e, OSError | TimeoutError) or type(e).__module__.startswith(("httpx", "httpcore", "aiohttp",
                                                                                    "ssl", "socket"))
           for e in seen):
        return None
    bug = next((e for e in seen if isinstance(e, _LOCAL_BUGS)), None)
    if bug is None:
        return None
    import traceback

    frames = [f.name.lower() for f in traceback.extract_tb(bug.__traceback__)]
    if any(word in name for name in frames for word in _RESPONSE_SIDE):
        return None  # reading what the provider sent back: a retry may get a reply it can read
    return bug


_OLLAMA_ERROR_RE = re.compile(r"""unexpected response from ollama: \{['"]error['"]: ['"](?P<text>.*?)['"]\}""",
                              re.IGNORECASE | re.DOTALL)


def ollama_stream_error(said: str) -> str | None:
    """What Ollama said in an ``{"error": …}`` line of its stream (the model runner crashed, ran out of
    memory…), which litellm reports as a bad request after an HTTP 200; None for any other message."""
    m = _OLLAMA_ERROR_RE.search(said)
    return m.group("text") if m else None


def classify(exc: BaseException, config: LLMConfig) -> Failure:
    """Map any exception from a litellm call to a :class:`Failure`."""
    import litellm.exceptions as le

    model = config.model
    inner = getattr(exc, "original_exception", None)
    if isinstance(exc, le.MidStreamFallbackError) and isinstance(inner, BaseException):
        exc = inner
    secrets = secrets_for(config)
    status = _status(exc)
    said = redact(provider_message(exc), secrets)
    low = said.lower()
    kw = {"status_code": status, "model": model, "original_type": type(exc).__name__}

    def fail(msg: str, kind: str, retryable: bool = False, retry_after: float | None = None) -> Failure:
        return Failure(LLMError(redact(msg, secrets), kind=kind, **kw), retryable, retry_after)

    if isinstance(exc, le.ContextWindowExceededError) or (
        isinstance(exc, le.BadRequestError) and any(h in low for h in _CONTEXT_HINTS)
    ):
        msg = redact(f"Context window exceeded for {model}: {said}", secrets)
        return Failure(ContextOverflow(msg, kind="context_overflow", limit=stated_limit(said),
                                       size=stated_size(said), **kw))
    if isinstance(exc, le.AuthenticationError | le.PermissionDeniedError) or (
        "missing credentials" in low or ("api key" in low and ("missing" in low or "not set" in low))
    ):
        env = " or ".join(_key_env_vars(model))
        code = f" (HTTP {status})" if status in (401, 403) else ""
        return fail(f"Authentication failed for {model}{code}: set {env}, or `api_key_env` (the variable's "
                    f"name) under [models.\"{model}\"] in the config. "
                    f"Provider said: {said}", "auth")
    if isinstance(exc, le.NotFoundError):
        where = f" at {config.api_base}" if config.api_base else ""
        return fail(f"Model {model!r} not found{where} (HTTP {status or 404}): check the model name. "
                    f"Provider said: {said}", "not_found")
    if any(h in low for h in _CONVERSION_HINTS):
        return fail(f"The conversation could not be converted to {model}'s format (nothing was sent; retrying "
                    f"cannot help): {said}", "conversion")
    if isinstance(exc, le.APIConnectionError) and (bug := _local_bug(exc)) is not None:
        return fail(f"litellm could not build the request for {model} (nothing was sent; retrying cannot help): "
                    f"{type(bug).__name__}: {redact(str(bug), secrets)}", "conversion")
    if isinstance(exc, le.RateLimitError) or status == 429:
        return fail(f"rate limited (HTTP 429): {said}", "rate_limit", True, retry_after_seconds(exc))
    if isinstance(exc, le.Timeout | asyncio.TimeoutError | TimeoutError) or status == 408:
        return fail(f"timed out after {config.timeout:g} s", "timeout", True)
    if isinstance(exc, le.APIConnectionError) or "connection error" in low:
        return fail(f"connection error: {said}", "connection", True)
    if isinstance(exc, le.BadRequestError) and "provider not provided" in low:
        return fail(f"Unknown provider for model {model!r}: use a litellm model string such as "
                    f"'openai/gpt-4o' or 'anthropic/claude-sonnet-4-5'", "unknown_provider")
    if status is not None and status >= 500:
        return fail(f"server error (HTTP {status}): {said}", "server", True, retry_after_seconds(exc))
    if (ollama := ollama_stream_error(said)) is not None:
        return fail(f"the Ollama server failed while answering: {ollama}", "server", True)
    if isinstance(exc, le.BadRequestError | le.UnprocessableEntityError) or status in (400, 413, 422):
        return fail(f"Request rejected by {model} (HTTP {status or 400}): {said}", "bad_request")
    if isinstance(exc, OSError) or type(exc).__module__.startswith(("httpx", "httpcore", "aiohttp")):
        return fail(f"connection error: {type(exc).__name__}: {said}", "connection", True)
    return fail(f"Model call failed ({type(exc).__name__}): {said}", "other")
