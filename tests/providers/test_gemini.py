"""Gemini through litellm's real ``gemini/`` conversion, against a fake ``generateContent`` API that
rejects what Gemini rejects: a 5-step tool loop with a malformed call, then a next turn, on a
thinking model whose thought signatures must come back on every step of the tool loop, and on a
2.5 model with a thinking budget; the fake's own refusals are pinned by raw requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo
from tests.providers.helpers import assert_loop, run_loop
from tests.support.fake_gemini import PLACEHOLDER, FakeGemini, sign

MALFORMED = ("read_file", {"file": "calc.py"})  # Gemini's args are always objects: a wrong shape instead


def _first_call(content: dict[str, Any]) -> dict[str, Any] | None:
    parts = [p for p in content.get("parts") or [] if "function_call" in p or "functionCall" in p]
    return parts[0] if parts else None


async def test_gemini3_tool_loop_sends_thought_signatures_back(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeGemini() as fake:
        events, second = await run_loop(root, fake, "gemini/gemini-3-pro-preview", fake.base_url + "/v1beta",
                                        {"reasoning_effort": "low", "max_output_tokens": 8000,
                                         "api_key": "AIza-test-key"}, MALFORMED)
    assert_loop(root, fake, events, second)
    assert fake.placeholders == 0  # the real signatures went back, not Google's skip-validator placeholder
    assert all(r.path.endswith(":streamGenerateContent?alt=sse") for r in fake.answered)
    assert all(r.headers.get("x-goog-api-key") == "AIza-test-key" for r in fake.answered)
    assert all(r.body["generationConfig"]["max_output_tokens"] == 8000 for r in fake.answered)
    # step k (k >= 2) carries the signature the fake issued for step k-1's call, on that call
    for k in range(1, 5):
        model_turns = [c for c in fake.answered[k].body["contents"] if c["role"] == "model"]
        call = _first_call(model_turns[-1])
        assert call is not None and call.get("thoughtSignature")
        name = (call.get("function_call") or call.get("functionCall"))["name"]
        thinking = ["Read first.", "Look around.", "Fix it.", "Check."][k - 1]
        assert call["thoughtSignature"] == sign(f"{k}:{name}:{thinking}")
    reasoning = [e.reasoning for e in events if isinstance(e, ev.AssistantMessage)]
    assert reasoning[0] == "Read first."
    usages = [e for e in events if isinstance(e, ev.Usage)]
    assert usages[0].reasoning_tokens > 0 and any(u.cached_tokens > 0 for u in usages[1:])


async def test_gemini25_tool_loop_with_thinking_budget(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeGemini() as fake:
        events, second = await run_loop(root, fake, "gemini/gemini-2.5-flash", fake.base_url + "/v1beta",
                                        {"thinking": 2048}, MALFORMED)
    assert_loop(root, fake, events, second)
    for r in fake.answered:
        assert r.body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 2048}
    assert [e.reasoning for e in events if isinstance(e, ev.AssistantMessage)][0] == "Read first."


async def test_a_history_litellm_cannot_convert_fails_once_not_as_a_connection_error() -> None:
    """litellm raises its Gemini conversion failure as APIConnectionError (status 500) before sending
    anything; it is not retried (it used to be, four times, as a "connection error")."""
    from agent_tui.agent import llm
    from agent_tui.agent.llm_types import LLMConfig

    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
                   "name": "read_file", "arguments": '{"path": "a'}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "r"}]
    seen: list[Any] = []
    with FakeGemini() as fake:
        config = LLMConfig(model="gemini/gemini-2.5-flash", api_base=fake.base_url + "/v1beta", api_key="k",
                           backoff_base=0.01, backoff_cap=0.02)
        with pytest.raises(llm.LLMError) as err:
            async for e in llm.stream_completion(config, history):
                seen.append(e)
    assert err.value.kind == "conversion" and "nothing was sent" in str(err.value)
    assert not [e for e in seen if isinstance(e, llm.Retrying)] and fake.requests == []


# ---- the fake refuses what Gemini refuses (raw requests, no litellm in between) -------------------
def _call(name: str = "read_file", args: Any = None, sig: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "args": {"path": "a.py"} if args is None else args}}
    if sig is not None:
        part["thoughtSignature"] = sig
    return part


def _response(name: str = "read_file") -> dict[str, Any]:
    return {"functionResponse": {"name": name, "response": {"content": "x"}}}


def _post(fake: FakeGemini, contents: list[dict[str, Any]], model: str = "gemini-3-pro-preview",
          key: bool = True, tools: list[dict[str, Any]] | None = None) -> httpx.Response:
    body: dict[str, Any] = {"contents": contents}
    if tools:
        body["tools"] = tools
    headers = {"x-goog-api-key": "k"} if key else {}
    return httpx.post(f"{fake.base_url}/v1beta/models/{model}:generateContent", json=body, headers=headers)


USER = {"role": "user", "parts": [{"text": "go"}]}


@pytest.mark.parametrize(("contents", "model", "needle"), [
    ([USER, {"role": "model", "parts": [_call()]}, {"role": "user", "parts": [_response()]}],
     "gemini-3-pro-preview", "missing a thought_signature"),
    ([USER, {"role": "model", "parts": [_call(sig="Zm9yZ2Vk")]}, {"role": "user", "parts": [_response()]}],
     "gemini-3-pro-preview", "Corrupted thought signature"),
    ([USER, {"role": "model", "parts": [_call(args='{"path": "a.py"')]}, {"role": "user", "parts": [_response()]}],
     "gemini-2.5-flash", "function_call.args"),
    ([USER, {"role": "model", "parts": [_call(), _call()]}, {"role": "user", "parts": [_response()]}],
     "gemini-2.5-flash", "number of function response parts"),
    ([USER, {"role": "model", "parts": [{"text": "hm"}]}, {"role": "model", "parts": [_call()]}],
     "gemini-2.5-flash", "function call turn comes immediately after"),
    ([USER, {"role": "assistant", "parts": [{"text": "hi"}]}], "gemini-2.5-flash", "valid role"),
    ([USER, {"role": "model", "parts": []}], "gemini-2.5-flash", "must not be empty"),
    ([USER, {"role": "model", "parts": [{"text": ""}]}, USER], "gemini-2.5-flash",
     "contents[1].parts[0].data: required oneof field 'data' must have one initialized field"),
])
def test_fake_gemini_refuses_what_gemini_refuses(contents: list[dict[str, Any]], model: str, needle: str) -> None:
    with FakeGemini() as fake:
        r = _post(fake, contents, model)
    assert r.status_code == 400 and needle in r.json()["error"]["message"]
    assert r.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_fake_gemini_accepts_a_valid_loop_and_google_placeholder() -> None:
    with FakeGemini() as fake:
        ok = _post(fake, [USER, {"role": "model", "parts": [_call(sig=PLACEHOLDER)]},
                          {"role": "user", "parts": [_response()]}])
        no_key = _post(fake, [USER], key=False)
        schema = _post(fake, [USER], tools=[{"functionDeclarations": [{"name": "t", "parameters": {
            "type": "object", "additionalProperties": False, "properties": {}}}]}])
    assert ok.status_code == 200 and ok.json()["candidates"][0]["finishReason"] == "STOP"
    assert fake.placeholders == 1
    assert no_key.status_code == 403
    assert schema.status_code == 400 and 'Unknown name "additionalProperties"' in schema.json()["error"]["message"]
