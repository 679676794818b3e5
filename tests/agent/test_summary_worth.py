"""A summarising model call is made only for a batch large enough to pay for it.

In an 8K window an event comes every few steps and evicts a few hundred tokens; each made a summarising
call that resent the whole request for a ~300-token summary of it (on the traces at 8K, the summarising
calls were 30 % of all input tokens).  A batch under four times what the call is asked to write keeps
its extractive summary; a larger one, or an event the user asked for, still gets the model's."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent import events as ev
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


def _summarising(server: FakeOpenAI) -> list[object]:
    return [r for r in server.chat_requests if str(r.messages[-1].get("content", "")).startswith("You compress")]


async def _session(tmp_path: Path, words: int, turns: int) -> tuple[list[ev.Compacted], int, object]:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("Agent decisions:\n- keep going")
        agent, ws = make_agent(root, server.base_url, window=8_192)
        try:
            done: list[ev.Compacted] = []
            for n in range(turns):
                done += [e for e in await run_turn(agent, f"USER-FACT-{n}: note {n}. " + "x " * words)
                         if isinstance(e, ev.Compacted)]
            comp = agent.engine.compactor
        finally:
            ws.close()
        return done, len(_summarising(server)), comp


async def test_events_that_evict_a_little_make_no_summarising_call(tmp_path: Path) -> None:
    done, calls, comp = await _session(tmp_path, 40, 30)
    assert len(done) == len(comp.results)
    small = [(e, r) for e, r in zip(done, comp.results, strict=True) if not r.worth_a_call]
    assert small, "the session must reach an event with a small batch for this test to mean anything"
    assert all(e.summariser == "extractive" and e.error is None for e, _ in small), small
    assert calls == len([e for e in done if e.summariser == "llm"])


async def test_events_that_evict_a_lot_still_get_the_models_summary(tmp_path: Path) -> None:
    done, calls, comp = await _session(tmp_path, 1_300, 6)
    called = [r for r in comp.results if r.worth_a_call]
    assert called and calls == len([e for e in done if e.summariser == "llm"]) >= 1
    assert all(e.summariser == "llm" for e, r in zip(done, comp.results, strict=True) if r.worth_a_call)


async def test_an_event_the_user_asks_for_gets_the_models_summary_however_small(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("noted")
        agent, ws = make_agent(root, server.base_url, window=8_192)
        try:
            for n in range(3):
                await run_turn(agent, f"USER-FACT-{n}: keep the logs quiet. " + "x " * 10)
            server.default_reply = lambda req: Reply.text("Agent decisions:\n- keep the logs quiet")
            (done,) = [e for e in await agent.compact(force=True) if isinstance(e, ev.Compacted)]
            small = not agent.engine.compactor.results[-1].worth_a_call
        finally:
            ws.close()
    assert small and done.summariser == "llm" and len(_summarising(server)) == 1
