"""Per-provider shaping of one request, on top of litellm's own conversion.

litellm converts OpenAI-format messages for every provider, but a few things
only the caller knows:

* **Reasoning state.**  Anthropic thinking rejects a tool loop whose
  assistant turn lost its signed ``thinking`` blocks: they are kept per
  assistant message (by its tool-call ids) and sent back for the current tool
  loop only — the messages after the last user message — and dropped elsewhere.
  DeepSeek's thinking mode (its default) refuses a request with tools unless
  *every* assistant message, earlier turns included, carries
  ``reasoning_content``: the kept text where there is one (every reply of a turn
  that called tools, its final answer too, as DeepSeek asks), else a one-space
  placeholder (what DeepSeek accepts; litellm adds it only when ``thinking`` is
  sent explicitly, which agent-tui does not do for DeepSeek).
* **A turn that ended inside its tool loop** (cancelled during a tool call,
  stopped by max_steps or an error) leaves tool results right before the next
  user message; litellm merges them into one Anthropic user turn, so the old
  loop never ended and, with thinking on, its last assistant message needed
  the thinking blocks the loop no longer has (400 ``Expected `thinking` ...``,
  or thinking silently off per Anthropic's newer "graceful degradation").  The
  same shape comes from a summary or memo instruction sent mid-loop.  A short
  assistant message closes such a loop in Anthropic requests (thinking may be
  on without being configured: the newest Claude models think by default).
* **Empty replies.**  A reply with no text and no tool call (Gemini's
  ``MALFORMED_FUNCTION_CALL``, a thoughts-only answer) is kept in the history
  as an empty assistant message; Gemini refuses the ``{"text": ""}`` part
  litellm makes of it, so it is left out of Gemini requests.
* **Sampling.**  Temperature is unset unless configured; Anthropic allows only
  1 with thinking, so it is never sent then (a budget, or a ``reasoning_effort``
  that litellm turns into thinking); ``max_tokens`` must exceed the thinking budget.
* **Prompt caching.**  Anthropic caches only up to explicit ``cache_control``
  breakpoints: one at the end of each stable segment of the request (the
  assembler's ``cache_breakpoints``, at most three) and one on the last message (the active
  files live in the compaction block and in file notes, never in the head).  Anthropic
  looks for an earlier cache entry at most 20 blocks before a breakpoint, so after a step
  that added more (a dozen parallel calls) the previous step's end gets a breakpoint too.
  A bare tool-call message is marked on its last tool call.
  OpenAI routes requests with the same ``prompt_cache_key`` to the same cache; only OpenAI's own API
  takes the field: Groq, Cerebras, NVIDIA NIM and other OpenAI-compatible servers refuse a request
  that carries it (400 "property 'prompt_cache_key' is unsupported"), so it goes to api.openai.com only.
* **Ollama.**  ``ollama/`` models go through ``/api/generate`` in JSON mode;
  ``ollama_chat/`` is the chat endpoint with tools, and ``num_ctx`` must be sent
  or Ollama truncates the prompt at its default (the window is what the user's server
  says the model holds: ``agent.ollama_window``).  ``think`` goes only to a model that
  thinks, with a value it takes; the loop's thinking goes back on its tool calls.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from agent_tui.core.notes import said_by_user

from .llm_binding import attach_bound, preserved_thinking
from .llm_dialects import fit_dialect
from .llm_turns import blank_text_dropped, close_open_loops, is_empty_reply, successive_users_joined
from .llm_types import LLMConfig, history_name
from .reasoning_levels import fitted_effort

#: Anthropic accepts at most four cache_control breakpoints per request.
MAX_ANTHROPIC_BREAKPOINTS = 4
#: Anthropic checks for a cache hit at most this many content blocks before each breakpoint.
CACHE_LOOKBACK_BLOCKS = 20
EPHEMERAL = {"type": "ephemeral"}


def provider_of(model: str) -> str:
    """The litellm provider prefix of ``model`` (``openai`` when there is none)."""
    return model.split("/", 1)[0].lower() if "/" in model else "openai"


def family(model: str) -> str:
    """anthropic, openai, gemini, deepseek, ollama or other: whose wire rules apply."""
    low = model.lower()
    provider = provider_of(model)
    if provider == "anthropic" or (provider in ("bedrock", "vertex_ai") and "claude" in low):
        return "anthropic"
    if provider in ("gemini", "vertex_ai"):
        return "gemini"
    if provider in ("ollama", "ollama_chat"):
        return "ollama"
    if provider == "deepseek":
        return "deepseek"
    if provider in ("openai", "azure"):
        return "openai"
    return "other"


DEEPSEEK_HOST = "deepseek.com"
"""The host (and its subdomains) of DeepSeek's own API, which DeepSeek's docs reach with an OpenAI client."""


def family_of(config: LLMConfig) -> str:
    """``family`` of the configured model, or ``deepseek`` for an ``openai/`` (or unprefixed) model sent to
    DeepSeek's own API: the setup DeepSeek's docs give, where a tool turn's reasoning must still go back."""
    fam = family(config.model)
    if fam in ("openai", "other") and provider_of(config.model) == "openai" and config.api_base:
        base = config.api_base
        host = (urlsplit(base if "//" in base else "//" + base).hostname or "").lower()
        if host == DEEPSEEK_HOST or host.endswith("." + DEEPSEEK_HOST):
            return "deepseek"
    return fam


