"""From settings to the :class:`LLMConfig` of one model, and litellm's metadata for the budget.

The per-model table (:mod:`agent_tui.core.model_settings`) says where the key
comes from, how long the reply may be, sampling, reasoning, Ollama's
``num_ctx`` and the stream timeout; the plan's output reserve is what goes out
as ``max_tokens``, so the budget and the request agree.
"""

from __future__ import annotations

import os
from typing import Any

from agent_tui.core.config import Settings
from agent_tui.core.model_settings import lookup_model_info, model_settings, register_model_info

from .llm_provider import family


def ensure_model_info(model: str | None) -> bool:
    """Register ``litellm.get_model_info`` for ``model`` when litellm's JSON table lacks it.

    Imports litellm (seconds) only for such models. True if metadata is known afterwards.
    """
    if not model or lookup_model_info(model):
        return bool(model)
    try:
        from .llm import preload_litellm

        info = preload_litellm().get_model_info(model)
    except Exception:  # unknown to litellm too: the plan falls back with a warning
        return False
    if info and (info.get("max_input_tokens") or info.get("max_tokens")):
        register_model_info(model, dict(info))
        return True
    return False


def needs_model_info(settings: Settings) -> bool:
    """True when the window must come from litellm's metadata (no window configured)."""
    over = settings.models.get(settings.model or "", {}) or {}
    return bool(settings.model) and settings.window is None and "window" not in over


LOCAL_KEY = "sk-local-no-key"
"""Sent to a loopback server when no key is configured: local servers ignore it, OpenAI's client needs one."""


def is_loopback(api_base: str | None) -> bool:
    """True for a server on this machine (Ollama, vLLM, LM Studio, llama.cpp on 127.0.0.1/localhost/::1)."""
    if not api_base:
        return False
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(api_base if "//" in api_base else f"//{api_base}").hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _local_key(settings: Settings, key: str | None, env_name: str | None) -> str | None:
    """The placeholder key for a loopback ``api_base`` when neither the config nor the environment has one."""
    if key or not is_loopback(settings.api_base):
        return key
    provider = (settings.model or "").split("/", 1)[0] if "/" in (settings.model or "") else "openai"
    names = [n for n in (env_name, f"{provider.upper()}_API_KEY") if n]
    return None if any(os.environ.get(n) for n in names) else LOCAL_KEY


def llm_config(settings: Settings, reserve: int | None = None, window: int | None = None) -> Any:
    """The LLMConfig for ``settings.model``; ``reserve`` (the plan's) is sent as ``max_tokens``."""
    from .llm_types import LLMConfig

    ms = model_settings(settings.models, settings.model, settings.temperature)
    key = ms.api_key or (os.environ.get(ms.api_key_env) if ms.api_key_env else None)
    key = _local_key(settings, key, ms.api_key_env)
    cfg = LLMConfig(model=settings.model or "", api_base=settings.api_base, api_key=key or None,
                    temperature=ms.temperature, max_output_tokens=ms.max_output_tokens or reserve or None,
                    reasoning_effort=ms.reasoning_effort, thinking=ms.thinking, prices=dict(ms.prices),
                    cache=ms.cache, extra=dict(ms.extra))
    if ms.stream_timeout:
        cfg.timeout = float(ms.stream_timeout)
    if family(cfg.model) == "ollama":
        cfg.num_ctx = ms.num_ctx or window
    return cfg
