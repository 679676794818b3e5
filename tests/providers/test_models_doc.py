"""The "Models" configuration proposed for the README, one table per provider family, is a real
config: it loads under the strict schema and each model's request carries what its comment says."""

from __future__ import annotations

import tomllib

import pytest

from agent_tui.agent.llm_provider import request_kwargs
from agent_tui.agent.llm_settings import llm_config
from agent_tui.core.budget import make_plan
from agent_tui.core.config import settings_from_dict

MODELS_TOML = '''
model = "anthropic/claude-sonnet-4-5"     # the default; --model or /model switches

[models."anthropic/claude-sonnet-4-5"]    # key: ANTHROPIC_API_KEY
max_output_tokens = 16000                 # sent as max_tokens, and the plan's output reserve
thinking = 8000                           # extended thinking (temperature is then never sent)

[models."openai/gpt-5"]                   # key: OPENAI_API_KEY (o3, o4-mini alike)
reasoning_effort = "medium"               # minimal | low | medium | high
max_output_tokens = 32000

[models."gemini/gemini-2.5-pro"]          # key: GEMINI_API_KEY (Google AI Studio)
thinking = 8192                           # thinking budget; thought signatures are sent back

[models."deepseek/deepseek-reasoner"]     # key: DEEPSEEK_API_KEY
api_key_env = "WORK_DEEPSEEK_KEY"         # or any variable you name

[models."ollama/qwen2.5-coder:14b"]       # local, no key; the chat endpoint at localhost:11434
window = 32768
num_ctx = 32768                           # sent with every request (Ollama's default is 2-4K)

[models."openai/qwen3-coder"]             # any OpenAI-compatible server: add --api-base http://host:8000/v1
window = 65536
input_cost_per_token = 0                  # free: no "no price is known" notice
output_cost_per_token = 0
'''


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
    assert _request("deepseek/deepseek-reasoner")["api_key"] == "sk-deepseek-test-0123456789"
    ollama = _request("ollama/qwen2.5-coder:14b")
    assert ollama["model"] == "ollama_chat/qwen2.5-coder:14b" and ollama["num_ctx"] == 32768
    local = settings_from_dict({**tomllib.loads(MODELS_TOML), "model": "openai/qwen3-coder"}).for_model()
    assert make_plan(local).window == 65536
