"""The sliding chat memory: dual caps, batch eviction, what is never evicted, failure keeps rounds."""

from __future__ import annotations

from dataclasses import replace

from agent_tui.core.config import MemoryConfig, Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import Category, ContextItem, State
from agent_tui.core.memory import Group, group_history, plan_eviction
from agent_tui.core.pairing import check_pairing
from agent_tui.core.summary import ExtractiveSummariser
from tests.core.core_helpers import AlwaysFails, CountingSummariser, call, filler, request_text


def engine(window: int = 16_384, summariser: object | None = None, **memory: object) -> ContextEngine:
    s = Settings.default(window=window)
    if memory:
        s = replace(s, memory=replace(MemoryConfig(), **memory))
    return ContextEngine(s, summarisers=[summariser] if summariser is not None else None)


def turn(eng: ContextEngine, n: int, user_words: int = 30, result_words: int = 0, scope: str = "turn") -> None:
    eng.add_user(filler(f"u{n}", user_words))
    if result_words:
        eng.add_assistant(f"I will run the tests for round {n}.", [call(f"c{n}", command="pytest -q")])
        eng.add_tool_result(f"c{n}", "run_command", filler(f"o{n}", result_words) + f"\n{n} passed in 0.5s",
                            scope=scope)
    eng.add_assistant(filler(f"a{n}", 20))


def test_big_rounds_compact_in_one_deep_batch() -> None:
    eng = engine(window=16_384)
    for n in range(1, 40):
        turn(eng, n, user_words=40, result_words=400, scope="session")
        eng.assemble()
        if eng.compactions:
            break
    first = eng.compactions[0]
    assert first.ok and first.reason in ("cost model", "window limit")
    # Deep: well below where it tripped, not one message below it (so events stay rare).
    assert first.tokens_after <= first.tokens_before / 2
    assert eng.decision is not None and eng.decision.excess >= eng.decision.threshold or first.reason == "window limit"


def test_small_rounds_on_a_big_window_never_pay_for_an_event() -> None:
    eng = engine(window=128_000, max_rounds=6)
    for n in range(1, 8):
        turn(eng, n, user_words=5)
        eng.assemble()
    assert eng.compactions == []  # no summarising call in a short session
    assert eng.decision is not None and not eng.decision.compact


def test_summaries_are_rare_over_a_long_session() -> None:
    counting = CountingSummariser(ExtractiveSummariser())
    eng = engine(window=16_384, summariser=counting)
    turns = 300
    for n in range(1, turns + 1):
        turn(eng, n, user_words=30, result_words=150 if n % 3 == 0 else 0)
        asm = eng.assemble()
        assert asm.breakdown.total <= asm.breakdown.input_budget
    done = [c for c in eng.compactions if c.ok]
    assert counting.calls == len(done) > 0
    # Batches, not one round at a time: 300 turns compact a handful of times, each many items.
    assert counting.calls <= turns / 8, counting.calls
    assert min(counting.batches) >= 8, counting.batches


def test_pins_are_never_evicted_or_summarised() -> None:
    eng = engine(window=8_192)
    eng.add_user("Always run the linter before committing. " + filler("pinned-user", 40))
    pinned_user = eng.pin("m1")
    eng.add_assistant("Decided: we use ruff.", [call("c0", command="ruff check")])
    pinned_result = eng.add_tool_result("c0", "run_command", filler("pinned-out", 200))
    eng.pin(pinned_result.id)
    for n in range(2, 80):
        turn(eng, n, user_words=40, result_words=200)
        asm = eng.assemble()
        text = request_text(asm.messages)
        assert pinned_user.content in text and pinned_result.content in text
        assert check_pairing(asm.messages) == []
    assert any(c.ok for c in eng.compactions)
    for it in (pinned_user, pinned_result):
        assert it.state == State.IN and it.summarised_into is None
    # A forced compaction leaves them too.
    eng.compact(force=True)
    assert pinned_user.state == State.IN and pinned_result.state == State.IN


def test_the_current_task_is_never_evicted_even_when_huge() -> None:
    eng = engine(window=8_192)
    for n in range(1, 5):
        turn(eng, n, result_words=100)
    task = eng.add_user(filler("the-task", 3_000))  # bigger than the whole history cap
    for step in range(6):
        eng.add_assistant("Working on it.", [call(f"s{step}", command="make")])
        eng.add_tool_result(f"s{step}", "run_command", filler(f"step{step}", 300))
        asm = eng.assemble()
        assert task.state == State.IN
        assert task.content in request_text(asm.messages)
        assert any(t.item_id == task.id and t.reason == "current task" for t in asm.trace)
    eng.compact(force=True)
    assert task.state == State.IN


def test_a_failing_summariser_keeps_every_round_verbatim() -> None:
    fails = AlwaysFails()
    eng = engine(window=8_192, summariser=fails)
    for n in range(1, 40):
        turn(eng, n, result_words=120, scope="session")
        asm = eng.assemble()
        assert asm.breakdown.total <= asm.breakdown.input_budget
        assert check_pairing(asm.messages) == []
    assert fails.calls > 0
    assert all(not c.ok and "unreachable" in (c.error or "") for c in eng.compactions)
    assert all(it.state == State.IN for it in eng.items.values() if it.role is not None)
    out = [t for t in eng.last.trace if not t.included]  # type: ignore[union-attr]
    assert out and all(t.reason.startswith("over budget") for t in out)
    # It does not hammer the broken summariser on every assembly when nothing changed.
    calls = fails.calls
    eng.assemble()
    eng.assemble()
    assert fails.calls == calls


