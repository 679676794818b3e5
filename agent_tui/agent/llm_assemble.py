"""Turning litellm stream chunks into one reply: text, reasoning, parallel tool calls, usage."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from .llm_types import (
    LLMConfig,
    LLMEvent,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    check_arguments,
)
from .llm_usage import configured_cost, usage_from_provider


def call_cost(litellm: Any, model: str, prompt: int, completion: int) -> float:
    """USD cost from litellm's price table; 0.0 when the model is unknown (never raises)."""
    try:
        resp = litellm.ModelResponse(
            usage=litellm.Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion)
        )
        return float(litellm.completion_cost(completion_response=resp, model=model) or 0.0)
    except Exception:  # unknown model, odd provider: cost is a nicety
        return 0.0


class ReplyAssembler:
    """Builds the reply from stream chunks; parallel tool calls by their ``id``, else ``index``."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self._by_index: dict[int, int] = {}
        self._blocks: list[dict[str, Any]] = []
        self._late_from: int | None = None
        """Index of the first thinking block that began after text or a tool call (interleaved thinking)."""
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.model = ""

    def feed(self, chunk: Any) -> list[LLMEvent]:
        events: list[LLMEvent] = []
        usage = getattr(chunk, "usage", None)
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            self.usage = usage
        self.model = getattr(chunk, "model", None) or self.model
        for choice in getattr(chunk, "choices", None) or []:
            if getattr(choice, "index", 0):
                continue  # n > 1 is never requested
            if getattr(choice, "finish_reason", None):
                self.finish_reason = choice.finish_reason
            delta = getattr(choice, "delta", None)
            if delta is None:
                continue
            if content := getattr(delta, "content", None):
                self.text.append(content)
                events.append(TextDelta(content))
            if reasoning := getattr(delta, "reasoning_content", None):
                self.reasoning.append(reasoning)
                events.append(ReasoningDelta(reasoning))
            for block in getattr(delta, "thinking_blocks", None) or []:
                self._thinking(block)
            for tc in getattr(delta, "tool_calls", None) or []:
                events.append(self._tool_delta(tc))
        return events

    def _thinking(self, block: Any) -> None:
        """Accumulate Anthropic thinking blocks: text pieces, then the signature closes a block."""
        b = dict(block) if isinstance(block, dict) else dict(getattr(block, "__dict__", {}) or {})
        kind = b.get("type") or "thinking"
        new = kind != "thinking" or not self._blocks or self._blocks[-1].get("type") != "thinking" \
            or bool(self._blocks[-1].get("signature"))
        if new and self._late_from is None and (self.text or self.calls):
            self._late_from = len(self._blocks)
        if kind != "thinking":  # redacted_thinking arrives whole
            self._blocks.append({k: v for k, v in b.items() if v is not None})
            return
        if new:
            self._blocks.append({"type": "thinking", "thinking": ""})
        cur = self._blocks[-1]
        cur["thinking"] += b.get("thinking") or ""
        if b.get("signature"):
            cur["signature"] = b["signature"]

    def thinking_blocks(self, leading_only: bool = False) -> list[dict[str, Any]]:
        """The signed thinking blocks of the reply (unsigned ones cannot be sent back).  ``leading_only``: those
        before the reply's first text or tool call — litellm sends a message's blocks before its text and calls,
        so a block that came between two calls would go back moved, which a model with preserved thinking
        refuses (its prefix changed); left out, the blocks after it were produced after the reply as sent."""
        blocks = self._blocks[:self._late_from] if leading_only and self._late_from is not None else self._blocks
        return [b for b in blocks if b.get("type") != "thinking" or b.get("signature")]

    def _slot(self, index: int | None, call_id: str | None) -> int:
        """The call a fragment belongs to: by id first, then by index; a new id at a used
        index (Ollama's ``/v1``, some gateways number parallel calls all 0) starts a new call."""
        if call_id:
            for key, slot in self.calls.items():
                if slot["id"] == call_id:
                    return key
        if index is not None and index in self._by_index:
            key = self._by_index[index]
            if not call_id or not self.calls[key]["id"]:
                return key
        elif index is None and not call_id and self.calls:
            return max(self.calls)  # providers without index or id: a continuation
        key = len(self.calls)
        self.calls[key] = {"id": None, "name": "", "args": []}
        if index is not None:
            self._by_index[index] = key
        return key

    def _tool_delta(self, tc: Any) -> ToolCallDelta:
        fn = getattr(tc, "function", None)
        name = getattr(fn, "name", None) if fn is not None else None
        args = (getattr(fn, "arguments", None) if fn is not None else None) or ""
        if not isinstance(args, str):  # some providers hand over parsed objects
            args = json.dumps(args, ensure_ascii=False)
        call_id = getattr(tc, "id", None)
        key = self._slot(getattr(tc, "index", None), call_id)
        slot = self.calls[key]
        if call_id and not slot["id"]:
            slot["id"] = call_id
        if name and name != slot["name"]:
            slot["name"] = name if not slot["name"] else slot["name"] + name
        if args:
            slot["args"].append(args)
        return ToolCallDelta(key, call_id, name, args)

    def tool_calls(self) -> list[ToolCall]:
        out = []
        for index in sorted(self.calls):
            slot = self.calls[index]
            arguments = "".join(slot["args"])
            out.append(
                ToolCall(
                    id=slot["id"] or f"call_{uuid.uuid4().hex[:12]}",
                    name=slot["name"],
                    arguments=arguments,
                    arguments_error=check_arguments(slot["name"], arguments),
                )
            )
        return out


def reply_usage(litellm: Any, config: LLMConfig, asm: ReplyAssembler, messages: Sequence[dict[str, Any]],
                tools: Sequence[dict[str, Any]] | None, calls: list[ToolCall]) -> Usage:
    """The call's usage: the provider's numbers, else a local count (``estimated``)."""
    if asm.usage is not None:
        return usage_from_provider(litellm, config.model, asm.usage, config.prices or None)
    else:  # provider sent no usage: count locally
        from agent_tui.core.tokens import counter_for

        counter = counter_for(config.model)
        prompt = counter.count_messages(messages) + (counter.count(json.dumps(list(tools))) if tools else 0)
        completion = counter.count("".join(asm.text)) + sum(
            counter.count(c.name) + counter.count(c.arguments) for c in calls
        )
    if config.prices:
        return Usage(prompt, completion, configured_cost(config.prices, prompt, completion, 0, 0), True)
    return Usage(prompt, completion, call_cost(litellm, config.model, prompt, completion), True)
