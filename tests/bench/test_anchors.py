"""The anchor strategies (masking, auto-compact, batch), the two cost variants and skipped traces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.bench.adapters.mini_swe import MiniSweAdapter
from agent_tui.bench.anchors import AutoCompactStrategy, BatchStrategy, MaskingStrategy
from agent_tui.bench.metrics import CACHE_READ_WEIGHT, CACHE_WRITE_WEIGHT, OUTPUT_WEIGHT, compute
from agent_tui.bench.replay import replay
from agent_tui.bench.runner import run_benchmark
from agent_tui.bench.trace import FileEvent, Message, ModelCall, Session, ToolCall
from tests.bench.helpers import word_cache


def tool_session(steps: int = 14, words: int = 200) -> Session:
    """A task, then ``steps`` steps each with one bash call and a ``words``-word output."""
    msgs = [Message("user", "Fix app.py. You must keep tests green.")]
    calls = []
    for i in range(steps):
        calls.append(ModelCall(len(msgs), None))
        msgs.append(Message("assistant", f"step {i}", (ToolCall(f"c{i}", "bash", json.dumps({"command": f"ls {i}"})),)))
        body = " ".join(f"w{i}_{j}" for j in range(words))
        msgs.append(Message("tool", f"out{i} {body}", tool_call_id=f"c{i}", name="bash"))
    calls.append(ModelCall(len(msgs), None))
    return Session(id="tools", source="hand", model="", default_window=100_000, system_prompt="Be brief.",
                   messages=msgs, calls=calls)


def test_masking_keeps_the_last_ten_outputs_verbatim() -> None:
    s = tool_session(steps=14, words=5)
    strat = MaskingStrategy(keep=10)
    run = replay(s, strat, 100_000, word_cache())
    last = strat.build(len(s.calls))
    tools = [m for m in last.messages if m["role"] == "tool"]
    assert len(tools) == 14
    assert [m["content"].startswith("[old tool output omitted") for m in tools] == [True] * 4 + [False] * 10
    assert len(run.steps) == len(s.calls)


def test_auto_compact_summarises_at_the_threshold_and_charges_the_call() -> None:
    s = tool_session(steps=14, words=200)
    run = replay(s, AutoCompactStrategy(threshold=0.83, keep_groups=2), 2000, word_cache())
    compacted = [st for st in run.steps if st.summarising]
    assert compacted, "the history passed 83 % of a 2,000-token window"
    first = compacted[0]
    assert first.summarising > 0.83 * 2000  # the whole request that tripped it is the summarising input
    assert first.summary_out > 0
    assert max(st.tokens for st in run.steps) <= 2000 + 250  # back under the window after compacting


def test_batch_drops_to_half_the_cap_and_keeps_task_and_edited_file() -> None:
    s = tool_session(steps=14, words=200)
    s.file_events = [FileEvent(2, "app.py", "write", "def f():\n    return 41\n", whole=True),
                     FileEvent(4, "app.py", "edit", old="return 41", new="return 42")]
    strat = BatchStrategy(cap=6000)
    run = replay(s, strat, 100_000, word_cache())
    dropped = [k for k, st in enumerate(run.steps) if st.summarising]
    assert dropped and all(b - a >= 2 for a, b in zip(dropped, dropped[1:], strict=False))  # rare batches
    req = strat.build(len(s.calls))
    text = "\n".join(str(m["content"]) for m in req.messages)
    assert "You must keep tests green." in text  # the task stays
    assert "return 42" in text and "return 41" not in text  # the edited file's current text
    assert "step 0" not in text  # the oldest rounds are gone
    assert run.steps[-1].tokens < 6000 + 300


def test_both_costs_price_summaries_and_cache_writes() -> None:
    s = tool_session(steps=14, words=200)
    m = compute([replay(s, BatchStrategy(cap=1500), 100_000, word_cache())])
    total = m.total_input_tokens
    shared = m.prefix_stable_share * (total - m.summarising_tokens)
    out = sum(st.summary_out for st in replay(s, BatchStrategy(cap=1500), 100_000, word_cache()).steps)
    assert m.cache_weighted_cost == pytest.approx(total - shared + CACHE_READ_WEIGHT * shared + OUTPUT_WEIGHT * out)
    assert m.cache_write_cost == pytest.approx(CACHE_WRITE_WEIGHT * (total - shared) + CACHE_READ_WEIGHT * shared
                                               + OUTPUT_WEIGHT * out)


def test_reasoning_content_counts_as_assistant_text(tmp_path: Path) -> None:
    traj = {"info": {}, "trajectory_format": "mini-swe-agent-1.1", "instance_id": "r1", "messages": [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "do it"},
        {"role": "assistant", "content": "answer", "reasoning_content": "I think step by step",
         "extra": {"response": {"usage": {"prompt_tokens": 10}}}},
    ]}
    p = tmp_path / "r1.traj.json"
    p.write_text(json.dumps(traj))
    s = MiniSweAdapter().load(p)
    assert "I think step by step" in s.messages[-1].content and "answer" in s.messages[-1].content


def test_a_session_without_model_calls_is_reported_skipped(tmp_path: Path) -> None:
    traj = {"info": {}, "trajectory_format": "mini-swe-agent-1.1", "instance_id": "none",
            "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "do it"}]}
    (tmp_path / "none.traj.json").write_text(json.dumps(traj))
    res = run_benchmark([tmp_path], ["full"])
    assert res.sessions == []
    assert res.skipped == [{"path": str(tmp_path / "none.traj.json"), "reason": "no model call recorded"}]
