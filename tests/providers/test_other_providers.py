"""GPT-5/o-series, DeepSeek (thinking) and Ollama through litellm's real conversions, against fakes
that reject what those APIs reject: each completes a 5-step tool loop with a malformed call,
then a next turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo
from tests.providers.helpers import (
    assert_loop,
    five_step_loop,
    run_loop,
    turn_without_reasoning,
)
from tests.support.fake_ollama import FakeOllama
from tests.support.fake_strict_openai import FakeStrictOpenAI


@pytest.mark.parametrize("model", ["openai/o4-mini", "openai/gpt-5"])
async def test_openai_reasoning_model_loop(tmp_path: Path, model: str) -> None:
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("reasoning") as fake:
        events, second = await run_loop(root, fake, model, fake.base_url + "/v1",
                                        {"reasoning_effort": "low", "max_output_tokens": 8000, "temperature": 0.2},
                                        ("list_dir", '{"path": ".", '))
    assert_loop(root, fake, events, second)
    assert all(r.body.get("reasoning_effort") == "low" and r.body.get("max_completion_tokens") == 8000
               for r in fake.answered)
    assert all("temperature" not in r.body for r in fake.answered)  # 0.2 configured; these models allow only 1
    usages = [e for e in events if isinstance(e, ev.Usage)]
    assert usages[0].reasoning_tokens > 0 and any(u.cached_tokens > 0 for u in usages[1:])


async def test_an_openai_compatible_server_gets_only_fields_it_knows(tmp_path: Path, monkeypatch) -> None:
    """The README's ``openai/MODEL --api-base URL`` for any OpenAI-compatible server: Groq, Cerebras and NIM
    refuse an unknown field such as ``prompt_cache_key`` (the fake refuses every field outside the common
    ones), so the whole loop must get through with caching on (the default).  And litellm, pricing each
    reply, must not fetch a Llama tokenizer from huggingface.co (offline that stalled the call 23 s)."""
    import huggingface_hub.file_download as hf

    fetched: list[str] = []
    real = hf.hf_hub_download

    def recording(repo_id: str, *args: object, **kwargs: object) -> object:
        fetched.append(repo_id)
        return real(repo_id, *args, **kwargs)

    monkeypatch.setattr(hf, "hf_hub_download", recording)
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("compatible") as fake:
        events, second = await run_loop(root, fake, "openai/llama-3.3-70b-versatile", fake.base_url + "/v1", {},
                                        ("list_dir", '{"path": ".", '))
    assert_loop(root, fake, events, second)  # nothing refused
    assert fetched == []


async def test_deepseek_thinking_gets_reasoning_content_back(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        events, second = await run_loop(root, fake, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {},
                                        ("list_dir", '{"path": ".", '))
    assert_loop(root, fake, events, second)
    step2 = fake.answered[1].body["messages"]
    assert [m.get("reasoning_content") for m in step2 if m["role"] == "assistant"][-1] == "Read first."
    assert [e.reasoning for e in events if isinstance(e, ev.AssistantMessage)][0] == "Read first."


async def test_deepseek_without_reasoning_content_is_rejected(tmp_path: Path, monkeypatch) -> None:
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        events = await turn_without_reasoning(monkeypatch, root, fake, five_step_loop(("list_dir", {"path": "."}))[:2],
                                              "deepseek/deepseek-reasoner", fake.base_url + "/v1", {})
    assert fake.rejections and "reasoning_content" in fake.rejections[0]
    assert events[-1].status == "error"


@pytest.mark.parametrize("model", ["ollama/qwen2.5-coder", "ollama_chat/qwen2.5-coder"])
async def test_ollama_chat_loop_with_num_ctx(tmp_path: Path, model: str) -> None:
    root = make_repo(tmp_path / "p")
    with FakeOllama() as fake:
        events, second = await run_loop(root, fake, model, fake.base_url, {}, ("list_dirs", {"path": "."}))
    assert_loop(root, fake, events, second)
    assert all(r.path.endswith("/api/chat") for r in fake.answered)
    # the window asked for (64,000) is more than the model holds (32,768, as the server says): Ollama would
    # have cut the oldest messages without a word, so the window is what the model holds
    assert fake.num_ctx and all(n == 32_768 for n in fake.num_ctx) and fake.truncated == 0
    assert fake.thinking_back[1] == ["Read first."], "the loop's thinking goes back on its tool call"
    # each result is named for the call it answers, as the model's template shows it (litellm dropped it)
    assert fake.tool_names[-2] == ["read_file", "list_dirs", "edit_file", "git_status"], fake.tool_names


def test_fake_ollama_refuses_string_arguments_and_array_content() -> None:
    import httpx

    call = {"function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}
    with FakeOllama() as fake:
        as_string = httpx.post(f"{fake.base_url}/api/chat", json={"model": "m", "messages": [
            {"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [call]}]})
        as_array = httpx.post(f"{fake.base_url}/api/chat", json={"model": "m", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "go"}]}]})
    assert as_string.status_code == 400 and "cannot unmarshal string" in as_string.json()["error"]
    assert as_array.status_code == 400 and "cannot unmarshal array" in as_array.json()["error"]
