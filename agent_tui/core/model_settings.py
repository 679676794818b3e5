"""Per-model settings: what a ``[models."<model>"]`` table may say, and the model's metadata.

Real use needs more than a window per model: where the key comes from, how long
the reply may be (and so the output reserve — the plan reserves exactly the
``max_tokens`` that is sent), sampling, reasoning effort and thinking budget,
Ollama's ``num_ctx``, how long a stalled stream is waited for, prices for
models litellm does not price, and provider parameters passed through as they
are.  The window and prices come from litellm's model metadata; the project's
own overrides win.  ``core`` never imports litellm: the JSON table litellm
ships is read directly, and the agent layer registers what
``litellm.get_model_info`` knows for models missing from that table (its
provider configs know e.g. ``anthropic/claude-opus-4-1``).

    [models."anthropic/claude-sonnet-4-5"]
    api_key_env = "ANTHROPIC_API_KEY"
    max_output_tokens = 16000
    thinking = 8000
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

#: The keys a ``[models."x"]`` table may set beyond the [budget] keys, with their meaning.
MODEL_KEYS: dict[str, str] = {
    "window": "Context window in tokens (overrides litellm's metadata).",
    "api_key_env": "Name of the environment variable holding this model's API key.",
    "api_key": "The API key itself (prefer api_key_env; never put keys in a workspace config).",
    "max_output_tokens": "Cap on the reply (sent as max_tokens); also the plan's output reserve.",
    "temperature": "Sampling temperature for this model (default: unset, the provider's default).",
    "reasoning_effort": "none, minimal, low, medium, high, xhigh or max (each model gets the nearest level it takes).",
    "thinking": "Extended-thinking budget in tokens (Claude, Gemini); unset: off.",
    "num_ctx": "Ollama's context length (default: the plan's window).",
    "stream_timeout": "Seconds to wait for the connection and each read of a stream before retrying.",
    "input_cost_per_token": "USD per input token (when litellm does not price the model).",
    "output_cost_per_token": "USD per output token.",
    "cache_read_input_token_cost": "USD per input token read from the provider's prompt cache.",
    "cache_creation_input_token_cost": "USD per input token written to the provider's prompt cache.",
    "cache": "Ask for provider prompt caching (default true).",
    "extra": "A table of more litellm.completion parameters, passed through unchanged.",
}
PRICE_KEYS = ("input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost",
              "cache_creation_input_token_cost")
#: Reasoning effort, least to most: the union of the providers' words (``agent.reasoning_levels`` sends each
#: model the nearest level it takes).
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")

_registered: dict[str, dict[str, Any]] = {}


@dataclass(frozen=True)
class ModelSettings:
    """The per-model settings in force for one model string."""

    model: str = ""
    """The litellm model string."""
    api_key_env: str | None = None
    """Environment variable with the key."""
    api_key: str | None = None
    """The key itself."""
    max_output_tokens: int | None = None
    """Reply cap (max_tokens)."""
    temperature: float | None = None
    """Sampling temperature (None: unset)."""
    reasoning_effort: str | None = None
    """Reasoning effort for reasoning models."""
    thinking: int | None = None
    """Thinking budget in tokens."""
    num_ctx: int | None = None
    """Ollama context length."""
    stream_timeout: float | None = None
    """Seconds per connection/read of a stream."""
    prices: dict[str, float] = field(default_factory=dict)
    """USD per token from the config."""
    cache: bool = True
    """Ask for provider prompt caching."""
    extra: dict[str, Any] = field(default_factory=dict)
    """More litellm parameters."""


def check_model_keys(over: dict[str, Any], where: str) -> str | None:
    """The problem with the per-model keys of one ``[models."x"]`` table, or None."""
    for name in ("max_output_tokens", "thinking", "num_ctx"):
        v = over.get(name)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
            return f"{where}: {name} must be a whole number >= 1, got {v!r}"
    for name in ("temperature", "stream_timeout", *PRICE_KEYS):
        v = over.get(name)
        if v is not None and (not isinstance(v, int | float) or isinstance(v, bool) or v < 0):
            return f"{where}: {name} must be a number >= 0, got {v!r}"
    for name in ("api_key_env", "api_key"):
        v = over.get(name)
        if v is not None and (not isinstance(v, str) or not v):
            return f"{where}: {name} must be a non-empty string, got {v!r}"
    effort = over.get("reasoning_effort")
    if effort is not None and effort not in REASONING_EFFORTS:
        return f"{where}: reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}, got {effort!r}"
    if "extra" in over and not isinstance(over["extra"], dict):
        return f"{where}: extra must be a table, got {over['extra']!r}"
    if "cache" in over and not isinstance(over["cache"], bool):
        return f"{where}: cache must be true or false, got {over['cache']!r}"
    mot, thinking = over.get("max_output_tokens"), over.get("thinking")
    if isinstance(mot, int) and isinstance(thinking, int) and thinking >= mot:
        return f"{where}: thinking ({thinking}) must be below max_output_tokens ({mot})"
    return None


def model_settings(models: dict[str, dict[str, Any]], model: str | None,
                   temperature: float | None = None) -> ModelSettings:
    """The :class:`ModelSettings` for ``model`` from the ``[models]`` tables (top-level temperature
    as the default)."""
    over = dict(models.get(model or "", {}) or {})
    return ModelSettings(
        model=model or "",
        api_key_env=over.get("api_key_env"),
        api_key=over.get("api_key"),
        max_output_tokens=over.get("max_output_tokens"),
        temperature=over.get("temperature", temperature),
        reasoning_effort=over.get("reasoning_effort"),
        thinking=over.get("thinking"),
        num_ctx=over.get("num_ctx"),
        stream_timeout=over.get("stream_timeout"),
        prices={k: float(over[k]) for k in PRICE_KEYS if k in over},
        cache=bool(over.get("cache", True)),
        extra=dict(over.get("extra") or {}),
    )


# --------------------------------------------------------------------------- metadata


@lru_cache(maxsize=1)
def _model_table() -> dict[str, Any]:
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return {}
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(list(spec.submodule_search_locations)[0]) / "model_prices_and_context_window_backup.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


#: Output limits the providers state for models litellm's table has no entry of its own for, where its
#: family fallback says more: Claude Opus 4 and 4.1 write at most 32,000 tokens, and litellm's Claude baseline
#: said 64,000, so the plan's reserve (40,000 of a 200K window) went out as ``max_tokens`` and every request
#: was refused ("max_tokens: 40000 > 32000").  Matched on the model's name without its provider.
KNOWN_OUTPUT_LIMITS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"claude-opus-4(-0|-1(-\d{8})?|-20250514)?($|[@:]|-v\d|-latest)"), 32_000),
    (re.compile(r"claude-3-5-(haiku|sonnet)"), 8_192),
    (re.compile(r"claude-3-(haiku|opus|sonnet)"), 4_096),
)


def known_output_limit(model: str | None) -> int | None:
    """The stated output limit of ``model`` when :data:`KNOWN_OUTPUT_LIMITS` has it."""
    name = (model or "").lower().rsplit("/", 1)[-1]
    name = name.removeprefix("anthropic.").removeprefix("us.anthropic.").removeprefix("eu.anthropic.")
    return next((limit for pattern, limit in KNOWN_OUTPUT_LIMITS if pattern.match(name)), None)


def _with_known_limit(model: str, info: dict[str, Any]) -> dict[str, Any]:
    limit = known_output_limit(model)
    out = info.get("max_output_tokens")
    if limit is None or (isinstance(out, int | float) and 0 < out <= limit):
        return info
    return {**info, "max_output_tokens": limit}


def register_model_info(model: str, info: dict[str, Any]) -> None:
    """Remember metadata the agent layer got from ``litellm.get_model_info`` for ``model``."""
    _registered[model] = _with_known_limit(model, {k: v for k, v in info.items() if v is not None})


def _candidates(model: str) -> list[str]:
    parts = model.split("/")
    names = ["/".join(parts[i:]) for i in range(len(parts))]
    out: list[str] = []
    for n in names:
        for v in (n, re.sub(r"(\d)\.(\d)", r"\1-\2", n)):
            if v not in out:
                out.append(v)
    return out


def lookup_model_info(model: str | None) -> dict[str, Any]:
    """Metadata for ``model``: registered (litellm.get_model_info), else litellm's JSON table
    under the full string, then without provider prefixes, with ``4.5`` also tried as ``4-5``."""
    if not model:
        return {}
    if model in _registered:
        return _registered[model]
    table = _model_table()
    for key in _candidates(model):
        info = table.get(key)
        if isinstance(info, dict) and (info.get("max_input_tokens") or info.get("max_tokens")):
            return _with_known_limit(model, info)
    return {}
