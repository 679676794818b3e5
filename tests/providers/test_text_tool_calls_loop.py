"""A local model that writes its tool call as the text of its reply (Ollama, or a vLLM-like OpenAI-compatible
server whose template does not parse it): the real loop, through litellm, runs the call, the next request
carries the call and its result paired on the wire, and the turn ends on the model's real answer.  A reply that
only shows a JSON example ends the turn as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_agent, make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn
from tests.support.fake_gemini import FakeGemini
from tests.support.fake_ollama import FakeOllama
from tests.support.fake_openai import FakeOpenAI, Reply, check_tool_pairing
from tests.support.fake_strict_openai import FakeStrictOpenAI

READ = {"name": "read_file", "arguments": {"path": "calc.py"}}
FORMS = {
    "bare": json.dumps(READ),
    "fence": f"```json\n{json.dumps(READ, indent=2)}\n```",
    "tags": f"<tool_call>\n{json.dumps(READ)}\n</tool_call>",
    "string arguments": json.dumps({"name": "read_file", "arguments": json.dumps({"path": "calc.py"})}),
}
ANSWER = "add() subtracts: it returns a - b."


def _ran_read_file(events: list[Any]) -> None:
    """The call ran as a tool call (not an error), the user was told, the turn ended on the real answer."""
    started = [e for e in events if isinstance(e, ev.ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert [(e.name, e.arguments) for e in started] == [("read_file", {"path": "calc.py"})]
    assert len(finished) == 1 and not finished[0].is_error and "return a - b" in finished[0].text
    notes = [e.message for e in events if isinstance(e, ev.WarningRaised) and "as the text of its reply" in e.message]
    assert len(notes) == 1 and "read_file" in notes[0]
    assert (events[-1].status, events[-1].text) == ("done", ANSWER)


@pytest.mark.parametrize("form", sorted(FORMS))
async def test_ollama_a_call_written_as_text_runs_and_goes_back_paired(tmp_path: Path, form: str) -> None:
    root = make_repo(tmp_path / "p")
    with FakeOllama() as fake:
        fake.script(Turn(text=FORMS[form]), Turn(text=ANSWER))
        agent, ws = provider_agent(root, "ollama_chat/qwen2.5-coder", fake.base_url)
        try:
            events = await run_turn(agent, "why does test_add fail?")
            stored = [it for it in agent.engine.items.values() if it.role == "assistant" and it.tool_calls]
        finally:
            ws.close()
    assert fake.rejections == [] and len(fake.answered) == 2
    _ran_read_file(events)
    sent = fake.answered[1].body["messages"]
    at = next(i for i, m in enumerate(sent) if m["role"] == "assistant")
    call, result = sent[at], sent[at + 1]
    # on Ollama's wire: the assistant's call (arguments an object, no raw JSON left as its text), then its result
    assert call.get("content") in ("", None) and [c["function"] for c in call["tool_calls"]] == \
        [{"name": "read_file", "arguments": {"path": "calc.py"}}]
    assert result["role"] == "tool" and "return a - b" in result["content"]
    assert fake.tool_names[1] == ["read_file"]  # the result is named for the call it answers
    assert stored and stored[0].provenance.get("calls_from_text") == FORMS[form]  # the trace keeps what it wrote


async def test_openai_compatible_server_a_call_written_as_text_runs_and_goes_back_paired(tmp_path: Path) -> None:
    """vLLM without a tool parser for the model: the call is the reply's content."""
    root = make_repo(tmp_path / "p")
    with FakeOpenAI() as server:
        server.script(Reply.text(FORMS["tags"]), Reply.text(ANSWER))
        agent, ws = make_agent(root, server.base_url)
        try:
            events = await run_turn(agent, "why does test_add fail?")
        finally:
            ws.close()
        requests = server.chat_requests
    _ran_read_file(events)
    assert len(requests) == 2
    sent = requests[1].messages
    assert check_tool_pairing(sent) == []
    at = next(i for i, m in enumerate(sent) if m["role"] == "assistant")
    call, result = sent[at], sent[at + 1]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in call["tool_calls"]] == \
        [("read_file", {"path": "calc.py"})]
    assert "<tool_call>" not in str(call.get("content") or "")
    assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
    assert "return a - b" in str(result["content"])


