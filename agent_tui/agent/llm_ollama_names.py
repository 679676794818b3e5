"""Ollama's tool results carry the tool's name, which litellm's conversion drops.

Ollama's ``/api/chat`` message has a ``tool_name`` (api/types.go), and the chat templates of the models that
call tools read it (gpt-oss renders each result as coming from ``functions.{{ .ToolName }}``; Qwen3 and Llama
templates likewise).  litellm rebuilds every message from a fixed set of keys and keeps ``tool_call_id``
only, so the model saw unnamed results: with two calls in one step it could not tell which answer was
whose.  The name is the one the assistant's call with that id gave; the wrap adds it to each tool message
after litellm's own conversion and leaves everything else as litellm made it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

_MARK = "_agent_tui_tool_names"


def name_results(sent: Sequence[Any], built: list[dict[str, Any]]) -> None:
    """Give each tool message of ``built`` (litellm's Ollama messages) the name of the call it answers, found
    by its ``tool_call_id`` among the assistant calls of ``sent`` (the messages litellm was given); in place."""
    names: dict[str, str] = {}
    for m in sent:
        m = m.model_dump(exclude_none=True) if hasattr(m, "model_dump") else m
        if not isinstance(m, Mapping):
            continue
        for call in m.get("tool_calls") or ():
            fn = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(fn, Mapping) and isinstance(call.get("id"), str) and isinstance(fn.get("name"), str):
                names[call["id"]] = fn["name"]
    for m in built:
        if m.get("role") == "tool" and not m.get("tool_name") and m.get("tool_call_id") in names:
            m["tool_name"] = names[m["tool_call_id"]]


def install() -> None:
    """Wrap ``OllamaChatConfig.transform_request`` once (litellm imported already); a litellm without that
    class is left alone."""
    try:
        from litellm.llms.ollama.chat.transformation import OllamaChatConfig
    except ImportError:
        return
    original: Callable[..., dict[str, Any]] = OllamaChatConfig.transform_request
    if getattr(original, _MARK, False):
        return

    def transform_request(self: Any, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        data = original(self, model, messages, *args, **kwargs)
        if isinstance(data.get("messages"), list):
            name_results(messages, data["messages"])
        return data

    setattr(transform_request, _MARK, True)
    OllamaChatConfig.transform_request = transform_request  # type: ignore[method-assign]
