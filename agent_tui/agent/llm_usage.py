"""One call's usage as the provider reports it, with cache reads/writes and a cache-aware cost.

Providers report prompt caching differently — OpenAI, DeepSeek and Gemini as
``prompt_tokens_details.cached_tokens``, Anthropic as ``cache_read_input_tokens``
and ``cache_creation_input_tokens`` — and litellm carries both on its ``Usage``.
Cost is litellm's ``completion_cost`` over that whole usage object (so cache reads
are billed at the cache price, writes at the write premium, reasoning tokens as
output), unless the config gives the model's prices, which then win.
"""

from __future__ import annotations

from typing import Any

from .llm_types import Usage


def _int(obj: Any, name: str) -> int:
    value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def cache_numbers(usage: Any) -> tuple[int, int, int]:
    """``(cache_read, cache_write, reasoning)`` tokens from a litellm/OpenAI usage object."""
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else getattr(usage, "prompt_tokens_details", None)
    read = _int(usage, "cache_read_input_tokens") or (_int(details, "cached_tokens") if details is not None else 0)
    write = _int(usage, "cache_creation_input_tokens")
    out_details = (usage.get("completion_tokens_details") if isinstance(usage, dict)
                   else getattr(usage, "completion_tokens_details", None))
    reasoning = _int(out_details, "reasoning_tokens") if out_details is not None else 0
    return read, write, reasoning


def configured_cost(prices: dict[str, float], prompt: int, completion: int, read: int, write: int) -> float:
    """Cost from prices given in the config (USD per token; cache prices default to input)."""
    p_in = float(prices.get("input_cost_per_token", 0.0))
    p_out = float(prices.get("output_cost_per_token", 0.0))
    p_read = float(prices.get("cache_read_input_token_cost", p_in))
    p_write = float(prices.get("cache_creation_input_token_cost", p_in))
    fresh = max(0, prompt - read - write)
    return fresh * p_in + read * p_read + write * p_write + completion * p_out


def litellm_cost(litellm: Any, model: str, usage: Any) -> float:
    """litellm's cache-aware cost for ``usage``; 0.0 when the model is unknown (never raises)."""
    try:
        resp = litellm.ModelResponse(model=model, usage=usage)
        return float(litellm.completion_cost(completion_response=resp, model=model) or 0.0)
    except Exception:  # unknown model, odd provider: cost is a nicety
        return 0.0


def usage_from_provider(litellm: Any, model: str, usage: Any, prices: dict[str, float] | None = None) -> Usage:
    """Our :class:`Usage` from the provider's usage object (litellm ``Usage``)."""
    prompt = _int(usage, "prompt_tokens")
    completion = _int(usage, "completion_tokens")
    read, write, reasoning = cache_numbers(usage)
    if prices:
        cost = configured_cost(prices, prompt, completion, read, write)
    else:
        cost = litellm_cost(litellm, model, usage)
    return Usage(prompt, completion, cost, False, cached_tokens=read, cache_write_tokens=write,
                 reasoning_tokens=reasoning)


def unpriced_notice(model: str, prices: dict[str, float] | None, usage: Usage,
                    api_base: str | None = None) -> str | None:
    """One line saying the cost of ``model`` is unknown, or None when it is known (or free by config).

    litellm prices most hosted models, but not all (its 1.110 table dropped
    ``anthropic/claude-opus-4-1``); then every call costs "0.0", the status line
    shows no cost and a ``max_cost`` limit can never trigger.  Ollama runs locally
    and is free, so is an OpenAI-compatible server on this machine (vLLM, LM Studio, llama.cpp), and the
    offline demo; a ``[models."x"]`` table with any price counts as known.
    """
    from .demo import DEMO_PROVIDER
    from .llm_provider import family, provider_of
    from .llm_settings import is_loopback

    if prices or usage.estimated or usage.cost_usd > 0 or usage.prompt_tokens <= 0:
        return None
    if family(model) == "ollama" or provider_of(model) == DEMO_PROVIDER:
        return None
    if family(model) in ("openai", "other") and is_loopback(api_base):
        return None
    return (f"No price is known for {model} (litellm's price table lacks it): the session cost is not shown and "
            "[budget] max_cost / max_session_cost cannot apply. Set input_cost_per_token, output_cost_per_token "
            f"(and cache_read_input_token_cost, cache_creation_input_token_cost) under [models.\"{model}\"].")
