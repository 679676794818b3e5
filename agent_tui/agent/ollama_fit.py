"""An Ollama request must leave room for its answer inside ``num_ctx``: Ollama refuses nothing.

A prompt longer than ``num_ctx`` is cut from the front (the oldest messages dropped: ``truncate``
defaults to true), and an answer that runs past ``num_ctx`` shifts the context (the start of what the
model reads is dropped) and goes on.  Either way the model answers a request agent-tui did not send,
and nobody is told.  Other servers refuse such a request, and the loop compacts harder and retries
once.  For Ollama the refusing happens here, before the request goes out: the answer's limit
(``num_predict``) is lowered to the room the prompt leaves, and a prompt that leaves less than
:data:`MIN_ANSWER` is a :class:`ContextOverflow`.  The engine keeps a request within its budget, so this
acts only when what must stay (task, latest step, protected files) is over it.
"""

from __future__ import annotations

from dataclasses import replace

from .llm_errors import ContextOverflow
from .llm_provider import family_of
from .llm_types import LLMConfig

MIN_ANSWER = 512
"""Tokens of answer below which a request is refused rather than sent (a tool call needs a few hundred)."""
MARGIN = 0.02
"""Share added to the prompt's estimate (the engine's count, calibrated to the server's, is not exact)."""


def fit_answer(config: LLMConfig | None, prompt_tokens: int | None) -> LLMConfig | None:
    """``config`` with its answer limit lowered to what ``num_ctx`` leaves beside a prompt of
    ``prompt_tokens`` (the server's count, estimated); unchanged for other providers or with no estimate.
    Raises :class:`ContextOverflow` when less than :data:`MIN_ANSWER` is left (or than the configured limit,
    when that is lower)."""
    if config is None or prompt_tokens is None or not config.num_ctx or family_of(config) != "ollama":
        return config
    window = int(config.num_ctx)
    room = window - int(prompt_tokens * (1 + MARGIN))
    if room < min(MIN_ANSWER, config.max_output_tokens or MIN_ANSWER):  # (a limit set lower is the user's)
        raise ContextOverflow(
            f"the request (about {prompt_tokens:,} tokens) leaves no room for an answer in the model's num_ctx "
            f"({window:,}); Ollama would have cut it silently", limit=window)
    if config.max_output_tokens and config.max_output_tokens <= room:
        return config
    return replace(config, max_output_tokens=room)
