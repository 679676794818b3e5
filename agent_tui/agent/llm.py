"""The single place the agent talks to models, through litellm.

litellm is imported lazily (``import litellm`` costs seconds): call
:func:`preload_litellm` from a background worker to pay it early; otherwise the
first call imports it in a thread so the event loop is not blocked.

    async with contextlib.aclosing(stream_completion(config, messages, tools)) as events:
        async for ev in events:
            match ev:
                case TextDelta(text): ...
                case Retrying(attempt, delay, reason): ...
                case Completion() as done: ...

Retries (429, 5xx, timeouts, connection errors; ``Retry-After`` honoured) only
happen while nothing has been streamed to the caller for that attempt; a stream
that breaks later raises :class:`StreamInterrupted` carrying the partial text.
A context-window overflow raises :class:`ContextOverflow` at once.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import random
import threading
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from .llm_assemble import ReplyAssembler, reply_usage
from .llm_binding import prefix_prints, preserved_thinking
from .llm_errors import (
    ContextOverflow,
    LLMError,
    NoModelConfigured,
    StreamInterrupted,
    classify,
    redact,
    secrets_for,
)
from .llm_provider import request_kwargs
from .llm_types import (
    Completion,
    LLMConfig,
    LLMEvent,
    ReasoningDelta,
    Retrying,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    UsageTotals,
)

__all__ = [
    "Completion", "ContextOverflow", "LLMClient", "LLMConfig", "LLMError", "LLMEvent",
    "NoModelConfigured", "ReasoningDelta", "Retrying", "StreamInterrupted", "TextDelta",
    "ToolCall", "ToolCallDelta", "Usage", "UsageTotals", "backoff_delay", "complete",
    "context_window", "is_litellm_loaded", "preload_litellm", "stream_completion",
]

# Without this litellm fetches its price map from the network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

log = logging.getLogger("agent_tui.llm")

_load_lock = threading.Lock()
_litellm: Any = None


# --------------------------------------------------------------------------- loading


def preload_litellm() -> Any:
    """Import and configure litellm (blocking, ~4 s the first time); returns the module.

    Thread-safe: a UI worker thread can call it at start-up.
    """
    global _litellm
    if _litellm is not None:
        return _litellm
    with _load_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            litellm = _import_frozen()
            litellm.suppress_debug_info = True
            litellm.drop_params = True
            litellm.set_verbose = False
            litellm.turn_off_message_logging = True
            # litellm prices each response by counting its tokens, and for Llama, Command R… models fetches a
            # tokenizer from huggingface.co to do it: a request to a third party the user never chose, and
            # offline a 23 s stall (retries with backoff) inside the call.  Its OpenAI tokenizer counts instead.
            litellm.disable_hf_tokenizer_download = True
            for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
            from agent_tui.agent.llm_ollama_names import install

            install()
            _litellm = litellm
    return _litellm


def _import_frozen() -> Any:
    """``import litellm`` with the cyclic collector paused, then what the import made frozen out of it.

    The import makes about 500,000 objects that live as long as the process (modules, classes, pydantic
    models).  With the collector running, full collections during the import took 0.5 s of its 2.5 s, and
    afterwards every full collection walked them all again: 0.35 s each, a stall the TUI showed as a
    frozen frame, and a quarter of the CPU time of a session's UI.  Frozen (``gc.freeze``), they are never
    scanned; none of them was ever going to be collected.  Pausing it is process-wide, so the UI thread's
    own cycles wait those two seconds too, then are collected as before."""
    paused = gc.isenabled()
    gc.disable()
    try:
        import litellm
    finally:
        if paused:
            gc.enable()
    gc.freeze()
    return litellm


def is_litellm_loaded() -> bool:
    """True once :func:`preload_litellm` has finished."""
    return _litellm is not None


async def _aload() -> Any:
    if _litellm is not None:
        return _litellm
    return await asyncio.to_thread(preload_litellm)


def context_window(model: str) -> int | None:
    """The model's input window in tokens from litellm's metadata (None if unknown)."""
    try:
        info = preload_litellm().get_model_info(model)
        value = info.get("max_input_tokens") or info.get("max_tokens")
        return int(value) if value else None
    except Exception:
        return None


# --------------------------------------------------------------------------- helpers


def backoff_delay(config: LLMConfig, retry: int, retry_after: float | None = None) -> float:
    """Seconds before retry number ``retry`` (1-based): ``Retry-After`` if given, else
    exponential backoff ``base * 2**(retry-1)`` capped at ``backoff_cap``, with jitter."""
    if retry_after is not None:
        return retry_after + random.uniform(0.0, min(0.25, retry_after * 0.1))
    ceiling = min(config.backoff_cap, config.backoff_base * (2 ** (retry - 1)))
    return ceiling * random.uniform(0.5, 1.0)


async def _close(response: Any) -> None:
    closer = getattr(response, "aclose", None)
    if closer is None:
        return
    try:
        await closer()
    except Exception:  # closing is best effort
        pass


# --------------------------------------------------------------------------- the call


async def stream_completion(
    config: LLMConfig | None,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]] | None = None,
    *,
    cache_breakpoints: Sequence[int] = (),
    session_id: str | None = None,
    reasoning: Mapping[str, Mapping[str, Any]] | None = None,
) -> AsyncIterator[LLMEvent]:
    """Stream one model call: ``TextDelta``/``ReasoningDelta``/``ToolCallDelta`` events,
    ``Retrying`` before each retry, and a final ``Completion``.

    ``cache_breakpoints`` (the assembly's stable-segment ends), ``session_id`` (the
    prompt-cache key) and ``reasoning`` (kept provider data by tool-call id) shape the
    request per provider (:mod:`agent_tui.agent.llm_provider`).

    Raises :class:`NoModelConfigured`, :class:`ContextOverflow`,
    :class:`StreamInterrupted` or :class:`LLMError`.  Cancelling the consuming task
    (or closing this generator) closes the HTTP stream.
    """
    if config is None or not (config.model or "").strip():  # (None: a session opened with no model at all)
        raise NoModelConfigured()
    litellm = await _aload()
    kwargs = request_kwargs(config, messages, tools, breakpoints=cache_breakpoints, session_id=session_id,
                            reasoning=reasoning)
    prefix = prefix_prints(kwargs["messages"], kwargs.get("tools"))[-1] if preserved_thinking(config.model) else ""
    attempt = 0
    while True:
        attempt += 1
        asm = ReplyAssembler()
        streamed = False
        failed: tuple[float, str] | None = None
        try:
            response = None
            try:
                response = await litellm.acompletion(**kwargs)
                async for chunk in response:
                    for event in asm.feed(chunk):
                        streamed = True
                        yield event
            finally:
                if response is not None:
                    await _close(response)
        except Exception as exc:
            failed = _after_failure(exc, config, attempt, asm, streamed)
        if failed is None:
            calls = asm.tool_calls()
            yield Completion(
                text="".join(asm.text),
                tool_calls=calls,
                usage=reply_usage(litellm, config, asm, messages, tools, calls),
                finish_reason=asm.finish_reason,
                model=asm.model or config.model,
                reasoning="".join(asm.reasoning),
                attempts=attempt,
                thinking_blocks=asm.thinking_blocks(leading_only=bool(prefix)),
                prefix=prefix,
            )
            return
        delay, reason = failed
        log.info("LLM call failed (%s); retry %d/%d in %.2f s", reason, attempt, config.max_retries, delay)
        dropped = len("".join(asm.text)) + len("".join(asm.reasoning)) if streamed else 0  # (what the retry replaces)
        yield Retrying(attempt, delay, reason, config.max_retries, discarded=max(dropped, 1) if streamed else 0)
        await asyncio.sleep(delay)


def _after_failure(exc: Exception, config: LLMConfig, attempt: int, asm: ReplyAssembler,
                   streamed: bool) -> tuple[float, str]:
    """Raise the right error for a failed attempt, or return ``(delay, reason)`` to retry."""
    failure = classify(exc, config)
    err = failure.error
    err.attempts = attempt
    if isinstance(err, ContextOverflow):
        raise err from None
    if streamed and failure.retryable and attempt <= config.max_retries and (
            failure.retry_after is None or failure.retry_after <= config.max_retry_after):
        # The caller has part of the reply: the retry asks again, and the caller drops that part
        # (``Retrying.discarded``).  Nothing of it ran: tool calls run only once a reply is complete.
        text = "".join(asm.text)
        return (backoff_delay(config, attempt, failure.retry_after),
                f"the reply broke off after {len(text)} characters ({err.message}): asking again")
    if streamed:  # no retry left (or none allowed): what streamed is what there is
        text = "".join(asm.text)
        raise StreamInterrupted(
            f"The reply from {config.model} broke off after {len(text)} characters: {err.message}",
            partial_text=text,
            partial_tool_calls=asm.tool_calls(),
            status_code=err.status_code,
            model=config.model,
            attempts=attempt,
            original_type=err.original_type,
        ) from None
    if not failure.retryable:
        raise err from None
    if failure.retry_after is not None and failure.retry_after > config.max_retry_after:
        wait = failure.retry_after
        told = f"{wait / 3600:.1f} h" if wait >= 3600 else f"{wait / 60:.0f} min" if wait >= 120 else f"{wait:.0f} s"
        err.message = (f"{err.message.rstrip('. ;')}. The provider asks to wait {told} before the next request, "
                       f"more than max_retry_after ({config.max_retry_after:g} s): try again then.")
        raise err from None
    if attempt > config.max_retries:
        err.message = f"Model call to {config.model} failed after {attempt} attempts: {err.message}"
        raise err from None
    return backoff_delay(config, attempt, failure.retry_after), err.message


async def complete(
    config: LLMConfig,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]] | None = None,
) -> Completion:
    """One model call without the deltas (summaries, memos): the final :class:`Completion`."""
    stream = stream_completion(config, messages, tools)
    try:
        async for event in stream:
            if isinstance(event, Completion):
                return event
    finally:
        await stream.aclose()
    raise LLMError(f"The call to {config.model} ended without a reply", model=config.model)


class LLMClient:
    """A config plus the session's usage totals; what the agent loop holds."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        #: Tokens and cost summed over every completed call.
        self.usage = UsageTotals()

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> AsyncIterator[LLMEvent]:
        """:func:`stream_completion` that also adds the final usage to ``self.usage``."""
        stream = stream_completion(self.config, messages, tools)
        try:
            async for event in stream:
                if isinstance(event, Completion):
                    self.usage.add(event.usage)
                yield event
        finally:
            await stream.aclose()

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> Completion:
        done = await complete(self.config, messages, tools)
        self.usage.add(done.usage)
        return done

    def redact(self, text: str) -> str:
        """``text`` with this config's key (and anything key-like) masked."""
        return redact(text, secrets_for(self.config))