def openai_itself(api_base: str | None) -> bool:
    """Whether an ``openai/`` model's requests go to OpenAI's own API (no ``api_base``, or one on
    ``api.openai.com``), not to another server that speaks its dialect.  Without one, litellm takes
    ``OPENAI_BASE_URL`` (or ``OPENAI_API_BASE``) from the environment, as the openai client does."""
    api_base = api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
    if not api_base:
        return True
    host = (urlsplit(api_base if "//" in api_base else "//" + api_base).hostname or "").lower()
    return host == "api.openai.com"


def chat_model(model: str) -> str:
    """``ollama/x`` → ``ollama_chat/x`` (the chat endpoint with tools); others unchanged."""
    if model.lower().startswith("ollama/"):
        return "ollama_chat/" + model.split("/", 1)[1]
    return model


def claude_thinks(config: LLMConfig) -> bool:
    """True when the request asks Claude to think: a budget, a ``reasoning_effort`` (litellm turns it into
    thinking) or ``thinking`` enabled/adaptive in the extra arguments. (Models that think by default
    lose ``temperature`` in litellm already.)"""
    if config.thinking:
        return True
    switch = config.extra.get("thinking")
    if isinstance(switch, Mapping) and switch.get("type") in ("enabled", "adaptive"):
        return True
    return bool(config.reasoning_effort) and str(config.reasoning_effort).lower() != "none"


def current_loop_start(messages: Sequence[Mapping[str, Any]]) -> int:
    """Index of the first message after the last user message (the current tool loop)."""
    for i in range(len(messages) - 1, -1, -1):
        if said_by_user(messages[i]):  # an engine note (a file note mid-loop) does not end the loop
            return i + 1
    return len(messages)


def reasoning_key(message: Mapping[str, Any]) -> str | None:
    """The key an assistant message's provider data is kept under: its first tool-call id, or for an answer
    with no tool call, its text's (``answer_key``)."""
    calls = message.get("tool_calls") or []
    if calls:
        return str(calls[0].get("id")) if calls[0].get("id") else None
    content = message.get("content")
    return answer_key(content) if isinstance(content, str) and content else None


def answer_key(text: str) -> str:
    """The key of the provider data of an answer with no tool call: DeepSeek keeps a tool turn's final answer's
    reasoning too (``_deepseek_reasoning``), and that message has no id to keep it by."""
    return "answer:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


#: ``reasoning_content`` for a DeepSeek assistant message whose reasoning was not kept (a single space:
#: DeepSeek refuses a missing or empty one; the model then sees a blank chain for that message).
BLANK_REASONING = " "


#: DeepSeek models that do not think unless asked (the V4 models and deepseek-reasoner think by default).
DEEPSEEK_NO_THINKING = ("deepseek-chat", "deepseek-v3", "deepseek-coder")


def deepseek_thinking(config: LLMConfig) -> bool:
    """Whether this DeepSeek model runs in thinking mode: ``thinking = {type = ...}`` in the model's extra
    arguments or a ``reasoning_effort`` (``"none"``: off) decide; else the model's default (on, except
    ``deepseek-chat``, the non-thinking alias, and the V3 / coder models)."""
    for where in (config.extra, config.extra.get("extra_body") or {}):
        switch = where.get("thinking") if isinstance(where, Mapping) else None
        if isinstance(switch, Mapping) and switch.get("type") in ("enabled", "disabled"):
            return switch.get("type") == "enabled"
    if config.reasoning_effort:
        return config.reasoning_effort.lower() != "none"
    return not config.model.lower().rsplit("/", 1)[-1].startswith(DEEPSEEK_NO_THINKING)


