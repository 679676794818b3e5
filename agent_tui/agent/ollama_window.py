"""The window an Ollama model really runs with, asked of the Ollama server the user points at.

Ollama allocates the whole ``num_ctx`` up front (its KV cache) and silently lowers a
``num_ctx`` above the model's trained length, then drops the oldest messages to fit
(``truncate`` defaults to true): no error, and the budget agent-tui planned is fiction.
litellm asks ``/api/show`` only at ``OLLAMA_API_BASE`` or localhost, not at the configured
``api_base``, and hands back the trained length (128K for many models), which agent-tui then
sent as ``num_ctx`` on every request: ~19 GB of KV cache for an 8B model.

So agent-tui asks the server it will talk to.  With no window configured it takes the
trained length up to :data:`DEFAULT_WINDOW`; a configured window above the trained length
is lowered to it; either way the user is told.  The model's capabilities come along:
a model without ``thinking`` must not be sent ``think`` (Ollama: 400 "does not support
thinking").
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from typing import Any

from agent_tui.core.config import Settings
from agent_tui.core.model_settings import register_model_info

DEFAULT_WINDOW = 32_768
"""The window asked of Ollama when the user configured none (Ollama reserves memory for all of it)."""
PROBE_SECONDS = 3.0
"""How long the ``/api/show`` request may take (a local server answers in milliseconds)."""
DEFAULT_BASE = "http://localhost:11434"
"""Where Ollama listens when neither ``api_base`` nor ``OLLAMA_API_BASE`` says otherwise."""


@dataclass(frozen=True)
class OllamaModel:
    """What ``/api/show`` says about a model."""

    context: int | None
    """The model's trained context length (``<arch>.context_length``)."""
    capabilities: tuple[str, ...] | None
    """``completion``, ``tools``, ``thinking``… (None when the server does not list them)."""


def model_name(model: str) -> str:
    """``ollama_chat/qwen3:8b`` → ``qwen3:8b``."""
    return model.split("/", 1)[1] if "/" in model else model


def show(api_base: str | None, model: str, timeout: float = PROBE_SECONDS) -> OllamaModel | None:
    """The model as the server at ``api_base`` describes it; None when it cannot be asked."""
    base = (api_base or os.environ.get("OLLAMA_API_BASE") or DEFAULT_BASE).rstrip("/")
    body = json.dumps({"model": model_name(model)}).encode()
    req = urllib.request.Request(f"{base}/api/show", data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (the user's own server)
            data: Any = json.loads(resp.read(2_000_000))
    except (urllib.error.URLError, OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    info = data.get("model_info") if isinstance(data.get("model_info"), dict) else {}
    lengths = [v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int) and v > 0]
    caps = data.get("capabilities")
    return OllamaModel(max(lengths) if lengths else None,
                       tuple(str(c) for c in caps) if isinstance(caps, list) else None)


def fit_window(settings: Settings, found: OllamaModel | None) -> tuple[Settings, list[str]]:
    """``settings`` with the window Ollama will really give, and what the user should know about it."""
    model = settings.model or ""
    over = settings.models.get(model, {}) or {}
    configured = settings.window or over.get("window")
    trained = found.context if found is not None else None
    notes: list[str] = []
    if found is not None and found.capabilities is not None:  # (the window is set below, whatever it is)
        register_model_info(model, {"ollama_capabilities": list(found.capabilities)})
    num_ctx = over.get("num_ctx")
    if num_ctx:  # what Ollama allocates, and so the window: a longer window is cut silently
        ctx = int(num_ctx)
        if trained and ctx > trained:
            notes.append(f"{model} holds {trained:,} tokens: num_ctx {ctx:,} lowered to it")
            ctx = trained
        if configured and int(configured) > ctx:
            notes.append(f"window {int(configured):,} is more than {model}'s num_ctx {ctx:,}: the window is "
                         f"{ctx:,} (Ollama would drop the oldest messages without a word)")
        window = min(int(configured), ctx) if configured else ctx
        models = {**settings.models, model: {**over, "num_ctx": ctx}}
        return replace(settings, window=window, models=models), notes
    if configured:
        if trained and int(configured) > trained:
            notes.append(f"{model} holds {trained:,} tokens: window {int(configured):,} lowered to it (Ollama "
                         "would drop the oldest messages without a word)")
            return replace(settings, window=trained), notes
        return replace(settings, window=int(configured)), notes
    if trained is None:
        where = settings.api_base or os.environ.get("OLLAMA_API_BASE") or DEFAULT_BASE
        notes.append(f"could not ask Ollama at {where} for {model}'s context length: using {DEFAULT_WINDOW:,} "
                     "tokens; set `window` in config or --window")
        return replace(settings, window=DEFAULT_WINDOW), notes
    window = min(trained, DEFAULT_WINDOW)
    if trained > window:
        notes.append(f"{model}: a {window:,}-token window (the model takes {trained:,}; Ollama reserves memory "
                     "for the whole window, so set `window` to use more)")
    return replace(settings, window=window), notes


def can_think(model: str) -> bool | None:
    """Whether the Ollama model thinks, as its server said (None: not known)."""
    from agent_tui.core.model_settings import lookup_model_info

    caps = lookup_model_info(model).get("ollama_capabilities")
    return None if caps is None else "thinking" in caps
