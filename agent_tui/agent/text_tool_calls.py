"""Tool calls a model wrote as the text of its reply, taken for the calls they are.

Ollama, vLLM and llama.cpp find a model's tool calls in its output with the model's chat template or a
parser; when that does not recognise what the model wrote (a call in a ```json fence, Qwen/Hermes
``<tool_call>`` tags under another template), the call comes back as the reply's text, and the turn ended
with raw JSON shown as the answer.  A reply with no structured calls whose whole text is one or more calls
(bare JSON objects or a list of them, fenced, or tagged; keys ``name`` and ``arguments`` or ``parameters``,
an optional ``"type": "function"``), every one naming a tool the request offered, is read as those calls and
runs the normal way.  Anything else stays the answer, unchanged: prose around the JSON (an example shown to
the user), a name not offered, JSON that does not parse.  No partial match is guessed at.  Only for models
served that way (``local_server``): a hosted API parses calls itself, and there a reply that is only a
call's JSON was written to be read (a user asked to see the call), not run.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from agent_tui.agent.llm_finish import FILTER_REASONS, LENGTH_REASONS
from agent_tui.agent.llm_provider import family_of, openai_itself, provider_of
from agent_tui.agent.llm_types import Completion, LLMConfig, ToolCall, check_arguments

LOCAL_PROVIDERS = frozenset({"hosted_vllm", "vllm", "lm_studio", "llamafile"})
"""litellm prefixes of self-hosted OpenAI-dialect servers (besides ``openai/`` at another ``api_base``)."""

_TAG = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)
_DECODER = json.JSONDecoder()
_MAX_DEPTH = 3
"""Tags and fences nested this deep at most (a fence inside a tag is the deepest seen)."""


@dataclass(frozen=True)
class TextCalls:
    """Calls read from a reply's text: what the text was, and the one line the user is told."""

    text: str
    notice: str


def local_server(config: LLMConfig | None) -> bool:
    """Whether ``config``'s model is served by a server that may hand a call back as text: Ollama, a
    self-hosted OpenAI-dialect server (``openai/`` at an ``api_base`` that is not OpenAI's, vLLM, LM Studio,
    llamafile)."""
    if config is None:
        return False
    fam = family_of(config)
    if fam == "ollama":
        return True
    provider = provider_of(config.model)
    if provider in LOCAL_PROVIDERS:
        return True
    return fam == "openai" and provider == "openai" and not openai_itself(config.api_base)


def offered_names(tools: Sequence[dict[str, Any]] | None) -> set[str]:
    """The names of the tools a request offered (OpenAI function definitions)."""
    return {str((t.get("function") or {}).get("name") or t.get("name") or "") for t in tools or ()} - {""}


def _values(text: str, depth: int = 0) -> list[Any] | None:
    """The JSON values ``text`` is made of (whitespace between them; each may be tagged or fenced), or None
    when anything else is in it."""
    out: list[Any] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos == end:
            return out
        block = _TAG.match(text, pos) or _FENCE.match(text, pos)
        if block is not None:
            inner = _values(block.group(1), depth + 1) if depth < _MAX_DEPTH else None
            if not inner:
                return None
            out += inner
            pos = block.end()
            continue
        if text[pos] not in "{[":
            return None
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            return None
        out += value if isinstance(value, list) and value else [value]


def _call(value: Any, offered: Collection[str]) -> ToolCall | None:
    """One call object as a :class:`ToolCall` (arguments checked as a provider's are), or None."""
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or value["name"] not in offered:
        return None
    keys = set(value) - {"name"}
    if value.get("type", "function") != "function" or len(keys - {"type"}) != 1 \
            or not keys <= {"arguments", "parameters", "type"}:
        return None
    args = value.get("arguments", value.get("parameters"))
    if isinstance(args, dict):
        raw = json.dumps(args, ensure_ascii=False)
    elif isinstance(args, str):
        raw = args
    else:
        return None
    return ToolCall(f"call_{uuid.uuid4().hex[:12]}", value["name"], raw, check_arguments(value["name"], raw))


def parse_text_calls(text: str, offered: Collection[str]) -> list[ToolCall] | None:
    """The tool calls ``text`` consists of, when it is nothing but calls to ``offered`` tools; else None."""
    body = text.strip()
    if not body or body[0] not in "{[<`" or body[-1] not in "}]>`":
        return None  # (prose: the common case, decided without parsing)
    values = _values(body)
    calls = [_call(v, offered) for v in values or ()]
    if not calls or any(c is None for c in calls):
        return None
    return [c for c in calls if c is not None]


def adopt_text_calls(completion: Completion, tools: Sequence[dict[str, Any]] | None) -> TextCalls | None:
    """When ``completion`` has no tool calls and its text is only calls to tools of ``tools`` (the request's),
    make them its calls and its text empty (in place); returns what it was and the notice, else None.  A reply
    cut by the output limit or stopped by a filter is left alone."""
    if completion.tool_calls or not tools or (completion.finish_reason or "").lower() in LENGTH_REASONS | FILTER_REASONS:
        return None
    calls = parse_text_calls(completion.text, offered_names(tools))
    if calls is None:
        return None
    written, completion.text, completion.tool_calls = completion.text, "", calls
    names = ", ".join(dict.fromkeys(c.name for c in calls))
    what = "a tool call" if len(calls) == 1 else f"{len(calls)} tool calls"
    return TextCalls(written, f"The model wrote {what} ({names}) as the text of its reply instead of calling the "
                              "tool; agent-tui runs it as a tool call.")
