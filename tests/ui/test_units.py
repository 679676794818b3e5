"""The UI's pure parts: the gauge numbers, the throttle, slash commands, inspector rows, theme."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.ui import commands, model_check
from agent_tui.ui.gauge import gauge_from_breakdown, share_pct
from agent_tui.ui.gauge_feed import GaugeFeed
from agent_tui.ui.rows import ItemRow, filter_rows, sort_rows
from agent_tui.ui.theme import pick_theme
from agent_tui.ui.throttle import Throttle

BREAKDOWN = {"window": 7000, "reserve": 1400, "input_budget": 5514, "total": 4200, "free": 1314, "used_pct": 76.17,
             "categories": {"system": 300, "rules": 0, "tools": 1900, "memory": 0, "summary": 0, "files": 800,
                            "history": 700, "results": 500}, "over_budget": False, "compact_at": 0.75,
             "fresh_at": 0.9}


class FakeTimers:
    """A manual clock and timer queue, so throttling is checked without real time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, Any]] = []

    def schedule(self, delay: float, callback: Any) -> None:
        self.timers.append((self.now + delay, callback))

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now]
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, callback in sorted(due, key=lambda t: t[0]):
            callback()


def test_gauge_derives_shares_like_the_context_command() -> None:
    g = gauge_from_breakdown(BREAKDOWN)
    assert g.total == 4200 and g.free == 1314 and g.used_pct == 76.17
    assert [r.name for r in g.rows][:3] == ["system", "rules", "tools"]
    assert {r.name: r.tokens for r in g.rows} == BREAKDOWN["categories"]
    assert {r.name: r.pct for r in g.rows}["tools"] == pytest.approx(100 * 1900 / 5514)
    assert g.level == "compact"
    assert gauge_from_breakdown({**BREAKDOWN, "over_budget": True}).level == "over"
    assert gauge_from_breakdown({**BREAKDOWN, "used_pct": 95.0}).level == "fresh"
    assert share_pct(10, 0) == 0.0


def test_throttle_delivers_at_most_30_a_second_and_always_the_last_value() -> None:
    timers = FakeTimers()
    got: list[int] = []
    throttle: Throttle[int] = Throttle(got.append, timers.schedule, lambda: timers.now, rate=30)
    for n in range(1000):  # 1000 updates over one simulated second
        throttle.submit(n)
        timers.advance(0.001)
    timers.advance(0.1)
    assert got[0] == 0 and got[-1] == 999
    assert len(got) <= 31
    assert all(b > a for a, b in zip(got, got[1:], strict=False))


def test_gauge_feed_keeps_every_request_point_while_coalescing_redraws() -> None:
    timers = FakeTimers()
    sent: list[Any] = []
    feed = GaugeFeed(sent.append, timers.schedule, clock=lambda: timers.now)
    feed.show(BREAKDOWN, point=100, reset=True)
    for n in range(50):
        feed.output(n)
        if n % 10 == 0:
            feed.show({**BREAKDOWN, "total": 4200 + n}, point=4200 + n)
    timers.advance(1.0)
    assert len(sent) == 2
    assert sum(len(m.points) for m in sent) == 6, "no request total is lost"
    assert sent[0].reset and not sent[-1].reset
    assert sent[-1].output_tokens == 49 and sent[-1].breakdown["total"] == 4240


def test_slash_commands_parse_complete_and_reject() -> None:
    assert commands.parse("hello") is None
    assert commands.parse("//not a command") is None
    cmd, arg = commands.parse("/compact  the api decision ")
    assert cmd.name == "compact" and arg == "the api decision"
    with pytest.raises(commands.UnknownCommand, match="did you mean /compact"):
        commands.parse("/comapct")
    assert commands.completions("/comp") == ["/compact "]
    assert commands.completions("/he") == ["/help"]
    assert commands.completions("/pin m1", ["m1", "m12"]) == ["/pin m12"]
    assert commands.completions("/evict t", ["m1", "t3"]) == ["/evict t3"]
    assert commands.completions("/memo x", ["memo1"]) == []
    assert commands.completions("/restore t", ["m1", "t1", "t2", "t10"]) == ["/restore t1", "/restore t2",
                                                                          "/restore t10"]
    assert commands.completions("/restore ", ["t1"]) == [] and commands.completions("hello") == []
    assert model_check.completions("gpt-4", ["gpt-4", "gpt-4o", "gpt-4o-mini", "o1"]) == ["gpt-4o", "gpt-4o-mini"]
    names = {c.name for c in commands.COMMANDS}
    assert {"context", "pin", "unpin", "evict", "restore", "compact", "memo", "new", "resume", "model",
            "threshold", "mcp", "help", "quit"} <= names


def test_threshold_values() -> None:
    assert commands.threshold_value("70", 0.75) == 0.7
    assert commands.threshold_value("+5", 0.75) == 0.8
    assert commands.threshold_value("-10%", 0.75) == 0.65
    for bad in ("", "abc", "150", "-90"):
        with pytest.raises(ValueError):
            commands.threshold_value(bad, 0.75)


def _row(item_id: str, **kw: Any) -> ItemRow:
    base = dict(id=item_id, category="history", tokens=10, age=0, state="in", pinned=False, in_request=True,
                reason="fits", preview="", role="user", order=0)
    return ItemRow(**{**base, **kw})


def test_rows_filter_and_sort() -> None:
    rows = [_row("m1", tokens=5, age=2, order=0), _row("t1", category="results", tokens=50, state="evicted",
                                                       in_request=False, order=1, preview="pytest output"),
            _row("rule1", category="rules", pinned=True, order=2)]
    assert [r.id for r in sort_rows(rows, "tokens")] == ["t1", "rule1", "m1"]
    assert [r.id for r in sort_rows(rows, "age")][0] == "m1"
    assert [r.id for r in filter_rows(rows, "cat:res")] == ["t1"]
    assert [r.id for r in filter_rows(rows, "state:evicted")] == ["t1"]
    assert [r.id for r in filter_rows(rows, "pinned")] == ["rule1"]
    assert [r.id for r in filter_rows(rows, "out")] == ["t1"]
    assert [r.id for r in filter_rows(rows, "pytest")] == ["t1"]


def test_theme_follows_the_terminal() -> None:
    assert pick_theme({}) == "ansi-dark"
    assert pick_theme({"COLORFGBG": "0;15"}) == "ansi-light"
    assert pick_theme({"COLORFGBG": "15;0"}) == "ansi-dark"
    assert pick_theme({"AGENT_TUI_THEME": "nord", "COLORFGBG": "0;15"}) == "nord"
