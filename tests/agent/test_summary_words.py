"""The summarising call asks for a summary that fits the summary's share of the window: 400 words in a
large window, fewer in a small one.  An 8K window's share is about 300 tokens; asked for 400 words, the
model wrote a segment larger than the share and every event consolidated the summary again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


@pytest.mark.parametrize("window", [8_192, 64_000])
async def test_the_summarising_call_asks_for_what_the_summary_share_holds(tmp_path: Path, window: int) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("noted")
        agent, ws = make_agent(root, server.base_url, window=window)
        try:
            cap = agent.engine.compactor.summary_cap()
            for n in range(1, 4):
                await run_turn(agent, f"USER-FACT-r{n}: keep the logs quiet, rule {n} " + "x " * 150)
            server.default_reply = lambda req: Reply.text("Agent decisions:\n- keep the logs quiet")
            done = [e for e in await agent.compact(force=True) if isinstance(e, ev.Compacted)]
            assert done and done[0].summariser == "llm"
            ask = str(server.last_request.messages[-1]["content"])
            asked = re.search(r"at most (\d+) words", ask)
            assert asked is not None, ask[-600:]
            words = int(asked.group(1))
            if window < 16_000:
                assert 50 <= words <= cap * 0.75, (words, cap)  # about 0.7 words a token: the answer fits the share
            else:
                assert words == 400 < cap * 0.75, (words, cap)  # a large share: the usual length
        finally:
            ws.close()


async def test_a_model_summary_larger_than_the_share_gives_way_to_the_extractive_one(tmp_path: Path) -> None:
    """Small local models ignore "at most N words": a 1,500-token summary in an 8K window (a ~300-token share)
    was kept whole, so every later event consolidated it again and freed nothing."""
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("noted")
        agent, ws = make_agent(root, server.base_url, window=8_192)
        try:
            comp = agent.engine.compactor
            for n in range(1, 4):
                await run_turn(agent, f"USER-FACT-r{n}: keep the logs quiet, rule {n}. " + "x " * 10)
            long = "Agent decisions:\n" + "\n".join(f"- decided to look at module {k} and its tests" for k in range(150))
            server.default_reply = lambda req: Reply.text(long)
            (done,) = [e for e in await agent.compact(force=True) if isinstance(e, ev.Compacted)]
            kept = agent.engine.items[done.summary_id]
        finally:
            ws.close()
    assert done.summariser == "extractive" and "larger than the summary's share" in (done.error or ""), done
    assert "module 149" not in kept.content
    assert sum(it.tokens for it in comp.segments if it.in_window) <= comp.summary_cap()


async def test_the_summarising_call_and_its_answer_fit_the_window(tmp_path: Path) -> None:
    """A small window lets a request stand well past compact_at; the summarising call resends it with the
    instruction, and with the whole output reserve as its limit it went past the window (vLLM and llama.cpp
    refuse such a call)."""
    root = make_repo(tmp_path / "repo")
    window = 8_192
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("noted")
        agent, ws = make_agent(root, server.base_url, window=window)
        try:
            for n in range(1, 9):
                await run_turn(agent, f"USER-FACT-r{n}: keep the logs quiet, rule {n} " + "y " * 500)
            server.default_reply = lambda req: Reply.text("Agent decisions:\n- keep the logs quiet")
            await agent.compact(force=True)
            summarising = [r for r in server.chat_requests if "You compress" in str(r.messages[-1].get("content"))]
            assert summarising, "no summarising call was made"
            counter = agent.engine.counter
            for r in summarising:
                prompt = counter.count_messages(r.messages) + counter.count(json.dumps(r.body.get("tools") or []))
                limit = r.body.get("max_tokens") or r.body.get("max_completion_tokens") or 0
                assert limit and prompt + limit <= window, (prompt, limit)
        finally:
            ws.close()


async def test_each_budget_event_says_why_the_request_was_or_was_not_compacted(tmp_path: Path) -> None:
    """Past compact_at a small window may now wait for an event that frees enough; the gauge sat at 84-88 % with
    no compaction and no word why. The budget event carries the cost model's answer."""
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("noted")
        agent, ws = make_agent(root, server.base_url, window=8_192)
        try:
            budgets: list[ev.BudgetUpdated] = []
            for n in range(1, 9):
                events = await run_turn(agent, f"USER-FACT-r{n}: keep the logs quiet, rule {n} " + "y " * 500)
                budgets += [e for e in events if isinstance(e, ev.BudgetUpdated)]
        finally:
            ws.close()
    reasons = [b.compaction for b in budgets]
    assert any(reasons), reasons
    assert set(reasons) <= {"", "not worth it yet", "near the window: an event would free too little yet",
                            "window limit", "cost model"}, set(reasons)
    assert budgets[-1].to_json()["compaction"] == reasons[-1]  # (in `run --json` too)
