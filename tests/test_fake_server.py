"""The fake OpenAI server itself, driven with plain httpx (no litellm)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest

from agent_tui.core.tokens import counter_for
from tests.support.fake_openai import FakeOpenAI, Reply, check_tool_pairing

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "read a.py please"}]


def post(server: FakeOpenAI, body: dict[str, Any], **kw: Any) -> httpx.Response:
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=kw.pop("timeout", 5), **kw)


def sse(server: FakeOpenAI, body: dict[str, Any]) -> list[Any]:
    """The parsed ``data:`` payloads of a streamed reply (``"[DONE]"`` kept as a string)."""
    out: list[Any] = []
    with httpx.stream("POST", f"{server.base_url}/chat/completions", json={**body, "stream": True}, timeout=5) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("data: "):
                data = line[len("data: ") :]
                out.append(data if data == "[DONE]" else json.loads(data))
    return out


def assemble(chunks: list[Any]) -> tuple[str, dict[int, dict[str, str]], str | None]:
    text, calls, finish = "", {}, None
    for c in chunks:
        if c == "[DONE]":
            continue
        for ch in c["choices"]:
            d = ch["delta"]
            text += d.get("content") or ""
            for tc in d.get("tool_calls") or []:
                slot = calls.setdefault(tc["index"], {"id": "", "name": "", "arguments": ""})
                slot["id"] = tc.get("id") or slot["id"]
                slot["name"] += tc.get("function", {}).get("name") or ""
                slot["arguments"] += tc.get("function", {}).get("arguments") or ""
            finish = ch.get("finish_reason") or finish
    return text, calls, finish


def test_plain_json_text_with_usage(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.text("hello there"))
    r = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES})
    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "hello there"}
    assert body["choices"][0]["finish_reason"] == "stop"
    counter = counter_for("gpt-4o")
    assert body["usage"]["prompt_tokens"] == counter.count_messages(MESSAGES)
    assert body["usage"]["completion_tokens"] == counter.count("hello there")
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]


def test_plain_json_parallel_tool_calls(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.tool_calls([("read_file", {"path": "a.py"}), ("grep", {"q": "x"})]))
    body = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}).json()
    msg = body["choices"][0]["message"]
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert [tc["function"]["name"] for tc in msg["tool_calls"]] == ["read_file", "grep"]
    assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {"path": "a.py"}
    assert len({tc["id"] for tc in msg["tool_calls"]}) == 2


def test_stream_text_chunks_usage_and_done(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.text("a fairly long streamed answer", chunk_size=5))
    chunks = sse(fake_llm, {"model": "gpt-4o", "messages": MESSAGES, "stream_options": {"include_usage": True}})
    assert chunks[-1] == "[DONE]"
    usage_chunk = chunks[-2]
    assert usage_chunk["choices"] == [] and usage_chunk["usage"]["prompt_tokens"] > 0
    body_chunks = chunks[:-2]
    assert all(c["object"] == "chat.completion.chunk" and c["usage"] is None for c in body_chunks)
    assert body_chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert len(body_chunks) >= 6  # split into several content chunks
    text, calls, finish = assemble(chunks)
    assert (text, calls, finish) == ("a fairly long streamed answer", {}, "stop")


def test_stream_usage_only_when_asked(fake_llm: FakeOpenAI) -> None:
    chunks = sse(fake_llm, {"model": "gpt-4o", "messages": MESSAGES})
    assert all("usage" not in c for c in chunks if c != "[DONE]")
    fake_llm.always_stream_usage = True
    chunks = sse(fake_llm, {"model": "gpt-4o", "messages": MESSAGES})
    assert chunks[-2]["usage"]["completion_tokens"] >= 1


@pytest.mark.parametrize("interleave", [False, True])
def test_stream_parallel_tool_calls_split_arguments(fake_llm: FakeOpenAI, interleave: bool) -> None:
    args0 = {"path": "src/some/long/path.py", "start": 10}
    args1 = {"pattern": "def main", "glob": "*.py"}
    fake_llm.script(Reply.tool_calls([("read_file", args0), ("search", args1)], interleave=interleave))
    chunks = sse(fake_llm, {"model": "gpt-4o", "messages": MESSAGES})
    arg_chunks = [
        tc for c in chunks if c != "[DONE]" for ch in c["choices"] for tc in ch["delta"].get("tool_calls") or []
    ]
    assert sum(1 for tc in arg_chunks if tc["index"] == 0) > 3  # arguments really are split
    first_two = [tc["index"] for tc in arg_chunks[:2]]
    assert first_two == ([0, 1] if interleave else [0, 0])
    _, calls, finish = assemble(chunks)
    assert finish == "tool_calls"
    assert [calls[0]["name"], calls[1]["name"]] == ["read_file", "search"]
    assert json.loads(calls[0]["arguments"]) == args0 and json.loads(calls[1]["arguments"]) == args1
    assert calls[0]["id"] != calls[1]["id"]


def test_malformed_arguments_are_sent_verbatim(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.malformed_tool_call("read_file", '{"path": "a.py", '))
    _, calls, _ = assemble(sse(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}))
    assert calls[0]["arguments"] == '{"path": "a.py", '


def test_callable_reply_sees_the_request_and_default_reply(fake_llm: FakeOpenAI) -> None:
    def reply(req: dict[str, Any]) -> Reply:
        wanted = req["messages"][-1]["content"].split()[1]
        return Reply.tool_call("read_file", {"path": wanted})

    fake_llm.script(reply)
    body = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}).json()
    args = body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(args) == {"path": "a.py"}
    # queue empty: the default reply, not a crash
    body = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}).json()
    assert body["choices"][0]["message"]["content"] == "done"
    assert fake_llm.pending == 0


def test_requests_are_recorded_with_headers(fake_llm: FakeOpenAI) -> None:
    post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES, "tools": [{"type": "function"}]},
         headers={"Authorization": "Bearer sk-x"})
    req = fake_llm.last_request
    assert req.path == "/v1/chat/completions" and req.method == "POST"
    assert req.messages == MESSAGES and req.tools == [{"type": "function"}]
    assert req.header("authorization") == "Bearer sk-x"
    assert not req.stream


def test_script_error_is_reported_not_fatal(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(lambda req: 1 / 0)
    r = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES})
    assert r.status_code == 500 and "ZeroDivisionError" in r.text
    assert fake_llm.errors and post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}).status_code == 200


def test_fault_replies(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.rate_limit(retry_after=3), Reply.server_error(), Reply.context_length_exceeded(),
                    Reply.error(401, "bad key", type="invalid_request_error", code="invalid_api_key"))
    r = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES})
    assert r.status_code == 429 and r.headers["retry-after"] == "3"
    assert r.json()["error"]["code"] == "rate_limit_exceeded"
    r = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES, "stream": True})
    assert r.status_code == 500
    r = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES})
    err = r.json()["error"]
    assert r.status_code == 400 and err["code"] == "context_length_exceeded"
    assert err["type"] == "invalid_request_error" and err["message"].startswith("This model's maximum context length is")
    assert post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}).status_code == 401


def test_hang_then_reply_and_client_timeout(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.hang(0.3, then=Reply.text("late")), Reply.hang(5))
    t = time.monotonic()
    body = post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}).json()
    assert body["choices"][0]["message"]["content"] == "late" and time.monotonic() - t >= 0.3
    with pytest.raises(httpx.ReadTimeout):
        post(fake_llm, {"model": "gpt-4o", "messages": MESSAGES}, timeout=0.3)
    assert fake_llm.count("hangs") == 2


def test_cut_stream_is_an_incomplete_body(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.cut("0123456789abcdef", after_chunks=3))
    got = []
    with pytest.raises(httpx.RemoteProtocolError):
        with httpx.stream("POST", f"{fake_llm.base_url}/chat/completions",
                          json={"model": "gpt-4o", "messages": MESSAGES, "stream": True}, timeout=5) as r:
            for line in r.iter_lines():
                got.append(line)
    assert any("0123" in line for line in got) and not any("[DONE]" in line for line in got)
    assert fake_llm.count("cuts") == 1


def test_client_disconnect_is_counted(fake_llm: FakeOpenAI) -> None:
    fake_llm.script(Reply.text("x" * 400, chunk_size=4, chunk_delay=0.02))
    with httpx.stream("POST", f"{fake_llm.base_url}/chat/completions",
                      json={"model": "gpt-4o", "messages": MESSAGES, "stream": True}, timeout=5) as r:
        for n, _ in enumerate(r.iter_lines()):
            if n > 4:
                break
    assert fake_llm.wait_for(lambda: fake_llm.disconnects == 1, 5)
    assert fake_llm.count("completed_streams") == 0


def test_stop_releases_hangs_and_idle_connections() -> None:
    server = FakeOpenAI().start()
    client = httpx.Client(timeout=10)
    client.post(f"{server.base_url}/chat/completions", json={"model": "m", "messages": MESSAGES})  # keep-alive conn
    idle = httpx.Client(timeout=10)
    idle.post(f"{server.base_url}/chat/completions", json={"model": "m", "messages": MESSAGES})  # stays idle
    server.script(Reply.hang())  # until shutdown
    errors: list[BaseException] = []

    def hang() -> None:
        try:
            client.post(f"{server.base_url}/chat/completions", json={"model": "m", "messages": MESSAGES})
        except BaseException as e:  # the server closes the connection
            errors.append(e)

    th = threading.Thread(target=hang)
    th.start()
    assert server.wait_for(lambda: server.count("hangs") == 1, 5)
    t = time.monotonic()
    server.stop()
    th.join(5)
    assert time.monotonic() - t < 3 and not th.is_alive()
    assert errors and isinstance(errors[0], httpx.HTTPError)
    client.close()
    idle.close()


def test_unknown_route_and_models(fake_llm: FakeOpenAI) -> None:
    assert httpx.get(f"{fake_llm.base_url}/models").json()["data"][0]["id"] == "gpt-4o"
    assert httpx.post(f"{fake_llm.base_url}/embeddings", json={}).status_code == 404


# --------------------------------------------------------------------------- check_tool_pairing


def call(cid: str) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def test_pairing_ok() -> None:
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]},
        {"role": "tool", "tool_call_id": "b", "content": "1"},
        {"role": "tool", "tool_call_id": "a", "content": "2"},
        {"role": "assistant", "content": "ok"},
    ]
    assert check_tool_pairing(msgs) == []


def test_pairing_problems() -> None:
    missing = [{"role": "assistant", "tool_calls": [call("a"), call("b")]},
               {"role": "tool", "tool_call_id": "a", "content": ""}, {"role": "user", "content": "x"}]
    assert len(check_tool_pairing(missing)) == 1 and "'b'" in check_tool_pairing(missing)[0]
    orphan = [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "z", "content": ""}]
    assert "without a preceding tool call" in check_tool_pairing(orphan)[0]
    twice = [{"role": "assistant", "tool_calls": [call("a")]},
             {"role": "tool", "tool_call_id": "a", "content": ""}, {"role": "tool", "tool_call_id": "a", "content": ""}]
    assert "more than once" in check_tool_pairing(twice)[0]
    wrong = [{"role": "assistant", "tool_calls": [call("a")]}, {"role": "tool", "tool_call_id": "q", "content": ""}]
    assert len(check_tool_pairing(wrong)) == 2  # q answers nothing, a unanswered
    late = [{"role": "assistant", "tool_calls": [call("a")]}, {"role": "user", "content": "x"},
            {"role": "tool", "tool_call_id": "a", "content": ""}]
    assert len(check_tool_pairing(late)) == 2
    trailing = [{"role": "assistant", "tool_calls": [call("a")]}]
    assert len(check_tool_pairing(trailing)) == 1


def test_cached_tokens_count_the_prefix_shared_with_the_previous_request() -> None:
    """Like a provider prompt cache: leading messages identical to the previous request are cached."""
    with FakeOpenAI() as server:
        url = server.base_url + "/chat/completions"
        sys_msg = {"role": "system", "content": "You are careful. " * 50}
        first = [sys_msg, {"role": "user", "content": "hello"}]
        second = [*first, {"role": "assistant", "content": "hi"}, {"role": "user", "content": "more"}]
        changed = [{"role": "system", "content": "Something else"}, *second[1:]]
        usages = []
        for msgs in (first, second, changed):
            r = httpx.post(url, json={"model": "gpt-4o", "messages": msgs}, timeout=5)
            usages.append(r.json()["usage"])
        assert usages[0]["prompt_tokens_details"]["cached_tokens"] == 0
        cached = usages[1]["prompt_tokens_details"]["cached_tokens"]
        assert 0 < cached < usages[1]["prompt_tokens"]
        assert cached >= usages[0]["prompt_tokens"] - 5  # the whole first request (bar request overhead)
        assert usages[2]["prompt_tokens_details"]["cached_tokens"] == 0  # the first message changed
        assert server.cached_tokens == [u["prompt_tokens_details"]["cached_tokens"] for u in usages]
