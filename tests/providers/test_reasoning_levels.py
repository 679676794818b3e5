"""One ``reasoning_effort`` scale (none … max) for every provider: each model gets the nearest level it
takes, through the real agent loop against fakes that refuse what the real APIs refuse, and in the
bodies litellm builds where the fault was a silent drop."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.reasoning_levels import LEVELS, fitted_effort, nearest
from agent_tui.core.config import ConfigError, settings_from_dict
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn
from tests.support.fake_gemini import FakeGemini


def test_the_config_takes_every_providers_words_and_nothing_else() -> None:
    for level in ("none", "minimal", "low", "medium", "high", "xhigh", "max"):
        s = settings_from_dict({"models": {"deepseek/deepseek-v4-pro": {"reasoning_effort": level}}})
        assert s.models["deepseek/deepseek-v4-pro"]["reasoning_effort"] == level
    for bad in ("ultra", "MAX ", "extreme", 3):
        with pytest.raises(ConfigError, match="reasoning_effort"):
            settings_from_dict({"models": {"m/x": {"reasoning_effort": bad}}})


@pytest.mark.parametrize(("fam", "model", "asked", "sent"), [
    ("openai", "openai/gpt-5", "none", "minimal"),  # gpt-5 cannot turn reasoning off: the least it has
    ("openai", "openai/gpt-5", "xhigh", "high"),
    ("openai", "openai/gpt-5", "max", "high"),
    ("openai", "openai/gpt-5.1", "minimal", "low"),  # between none and low, the one that still reasons
    ("openai", "openai/gpt-5.1", "none", "none"),
    ("openai", "openai/gpt-5.2", "max", "xhigh"),  # OpenAI's highest word
    ("openai", "openai/o3", "medium", "medium"),
    ("openai", "openai/o3", "max", "high"),  # the o-series takes low, medium and high only
    ("openai", "openai/o3", "none", "low"),
    ("openai", "openai/o4-mini", "minimal", "low"),
    ("openai", "openai/gpt-5-codex", "xhigh", "high"),  # litellm drops xhigh unless its map says the model has it
    ("gemini", "gemini/gemini-2.5-pro", "none", "minimal"),  # always thinks
    ("gemini", "gemini/gemini-2.5-flash", "none", "none"),
    ("gemini", "gemini/gemini-3-pro-preview", "max", "high"),
    ("gemini", "gemini/gemini-3-pro-preview", "medium", "high"),  # 3 Pro takes low and high only
    ("gemini", "gemini/gemini-3.1-pro-preview", "medium", "medium"),
    ("ollama", "qwen3:8b", "xhigh", "high"),
    ("ollama", "gpt-oss:20b", "none", "low"),
    ("anthropic", "anthropic/claude-opus-4-5", "max", "max"),  # litellm maps the whole scale
    ("deepseek", "deepseek/deepseek-v4-pro", "max", "max"),  # so does DeepSeek itself
])
def test_each_model_gets_the_nearest_level_it_takes(fam: str, model: str, asked: str, sent: str) -> None:
    assert fitted_effort(fam, model, asked) == sent


def test_nearest_prefers_the_higher_of_two_and_stays_on_the_scale() -> None:
    assert nearest("minimal", ["none", "low", "high"]) == "low"
    assert nearest("max", ["none", "low"]) == "low"
    assert nearest("none", []) == "none"
    for level in LEVELS:
        assert nearest(level, LEVELS) == level


class _Recorder(BaseHTTPRequestHandler):
    bodies: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        size = int(self.headers.get("content-length") or 0)
        type(self).bodies.append(json.loads(self.rfile.read(size) or b"{}"))
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"error": {"message": "recorded", "type": "invalid_request_error"}}')

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    bodies: list[dict[str, Any]] = []
    handler = type("Handler", (_Recorder,), {"bodies": bodies})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("asked", "sent"), [("none", "minimal"), ("max", "high")])
async def test_gpt5_is_sent_a_level_it_takes_instead_of_litellm_dropping_the_setting(
        tmp_path: Path, recorder: tuple[str, list[dict[str, Any]]], asked: str, sent: str) -> None:
    """litellm drops a level its model map marks unsupported for the model (``drop_params``): gpt-5 then ran
    at its default effort, with nothing said."""
    base, bodies = recorder
    agent, ws = provider_agent(make_repo(tmp_path / "p"), "openai/gpt-5", base, {"reasoning_effort": asked})
    try:
        await run_turn(agent, "hello")
    finally:
        ws.close()
    assert bodies and {b.get("reasoning_effort") for b in bodies} == {sent}


@pytest.mark.parametrize("effort", ["high", "xhigh", "max"])
async def test_claude_effort_under_a_small_output_cap_is_not_refused(tmp_path: Path, effort: str) -> None:
    """litellm turned "high" into a 4,096-token thinking budget beside the configured ``max_tokens`` of 4,096
    (16,384 for "max"): Anthropic refuses a budget that is not below max_tokens, on every request."""
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read it.", calls=[("read_file", {"path": "calc.py"})]), Turn(thinking="Ok.", text="Read."))
        agent, ws = provider_agent(make_repo(tmp_path / "p"), "anthropic/claude-sonnet-4-5", fake.base_url,
                                   {"reasoning_effort": effort, "max_output_tokens": 4096})
        try:
            events = await run_turn(agent, "read calc.py")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done" and events[-1].text == "Read."
    for r in fake.answered:
        budget = r.body["thinking"]["budget_tokens"]
        assert budget >= 4096 and r.body["max_tokens"] >= budget + 4096  # the answer keeps its own 4,096


@pytest.mark.parametrize(("model", "effort"), [("gemini/gemini-2.5-pro", "none"), ("gemini/gemini-2.5-flash", "max"),
                                               ("gemini/gemini-3-pro-preview", "xhigh")])
async def test_gemini_gets_a_level_it_takes(tmp_path: Path, model: str, effort: str) -> None:
    """litellm refused "xhigh" and "max" for Gemini before sending anything; "none" asked Gemini 2.5 Pro, which
    always thinks, for a budget of 0, which Google refuses."""
    with FakeGemini() as fake:
        fake.script(Turn(text="Hello."))
        agent, ws = provider_agent(make_repo(tmp_path / "p"), model, fake.base_url + "/v1beta",
                                   {"reasoning_effort": effort, "api_key": "AIza-test-key"})
        try:
            events = await run_turn(agent, "hello")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done" and events[-1].text == "Hello."


async def test_deepseek_takes_max_and_is_not_sent_a_temperature_its_thinking_ignores(
        tmp_path: Path, recorder: tuple[str, list[dict[str, Any]]]) -> None:
    base, bodies = recorder
    for model, table in (("deepseek/deepseek-v4-pro", {"reasoning_effort": "max", "temperature": 0.2}),
                         ("deepseek/deepseek-reasoner", {"temperature": 0.2}),
                         ("deepseek/deepseek-chat", {"temperature": 0.2})):
        bodies.clear()
        agent, ws = provider_agent(make_repo(tmp_path / model.replace("/", "_")), model, base, table)
        try:
            await run_turn(agent, "hello")
        finally:
            ws.close()
        assert bodies, model
        if model == "deepseek/deepseek-chat":  # no thinking: the temperature applies
            assert {b.get("temperature") for b in bodies} == {0.2}
        else:
            assert all("temperature" not in b for b in bodies), model
        if model == "deepseek/deepseek-v4-pro":
            assert {b.get("reasoning_effort") for b in bodies} == {"max"}


@pytest.mark.parametrize("model", ["anthropic/claude-opus-4-1", "anthropic/claude-opus-4-20250514"])
async def test_claude_opus_4_with_default_settings_is_not_asked_for_more_than_it_writes(tmp_path: Path,
                                                                                         model: str) -> None:
    """litellm has no entry of its own for these and its Claude fallback says 64,000 output tokens: the plan's
    reserve of 40,000 went out as max_tokens, and Anthropic refuses anything above 32,000, on every request."""
    with FakeAnthropic() as fake:
        fake.script(Turn(text="Hello."))
        agent, ws = provider_agent(make_repo(tmp_path / "p"), model, fake.base_url, {}, window=None)
        try:
            events = await run_turn(agent, "hello")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done"
    assert all(0 < r.body["max_tokens"] <= 32_000 for r in fake.answered)


@pytest.mark.parametrize(("model", "table"), [
    ("gemini/gemini-3-pro-preview", {"reasoning_effort": "medium"}),  # Gemini 3 Pro: low or high only
    ("gemini/gemini-3-pro-preview", {"reasoning_effort": "minimal"}),
    ("gemini/gemini-2.5-flash", {"thinking": 32_000}),  # a budget set for Claude, kept over /model
    ("gemini/gemini-2.5-pro", {"thinking": 64}),
    ("gemini/gemini-2.5-flash-lite", {"thinking": 100}),
])
async def test_gemini_thinking_settings_are_brought_into_what_the_model_takes(tmp_path: Path, model: str,
                                                                              table: dict[str, Any]) -> None:
    with FakeGemini() as fake:
        fake.script(Turn(text="Hello."))
        agent, ws = provider_agent(make_repo(tmp_path / "p"), model, fake.base_url + "/v1beta",
                                   {**table, "api_key": "AIza-test-key"})
        try:
            events = await run_turn(agent, "hello")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done" and events[-1].text == "Hello."


@pytest.mark.parametrize(("model", "role"), [("openai/o3", "developer"), ("openai/o4-mini", "developer"),
                                             ("openai/gpt-5", "system"), ("openai/gpt-4o", "system")])
async def test_openai_reasoning_models_get_the_instructions_as_instructions(
        tmp_path: Path, recorder: tuple[str, list[dict[str, Any]]], model: str, role: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """litellm sends an o-series model's system messages as user messages unless its table marks the model
    as taking them (o3, o4-mini are not marked): the rules, files and summary read as if the user typed them.
    The requests go to OpenAI's own host (only it takes the developer role), answered by the local recorder
    through an HTTP proxy: nothing leaves 127.0.0.1."""
    base, bodies = recorder
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, base.removesuffix("/v1"))
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    agent, ws = provider_agent(make_repo(tmp_path / "p"), model, "http://api.openai.com/v1", {})
    try:
        await run_turn(agent, "hello")
    finally:
        ws.close()
    assert bodies and {b["messages"][0]["role"] for b in bodies} == {role}
    assert [m["role"] for m in bodies[0]["messages"]].count("user") == 1, "only the user's own message is the user's"


async def test_claude_is_not_shown_a_made_up_line_where_an_empty_reply_sits(
        tmp_path: Path, recorder: tuple[str, list[dict[str, Any]]]) -> None:
    """A reply with no text and no tool call stays in the history; litellm sent it to Claude as the assistant text
    "[System: Empty message content sanitised to satisfy protocol]", which the model reads as its own words."""
    from agent_tui.agent.llm import preload_litellm
    from agent_tui.agent.llm_provider import request_kwargs
    from agent_tui.agent.llm_types import LLMConfig

    base, bodies = recorder
    litellm = preload_litellm()
    history = [{"role": "system", "content": "rules"}, {"role": "user", "content": "think about it"},
               {"role": "assistant", "content": ""}, {"role": "user", "content": "and now?"}]
    kw = request_kwargs(LLMConfig(model="anthropic/claude-sonnet-4-5", api_base=base.removesuffix("/v1"),
                                  api_key="sk-ant-test"), history, None)
    with pytest.raises(Exception):  # noqa: B017 (the recorder answers 400)
        await litellm.acompletion(**{**kw, "stream": False, "stream_options": None})
    sent = json.dumps(bodies[-1]["messages"])
    assert "sanitised" not in sent and "think about it" in sent and "and now?" in sent


@pytest.mark.parametrize(("model", "limit"), [
    ("anthropic/claude-opus-4-1", 32_000), ("claude-opus-4-20250514", 32_000), ("claude-opus-4-0", 32_000),
    ("bedrock/anthropic.claude-opus-4-1-20250805-v1:0", 32_000),
    ("anthropic/claude-opus-4-5-20251101", None), ("claude-opus-4-6", None),  # 64,000: not capped (a review)
    ("us.anthropic.claude-opus-4-5-20251101-v1:0", None), ("anthropic/claude-sonnet-4-5", None),
])
def test_only_the_models_stated_at_32k_are_capped_there(model: str, limit: int | None) -> None:
    from agent_tui.core.model_settings import known_output_limit

    assert known_output_limit(model) == limit
