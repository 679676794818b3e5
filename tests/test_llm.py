"""The LLM access layer, driven through real litellm over HTTP to the fake server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.llm import (
    Completion,
    ContextOverflow,
    LLMClient,
    LLMConfig,
    LLMError,
    NoModelConfigured,
    Retrying,
    StreamInterrupted,
    TextDelta,
    ToolCallDelta,
    backoff_delay,
    complete,
    context_window,
    preload_litellm,
    stream_completion,
)
from agent_tui.agent.llm_errors import redact
from agent_tui.core.tokens import counter_for
from tests.support.fake_openai import FakeOpenAI, Reply, check_tool_pairing
from tests.support.fixtures import PLANTED_KEY

MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Read a.py"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    }
]


async def collect(config: LLMConfig, messages: Any = MESSAGES, tools: Any = None) -> list[Any]:
    return [e async for e in stream_completion(config, messages, tools)]


def final(events: list[Any]) -> Completion:
    assert isinstance(events[-1], Completion), events
    assert sum(isinstance(e, Completion) for e in events) == 1
    return events[-1]


# --------------------------------------------------------------------------- happy paths


async def test_streaming_text(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.text("Hello from the fake model, streamed in pieces.", chunk_size=6))
    events = await collect(fake_llm_config)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    done = final(events)
    assert len(deltas) > 3 and "".join(deltas) == done.text == "Hello from the fake model, streamed in pieces."
    assert done.finish_reason == "stop" and done.tool_calls == [] and done.attempts == 1
    req = fake_llm.last_request
    assert req.stream and req.body["stream_options"] == {"include_usage": True}
    assert req.body["model"] == "gpt-4o" and "temperature" not in req.body
    assert req.messages == MESSAGES and "tools" not in req.body
    assert req.header("authorization") == f"Bearer {PLANTED_KEY}"


async def test_single_tool_call(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.tool_call("read_file", {"path": "src/a.py"}))
    events = await collect(fake_llm_config, tools=TOOLS)
    done = final(events)
    assert done.finish_reason == "tool_calls" and done.text == ""
    [call] = done.tool_calls
    assert call.name == "read_file" and call.args == {"path": "src/a.py"} and call.arguments_error is None
    assert call.id.startswith("call_")
    assert any(isinstance(e, ToolCallDelta) and e.name == "read_file" for e in events)
    assert fake_llm.last_request.tools == TOOLS


@pytest.mark.parametrize("interleave", [False, True])
async def test_parallel_tool_calls_split_across_chunks(
    fake_llm: FakeOpenAI, fake_llm_config: LLMConfig, interleave: bool
) -> None:
    a = {"path": "src/package/module_with_long_name.py", "start": 1, "end": 80}
    b = {"path": "tests/test_module_with_long_name.py"}
    fake_llm.script(Reply.tool_calls([("read_file", a), ("read_file", b)], text="Reading both.",
                                     interleave=interleave, args_chunk_size=5))
    events = await collect(fake_llm_config, tools=TOOLS)
    done = final(events)
    assert done.text == "Reading both."
    assert [c.args for c in done.tool_calls] == [a, b]
    assert len({c.id for c in done.tool_calls}) == 2
    assert sum(isinstance(e, ToolCallDelta) and e.index == 1 for e in events) > 3
    # the assistant message + tool results form a well-paired history for the next request
    history = MESSAGES + [done.to_message()] + [
        {"role": "tool", "tool_call_id": c.id, "content": "..."} for c in done.tool_calls
    ]
    assert check_tool_pairing(history) == []
    await collect(fake_llm_config, history, TOOLS)
    assert check_tool_pairing(fake_llm.last_request.messages) == []


async def test_usage_and_cost(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.text("twelve tokens or so of reply text here, roughly."))
    done = final(await collect(fake_llm_config))
    expected_prompt = counter_for("gpt-4o").count_messages(MESSAGES)
    assert done.usage.prompt_tokens == expected_prompt
    assert done.usage.completion_tokens == counter_for("gpt-4o").count(
        "twelve tokens or so of reply text here, roughly.")
    assert not done.usage.estimated
    litellm = preload_litellm()
    price = litellm.model_cost["gpt-4o"]
    expected_cost = (done.usage.prompt_tokens * price["input_cost_per_token"]
                     + done.usage.completion_tokens * price["output_cost_per_token"])
    assert done.usage.cost_usd == pytest.approx(expected_cost)
    assert done.usage.cost_usd > 0


async def test_unknown_model_costs_zero(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    done = final(await collect(replace(fake_llm_config, model="openai/my-local-finetune")))
    assert done.text == "done" and done.usage.cost_usd == 0.0 and done.usage.prompt_tokens > 0


async def test_missing_usage_is_still_counted(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    # litellm estimates usage itself when the provider sends none (include_usage is set)
    fake_llm.script(Reply.text("no usage reported", send_usage=False))
    done = final(await collect(fake_llm_config))
    assert done.text == "no usage reported"
    assert done.usage.prompt_tokens > 0 and done.usage.completion_tokens > 0 and done.usage.cost_usd > 0


def test_assembler_without_index_and_without_usage() -> None:
    from types import SimpleNamespace as NS

    from agent_tui.agent.llm_assemble import ReplyAssembler, reply_usage

    def chunk(**delta: Any) -> Any:
        return NS(model="m", usage=None, choices=[NS(index=0, finish_reason=None, delta=NS(**delta))])

    def tc(id: str | None, name: str | None, args: str) -> Any:
        return NS(index=None, id=id, function=NS(name=name, arguments=args))

    asm = ReplyAssembler()
    for c in [chunk(content="Hi"), chunk(tool_calls=[tc("c1", "read_file", '{"pa')]), chunk(tool_calls=[tc(None, None, 'th": 1}')]),
              chunk(tool_calls=[tc("c2", "grep", "")]), chunk(tool_calls=[tc(None, None, '{"q": "x"}')])]:
        asm.feed(c)
    calls = asm.tool_calls()
    assert [(c.id, c.name, c.args) for c in calls] == [("c1", "read_file", {"path": 1}), ("c2", "grep", {"q": "x"})]
    usage = reply_usage(preload_litellm(), LLMConfig(model="openai/gpt-4o"), asm, MESSAGES, TOOLS, calls)
    assert usage.estimated and usage.prompt_tokens > counter_for("openai/gpt-4o").count_messages(MESSAGES)
    assert usage.completion_tokens > 0 and usage.cost_usd > 0


async def test_client_accumulates_usage_and_complete(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    client = LLMClient(fake_llm_config)
    fake_llm.script(Reply.text("one"), Reply.text("two"))
    events = [e async for e in client.stream(MESSAGES)]
    done = await client.complete(MESSAGES)
    assert final(events).text == "one" and done.text == "two"
    assert client.usage.calls == 2
    assert client.usage.prompt_tokens == 2 * counter_for("gpt-4o").count_messages(MESSAGES)
    assert client.usage.cost_usd > 0 and client.usage.last == done.usage
    assert (await complete(fake_llm_config, MESSAGES)).text == "done"


def test_plain_json_mode_of_server_with_litellm(fake_llm: FakeOpenAI) -> None:
    litellm = preload_litellm()
    fake_llm.script(Reply.tool_call("read_file", {"path": "a.py"}))
    resp = litellm.completion(model="openai/gpt-4o", api_base=fake_llm.base_url, api_key=PLANTED_KEY,
                              messages=MESSAGES, max_retries=0)
    tc = resp.choices[0].message.tool_calls[0]
    assert tc.function.name == "read_file" and json.loads(tc.function.arguments) == {"path": "a.py"}
    assert resp.usage.prompt_tokens == counter_for("gpt-4o").count_messages(MESSAGES)
    assert fake_llm.last_request.stream is False


# --------------------------------------------------------------------------- retries


async def test_429_retry_after_is_honoured(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.rate_limit(retry_after=1), Reply.text("after the wait"))
    t = time.monotonic()
    events = await collect(fake_llm_config)
    elapsed = time.monotonic() - t
    [retry] = [e for e in events if isinstance(e, Retrying)]
    assert retry.attempt == 1 and retry.delay >= 1.0 and "429" in retry.reason
    assert final(events).text == "after the wait" and final(events).attempts == 2
    chat = fake_llm.chat_requests
    assert len(chat) == 2 and chat[1].time - chat[0].time >= 1.0 and elapsed >= 1.0


async def test_500_then_success(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.server_error(), Reply.server_error(502, "bad gateway"), Reply.text("ok now"))
    events = await collect(fake_llm_config)
    retries = [e for e in events if isinstance(e, Retrying)]
    assert [r.attempt for r in retries] == [1, 2]
    assert "HTTP 500" in retries[0].reason and "502" in retries[1].reason
    assert all(r.delay <= fake_llm_config.backoff_cap for r in retries)
    assert final(events).text == "ok now" and len(fake_llm.chat_requests) == 3


async def test_hang_times_out_then_retries(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.hang(), Reply.text("second try"))
    config = replace(fake_llm_config, timeout=1.0)
    t = time.monotonic()
    events = await collect(config)
    assert 1.0 <= time.monotonic() - t < 6
    [retry] = [e for e in events if isinstance(e, Retrying)]
    assert "timed out" in retry.reason
    assert final(events).text == "second try"


async def test_stall_before_any_content_is_retried(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    # the role chunk arrives, then nothing: the caller saw no content, so a retry is safe
    fake_llm.script(Reply(content="never shown", stall_after=1, hang_seconds=10), Reply.text("fresh"))
    events = await collect(replace(fake_llm_config, timeout=1.0))
    assert [type(e).__name__ for e in events][0] == "Retrying"
    assert final(events).text == "fresh"
    assert not any(isinstance(e, TextDelta) and "never" in e.text for e in events)


async def test_retries_exhausted(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    config = replace(fake_llm_config, max_retries=2)
    fake_llm.script(*[Reply.server_error(message="upstream exploded")] * 3)
    seen: list[Any] = []
    with pytest.raises(LLMError) as info:
        async for e in stream_completion(config, MESSAGES):
            seen.append(e)
    msg = str(info.value)
    assert msg.startswith("Model call to openai/gpt-4o failed after 3 attempts")
    assert "HTTP 500" in msg and "upstream exploded" in msg and "\n" not in msg
    assert info.value.kind == "server" and info.value.attempts == 3 and info.value.__cause__ is None
    assert [e.attempt for e in seen] == [1, 2] and len(fake_llm.chat_requests) == 3


async def test_retry_after_too_long_fails_fast(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.rate_limit(retry_after=600))
    with pytest.raises(LLMError) as info:
        await collect(replace(fake_llm_config, max_retry_after=5))
    assert info.value.kind == "rate_limit" and "asks to wait 10 min" in str(info.value)
    assert len(fake_llm.chat_requests) == 1


async def test_connection_refused_is_retried_then_reported(fake_llm_config: LLMConfig) -> None:
    dead = FakeOpenAI().start()
    url = dead.base_url
    dead.stop()
    config = replace(fake_llm_config, api_base=url, max_retries=1)
    events: list[Any] = []
    with pytest.raises(LLMError) as info:
        async for e in stream_completion(config, MESSAGES):
            events.append(e)
    assert info.value.kind == "connection" and "failed after 2 attempts" in str(info.value)
    assert len(events) == 1 and isinstance(events[0], Retrying)


# --------------------------------------------------------------------------- errors


async def test_malformed_arguments_do_not_crash(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.tool_calls([("read_file", '{"path": "a.py", '), ("read_file", {"path": "b.py"}),
                                      ("read_file", "[1, 2]")]))
    done = final(await collect(fake_llm_config, tools=TOOLS))
    bad, good, not_object = done.tool_calls
    assert bad.arguments == '{"path": "a.py", ' and "not valid JSON" in bad.arguments_error
    assert bad.args == {} and bad.to_message_dict()["function"]["arguments"] == "{}"
    assert bad.to_message_dict(raw=True)["function"]["arguments"] == '{"path": "a.py", '
    assert good.arguments_error is None and good.args == {"path": "b.py"}
    assert "JSON object" in not_object.arguments_error


async def test_context_length_exceeded(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.context_length_exceeded(max_tokens=8192, requested=9100))
    with pytest.raises(ContextOverflow) as info:
        await collect(fake_llm_config)
    assert "maximum context length is 8192" in str(info.value)
    assert isinstance(info.value, LLMError) and len(fake_llm.chat_requests) == 1  # not retried


async def test_cut_mid_stream_with_no_retry_left_raises_with_partial_text(fake_llm: FakeOpenAI,
                                                                          fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.cut("The answer is forty-two, because", after_chunks=4, chunk_size=5))
    seen = ""
    with pytest.raises(StreamInterrupted) as info:
        async for e in stream_completion(replace(fake_llm_config, max_retries=0), MESSAGES):
            if isinstance(e, TextDelta):
                seen += e.text
    assert seen and info.value.partial_text == seen == "The answer is forty-two, because"[: len(seen)]
    assert "broke off" in str(info.value) and len(fake_llm.chat_requests) == 1


async def test_a_reply_cut_mid_stream_is_asked_again_and_says_what_to_drop(fake_llm: FakeOpenAI,
                                                                         fake_llm_config: LLMConfig) -> None:
    """A dropped connection mid-answer ended the turn with half an answer and no retry."""
    fake_llm.script(Reply.cut("The answer is forty-two, because", after_chunks=4, chunk_size=5),
                    Reply.text("The answer is 42."))
    seen = ""
    events = []
    async for e in stream_completion(fake_llm_config, MESSAGES):
        events.append(e)
        if isinstance(e, TextDelta):
            seen += e.text
    (retry,) = [e for e in events if isinstance(e, Retrying)]
    first = seen[: retry.discarded]
    assert retry.discarded == len(first) > 0 and "The answer is forty-two, because".startswith(first)
    assert "broke off" in retry.reason and "asking again" in retry.reason
    assert events[-1].text == "The answer is 42." and len(fake_llm.chat_requests) == 2


async def test_planted_key_never_in_errors_or_logs(
    fake_llm: FakeOpenAI, fake_llm_config: LLMConfig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = f"Incorrect API key provided: {PLANTED_KEY}. Header was Authorization: Bearer {PLANTED_KEY}"
    fake_llm.script(Reply.server_error(message=echo), Reply.error(401, echo, type="invalid_request_error",
                                                                  code="invalid_api_key"))
    events: list[Any] = []
    with pytest.raises(LLMError) as info:
        async for e in stream_completion(fake_llm_config, MESSAGES):
            events.append(e)
    err = info.value
    texts = [str(err), repr(err), err.message, repr(fake_llm_config), caplog.text] + [
        e.reason for e in events if isinstance(e, Retrying)]
    assert events and err.kind == "auth"
    for text in texts:
        assert PLANTED_KEY not in text and "PLANTED" not in text, text
    assert "OPENAI_API_KEY" in str(err) and "401" in str(err)
    assert err.__cause__ is None and err.__suppress_context__


async def test_missing_key_names_the_env_var(
    fake_llm: FakeOpenAI, fake_llm_config: LLMConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError) as info:
        await collect(replace(fake_llm_config, api_key=None))
    assert info.value.kind == "auth" and "OPENAI_API_KEY" in str(info.value)


async def test_model_not_found(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.error(404, "The model `gpt-9` does not exist", type="invalid_request_error",
                                code="model_not_found"))
    with pytest.raises(LLMError) as info:
        await collect(replace(fake_llm_config, model="openai/gpt-9"))
    assert info.value.kind == "not_found" and "'openai/gpt-9' not found" in str(info.value)
    assert len(fake_llm.chat_requests) == 1


async def test_no_model_configured() -> None:
    with pytest.raises(NoModelConfigured) as info:
        await collect(LLMConfig(model=""))
    assert "--model" in str(info.value) and "--demo" in str(info.value)


async def test_unknown_provider(fake_llm_config: LLMConfig) -> None:
    with pytest.raises(LLMError) as info:
        await collect(replace(fake_llm_config, model="definitely-not-a-model", api_base=None))
    assert info.value.kind == "unknown_provider" and "openai/gpt-4o" in str(info.value)


# --------------------------------------------------------------------------- cancellation


async def test_cancel_mid_stream_closes_the_connection(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.text("word " * 400, chunk_size=5, chunk_delay=0.02))
    got_some = asyncio.Event()

    async def consume() -> None:
        async for e in stream_completion(fake_llm_config, MESSAGES):
            if isinstance(e, TextDelta):
                got_some.set()

    before = asyncio.all_tasks()
    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_some.wait(), 15)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await fake_llm.await_for(lambda: fake_llm.disconnects == 1, 5)
    assert fake_llm.count("completed_streams") == 0
    await asyncio.sleep(0.05)
    assert {t for t in asyncio.all_tasks() if not t.done()} <= before


async def test_closing_the_generator_closes_the_stream(fake_llm: FakeOpenAI, fake_llm_config: LLMConfig) -> None:
    fake_llm.script(Reply.text("word " * 400, chunk_size=5, chunk_delay=0.02))
    async with contextlib.aclosing(stream_completion(fake_llm_config, MESSAGES)) as events:
        async for e in events:
            if isinstance(e, TextDelta):
                break
    assert await fake_llm.await_for(lambda: fake_llm.disconnects == 1, 5)


# --------------------------------------------------------------------------- units


def test_backoff_grows_with_jitter_and_cap() -> None:
    cfg = LLMConfig(model="m", backoff_base=1.0, backoff_cap=5.0)
    for retry, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        delays = [backoff_delay(cfg, retry) for _ in range(50)]
        assert all(ceiling * 0.5 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1
    assert 3.0 <= backoff_delay(cfg, 1, retry_after=3.0) <= 3.25


def test_redact() -> None:
    text = f"key {PLANTED_KEY} and sk-proj-abcdefghijklmnop, Bearer abc.def.ghi123 api_key=hunter22secret"
    out = redact(text, [PLANTED_KEY])
    assert PLANTED_KEY not in out and "sk-proj-abc" not in out and "abc.def" not in out and "hunter22" not in out
    assert redact("nothing secret here") == "nothing secret here"


def test_context_window_from_litellm_metadata() -> None:
    assert context_window("openai/gpt-4o") == 128000
    assert context_window("openai/no-such-model-xyz") is None


def test_importing_llm_does_not_import_litellm() -> None:
    code = "import sys, agent_tui.agent.llm; assert 'litellm' not in sys.modules; print('ok')"
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


def test_a_connection_error_says_no_object_addresses() -> None:
    """aiohttp puts the repr of its SSL context in the message; the user saw ``ssl:<ssl.SSLContext object at
    0x7f…>``."""
    from agent_tui.agent.llm_errors import provider_message

    raw = ("litellm.APIConnectionError: Cannot connect to host api.groq.com:443 "
           "ssl:<ssl.SSLContext object at 0x7f0db5b75f40> [Name or service not known]")
    assert provider_message(RuntimeError(raw)) == "Cannot connect to host api.groq.com:443 [Name or service not known]"



def test_a_missing_or_rejected_key_names_the_variable_litellm_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.agent.llm_errors import _key_env_vars

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert _key_env_vars("anthropic/claude-3-haiku-20240307") == ["ANTHROPIC_API_KEY"]  # missing
    monkeypatch.setenv("GROQ_API_KEY", "gsk-test-not-real")
    assert _key_env_vars("groq/llama3-8b-8192") == ["GROQ_API_KEY"]  # set, refused
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    assert _key_env_vars("gpt-4o") == ["OPENAI_API_KEY"]


def test_a_call_sent_with_empty_arguments_goes_back_in_the_history_as_an_empty_object() -> None:
    """It runs as no arguments; a strict server (vLLM, the strict fake) re-parses "" and refuses the next request."""
    from agent_tui.agent.llm_types import ToolCall

    call = ToolCall(id="c1", name="git_status", arguments="")
    assert call.args == {} and call.to_message_dict()["function"]["arguments"] == "{}"
    assert call.to_message_dict(raw=True)["function"]["arguments"] == ""


async def test_a_request_litellm_cannot_build_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """litellm wraps a Python error it hits while converting a request (here a tuple ``items`` schema, which
    Gemini's conversion does not expect) in an APIConnectionError: it was retried five times with back-off,
    though nothing had been sent and nothing would change."""
    from agent_tui.agent import llm_provider
    from tests.support.fake_gemini import FakeGemini

    monkeypatch.setattr(llm_provider, "fit_dialect", lambda *a, **k: None)  # (what agent-tui now fixes itself)
    tool = {"type": "function", "function": {"name": "put", "description": "Put.", "parameters": {
        "type": "object", "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}}}}
    with FakeGemini() as fake:
        config = LLMConfig(model="gemini/gemini-2.5-flash", api_base=fake.base_url + "/v1beta", api_key="AIza-test",
                           max_retries=4, backoff_base=0.01, backoff_cap=0.05)
        events: list[Any] = []
        with pytest.raises(LLMError) as info:
            async for e in stream_completion(config, MESSAGES, [tool]):
                events.append(e)
        assert fake.requests == []
    assert info.value.kind == "conversion" and "nothing was sent" in str(info.value)
    assert "AttributeError" in str(info.value) and not any(isinstance(e, Retrying) for e in events)
