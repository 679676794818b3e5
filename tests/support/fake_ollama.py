"""A fake Ollama ``POST /api/chat`` (NDJSON stream), rejecting what Ollama rejects.

Tool-call ``arguments`` in the history must be JSON objects and ``content`` a string (Ollama's Go
struct refuses a string / an array); tool calls are answered whole in one line, as Ollama does; the final line carries
``done_reason`` (``stop`` or ``length``), ``prompt_eval_count`` and ``eval_count``.  The
``options.num_ctx`` of every request is recorded in ``num_ctx``.

``/api/show`` reports ``context`` (the trained length) and ``capabilities``.  As Ollama does, a ``think``
for a model without the ``thinking`` capability is refused (``"m" does not support thinking``), as is a
``think`` that is neither a boolean nor high/medium/low/max (``invalid think value``) and ``tools`` for a
model without ``tools``.  A ``num_ctx`` above the trained length is not an error to Ollama: it lowers it
and drops the oldest messages without a word; the fake counts such requests in ``truncated``.  A scripted
turn's ``thinking`` streams as the message's ``thinking``; the ``thinking`` that came back on each
assistant message of a request is kept in ``thinking_back``, and the ``tool_name`` of each tool message (what
the model's template shows a result as coming from) in ``tool_names``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tests.support.fake_dialect import FakeDialect, Rejected, Turn

THINK_VALUES = (True, False, "high", "medium", "low", "max")
"""What Ollama's ``think`` takes (api/types.go)."""


class FakeOllama(FakeDialect):
    def __init__(self, context: int = 32768, capabilities: tuple[str, ...] = ("completion", "tools")) -> None:
        super().__init__()
        self.num_ctx: list[int | None] = []
        self.context = context
        self.capabilities = capabilities
        self.truncated = 0
        self.thinking_back: list[list[str | None]] = []
        self.tool_names: list[list[str | None]] = []

    def error_body(self, message: str, status: int) -> dict[str, Any]:
        return {"error": message}

    def consumes(self, path: str) -> bool:
        return path.rstrip("/").endswith("/api/chat")

    def check(self, path: str, body: dict[str, Any]) -> None:
        if path.rstrip("/").endswith("/api/show"):
            return
        if not path.rstrip("/").endswith("/api/chat"):
            raise Rejected(f"404 page not found: {path}", 404)
        model = body.get("model", "m")
        if "think" in body:
            if body["think"] not in THINK_VALUES or isinstance(body["think"], int | float) and not isinstance(
                    body["think"], bool):
                raise Rejected(f"invalid think value: {body['think']!r} (must be \"high\", \"medium\", \"low\", "
                               "\"max\", true, or false)")
            if body["think"] is not False and "thinking" not in self.capabilities:
                raise Rejected(f'"{model}" does not support thinking')
        if body.get("tools") and "tools" not in self.capabilities:
            raise Rejected(f"registry.ollama.ai/library/{model} does not support tools")
        for m in body.get("messages") or []:
            if not isinstance(m.get("content", ""), str | None):
                kind = "array" if isinstance(m["content"], list) else "object"
                raise Rejected(f"json: cannot unmarshal {kind} into Go struct field ChatRequest.messages.content of "
                               "type string")
            for c in m.get("tool_calls") or []:
                args = (c.get("function") or {}).get("arguments")
                if not isinstance(args, dict):
                    raise Rejected("json: cannot unmarshal string into Go struct field "
                                   "ToolCallFunction.messages.tool_calls.function.arguments of type "
                                   "api.ToolCallFunctionArguments")

    def respond(self, path: str, body: dict[str, Any], turn: Turn) -> tuple[bool, Any, str]:
        if not self.consumes(path):  # /api/show: what litellm asks about the model
            return False, {"template": "{{ .Prompt }}", "capabilities": list(self.capabilities),
                           "model_info": {"general.architecture": "qwen2", "qwen2.context_length": self.context},
                           "details": {"family": "qwen2"}}, "application/json"
        num_ctx = (body.get("options") or {}).get("num_ctx")
        self.num_ctx.append(num_ctx)
        if isinstance(num_ctx, int) and num_ctx > self.context:
            self.truncated += 1
        self.thinking_back.append([m.get("thinking") for m in body.get("messages") or []
                                   if m.get("role") == "assistant"])
        self.tool_names.append([m.get("tool_name") for m in body.get("messages") or [] if m.get("role") == "tool"])
        model = body.get("model", "m")
        prompt = sum(self.count(m) for m in body.get("messages") or []) + self.count(body.get("tools") or [])
        calls = [{"function": {"name": n, "arguments": self.args_object(a) or {}}} for n, a in turn.calls]
        done = {"model": model, "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": ""}, "done": True,
                "done_reason": "length" if turn.finish_reason == "length" else "stop",
                "prompt_eval_count": prompt, "eval_count": max(1, self.count(turn.text) + self.count(calls))}
        if not body.get("stream", True):
            msg: dict[str, Any] = {"role": "assistant", "content": turn.text}
            if calls:
                msg["tool_calls"] = calls
            return False, {**done, "message": msg}, "application/json"

        def lines() -> Iterator[bytes]:
            if turn.thinking:
                yield json.dumps({"model": model, "created_at": "2026-01-01T00:00:00Z", "done": False,
                                  "message": {"role": "assistant", "content": "", "thinking": turn.thinking}}
                                 ).encode() + b"\n"
            for k in range(0, len(turn.text), 8):
                yield json.dumps({"model": model, "created_at": "2026-01-01T00:00:00Z", "done": False,
                                  "message": {"role": "assistant", "content": turn.text[k:k + 8]}}).encode() + b"\n"
            if calls:
                yield json.dumps({"model": model, "created_at": "2026-01-01T00:00:00Z", "done": False,
                                  "message": {"role": "assistant", "content": "", "tool_calls": calls}}).encode() + b"\n"
            yield json.dumps(done).encode() + b"\n"
        return True, lines(), "application/x-ndjson"
