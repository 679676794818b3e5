"""A fake Anthropic Messages API (``POST /v1/messages``) that rejects what the real one rejects.

Speaks the streaming event format litellm's Anthropic client parses (message_start,
content blocks for ``thinking`` with ``signature_delta``, ``text`` and ``tool_use``
with ``input_json_delta``, message_delta with ``stop_reason``), reports
``cache_read_input_tokens`` / ``cache_creation_input_tokens`` from the request's
``cache_control`` breakpoints like Anthropic's prompt cache, and refuses with 400:

* ``temperature`` other than 1 with thinking on; ``max_tokens`` not above the budget;
* a tool loop whose last assistant message does not start with a signed thinking block
  (thinking on: ``enabled``, ``adaptive``, or a model that thinks by default such as claude-sonnet-5),
  or a thinking block whose signature this server did not issue; the latest assistant message's
  ``thinking`` / ``redacted_thinking`` blocks changed from the reply (one dropped, reordered, edited);
* a ``tool_use`` whose ``input`` is not an object or whose ``id`` breaks ``^[a-zA-Z0-9_-]+$`` (a Gemini
  id carrying its thought signature), or repeats an earlier id; a ``tool_result`` answering no call;
* a message after ``tool_use`` blocks that is not a user message beginning with one ``tool_result`` per
  call ("`tool_use` ids were found without `tool_result` blocks immediately after", "Did not find N
  `tool_result` block(s) at the beginning of this message"), or that answers a call twice;
* an empty or whitespace-only text block (also in the system prompt and inside a tool_result), a
  ``cache_control`` on an empty one, a message with no content;
* on a model with preserved thinking (``PRESERVED``), a thinking block sent back whose prefix — ``system``,
  ``tools`` and everything before the block, earlier blocks of its own message included — differs from the one
  it was produced after ("The block is bound to a different conversation"; the default for accounts made since
  2026-08-31), unless the request sets ``thinking.block_binding.prefix_mismatch_behavior: "drop_block"``;
* more than four ``cache_control`` breakpoints;
* ``max_tokens`` above the model's output limit (litellm's ``max_output_tokens``: "max_tokens: 88000 > 64000,
  which is the maximum allowed number of output tokens"); a tool whose ``input_schema`` is not an object
  or has ``oneOf``/``anyOf``/``allOf`` at its top.

The thinking-block rule above is Anthropic's documented 400 (and litellm's issues #9020, #14194); its newer
docs describe a "graceful degradation" where such a request instead runs with thinking silently off.
Either way the loop loses its reasoning, so the fake refuses it.

A turn with ``finish="length"`` stops with ``stop_reason: max_tokens`` — mid-``tool_use``
when it has a call (its JSON is cut).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterator
from typing import Any

from tests.support.fake_dialect import FakeDialect, Rejected, Turn, new_id, sse

#: Limits Anthropic's model overview states where litellm's table has no entry of its own (its Claude baseline
#: says 64,000 for these): the fake keeps its own list, not the product's.
STATED_LIMITS = {"claude-opus-4-1": 32_000, "claude-opus-4-1-20250805": 32_000, "claude-opus-4-20250514": 32_000,
                 "claude-opus-4-0": 32_000}


def max_output(model: str) -> int | None:
    """The model's output-token limit: as Anthropic states it, else litellm's model metadata (None when
    neither has one)."""
    import litellm

    if model.rsplit("/", 1)[-1] in STATED_LIMITS:
        return STATED_LIMITS[model.rsplit("/", 1)[-1]]

    try:
        info = litellm.get_model_info(model if "/" in model else f"anthropic/{model}")
    except Exception:
        return None
    value = info.get("max_output_tokens")
    return int(value) if value else None

_KEY = b"fake-anthropic-signing-key"
STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
        "window": "model_context_window_exceeded"}


#: Models that think when the request says nothing about thinking (adaptive, on by default; the first three
#: cannot turn it off). As litellm 1.110's model map flags them (thinking_on_by_default / _always_on).
THINK_BY_DEFAULT = frozenset({"claude-fable-5", "claude-fable-5-1", "claude-mythos-5", "claude-mythos-5-1",
                              "claude-sonnet-5", "claude-sonnet-5-5", "claude-opus-5", "claude-opus-5-5",
                              "claude-haiku-5-5"})


#: Models with preserved thinking: a thinking block sent back is checked against the prefix it was produced
#: after (platform.claude.com/docs/build-with-claude/preserved-thinking/prefix-checks).
PRESERVED = frozenset({"claude-fable-5-1", "claude-fable-5-2", "claude-mythos-5-1", "claude-mythos-5-2",
                       "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"})


def _plain(v: Any) -> Any:
    """``v`` as the prefix check compares it: cache marks left out, a string content as its one text block."""
    if isinstance(v, dict):
        out = {k: _plain(x) for k, x in v.items() if k != "cache_control"}
        if isinstance(out.get("content"), str) and "role" in out:
            out["content"] = [{"type": "text", "text": out["content"]}]
        return out
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def prefix_hash(body: dict[str, Any], messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> str:
    """The prefix of a thinking block: system, tools, the messages before its own, the blocks before it."""
    system = body.get("system")
    system = [{"type": "text", "text": system}] if isinstance(system, str) else system
    text = json.dumps(_plain({"system": system or [], "tools": body.get("tools") or [], "messages": messages,
                              "before": blocks}), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _block_key(b: dict[str, Any]) -> str:
    return str(b.get("signature") or b.get("data") or "")


#: How many blocks before a breakpoint Anthropic checks for a cache hit ("the 20-block lookback window").
LOOKBACK = 20


def thinks(body: dict[str, Any]) -> bool:
    """Whether the request runs with thinking: ``enabled`` (extended) or ``adaptive``, or nothing said to a
    model that thinks by default."""
    kind = (body.get("thinking") or {}).get("type")
    if kind is None:
        return str(body.get("model") or "") in THINK_BY_DEFAULT
    return kind in ("enabled", "adaptive")


def sign(thinking: str) -> str:
    return hmac.new(_KEY, thinking.encode(), hashlib.sha256).hexdigest()


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


class FakeAnthropic(FakeDialect):
    """The fake; ``usages`` holds the usage object of each answered request."""

    count_model = "anthropic/claude"

    def __init__(self) -> None:
        super().__init__()
        self.usages: list[dict[str, int]] = []
        self._cache: set[str] = set()
        self._thought: dict[str, list[dict[str, Any]]] = {}
        self._bound: dict[str, str] = {}
        """Per thinking block issued by a PRESERVED model (its signature), the prefix it was produced after."""

    def error_body(self, message: str, status: int) -> dict[str, Any]:
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}

    # ---- what the real API refuses
    def check(self, path: str, body: dict[str, Any]) -> None:
        if not path.rstrip("/").endswith("/v1/messages"):
            raise Rejected(f"no route {path}", 404)
        thinking = thinks(body)
        if thinking:
            if "temperature" in body and body["temperature"] != 1:
                raise Rejected("`temperature` may only be set to 1 when thinking is enabled or in interleaved "
                               "thinking mode.")
            budget = (body.get("thinking") or {}).get("budget_tokens")
            if budget is not None and int(budget) < 1024:
                raise Rejected("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
            if budget is not None and int(body.get("max_tokens") or 0) <= int(budget):
                raise Rejected("`max_tokens` must be greater than `thinking.budget_tokens`.")
        ceiling = max_output(str(body.get("model") or ""))
        if ceiling and int(body.get("max_tokens") or 0) > ceiling:
            raise Rejected(f"max_tokens: {body['max_tokens']} > {ceiling}, which is the maximum allowed number of "
                           f"output tokens for {body.get('model')}")
        for t, tool in enumerate(body.get("tools") or []):
            schema = tool.get("input_schema") if isinstance(tool, dict) else None
            if isinstance(schema, dict) and (schema.get("type") != "object"
                                             or any(k in schema for k in ("oneOf", "anyOf", "allOf"))):
                raise Rejected(f"tools.{t}.custom.input_schema: input_schema does not support oneOf, allOf, or "
                               "anyOf at the top level" if schema.get("type") == "object" else
                               f"tools.{t}.custom.input_schema.type: Input should be 'object'")
        if "temperature" in body and not 0 <= float(body["temperature"]) <= 1:
            raise Rejected("temperature: range: 0 <= temperature <= 1")
        msgs = body.get("messages") or []
        if not msgs or msgs[0].get("role") != "user":
            raise Rejected("messages: first message must use the \"user\" role")
        marks = sum(1 for b in self._flat(body) if b[1])
        if marks > 4:
            raise Rejected(f"A maximum of 4 blocks with cache_control may be provided. Found {marks}.")
        self._check_text(body.get("system"), "system")
        open_calls: set[str] = set()
        seen_uses: set[str] = set()
        for n, m in enumerate(msgs):
            blocks = _blocks(m.get("content")) if m.get("content") != "" else []
            if not blocks and not (n == len(msgs) - 1 and m.get("role") == "assistant"):
                raise Rejected(f"messages.{n}: all messages must have non-empty content except for the optional "
                               "final assistant message")
            self._check_text(m.get("content"), f"messages.{n}")
            if open_calls:
                self._check_answers(n, m, blocks, open_calls)
            if m.get("role") == "assistant":
                open_calls = set()
                for k, b in enumerate(blocks):
                    if b.get("type") == "tool_use":
                        if b.get("id") in seen_uses:
                            raise Rejected(f"messages.{n}.content.{k}: `tool_use` ids must be unique")
                        seen_uses.add(b.get("id"))
                        if not isinstance(b.get("input"), dict):
                            raise Rejected(f"messages.{n}.content.{k}.tool_use.input: Input should be a valid "
                                           "dictionary")
                        if not re.fullmatch(r"[a-zA-Z0-9_-]+", str(b.get("id") or "")):
                            raise Rejected(f"messages.{n}.content.{k}.tool_use.id: String should match pattern "
                                           "'^[a-zA-Z0-9_-]+$'")
                        open_calls.add(b.get("id"))
                    if b.get("type") == "thinking" and str(b.get("signature")).split(":")[0] != sign(b.get("thinking", "")):
                        raise Rejected(f"messages.{n}.content.{k}: Invalid `signature` in `thinking` block")
            else:
                for b in blocks:
                    if b.get("type") == "tool_result" and b.get("tool_use_id") not in open_calls:
                        raise Rejected(f"messages.{n}: unexpected `tool_use_id` found in `tool_result` blocks: "
                                       f"{b.get('tool_use_id')}. Each `tool_result` block must have a "
                                       "corresponding `tool_use` block in the previous message.")
                open_calls = set()
        if open_calls:
            raise Rejected(f"messages.{len(msgs) - 1}: `tool_use` ids were found without `tool_result` blocks "
                           f"immediately after: {', '.join(sorted(open_calls))}. Each `tool_use` block must have a "
                           "corresponding `tool_result` block in the next message.")
        self._check_bindings(body, msgs)
        last = msgs[-1]
        in_loop = any(b.get("type") == "tool_result" for b in _blocks(last.get("content")))
        if thinking and in_loop:
            n = max(i for i, m in enumerate(msgs) if m.get("role") == "assistant")
            blocks = _blocks(msgs[n].get("content"))
            first = blocks[0].get("type")
            uses = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
            issued = self._thought.get(uses[0]) if uses else None
            sent = [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks
                    if b.get("type") in ("thinking", "redacted_thinking")]
            preserved = str(body.get("model") or "") in PRESERVED  # (there a block may be left out at the end)
            if issued and sent and (sent != issued[:len(sent)] if preserved else sent != issued):
                raise Rejected(f"messages.{n}.content: `thinking` or `redacted_thinking` blocks in the latest "
                               "assistant message cannot be modified. These blocks must remain as they were in the "
                               "original response.")
            if first not in ("thinking", "redacted_thinking") and str(body.get("model") or "") not in PRESERVED:
                # (a model with preserved thinking runs on without a block it could not use: what its
                # prefix check's "drop_block" does; the block that does come back must be unchanged)
                raise Rejected(f"messages.{n}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                               f"`{first}`. When `thinking` is enabled, a final `assistant` message must start "
                               "with a thinking block (preceeding the lastmost set of `tool_use` and "
                               "`tool_result` blocks).")

    def _check_bindings(self, body: dict[str, Any], msgs: list[dict[str, Any]]) -> None:
        """Preserved thinking: each thinking block sent back has the prefix it was produced after."""
        if str(body.get("model") or "") not in PRESERVED:
            return
        binding = ((body.get("thinking") or {}).get("block_binding") or {}).get("prefix_mismatch_behavior")
        for n, m in enumerate(msgs):
            if m.get("role") != "assistant" or isinstance(m.get("content"), str):
                continue
            blocks = _blocks(m.get("content"))
            for k, b in enumerate(blocks):
                if b.get("type") not in ("thinking", "redacted_thinking"):
                    continue
                with self.lock:
                    bound = self._bound.get(_block_key(b))
                if bound is not None and bound != prefix_hash(body, msgs[:n], blocks[:k]) and binding != "drop_block":
                    raise Rejected(f"messages.{n}.content.{k}: Invalid `signature` in `thinking` block. The block is "
                                   "bound to a different conversation. Remove the block, or set "
                                   "`thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")

    @staticmethod
    def _check_text(content: Any, where: str) -> None:
        """Text blocks (also inside a tool_result) must hold non-whitespace text; no cache mark on an empty one."""
        if isinstance(content, str) and content and not content.strip():
            raise Rejected(f"{where}: text content blocks must contain non-whitespace text")
        if isinstance(content, str) or not content:
            return
        for k, b in enumerate(_blocks(content)):
            if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                FakeAnthropic._check_text(b["content"], f"{where}.content.{k}.content")
            if b.get("type") != "text":
                continue
            text = b.get("text")
            if not isinstance(text, str) or not text:
                if "cache_control" in b:
                    raise Rejected(f"{where}.content.{k}.text: cache_control cannot be set for empty text blocks")
                raise Rejected(f"{where}: text content blocks must be non-empty")
            if not text.strip():
                raise Rejected(f"{where}: text content blocks must contain non-whitespace text")

    @staticmethod
    def _check_answers(n: int, m: dict[str, Any], blocks: list[dict[str, Any]], open_calls: set[str]) -> None:
        """The message after tool_use blocks: a user message that begins with one tool_result per call."""
        lead: list[str] = []
        for b in blocks:
            if b.get("type") != "tool_result":
                break
            lead.append(str(b.get("tool_use_id")))
        answered = {str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"}
        missing = sorted(open_calls - answered) if m.get("role") == "user" else sorted(open_calls)
        if missing:
            raise Rejected(f"messages.{n - 1}: `tool_use` ids were found without `tool_result` blocks immediately "
                           f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
                           "`tool_result` block in the next message.")
        for k, tid in enumerate(lead):
            if tid in lead[:k]:
                raise Rejected(f"messages.{n}.content.{k}: each tool_use must have a single result. Found multiple "
                               f"`tool_result` blocks with id: {tid}")
        if len(set(lead) & open_calls) < len(open_calls):
            raise Rejected(f"messages.{n}: Did not find {len(open_calls)} `tool_result` block(s) at the beginning of "
                           "this message. Messages following `tool_use` blocks must begin with a matching number of "
                           "`tool_result` blocks.")

    # ---- prompt cache
    def _flat(self, body: dict[str, Any]) -> list[tuple[str, bool]]:
        """Every prompt block in order (tools, system, messages) with 'has cache_control'."""
        out: list[tuple[str, bool]] = []

        def add(block: dict[str, Any]) -> None:
            clean = {k: v for k, v in block.items() if k != "cache_control"}
            out.append((json.dumps(clean, sort_keys=True), "cache_control" in block))

        for t in body.get("tools") or []:
            add(t)
        system = body.get("system")
        for b in _blocks(system) if system else []:
            add(b)
        for m in body.get("messages") or []:
            for b in _blocks(m.get("content")):
                add({"role": m.get("role"), **b})
        return out

    def _usage(self, body: dict[str, Any], output: int) -> dict[str, int]:
        flat = self._flat(body)
        sizes = [self.count(text) for text, _ in flat]
        hashes, h = [], hashlib.sha256()
        for text, _ in flat:
            h.update(text.encode())
            hashes.append(h.copy().hexdigest())
        marks = [i for i, (_, m) in enumerate(flat) if m]
        read_to = 0
        for mark in marks:  # each breakpoint looks back at most LOOKBACK blocks for an earlier cache entry
            for i in range(mark, max(-1, mark - LOOKBACK - 1), -1):
                if hashes[i] in self._cache:
                    read_to = max(read_to, i + 1)
                    break
        write_to = marks[-1] + 1 if marks else 0
        with self.lock:
            self._cache.update(hashes[i] for i in marks)
        read = sum(sizes[:read_to])
        write = sum(sizes[read_to:write_to]) if write_to > read_to else 0
        total = sum(sizes) + 3
        return {"input_tokens": total - read - write, "cache_read_input_tokens": read,
                "cache_creation_input_tokens": write, "output_tokens": output}

    # ---- replies
    def _content(self, turn: Turn, body: dict[str, Any]) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if turn.redacted and thinks(body):
            content.append({"type": "redacted_thinking", "data": "Eo" + sign(new_id("redacted"))})
        if turn.thinking and thinks(body):
            content.append({"type": "thinking", "thinking": turn.thinking,  # (each block its own: the same text twice
                            "signature": f"{sign(turn.thinking)}:{new_id('s')}"})  # is two blocks)
        if turn.text:
            content.append({"type": "text", "text": turn.text})
        for name, args in turn.calls:
            content.append({"type": "tool_use", "id": new_id("toolu_"), "name": name, "input": args})
            if turn.interleaved and thinks(body) and len(content) and sum(b["type"] == "tool_use" for b in content) == 1:
                content.append({"type": "thinking", "thinking": turn.interleaved,
                                "signature": f"{sign(turn.interleaved)}:{new_id('s')}"})
        if str(body.get("model") or "") in PRESERVED:
            msgs = body.get("messages") or []
            with self.lock:
                for k, b in enumerate(content):
                    if b["type"] in ("thinking", "redacted_thinking"):
                        self._bound[_block_key(b)] = prefix_hash(body, msgs, content[:k])
        uses = [b["id"] for b in content if b["type"] == "tool_use"]
        if uses:
            with self.lock:
                self._thought[uses[0]] = [b for b in content if b["type"] in ("thinking", "redacted_thinking")]
        return content

    def respond(self, path: str, body: dict[str, Any], turn: Turn) -> tuple[bool, Any, str]:
        content = self._content(turn, body)
        output = max(1, sum(self.count(json.dumps(b)) for b in content))
        if turn.finish_reason == "length" and isinstance(body.get("max_tokens"), int):
            output = body["max_tokens"]  # (stopped by max_tokens: it wrote all of them)
        usage = self._usage(body, output)
        self.usages.append(usage)
        stop = STOP.get(turn.finish_reason, "end_turn")
        model = body.get("model", "claude")
        if not body.get("stream"):
            final = [b if b["type"] != "tool_use" or isinstance(b["input"], dict)
                     else {**b, "input": self.args_object(b["input"]) or {}} for b in content]
            return False, {"id": new_id("msg_"), "type": "message", "role": "assistant", "model": model,
                           "content": final, "stop_reason": stop, "stop_sequence": None, "usage": usage}, \
                "application/json"
        return True, self._events(content, usage, stop, model), "text/event-stream"

    def _events(self, content: list[dict[str, Any]], usage: dict[str, int], stop: str,
                model: str) -> Iterator[bytes]:
        start_usage = {**usage, "output_tokens": 1}
        yield sse("message_start", {"type": "message_start", "message": {
            "id": new_id("msg_"), "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}})
        for i, b in enumerate(content):
            if b["type"] == "redacted_thinking":
                yield sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": b})
            elif b["type"] == "thinking":
                yield sse("content_block_start", {"type": "content_block_start", "index": i,
                                                  "content_block": {"type": "thinking", "thinking": ""}})
                for k in range(0, len(b["thinking"]), 12):
                    yield sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                        "type": "thinking_delta", "thinking": b["thinking"][k:k + 12]}})
                yield sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "signature_delta", "signature": b["signature"]}})
            elif b["type"] == "text":
                yield sse("content_block_start", {"type": "content_block_start", "index": i,
                                                  "content_block": {"type": "text", "text": ""}})
                for k in range(0, len(b["text"]), 10):
                    yield sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                        "type": "text_delta", "text": b["text"][k:k + 10]}})
            else:
                yield sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
                raw = self.args_json(b["input"])
                for k in range(0, len(raw), 9):
                    yield sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                        "type": "input_json_delta", "partial_json": raw[k:k + 9]}})
            yield sse("content_block_stop", {"type": "content_block_stop", "index": i})
        yield sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                    "usage": {"output_tokens": usage["output_tokens"]}})
        yield sse("message_stop", {"type": "message_stop"})