def test_a_failing_summariser_falls_back_along_the_chain() -> None:
    fails = AlwaysFails()
    s = Settings.default(window=8_192)
    eng = ContextEngine(s, summarisers=[fails, ExtractiveSummariser()])
    for n in range(1, 30):
        turn(eng, n, result_words=150)
        eng.assemble()
    ok = [c for c in eng.compactions if c.ok]
    assert ok and all(c.summariser == "extractive" for c in ok)
    assert fails.calls == len(ok)


# plan_eviction as a pure function ---------------------------------------------------------


def msg(i: int, role: str, turn: int, tokens: int, **kw: object) -> ContextItem:
    return ContextItem(id=f"m{i}", category=Category.HISTORY, content=f"x{i}", tokens=tokens, role=role,
                       turn=turn, **kw)  # type: ignore[arg-type]


def test_groups_keep_calls_with_their_results() -> None:
    a = msg(2, "assistant", 1, 5, tool_calls=[{"id": "c1"}, {"id": "c2"}])
    r1 = msg(3, "tool", 1, 5, tool_call_id="c1")
    r2 = msg(4, "tool", 1, 5, tool_call_id="c2")
    orphan = msg(5, "tool", 1, 5, tool_call_id="zzz")
    groups = group_history([msg(1, "user", 1, 5), a, r1, r2, orphan])
    assert [[i.id for i in g.items] for g in groups] == [["m1"], ["m2", "m3", "m4"], ["m5"]]


def test_plan_keeps_the_task_and_the_latest_steps() -> None:
    items = []
    for t in range(1, 6):
        items += [msg(len(items) + 1, "user", t, 100), msg(len(items) + 2, "assistant", t, 100)]
    items += [msg(99, "assistant", 5, 100), msg(98, "assistant", 5, 100)]
    groups = group_history(items)
    plan = plan_eviction(groups, current_turn=5, token_cap=400, max_rounds=100, batch_fraction=0.5,
                         keep_recent_steps=2, force=False)
    assert plan is not None and plan.reason == "token cap"
    chosen = {i.id for i in plan.items}
    assert not chosen & {"m9", "m99", "m98"}  # the task and the two latest steps
    assert {"m1", "m2"} <= chosen  # oldest first


def test_plan_skips_pinned_and_already_summarised_items() -> None:
    pinned = msg(1, "user", 1, 500, pinned=True)
    gone = msg(3, "tool", 1, 900, tool_call_id="c1", state=State.SUMMARISED)
    items = [pinned, msg(2, "assistant", 1, 10, tool_calls=[{"id": "c1"}]), gone, msg(4, "user", 2, 10)]
    groups = group_history(items)
    # Pinned and summarised tokens are not history the memory manages: no cap trips.
    assert Group([gone]).tokens < gone.tokens
    assert plan_eviction(groups, current_turn=2, token_cap=100, max_rounds=5, batch_fraction=0.5,
                         keep_recent_steps=2) is None
    plan = plan_eviction(groups, current_turn=2, token_cap=100, max_rounds=5, batch_fraction=0.5,
                         keep_recent_steps=0, force=True)
    assert plan is None or [i.id for i in plan.items] == ["m2"]


def test_what_the_user_pasted_one_message_ago_stays_through_a_cost_model_event() -> None:
    """A 400-line paste, then "and line 250?": a cost-model event one turn later replaced the paste by a
    600-character extract while the window was 2 % full, so the model could not answer.  The user's message of
    the turn before the current one is kept (up to a quarter of the budget); the one before that is not."""
    eng = engine(window=110_000)
    paste = eng.add_user("look at this log:\n" + "\n".join(f"line {i}: {filler(f'p{i}', 12)}" for i in range(400)))
    eng.add_assistant(filler("ack", 30))
    eng.add_user("and line 250?")
    for step in range(60):
        eng.add_assistant("Checking.", [call(f"s{step}", command="grep -n x log")])
        eng.add_tool_result(f"s{step}", "run_command", filler(f"out{step}", 600))
        eng.assemble()
        if eng.compactions:
            break
    assert eng.compactions and eng.compactions[0].reason == "cost model"
    assert paste.state == State.IN and "line 250:" in request_text(eng.assemble().messages)
    eng.add_user("thanks, now the next thing")
    seen = len(eng.compactions)
    for step in range(60, 160):
        eng.add_assistant("Checking.", [call(f"s{step}", command="grep -n y log")])
        eng.add_tool_result(f"s{step}", "run_command", filler(f"out{step}", 600))
        eng.assemble()
        if len(eng.compactions) > seen:
            break
    assert len(eng.compactions) > seen and paste.state != State.IN, "two messages ago: it goes in a later event"


def test_a_stub_does_not_name_a_summary_that_is_not_sent() -> None:
    """A tester: with `sum1` evicted, a pinned call's output was still sent as "summarised into sum1"."""
    eng = engine(window=16_384)
    eng.add_user("Look at the logs")
    eng.add_assistant("Reading.", [call("c1", command="cat log")])
    out = eng.add_tool_result("c1", "run_command", filler("log", 300) + "\nERROR: disk quota exceeded in /var/log\n")
    eng.end_turn()
    turn(eng, 2, result_words=40)
    result = eng.compact(force=True)
    assert result is not None and result.ok and out.state == State.SUMMARISED
    summary = out.summarised_into
    assert summary is not None and eng.items[summary].state == State.IN
    call_item = next(i for i in eng.order if eng.items[i].tool_calls and eng.items[i].tool_calls[0]["id"] == "c1")
    eng.pin(call_item)  # its group is sent again, with the output as a stub
    assert f"summarised into {summary} (" in request_text(eng.assemble().messages)
    eng.evict(summary)
    text = request_text(eng.assemble().messages)
    assert f"{out.id} summarised into {summary}, which is not sent" in text
    assert f'fetch_result("{out.provenance.get("handle") or out.id}")' in text
