"""A fake Ollama ``POST /api/chat`` (NDJSON stream), rejecting what Ollama rejects.

Tool-call ``arguments`` in the history must be JSON objects and ``content`` a string (Ollama's Go
struct refuses a string / an array); tool calls are answered whole in one line, as Ollama does; the final line carries
``done_reason`` (``stop`` or ``length``), ``prompt_eval_count`` and ``eval_count``.  The
``options.num_ctx`` of every request is recorded in ``num_ctx``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tests.support.fake_dialect import FakeDialect, Rejected, Turn


class FakeOllama(FakeDialect):
    def __init__(self) -> None:
        super().__init__()
        self.num_ctx: list[int | None] = []

    def error_body(self, message: str, status: int) -> dict[str, Any]:
        return {"error": message}

    def consumes(self, path: str) -> bool:
        return path.rstrip("/").endswith("/api/chat")

    def check(self, path: str, body: dict[str, Any]) -> None:
        if path.rstrip("/").endswith("/api/show"):
            return
        if not path.rstrip("/").endswith("/api/chat"):
            raise Rejected(f"404 page not found: {path}", 404)
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
            return False, {"template": "{{ .Prompt }}", "capabilities": ["completion", "tools"],
                           "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
                           "details": {"family": "qwen2"}}, "application/json"
        self.num_ctx.append((body.get("options") or {}).get("num_ctx"))
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
            for k in range(0, len(turn.text), 8):
                yield json.dumps({"model": model, "created_at": "2026-01-01T00:00:00Z", "done": False,
                                  "message": {"role": "assistant", "content": turn.text[k:k + 8]}}).encode() + b"\n"
            if calls:
                yield json.dumps({"model": model, "created_at": "2026-01-01T00:00:00Z", "done": False,
                                  "message": {"role": "assistant", "content": "", "tool_calls": calls}}).encode() + b"\n"
            yield json.dumps(done).encode() + b"\n"
        return True, lines(), "application/x-ndjson"
