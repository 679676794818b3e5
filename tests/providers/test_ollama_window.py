"""Ollama: the window is what the user's Ollama server says the model holds (asked at the configured
``api_base``), ``think`` goes only to a model that thinks, with a value Ollama takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent.llm_provider import request_kwargs
from agent_tui.agent.llm_settings import llm_config
from agent_tui.agent.ollama_window import DEFAULT_WINDOW, OllamaModel, fit_window, show
from agent_tui.core.config import Settings
from agent_tui.core.model_settings import _registered
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_dialect import Turn
from tests.support.fake_ollama import FakeOllama


@pytest.fixture(autouse=True)
def _forget_models() -> None:
    _registered.clear()


async def _one_turn(root: Path, fake: FakeOllama, model: str, table: dict[str, object] | None = None,
                    window: int | None = None) -> tuple[list[object], list[str]]:
    fake.script(Turn(calls=[("list_dir", {"path": "."})]), Turn(text="ok"))
    agent, ws = provider_agent(root, model, fake.base_url, table, window=window)
    try:
        events = await run_turn(agent, "look around")
        return events, list(agent.engine.warnings)
    finally:
        ws.close()


async def test_no_window_configured_asks_the_server_and_caps_what_ollama_must_reserve(tmp_path: Path) -> None:
    with FakeOllama(context=131_072) as fake:
        events, warnings = await _one_turn(make_repo(tmp_path / "p"), fake, "ollama/qwen3:8b")
    assert fake.rejections == [] and fake.num_ctx and set(fake.num_ctx) == {DEFAULT_WINDOW}
    assert any("131,072" in w and "set `window`" in w for w in warnings)


async def test_a_window_above_what_the_model_holds_is_lowered_and_said(tmp_path: Path) -> None:
    with FakeOllama(context=8_192) as fake:
        events, warnings = await _one_turn(make_repo(tmp_path / "p"), fake, "ollama/llama3", window=64_000)
    assert fake.num_ctx and set(fake.num_ctx) == {8_192} and fake.truncated == 0
    assert any("holds 8,192 tokens" in w and "64,000" in w for w in warnings)


async def test_a_small_trained_window_is_taken_whole(tmp_path: Path) -> None:
    with FakeOllama(context=16_384) as fake:
        await _one_turn(make_repo(tmp_path / "p"), fake, "ollama/coder")
    assert set(fake.num_ctx) == {16_384} and fake.truncated == 0


def test_an_unreachable_server_falls_back_with_a_warning() -> None:
    assert show("http://127.0.0.1:9", "qwen3") is None
    s, notes = fit_window(Settings(model="ollama/qwen3", api_base="http://127.0.0.1:9"), None)
    assert s.window == DEFAULT_WINDOW and "could not ask Ollama at http://127.0.0.1:9" in notes[0]


@pytest.mark.parametrize(("caps", "model", "effort", "think"), [
    (("completion", "tools"), "ollama/qwen2.5-coder", "low", None),  # no thinking: think would be a 400
    (("completion", "tools", "thinking"), "ollama/qwen3:8b", "low", True),
    (("completion", "tools", "thinking"), "ollama/gpt-oss:20b", "minimal", "low"),  # not a gpt-oss level
    (("completion", "tools", "thinking"), "ollama/gpt-oss:20b", "high", "high"),
    # litellm reads xhigh and max as thinking *off* for an on/off model
    (("completion", "tools", "thinking"), "ollama/qwen3:8b", "max", True),
    (("completion", "tools", "thinking"), "ollama/gpt-oss:20b", "xhigh", "high"),
])
async def test_think_goes_only_to_a_model_that_thinks_with_a_value_it_takes(
        tmp_path: Path, caps: tuple[str, ...], model: str, effort: str, think: object) -> None:
    with FakeOllama(capabilities=caps) as fake:
        events, _ = await _one_turn(make_repo(tmp_path / "p"), fake, model, {"reasoning_effort": effort})
    assert fake.rejections == []
    sent = {r.body.get("think") for r in fake.answered}
    assert sent == {think}


def test_the_fake_refuses_what_ollama_refuses() -> None:
    import httpx

    msg = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": False}
    with FakeOllama(capabilities=("completion",)) as fake:
        thinking = httpx.post(f"{fake.base_url}/api/chat", json={**msg, "think": True})
        level = httpx.post(f"{fake.base_url}/api/chat", json={**msg, "think": "minimal"})
        tools = httpx.post(f"{fake.base_url}/api/chat", json={**msg, "tools": [{"type": "function"}]})
    assert thinking.status_code == 400 and "does not support thinking" in thinking.json()["error"]
    assert level.status_code == 400 and "invalid think value" in level.json()["error"]
    assert tools.status_code == 400 and "does not support tools" in tools.json()["error"]


def test_a_configured_num_ctx_is_the_window_and_the_trained_length_bounds_it() -> None:
    """num_ctx is what Ollama allocates: a window above it was cut silently (a review)."""
    s = Settings(model="ollama/qwen3", window=24_000, models={"ollama/qwen3": {"num_ctx": 20_000}})
    fitted, notes = fit_window(s, OllamaModel(32_768, ("completion", "tools")))
    kw = request_kwargs(llm_config(fitted, 2_000, fitted.window), [{"role": "user", "content": "hi"}], None)
    assert fitted.window == kw["num_ctx"] == 20_000 and "num_ctx 20,000" in notes[0]
    big = Settings(model="ollama/qwen3", models={"ollama/qwen3": {"num_ctx": 65_536}})
    fitted, notes = fit_window(big, OllamaModel(32_768, ("completion", "tools")))
    kw = request_kwargs(llm_config(fitted, 2_000, fitted.window), [{"role": "user", "content": "hi"}], None)
    assert fitted.window == kw["num_ctx"] == 32_768 and "num_ctx 65,536 lowered" in notes[0]
