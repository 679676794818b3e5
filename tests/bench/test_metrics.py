"""The metrics on hand-made sessions whose answers are worked out by hand (one token per word)."""

from __future__ import annotations

import json

import pytest

from agent_tui.bench.metrics import CACHE_READ_WEIGHT, compute, percentile
from agent_tui.bench.replay import calibrate, checkable_edits, error_lines, replay
from agent_tui.bench.strategies import FullStrategy, WindowStrategy
from agent_tui.bench.trace import Compaction, Edit, Message, ModelCall, Session, ToolCall
from tests.bench.helpers import word_cache


def chat_session() -> Session:
    """system 'Be brief.' and five chat messages; calls after each user message.

    Tokens with the word counter (+4 per message, +3 per request):
    system 6, m0 11, m1 7, m2 6, m3 5, m4 8.
    """
    return Session(
        id="chat", source="hand", model="", default_window=1000, system_prompt="Be brief.",
        messages=[
            Message("user", "Fix bug. You must keep tests green."),
            Message("assistant", "one two three"),
            Message("user", "four five"),
            Message("assistant", "six"),
            Message("user", "seven eight nine ten"),
        ],
        calls=[ModelCall(1, 20), ModelCall(3, 33), ModelCall(5, 46)],
    )


def test_full_tokens_prefix_share_and_cost() -> None:
    run = replay(chat_session(), FullStrategy(), 1000, word_cache())
    assert [s.tokens for s in run.steps] == [20, 33, 46]
    assert [s.shared for s in run.steps] == [0, 17, 30]  # [sys, m0] then [sys, m0, m1, m2]
    m = compute([run])
    assert m.total_input_tokens == 99
    assert m.mean_tokens == 33
    assert m.p95_tokens == 46
    assert m.prefix_stable_share == pytest.approx(47 / 99)
    assert m.cache_weighted_cost == pytest.approx((99 - 47) + CACHE_READ_WEIGHT * 47)
    assert m.peak_tokens == 46 and m.peak_window_pct == pytest.approx(4.6) and m.overflows == 0
    assert m.rule_retention == 1.0 and m.rule_retention_last == 1.0


def test_window_truncates_and_loses_the_rule() -> None:
    run = replay(chat_session(), WindowStrategy(rounds=2), 1000, word_cache())
    # [sys, m0]; [sys, m1, m2]; [sys, m3, m4]
    assert [s.tokens for s in run.steps] == [20, 22, 22]
    assert [s.shared for s in run.steps] == [0, 6, 6]
    m = compute([run])
    assert m.total_input_tokens == 64
    assert m.rule_checks == 3 and m.rule_hits == 1
    assert m.rule_retention == pytest.approx(1 / 3)
    assert m.rule_retention_last == 0.0


def test_overflows_and_peak_against_the_window() -> None:
    m = compute([replay(chat_session(), FullStrategy(), 40, word_cache())])
    assert m.overflows == 1
    assert m.peak_window_pct == pytest.approx(115.0)


def test_unrecorded_prefix_is_counted_and_shared() -> None:
    s = chat_session()
    s.prefix_tokens = 10
    run = replay(s, FullStrategy(), 1000, word_cache())
    assert [st.tokens for st in run.steps] == [30, 43, 56]
    assert [st.shared for st in run.steps] == [0, 27, 40]


def test_calibrate_estimates_prefix_and_restored_tokens() -> None:
    s = chat_session()
    s.calls = [ModelCall(1, 50), ModelCall(3, 70), ModelCall(5, 90)]
    s.compactions = [Compaction(2, 500)]
    calibrate(s, word_cache())
    assert s.prefix_tokens == 30  # 50 recorded - 20 counted
    # first call after the compaction (history_len 3): counted [sys, m2] = 3 + 6 + 6 = 15
    assert s.compactions[0].restored_tokens == 70 - 15 - 30


def test_full_follows_recorded_compaction_and_charges_it() -> None:
    s = chat_session()
    s.compactions = [Compaction(2, 500, restored_tokens=7)]
    run = replay(s, FullStrategy(), 1000, word_cache())
    # call 1 after compaction: [sys, m2] + 7 opaque = 3 + 6 + 6 + 7
    assert [st.tokens for st in run.steps] == [20, 22, 35]
    assert [st.summarising for st in run.steps] == [0, 500, 0]
    assert run.steps[2].shared == 7 + 6 + 6  # opaque unchanged, then sys and m2
    assert compute([run]).total_input_tokens == 20 + 22 + 35 + 500


def tools_session() -> Session:
    def call(cid: str, command: str) -> tuple[ToolCall, ...]:
        return (ToolCall(cid, "bash", json.dumps({"command": command})),)

    return Session(
        id="tools", source="hand", model="", default_window=1000,
        messages=[
            Message("user", "Task: do it. Never break the build."),
            Message("assistant", "read", call("c1", "cat f.py")),
            Message("tool", "     1→def f():\n     2→    return 1\n", tool_call_id="c1", name="bash"),
            Message("assistant", "think"),
            Message("user", "go on"),
            Message("assistant", "edit", call("c2", "sed -i 's/return 1/return 2/' f.py")),
        ],
        calls=[ModelCall(1, None), ModelCall(3, None), ModelCall(5, None)],
        edits=[Edit(2, "f.py", "def f():\n    return 1"), Edit(2, "f.py", "text nobody ever saw")],
    )


