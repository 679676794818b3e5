"""A strict OpenAI-style chat server: rejects what vLLM, OpenAI's reasoning models and DeepSeek reject.

* a history tool call whose name breaks OpenAI's ``^[a-zA-Z0-9_-]+$`` (a name the model made up:
  ``functions.read_file``);
* unparsable or non-object ``arguments`` in a history tool call (vLLM re-parses them: 400); a tool call
  left without its tool message before the next message, a tool message answering no (open) call;
* ``reasoning`` mode (o-series / GPT-5): ``temperature`` other than 1 and ``max_tokens``
  (must be ``max_completion_tokens``); usage reports ``reasoning_tokens``;
* ``deepseek`` mode: two user or two assistant messages in a row (deepseek-reasoner's "does not support
  successive user or assistant messages");
* ``deepseek`` mode (thinking, DeepSeek's default): streams ``reasoning_content``; a request, with ``tools`` or
  without, must bring ``reasoning_content`` back on every assistant message of the history, earlier turns
  included ("must be fully passed back to the API in all subsequent requests — even for turns where the
  model did not perform a tool call", api-docs.deepseek.com/guides/thinking_mode; missing or empty: 400).
  On the current tool loop's calls the fake wants it exactly as issued (stricter than DeepSeek, which
  takes any non-empty placeholder: the tests want the real text back); ``placeholders`` counts the
  assistant messages that came back with text the fake never issued.  A reply the fake gave with
  reasoning, in a turn that called tools (between two user messages), must come back with that
  reasoning, its final answer too ("between two user messages, if the model made tool calls, the
  assistant's reasoning_content must be passed back in all later turns": the Chinese page of the same
  guide); a turn without tool calls may come back with a placeholder (DeepSeek ignores it there).

* ``compatible`` mode (a server that speaks OpenAI's dialect without being OpenAI: Groq, Cerebras, NVIDIA
  NIM, vLLM's strict validation): a top-level field outside the chat completion's common ones is refused
  (Groq: 400 "property 'prompt_cache_key' is unsupported"; NIM: "Unsupported parameter(s)").

Streams OpenAI chunks (text, reasoning_content, index-based tool calls, a usage chunk with
``prompt_tokens_details.cached_tokens`` from the prefix shared with the previous request).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from tests.support.fake_dialect import FakeDialect, Rejected, Turn, new_id, now

#: The request fields an OpenAI-compatible server that is not OpenAI takes (``compatible`` mode).
COMMON_FIELDS = frozenset({
    "model", "messages", "stream", "stream_options", "temperature", "top_p", "max_tokens", "max_completion_tokens",
    "tools", "tool_choice", "parallel_tool_calls", "stop", "n", "seed", "user", "response_format",
    "frequency_penalty", "presence_penalty", "logprobs", "top_logprobs", "logit_bias", "reasoning_effort",
})


class FakeStrictOpenAI(FakeDialect):
    """``mode``: ``plain``, ``reasoning``, ``deepseek`` or ``compatible``."""

    def __init__(self, mode: str = "plain", ids: str = "openai") -> None:
        super().__init__()
        self.mode = mode
        self.ids = ids
        """``openai`` (``call_…``, unique) or ``kimi``: Kimi K2's ``functions.NAME:N``, N counted from 0 in each
        reply as vLLM's and SGLang's Kimi parsers do, so a later reply repeats an earlier reply's ids."""
        self.usages: list[dict[str, Any]] = []
        self._issued: set[str] = set()
        self._thought: dict[str, str] = {}  # reasoning given, by the reply's first tool-call id or its text
        self._prev: list[Any] | None = None
        self.placeholders = 0

    def check(self, path: str, body: dict[str, Any]) -> None:
        if not path.rstrip("/").endswith("/chat/completions"):
            raise Rejected(f"no route {path}", 404)
        if self.mode == "compatible" and (unknown := sorted(set(body) - COMMON_FIELDS)):
            raise Rejected(f"property '{unknown[0]}' is unsupported")
        if self.mode == "reasoning":
            if "temperature" in body and body["temperature"] != 1:
                raise Rejected(f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                               "model. Only the default (1) value is supported.")
            if "max_tokens" in body:
                raise Rejected("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                               "'max_completion_tokens' instead.")
        msgs = body.get("messages") or []
        last_user = max((i for i, m in enumerate(msgs) if m.get("role") == "user"), default=-1)
        thinking = self.mode == "deepseek" and (body.get("thinking") or {}).get("type") != "disabled"
        if self.mode == "deepseek":
            roles = [str(m.get("role")) for m in msgs]
            for n in range(1, len(roles)):
                if roles[n] == roles[n - 1] and roles[n] in ("user", "assistant"):
                    raise Rejected(f"deepseek-reasoner does not support successive user or assistant messages "
                                   f"(messages[{n - 1}] and messages[{n}] in your input). You should interleave the "
                                   "user/assistant messages in the message sequence.")
        if thinking:  # with tools or without: a summary's or memo's call too
            for m in msgs:
                if m.get("role") != "assistant":
                    continue
                kept = m.get("reasoning_content")
                if not isinstance(kept, str) or not kept:
                    raise Rejected("The reasoning_content in the thinking mode must be passed back to the API.")
                if kept not in self._issued:
                    self.placeholders += 1
            self._check_tool_turns(msgs)
        open_calls: set[str] = set()
        for n, m in enumerate(msgs):
            if m.get("role") != "tool" and open_calls:
                raise Rejected("An assistant message with 'tool_calls' must be followed by tool messages responding "
                               "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                               + ", ".join(sorted(open_calls)))
            if m.get("role") == "assistant":
                open_calls = set()
                for k, c in enumerate(m.get("tool_calls") or []):
                    fname = str((c.get("function") or {}).get("name") or "")
                    if not re.fullmatch(r"[a-zA-Z0-9_-]+", fname):
                        raise Rejected(f"Invalid 'messages[{n}].tool_calls[{k}].function.name': string does not "
                                       "match pattern. Expected a string that matches the pattern "
                                       "'^[a-zA-Z0-9_-]+$'.")
                    raw = (c.get("function") or {}).get("arguments")
                    try:
                        ok = isinstance(json.loads(raw), dict) if isinstance(raw, str) else isinstance(raw, dict)
                    except ValueError:
                        ok = False
                    if not ok:
                        raise Rejected(f"messages[{n}]: invalid tool call arguments (not a JSON object): {raw!r}")
                    open_calls.add(c.get("id"))
                if (thinking and n > last_user and m.get("tool_calls")
                        and m.get("reasoning_content") not in self._issued):
                    raise Rejected("The reasoning_content in the thinking mode must be passed back to the API.")
            elif m.get("role") == "tool":
                if m.get("tool_call_id") not in open_calls:
                    raise Rejected(f"messages[{n}]: tool message answers no tool call")
                open_calls.discard(m.get("tool_call_id"))

    def _check_tool_turns(self, msgs: list[dict[str, Any]]) -> None:
        """Every assistant message of a turn that called tools brings back the reasoning it was given."""
        turn: list[dict[str, Any]] = []
        for m in [*msgs, {"role": "user"}]:
            if m.get("role") == "user":
                if any(a.get("tool_calls") for a in turn):
                    for a in turn:
                        given = self._thought.get(self._reply_key(a))
                        if given is not None and a.get("reasoning_content") != given:
                            raise Rejected("The reasoning_content in the thinking mode must be passed back to the API.")
                turn = []
            elif m.get("role") == "assistant":
                turn.append(m)

    @staticmethod
    def _reply_key(m: dict[str, Any]) -> str:
        calls = m.get("tool_calls") or []
        return str(calls[0].get("id")) if calls else "text:" + str(m.get("content") or "")

    def _cached(self, body: dict[str, Any]) -> int:
        msgs = body.get("messages") or []
        prev, self._prev = self._prev, msgs
        same = 0
        for a, b in zip(prev or [], msgs, strict=False):
            if a != b:
                break
            same += 1
        return sum(self.count(m) for m in msgs[:same])

    def respond(self, path: str, body: dict[str, Any], turn: Turn) -> tuple[bool, Any, str]:
        thinking = turn.thinking if self.mode in ("deepseek", "reasoning") else ""
        if thinking and self.mode == "deepseek":
            self._issued.add(thinking)
        calls = [(f"functions.{name}:{n}" if self.ids == "kimi" else new_id("call_"), name, self.args_json(args))
                 for n, (name, args) in enumerate(turn.calls)]
        if thinking and self.mode == "deepseek":
            self._thought[calls[0][0] if calls else "text:" + turn.text] = thinking
        prompt = sum(self.count(m) for m in body.get("messages") or []) + self.count(body.get("tools") or [])
        completion = max(1, self.count(turn.text) + sum(self.count(a) for _, _, a in calls))
        reasoning_tokens = self.count(turn.thinking) if turn.thinking else 0
        usage = {"prompt_tokens": prompt, "completion_tokens": completion + reasoning_tokens,
                 "total_tokens": prompt + completion + reasoning_tokens,
                 "prompt_tokens_details": {"cached_tokens": min(prompt, self._cached(body))},
                 "completion_tokens_details": {"reasoning_tokens": reasoning_tokens}}
        self.usages.append(usage)
        finish = {"length": "length"}.get(turn.finish_reason, turn.finish_reason)
        return True, self._chunks(body.get("model", "m"), turn.text, thinking, calls, finish, usage), \
            "text/event-stream"

    def _chunks(self, model: str, text: str, thinking: str, calls: list[tuple[str, str, str]], finish: str,
                usage: dict[str, Any]) -> Iterator[bytes]:
        cid, created = new_id("chatcmpl-"), now()

        def chunk(delta: dict[str, Any], fin: str | None = None) -> bytes:
            c = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": fin}]}
            return b"data: " + json.dumps(c).encode() + b"\n\n"

        yield chunk({"role": "assistant", "content": ""})
        for k in range(0, len(thinking), 10):
            yield chunk({"reasoning_content": thinking[k:k + 10]})
        for k in range(0, len(text), 8):
            yield chunk({"content": text[k:k + 8]})
        for i, (call_id, name, args) in enumerate(calls):
            yield chunk({"tool_calls": [{"index": i, "id": call_id, "type": "function",
                                         "function": {"name": name, "arguments": ""}}]})
            for k in range(0, len(args), 7):
                yield chunk({"tool_calls": [{"index": i, "function": {"arguments": args[k:k + 7]}}]})
        yield chunk({}, finish)
        tail = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [],
                "usage": usage}
        yield b"data: " + json.dumps(tail).encode() + b"\n\n"
        yield b"data: [DONE]\n\n"
