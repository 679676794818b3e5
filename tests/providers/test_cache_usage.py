"""Prompt caching on the wire and the Usage event's cache fields and cache-aware cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.llm_provider import cache_key, mark_cache, request_kwargs
from agent_tui.agent.llm_types import LLMConfig
from tests.agent.helpers import make_agent, make_repo, run_turn
from tests.support.fake_openai import Reply


async def test_usage_events_carry_cache_reads_and_cost_from_litellm(tmp_path: Path, fake_llm) -> None:
    import litellm

    root = make_repo(tmp_path / "p")
    fake_llm.script(Reply.tool_call("list_dir", {"path": "."}), Reply.tool_call("git_status", {}),
                    Reply.text("done"))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "look")
    finally:
        ws.close()
    usages = [e for e in events if isinstance(e, ev.Usage)]
    assert len(usages) == 3
    assert usages[0].cached_tokens == 0 and usages[1].cached_tokens > 0 and usages[2].cached_tokens > 0
    assert [u.cached_tokens for u in usages] == fake_llm.cached_tokens[:3]
    assert usages[1].cache_hit_pct == pytest.approx(100 * usages[1].cached_tokens / usages[1].prompt_tokens, abs=0.1)
    total_p = sum(u.prompt_tokens for u in usages)
    assert usages[-1].session_cache_hit_pct == pytest.approx(100 * sum(u.cached_tokens for u in usages) / total_p,
                                                             abs=0.1)
    price = litellm.model_cost["gpt-4o"]
    for u in usages:  # cache reads at the cache price: cheaper than the plain price
        expected = ((u.prompt_tokens - u.cached_tokens) * price["input_cost_per_token"]
                    + u.cached_tokens * price["cache_read_input_token_cost"]
                    + u.completion_tokens * price["output_cost_per_token"])
        assert u.cost_usd == pytest.approx(expected, rel=1e-6)
    assert usages[-1].session_cost_usd == pytest.approx(sum(u.cost_usd for u in usages))
    keys = {r.body.get("prompt_cache_key") for r in fake_llm.chat_requests}
    assert keys == {None}, "a server at an api_base that is not OpenAI's gets no prompt_cache_key"


def test_anthropic_cache_control_on_segment_ends_and_last_message() -> None:
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
            {"role": "assistant", "content": "a"}, {"role": "user", "content": "v"}]
    kw = request_kwargs(LLMConfig(model="anthropic/claude-sonnet-4-5"), msgs, None, breakpoints=[0, 2])
    marked = [i for i, m in enumerate(kw["messages"]) if m.get("cache_control")]
    assert marked == [0, 2, 3]
    assert not any("cache_control" in m for m in msgs)  # the assembly's messages are not touched
    assert "prompt_cache_key" not in kw
    plain = request_kwargs(LLMConfig(model="openai/gpt-4o"), msgs, None, breakpoints=[0, 2], session_id="s1")
    assert not any("cache_control" in m for m in plain["messages"]) and plain["prompt_cache_key"] == cache_key("s1")


@pytest.mark.parametrize("api_base, sent", [
    (None, True), ("https://api.openai.com/v1", True), ("https://API.OpenAI.com", True),
    ("https://api.groq.com/openai/v1", False), ("https://api.cerebras.ai/v1", False),
    ("https://integrate.api.nvidia.com/v1", False), ("http://127.0.0.1:8000/v1", False),
    ("https://api.openai.com.evil.example/v1", False), ("localhost:11434/v1", False),
])
def test_prompt_cache_key_goes_to_openai_only(api_base: str | None, sent: bool) -> None:
    """Groq, Cerebras and NIM refuse a request with a field they do not know (400/422)."""
    msgs = [{"role": "user", "content": "u"}]
    kw = request_kwargs(LLMConfig(model="openai/gpt-4o", api_base=api_base), msgs, None, session_id="s1")
    assert ("prompt_cache_key" in kw) is sent


@pytest.mark.parametrize("var", ["OPENAI_BASE_URL", "OPENAI_API_BASE"])
def test_prompt_cache_key_follows_the_base_url_litellm_takes_from_the_environment(
        var: str, monkeypatch: pytest.MonkeyPatch) -> None:
    msgs = [{"role": "user", "content": "u"}]
    monkeypatch.setenv(var, "https://api.groq.com/openai/v1")
    assert "prompt_cache_key" not in request_kwargs(LLMConfig(model="openai/gpt-4o"), msgs, None, session_id="s1")
    monkeypatch.setenv(var, "https://api.openai.com/v1")
    assert "prompt_cache_key" in request_kwargs(LLMConfig(model="openai/gpt-4o"), msgs, None, session_id="s1")


def test_at_most_four_anthropic_breakpoints() -> None:
    msgs = [{"role": "user" if i % 2 else "assistant", "content": str(i)} for i in range(12)]
    assert len(mark_cache(msgs, [1, 3, 5, 7, 9])) == 4


def test_unpriced_notice_only_where_someone_pays() -> None:
    from dataclasses import replace

    from agent_tui.agent.llm_types import Usage
    from agent_tui.agent.llm_usage import unpriced_notice

    u = Usage(1000, 10, 0.0, False)
    assert unpriced_notice("anthropic/claude-opus-4-1", {}, u, "http://127.0.0.1:9")  # a local proxy to a paid API
    assert unpriced_notice("openai/qwen3-coder", {}, u, "https://vllm.example.com/v1")  # someone's GPUs
    assert unpriced_notice("openai/qwen3-coder", {}, u, "http://127.0.0.1:8000/v1") is None  # this machine
    assert unpriced_notice("ollama/qwen2.5-coder", {}, u) is None
    assert unpriced_notice("agent-tui-demo/scripted", {}, u) is None
    assert unpriced_notice("x/y", {"input_cost_per_token": 0.0}, u) is None  # priced (free) by config
    assert unpriced_notice("openai/gpt-4o", {}, replace(u, cost_usd=0.01)) is None
    assert unpriced_notice("x/y", {}, replace(u, estimated=True)) is None