def reasoning_to_send(config: LLMConfig, messages: Sequence[Mapping[str, Any]],
                      reasoning: Mapping[str, Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    """Which assistant messages (by index) get which provider data back: the current tool loop's
    thinking blocks for Anthropic (whenever a reply had some: the newest Claude models think without
    being asked, so ``config.thinking`` says nothing) and its thinking for Ollama (as reasoning_content,
    which litellm sends as ``thinking``: Ollama's tool-calling guide appends it, and the model reads it);
    for DeepSeek in thinking mode, every assistant message's reasoning_content (kept, else
    :data:`BLANK_REASONING`), in every request, with tools or without (the memo's and summary's calls too:
    a tool turn without it is a 400)."""
    fam = family_of(config)
    out: dict[int, dict[str, Any]] = {}
    if fam == "deepseek":
        return _deepseek_reasoning(config, messages, reasoning)
    field = {"anthropic": "thinking_blocks", "ollama": "reasoning_content"}.get(fam)
    if field is None or not reasoning:
        return out
    start = 0 if fam == "anthropic" and preserved_thinking(config.model) else current_loop_start(messages)
    for i in range(start, len(messages)):  # (preserved thinking: every turn's, as far as its prefix holds)
        m = messages[i]
        key = reasoning_key(m) if m.get("role") == "assistant" else None
        data = reasoning.get(key) if key else None
        if data and data.get(field):  # kept only if the reply thought: also by default (Sonnet 5...)
            out[i] = {field: copy.deepcopy(data[field])}
    return out


def _named(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with its tool calls' names as the APIs take them in a history (``llm_types.history_name``:
    a session stored before that rule, or a name a model made up, would fail every later request)."""
    calls = message.get("tool_calls")
    if message.get("role") != "assistant" or not isinstance(calls, list):
        return message
    fixed = []
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        name = fn.get("name") if isinstance(fn, dict) else None
        if isinstance(name, str) and history_name(name) != name:
            call = {**call, "function": {**fn, "name": history_name(name)}}
        fixed.append(call)
    return {**message, "tool_calls": fixed}


def sent_effort(config: LLMConfig, fam: str, model: str) -> str | None:
    """The ``reasoning_effort`` to send: the configured level fitted to what the model takes
    (``reasoning_levels``), None when unset or when the model cannot think (Ollama)."""
    if not config.reasoning_effort:
        return None
    if fam == "ollama":
        return ollama_effort(config)
    return fitted_effort(fam, model, config.reasoning_effort)


def claude_budget(model: str, effort: str) -> int | None:
    """The thinking budget litellm would turn ``effort`` into for this Claude model, or None (adaptive
    thinking, "none", or a mapping litellm does not expose).  litellm sends that budget with the configured
    ``max_tokens`` as it is: "high" (4,096) under a 4,096-token cap is refused ("max_tokens must be greater
    than thinking.budget_tokens"), so agent-tui sends the budget itself and keeps ``max_tokens`` above it,
    as for a configured ``thinking``."""
    from agent_tui.agent.llm import preload_litellm

    preload_litellm()
    try:
        from litellm.llms.anthropic.chat.transformation import AnthropicConfig

        mapped = AnthropicConfig.map_reasoning_effort(effort, model.split("/", 1)[-1], provider_of(model))
    except Exception:  # a litellm without this mapping: the effort goes as it is
        return None
    if isinstance(mapped, Mapping) and mapped.get("type") == "enabled" and isinstance(mapped.get("budget_tokens"), int):
        return int(mapped["budget_tokens"])
    return None


def ollama_effort(config: LLMConfig) -> str | None:
    """The ``reasoning_effort`` litellm turns into Ollama's ``think``: none for a model its server says does not
    think (400 "does not support thinking"); gpt-oss takes levels, and "minimal" is not one of them (400 "invalid
    think value"), so it asks for "low"."""
    from .ollama_window import can_think, model_name

    effort = config.reasoning_effort
    if not effort or can_think(config.model) is False:
        return None
    return fitted_effort("ollama", model_name(config.model), effort)


def _deepseek_reasoning(config: LLMConfig, messages: Sequence[Mapping[str, Any]],
                        reasoning: Mapping[str, Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    kept = {i: str(data["reasoning_content"]) for i, m in enumerate(messages)
            if m.get("role") == "assistant" and (key := reasoning_key(m))
            and (data := reasoning.get(key)) and data.get("reasoning_content")}
    out = {i: {"reasoning_content": text} for i, text in kept.items()}
    if kept or deepseek_thinking(config):
        for i, m in enumerate(messages):
            if m.get("role") == "assistant" and i not in out:
                out[i] = {"reasoning_content": BLANK_REASONING}
    return out


def reasoning_text(sent: Mapping[int, Mapping[str, Any]]) -> str:
    """The text of the provider data being sent back (for counting it in the budget)."""
    parts: list[str] = []
    for data in sent.values():
        parts += [b.get("thinking") or b.get("data") or "" for b in data.get("thinking_blocks") or []]
        parts.append(str(data.get("reasoning_content") or "").strip())
    return "\n".join(p for p in parts if p)


def attach_reasoning(config: LLMConfig, messages: list[dict[str, Any]],
                     reasoning: Mapping[str, Mapping[str, Any]]) -> int:
    """Put kept thinking blocks / reasoning_content back on the assistant messages that need them.

    Returns the number of messages that got provider data.
    """
    sent = reasoning_to_send(config, messages, reasoning)
    for i, data in sent.items():
        messages[i].update(data)
    return len(sent)


def wire_blocks(message: Mapping[str, Any]) -> int:
    """How many Anthropic content blocks a message becomes (thinking, text and tool_use blocks; else one)."""
    if message.get("role") != "assistant":
        return 1
    return (len(message.get("thinking_blocks") or []) + (1 if message.get("content") else 0)
            + len(message.get("tool_calls") or []))


def lookback_bridge(messages: Sequence[Mapping[str, Any]], marks: Sequence[int]) -> int | None:
    """Where the previous step's request ended (the message before the latest assistant reply), when the
    blocks from there to the next breakpoint are more than Anthropic's cache lookback can span."""
    replies = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if not replies or replies[-1] < 1:
        return None
    end = replies[-1] - 1
    later = [i for i in marks if i > end]
    if end in marks or not later:
        return None
    gap = sum(wire_blocks(messages[i]) for i in range(end + 1, later[0] + 1))
    return end if gap > CACHE_LOOKBACK_BLOCKS else None


def mark_cache(messages: list[dict[str, Any]], breakpoints: Sequence[int]) -> list[int]:
    """Anthropic ``cache_control`` on the stable segments' last messages and the last message, and on the
    previous step's end when one step added more blocks than the cache lookback spans (a dozen parallel
    calls): then the oldest segment mark gives way."""
    if not messages:
        return []
    last = len(messages) - 1
    marks = sorted({i for i in breakpoints if 0 <= i < last} or {0})
    marks = marks[-(MAX_ANTHROPIC_BREAKPOINTS - 1):] + [last]
    bridge = lookback_bridge(messages, marks)
    if bridge is not None:
        marks = sorted(({*marks[1:]} if len(marks) >= MAX_ANTHROPIC_BREAKPOINTS else {*marks}) | {bridge})
    for i in marks:
        m = messages[i]
        if m.get("role") == "assistant" and m.get("tool_calls"):  # (text or not: litellm puts a message's mark on
            # its first block, the text, which leaves the tool_use blocks after it out of the cached prefix)
            calls = [dict(c) for c in m["tool_calls"]]  # the assembly's dicts stay untouched
            calls[-1]["cache_control"] = dict(EPHEMERAL)  # litellm puts it on the last tool_use block
            m["tool_calls"] = calls
            continue
        m["cache_control"] = dict(EPHEMERAL)
    return marks


def cache_key(session_id: str) -> str:
    """A stable ``prompt_cache_key`` for a session (no ids leak to the provider)."""
    return "agent-tui-" + hashlib.sha256(session_id.encode()).hexdigest()[:16]


def system_as_user(model: str) -> bool:
    """Whether litellm would send this OpenAI reasoning model's system messages as *user* messages: it does
    for an o-series model its table does not mark ``supports_system_messages`` (o3, o3-mini, o4-mini,
    o3-pro; o1 is marked), and agent-tui's rules, files and summary then read as if the user had typed them.  OpenAI takes
    the ``developer`` role for them, which litellm passes on unchanged."""
    import re

    name = model.lower().rsplit("/", 1)[-1]
    if not re.match(r"o[3-9]", name):  # (o1-mini and o1-preview take neither system nor developer messages)
        return False
    from agent_tui.agent.llm import preload_litellm

    try:
        return not preload_litellm().get_model_info(model).get("supports_system_messages")
    except Exception:  # unknown to litellm: it converts them the same way
        return True


def output_ceiling(model: str) -> int | None:
    """The model's output-token limit from litellm's metadata (None when unknown)."""
    from agent_tui.agent.llm import preload_litellm
    from agent_tui.core.model_settings import known_output_limit

    known = known_output_limit(model)
    try:
        value = preload_litellm().get_model_info(model).get("max_output_tokens")
    except Exception:  # a model litellm does not know (a local server's): no limit to keep to
        return known
    found = int(value) if isinstance(value, int | float) and value > 0 else None
    return min(x for x in (found, known) if x is not None) if (found or known) else None


def request_kwargs(config: LLMConfig, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None,
                   *, breakpoints: Sequence[int] = (), session_id: str | None = None,
                   reasoning: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The keyword arguments for ``litellm.acompletion`` for this provider."""
    model = chat_model(config.model)
    fam = family_of(config)
    msgs = [_named(dict(m)) for m in messages]
    kw: dict[str, Any] = {
        "model": model,
        "messages": msgs,
        "stream": True,
        "stream_options": {"include_usage": True},
        "timeout": config.timeout,
        # We retry ourselves (Retry-After, events); the openai client would retry twice more.
        "max_retries": 0,
        "num_retries": 0,
    }
    thinking = config.thinking if fam in ("anthropic", "gemini") else None
    effort = sent_effort(config, fam, model)
    if fam == "anthropic" and effort and not thinking and (budget := claude_budget(model, effort)):
        thinking, effort = budget, None  # a budget of our own keeps max_tokens above it (below)
    thinks = (fam == "anthropic" and claude_thinks(config)) or (fam == "deepseek" and deepseek_thinking(config))
    if config.temperature is not None and not thinks:  # Claude refuses it; DeepSeek's thinking ignores it
        kw["temperature"] = config.temperature
    if config.max_output_tokens:
        kw["max_tokens"] = config.max_output_tokens
    if thinking:
        kw["thinking"] = {"type": "enabled", "budget_tokens": int(thinking)}
        if fam == "anthropic" and kw.get("max_tokens", 0) <= thinking:
            kw["max_tokens"] = int(thinking) + max(1024, int(config.max_output_tokens or 0))
    if effort:
        kw["reasoning_effort"] = effort
    if fam == "ollama" and config.num_ctx:
        kw["num_ctx"] = int(config.num_ctx)
    if config.api_base:
        kw["api_base"] = config.api_base
    if config.api_key:
        kw["api_key"] = config.api_key
    if tools:
        kw["tools"] = list(tools)
    bound = fam == "anthropic" and preserved_thinking(model)
    if (reasoning or fam == "deepseek") and not bound:
        attach_reasoning(config, msgs, reasoning or {})
    if config.cache:
        if fam == "anthropic":
            mark_cache(msgs, breakpoints)
        elif fam == "openai" and session_id and openai_itself(config.api_base):
            kw["prompt_cache_key"] = cache_key(session_id)
    if fam == "anthropic":  # thinking may be on without being asked (Claude Sonnet 5, Opus 5, Fable 5...)
        close_open_loops(msgs)  # after the cache marks: they are placed by the assembly's indices
    if fam in ("gemini", "anthropic"):  # litellm drops it for Gemini; for Claude it wrote a "[System: …]" line in
        msgs[:] = [blank_text_dropped(m) for m in msgs if not is_empty_reply(m)]  # its place, which the model read
        # as its own words
    if bound and reasoning:  # (last: the check compares the request as it goes, loops closed, empty replies out)
        attach_bound(msgs, kw.get("tools"), reasoning, reasoning_key)
    if fam == "deepseek":  # (the assembler merges them; a summary's or memo's call appends its ask to a request
        msgs[:] = successive_users_joined(msgs)  # that may end with the user's message)
    if fam == "openai" and system_as_user(model) and (provider_of(model) == "azure" or openai_itself(config.api_base)):
        # (only OpenAI's own API and Azure take the role: vLLM and other servers refuse it)
        msgs[:] = [{**m, "role": "developer"} if m.get("role") == "system" else m for m in msgs]
    fit_dialect(fam, model, kw, output_ceiling(model))
    kw.update(config.extra)
    return kw
