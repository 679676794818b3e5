"""The README's "Models" configuration, one table per provider family, is a real
config: it loads under the strict schema and each model's request carries what its comment says."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from agent_tui.agent.llm_provider import request_kwargs
from agent_tui.agent.llm_settings import llm_config
from agent_tui.core.budget import make_plan
from agent_tui.core.config import settings_from_dict

README = Path(__file__).resolve().parents[2] / "README.md"
MODELS_TOML = re.search(r"## Models.*?```toml\n(.*?)```", README.read_text(), re.S).group(1)  # type: ignore[union-attr]
"""The README's Models block: what users copy."""


def _request(model: str) -> dict:
    s = settings_from_dict({**tomllib.loads(MODELS_TOML), "model": model}).for_model()
    plan = make_plan(s)
    return request_kwargs(llm_config(s, plan.reserve, plan.window), [{"role": "user", "content": "hi"}], None)


def test_models_example_loads_and_each_request_is_as_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORK_DEEPSEEK_KEY", "sk-deepseek-test-0123456789")
    assert settings_from_dict(tomllib.loads(MODELS_TOML)).model == "anthropic/claude-sonnet-4-5"
    claude = _request("anthropic/claude-sonnet-4-5")
    assert claude["max_tokens"] == 16000 and claude["thinking"]["budget_tokens"] == 8000
    gpt = _request("openai/gpt-5")
    assert gpt["reasoning_effort"] == "medium" and gpt["max_tokens"] == 32000
    assert _request("gemini/gemini-2.5-pro")["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert _request("deepseek/deepseek-v4-flash")["api_key"] == "sk-deepseek-test-0123456789"
    ollama = _request("ollama/qwen2.5-coder:14b")
    assert ollama["model"] == "ollama_chat/qwen2.5-coder:14b" and ollama["num_ctx"] == 32768
    local = settings_from_dict({**tomllib.loads(MODELS_TOML), "model": "openai/qwen3-coder"}).for_model()
    assert make_plan(local).window == 65536