def test_active_file_retention_counts_only_visible_edits() -> None:
    s = tools_session()
    cache = word_cache()
    assert checkable_edits(s, cache) == {2: ["def f():\nreturn 1"]}  # line numbers and indents normalised
    full = compute([replay(s, FullStrategy(), 1000, cache)])
    assert (full.edits_present, full.edits_checked, full.active_file_retention) == (1, 1, 1.0)
    win = compute([replay(s, WindowStrategy(rounds=1), 1000, cache)])
    assert (win.edits_present, win.edits_checked, win.active_file_retention) == (0, 1, 0.0)


def test_window_never_orphans_tool_results() -> None:
    s = tools_session()
    strat = WindowStrategy(rounds=1)
    strat.start(s, 1000)
    for i in range(3):
        strat.observe(i, s.messages[i])
    req = strat.build(1)
    assert [m["role"] for m in req.messages] == ["assistant", "tool"]  # the round is the call and its result


class KeepFirstLine(FullStrategy):
    """A strategy that sends only the first line of every tool output."""

    name = "first-line"

    def observe(self, index: int, message: Message) -> str | None:
        super().observe(index, message)
        if message.role != "tool":
            return None
        first = message.raw_output.split("\n")[0]
        self.history[-1] = {**self.history[-1], "content": first}
        return first


class FirstLineAndACopy(KeepFirstLine):
    """The first line in the tool message, the whole output in a note after it (as a read cut by
    shaping whose file text travels in a file note)."""

    name = "first-line-and-copy"

    def observe(self, index: int, message: Message) -> str | None:
        sent = super().observe(index, message)
        if message.role == "tool":
            self.history.append({"role": "user", "content": f"[note]\n{message.raw_output}"})
        return sent


def test_shaping_ratio_and_error_line_recall() -> None:
    raw = "Traceback (most recent call last):\n  lots of words in this frame line\nValueError: boom here"
    s = Session(
        id="shape", source="hand", model="", default_window=1000,
        messages=[Message("user", "go"), Message("assistant", "run", (ToolCall("c", "bash", "{}"),)),
                  Message("tool", raw, tool_call_id="c", name="bash")],
        calls=[ModelCall(1, None), ModelCall(3, None)],
    )
    m = compute([replay(s, KeepFirstLine(), 1000, word_cache())])
    assert m.error_lines == 2 and m.error_lines_kept == 1 and m.error_line_recall == 0.5
    assert m.error_line_recall_message == 0.5
    quoted = Session(
        id="quoted", source="hand", model="", default_window=1000,
        messages=[Message("user", "it fails with ValueError: boom here"), *s.messages[1:]], calls=s.calls,
    )
    q = compute([replay(quoted, KeepFirstLine(), 1000, word_cache())])
    assert q.error_line_recall == 0.5  # the task quoting the line does not make the dropped line seen
    copy = compute([replay(s, FirstLineAndACopy(), 1000, word_cache())])
    assert copy.error_line_recall == 1.0  # the model sees every error line, in the note
    assert copy.error_lines_in_message == 1 and copy.error_line_recall_message == 0.5
    assert m.shaped_raw_ratio == pytest.approx(5 / 15)  # words: 5 + 7 + 3 raw, 5 sent
    full = compute([replay(s, FullStrategy(), 1000, word_cache())])
    assert full.shaped_raw_ratio == 1.0 and full.error_line_recall == 1.0


def test_error_lines() -> None:
    text = ("ok\nTraceback (most recent call last):\n  File x\n  File \"a.py\", line 3, in g\n"
            "src/a.py:12: in f\nFAILED t::x\nassert 1 == 2\nfine")
    assert error_lines(text) == ["Traceback (most recent call last):", 'File "a.py", line 3, in g',
                                 "src/a.py:12: in f", "FAILED t::x", "assert 1 == 2"]


def test_pooling_across_sessions() -> None:
    a = replay(chat_session(), FullStrategy(), 1000, word_cache())
    b = replay(chat_session(), FullStrategy(), 40, word_cache())
    m = compute([a, b])
    assert m.sessions == 2 and m.requests == 6
    assert m.total_input_tokens == 198
    assert m.peak_window_pct == pytest.approx(115.0) and m.overflows == 1
    assert m.latency_p50_ms >= 0 and m.latency_p95_ms >= m.latency_p50_ms


def test_percentile_nearest_rank() -> None:
    values = list(range(1, 21))
    assert percentile(values, 95) == 19
    assert percentile(values, 50) == 10
    assert percentile(values, 100) == 20
    assert percentile([], 95) == 0.0
    assert percentile([7], 50) == 7
