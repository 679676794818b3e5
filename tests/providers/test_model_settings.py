"""Per-model settings: config keys, windows from litellm's metadata, the reserve that is sent."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.llm_provider import chat_model, request_kwargs
from agent_tui.agent.llm_settings import ensure_model_info, llm_config
from agent_tui.core.budget import make_plan
from agent_tui.core.config import ConfigError, Settings, settings_from_dict
from tests.agent.helpers import make_agent, make_repo, run_turn


def test_per_model_keys_are_accepted_and_checked() -> None:
    s = settings_from_dict({"model": "anthropic/claude-sonnet-4-5", "models": {"anthropic/claude-sonnet-4-5": {
        "api_key_env": "MY_CLAUDE_KEY", "max_output_tokens": 16000, "thinking": 8000, "temperature": 1,
        "reasoning_effort": "high", "stream_timeout": 30, "extra": {"top_k": 5}, "input_cost_per_token": 1e-6}}})
    assert make_plan(s).reserve == 16000
    for bad in ({"thinking": 0}, {"reasoning_effort": "ultra"}, {"extra": 3}, {"num_ctx": "big"},
                {"max_output_tokens": 1000, "thinking": 2000}, {"nonsense": 1}):
        with pytest.raises(ConfigError):
            settings_from_dict({"models": {"m/x": bad}})


def test_llm_config_from_model_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_CLAUDE_KEY", "sk-ant-test-123456789")
    s = settings_from_dict({"model": "anthropic/claude-sonnet-4-5", "models": {"anthropic/claude-sonnet-4-5": {
        "api_key_env": "MY_CLAUDE_KEY", "max_output_tokens": 16000, "thinking": 8000, "temperature": 0.2,
        "stream_timeout": 30, "extra": {"top_k": 5}}}})
    plan = make_plan(s)
    cfg = llm_config(s, plan.reserve, plan.window)
    assert cfg.api_key == "sk-ant-test-123456789" and cfg.timeout == 30 and cfg.max_output_tokens == 16000
    kw = request_kwargs(cfg, [{"role": "user", "content": "hi"}], None)
    assert kw["max_tokens"] == 16000 == plan.reserve
    assert "temperature" not in kw  # Claude with thinking allows only 1: never send 0.2
    assert kw["thinking"] == {"type": "enabled", "budget_tokens": 8000} and kw["top_k"] == 5


def test_windows_from_litellm_metadata() -> None:
    assert ensure_model_info("anthropic/claude-opus-4-1")
    assert make_plan(Settings.default("anthropic/claude-opus-4-1")).window == 200_000
    assert make_plan(Settings.default("openrouter/anthropic/claude-sonnet-4.5")).window == 200_000
    assert make_plan(Settings.default("openai/gpt-4o")).window == 128_000
    with_override = replace(Settings.default("openai/gpt-4o"), models={"openai/gpt-4o": {"window": 50_000}})
    assert make_plan(with_override.for_model()).window == 50_000


def test_ollama_goes_to_the_chat_endpoint_with_num_ctx() -> None:
    assert chat_model("ollama/qwen2.5-coder") == "ollama_chat/qwen2.5-coder"
    s = Settings.default("ollama/qwen2.5-coder", window=24_000)
    plan = make_plan(s)
    kw = request_kwargs(llm_config(s, plan.reserve, plan.window), [{"role": "user", "content": "x"}], None)
    assert kw["model"] == "ollama_chat/qwen2.5-coder" and kw["num_ctx"] == 24_000


async def test_the_reserve_is_what_is_sent_as_max_tokens(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    agent, ws = make_agent(root, fake_llm.base_url, window=20_000)
    try:
        events = await run_turn(agent, "hello")
    finally:
        ws.close()
    budget = next(e for e in events if isinstance(e, ev.BudgetUpdated))
    assert fake_llm.chat_requests[0].body["max_tokens"] == budget.reserve > 0