async def test_a_strict_server_then_claude_and_gemini_take_the_history_after_a_model_switch(tmp_path: Path) -> None:
    """Two calls written in tags on a vLLM-strict server (which refuses an unanswered call); the stored session
    then goes to Claude and Gemini (/model), whose fakes refuse a tool_use without its tool_result."""
    root = make_repo(tmp_path / "p")
    two = (f"<tool_call>\n{json.dumps(READ)}\n</tool_call>\n"
           '<tool_call>\n{"name": "git_status", "arguments": {}}\n</tool_call>')
    with FakeStrictOpenAI("compatible") as vllm, FakeAnthropic() as claude, FakeGemini() as gemini:
        vllm.script(Turn(text=two), Turn(text="local ok"))
        agent, ws = provider_agent(root, "openai/qwen3-coder", vllm.base_url + "/v1", {})
        try:
            first = await run_turn(agent, "look at calc.py")
            session = agent.engine.session_id
        finally:
            ws.close()
        finals = []
        for fake, model, base in ((claude, "anthropic/claude-sonnet-4-5", claude.base_url),
                                  (gemini, "gemini/gemini-2.5-pro", gemini.base_url + "/v1beta")):
            fake.script(Turn(text=f"{model} ok"))
            agent, ws = provider_agent(root, model, base, {}, session=session)
            try:
                finals.append((await run_turn(agent, "and now?"))[-1])
            finally:
                ws.close()
        to_claude = claude.answered[-1].body["messages"]
        to_gemini = gemini.answered[-1].body["contents"]
    assert vllm.rejections == [] and claude.rejections == [] and gemini.rejections == []
    assert [e.name for e in first if isinstance(e, ev.ToolCallFinished) and not e.is_error] == ["read_file", "git_status"]
    assert check_tool_pairing(vllm.answered[1].body["messages"]) == []
    assert (first[-1].status, first[-1].text) == ("done", "local ok")
    assert [(e.status, e.text) for e in finals] == [("done", "anthropic/claude-sonnet-4-5 ok"),
                                                    ("done", "gemini/gemini-2.5-pro ok")]
    uses = [b["id"] for m in to_claude if m["role"] == "assistant" for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use"]
    answers = [b["tool_use_id"] for m in to_claude if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert len(uses) == 2 and answers == uses
    parts = [p for c in to_gemini for p in c.get("parts", [])]  # (litellm writes the fields in snake_case)
    calls = [p["function_call"]["name"] for p in parts if "function_call" in p]
    results = [p["function_response"]["name"] for p in parts if "function_response" in p]
    assert calls == results == ["read_file", "git_status"]


@pytest.mark.parametrize("text", [
    f"Call it like this:\n```json\n{json.dumps(READ)}\n```",
    f"{json.dumps(READ)}\nThat is the call to make.",
    json.dumps({"name": "delete_everything", "arguments": {}}),  # not a tool the request offered
    '{"name": "read_file", "arguments": {"path": "calc.py"}',  # cut JSON
])
async def test_a_reply_that_shows_json_ends_the_turn_as_before(tmp_path: Path, text: str) -> None:
    root = make_repo(tmp_path / "p")
    with FakeOllama() as fake:
        fake.script(Turn(text=text), Turn(text="should not be asked"))
        agent, ws = provider_agent(root, "ollama_chat/qwen2.5-coder", fake.base_url)
        try:
            events = await run_turn(agent, "how do I read calc.py with a tool?")
        finally:
            ws.close()
    assert len(fake.answered) == 1
    assert not [e for e in events if isinstance(e, ev.ToolCallStarted)]
    assert not [e for e in events if isinstance(e, ev.WarningRaised) and "as the text of its reply" in e.message]
    assert (events[-1].status, events[-1].text) == ("done", text)


async def test_a_model_that_always_writes_its_calls_as_text_is_told_about_once(tmp_path: Path) -> None:
    """A model whose template the server cannot parse does it at every step: one warning, not one a step."""
    root = make_repo(tmp_path / "p")
    git = json.dumps({"name": "git_status", "arguments": {}})
    with FakeOllama() as fake:
        fake.script(Turn(text=FORMS["bare"]), Turn(text=git), Turn(text=ANSWER), Turn(text=FORMS["tags"]),
                    Turn(text="again"))
        agent, ws = provider_agent(root, "ollama_chat/qwen2.5-coder", fake.base_url)
        try:
            events = await run_turn(agent, "why does test_add fail?") + await run_turn(agent, "read it again")
        finally:
            ws.close()
    ran = [e.name for e in events if isinstance(e, ev.ToolCallFinished) and not e.is_error]
    assert ran == ["read_file", "git_status", "read_file"]
    notes = [e.message for e in events if isinstance(e, ev.WarningRaised) and "as the text of its reply" in e.message]
    assert len(notes) == 1 and "Later ones" in notes[0]


@pytest.mark.parametrize("model, dialect", [("anthropic/claude-sonnet-4-5", "anthropic"), ("gemini/gemini-2.5-pro", "gemini")])
async def test_a_hosted_api_reply_that_is_only_a_calls_json_is_an_answer(tmp_path: Path, model: str,
                                                                        dialect: str) -> None:
    """A hosted API parses calls itself: a reply that is only a call's JSON was written to be read (the user
    asked to see the call), and running it would do what the user did not ask (a reviewer's finding)."""
    root = make_repo(tmp_path / "p")
    shown = "```json\n" + json.dumps({"name": "write_file", "arguments": {"path": "NOTES.md", "content": "x"}}) + "\n```"
    fake_cls = FakeAnthropic if dialect == "anthropic" else FakeGemini
    with fake_cls() as fake:
        fake.script(Turn(text=shown))
        base = fake.base_url if dialect == "anthropic" else fake.base_url + "/v1beta"
        agent, ws = provider_agent(root, model, base, {})
        try:
            events = await run_turn(agent, "show me the call you would make to write NOTES.md; don't make it")
        finally:
            ws.close()
    assert not [e for e in events if isinstance(e, ev.ToolCallStarted)]
    assert not (root / "NOTES.md").exists()
    assert events[-1].status == "done" and events[-1].text == shown


def test_only_servers_that_may_hand_back_calls_as_text_are_read_so() -> None:
    from agent_tui.agent.llm_types import LLMConfig
    from agent_tui.agent.text_tool_calls import local_server

    local = [("ollama_chat/qwen2.5-coder", None), ("openai/qwen3-coder", "http://127.0.0.1:8000/v1"),
             ("hosted_vllm/qwen3", "http://gpu:8000/v1")]
    hosted = [("openai/gpt-4o", None), ("openai/gpt-4o", "https://api.openai.com/v1"), ("anthropic/claude-sonnet-4-5", None),
              ("gemini/gemini-2.5-pro", None), ("openai/deepseek-chat", "https://api.deepseek.com"),
              ("azure/gpt-4o", "https://x.openai.azure.com")]
    assert all(local_server(LLMConfig(model=m, api_base=b)) for m, b in local)
    assert not any(local_server(LLMConfig(model=m, api_base=b)) for m, b in hosted)
