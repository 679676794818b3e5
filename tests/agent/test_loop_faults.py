"""Fault modes through the real loop: each is retried or ends in a clear error; nothing is lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.agent import events as ev
from tests.agent.helpers import make_agent, make_repo, run_turn
from tests.support.fake_openai import Reply

PLANTED = "sk-test-PLANTED-0123456789abcdef"


async def _turn(tmp_path: Path, fake_llm, *replies: Reply, task: str = "read calc.py"):
    root = make_repo(tmp_path / "proj")
    fake_llm.script(*replies)
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, task)
        stored = ws.store.messages(agent.engine.session_id)
    finally:
        ws.close()
    return events, stored


async def test_rate_limit_is_retried_after_retry_after(tmp_path: Path, fake_llm) -> None:
    events, stored = await _turn(tmp_path, fake_llm, Reply.rate_limit(retry_after=1), Reply.text("hello"))
    retries = [e for e in events if isinstance(e, ev.Retrying)]
    assert retries and retries[0].delay >= 1.0
    assert events[-1].status == "done" and events[-1].text == "hello"
    assert [m["role"] for m in stored] == ["user", "assistant"]


async def test_server_error_then_success(tmp_path: Path, fake_llm) -> None:
    events, _ = await _turn(tmp_path, fake_llm, Reply.server_error(), Reply.text("recovered"))
    assert any(isinstance(e, ev.Retrying) for e in events)
    assert events[-1].text == "recovered"


async def test_hang_times_out_and_retries(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(Reply.hang(seconds=5), Reply.text("after the hang"))
    agent, ws = make_agent(root, fake_llm.base_url)
    agent.llm.timeout = 1.0
    try:
        events = await run_turn(agent, "hello")
    finally:
        ws.close()
    assert any(isinstance(e, ev.Retrying) for e in events)
    assert events[-1].text == "after the hang"


async def test_retries_exhausted_is_a_clear_error_and_the_task_is_stored(tmp_path: Path, fake_llm) -> None:
    events, stored = await _turn(tmp_path, fake_llm, *[Reply.server_error() for _ in range(8)], task="do it")
    errors = [e for e in events if isinstance(e, ev.ErrorEvent)]
    assert errors and errors[-1].fatal
    assert "500" in errors[-1].message or "server" in errors[-1].message.lower()
    assert PLANTED not in errors[-1].message
    assert events[-1].status == "error"
    assert stored[0]["role"] == "user" and stored[0]["content"] == "do it"


async def test_context_length_exceeded_compacts_and_retries_once(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.context_length_exceeded(),
        Reply.text("fits now"),
    )
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "read calc.py")
    finally:
        ws.close()
    assert any(isinstance(e, ev.Retrying) and "context window" in e.reason for e in events)
    assert events[-1].status == "done" and events[-1].text == "fits now"
    said = [type(e).__name__ for e in events if isinstance(e, ev.Retrying | ev.Compacted)]
    assert said and said[0] == "Retrying", f"the retry line comes before the compaction it causes: {said}"


async def test_context_length_exceeded_twice_is_a_clear_error(tmp_path: Path, fake_llm) -> None:
    events, _ = await _turn(tmp_path, fake_llm, Reply.context_length_exceeded(), Reply.context_length_exceeded())
    err = [e for e in events if isinstance(e, ev.ErrorEvent)][-1]
    assert "too large" in err.message
    assert events[-1].status == "error"


async def test_a_stream_that_keeps_breaking_keeps_the_last_partial_text(tmp_path: Path, fake_llm) -> None:
    cuts = [Reply.cut("The answer begins here and then", after_chunks=3) for _ in range(8)]
    events, stored = await _turn(tmp_path, fake_llm, *cuts)
    assert events[-1].status == "error"
    assert sum(1 for e in events if isinstance(e, ev.Retrying) and e.discarded) >= 1
    cut = [m for m in stored if m["role"] == "assistant"]
    assert len(cut) == 1 and "[cut" in cut[-1]["content"] and cut[-1]["content"].startswith("The ")


async def test_a_stream_that_broke_once_is_asked_again_and_only_the_answer_is_kept(tmp_path: Path, fake_llm) -> None:
    """A dropped connection mid-answer ended the turn with half an answer, and "send it again" was the only way on."""
    events, stored = await _turn(tmp_path, fake_llm, Reply.cut("The answer begins here and then", after_chunks=3),
                                 Reply.text("The whole answer."))
    assert events[-1].status == "done" and events[-1].text == "The whole answer."
    (retry,) = [e for e in events if isinstance(e, ev.Retrying)]
    assert retry.discarded > 0 and "broke off" in retry.reason
    assert [m["content"] for m in stored if m["role"] == "assistant"] == ["The whole answer."]


async def test_cancel_mid_stream_keeps_the_partial_answer(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    # (long enough that it cannot finish streaming before the cancel lands, however busy the machine)
    fake_llm.script(Reply.text("word " * 4000, chunk_size=5, chunk_delay=0.01))
    agent, ws = make_agent(root, fake_llm.base_url)
    seen: list[str] = []
    started = asyncio.Event()

    async def consume() -> None:
        async for e in agent.run("write a long answer"):
            if isinstance(e, ev.TextDelta):
                seen.append(e.text)
                if len("".join(seen)) > 40:
                    started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 60)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    try:
        stored = ws.store.messages(agent.engine.session_id)
    finally:
        ws.close()
    last = [m for m in stored if m["role"] == "assistant"][-1]
    assert last["content"].startswith("word word")
    assert "[cut: the turn was stopped before this answer finished" in last["content"]
    assert len(last["content"]) < len("word " * 4000)


async def test_a_wait_longer_than_allowed_says_how_long_and_reads_cleanly(tmp_path: Path, fake_llm) -> None:
    """"…Please try again later.; the provider asks to wait 3600 s…": a stray ".;" and no time to act on."""
    events, _ = await _turn(tmp_path, fake_llm, Reply.rate_limit(retry_after=3600))
    error = next(e for e in events if isinstance(e, ev.ErrorEvent) and e.fatal)
    assert "asks to wait 1.0 h before the next request" in error.message and ".;" not in error.message, error.message
    assert events[-1].status == "error"


def test_headless_shows_a_retry_with_its_attempt_and_delay() -> None:
    import io

    from agent_tui.agent.headless import print_event

    out = io.StringIO()
    print_event(ev.Retrying(2, 20.25, "rate limited (HTTP 429)"), False, out)
    assert out.getvalue() == "[retrying] retry 2 in 20.2 s: rate limited (HTTP 429)\n"
