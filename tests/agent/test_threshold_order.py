"""Past both thresholds at once (a large task in a small window), the fresh-session offer was announced first
and "past the compaction point" at the next step, after it: read backwards."""

from __future__ import annotations

from types import SimpleNamespace

from agent_tui.agent import events as ev
from agent_tui.agent.loop import Agent


def _crossed(state: SimpleNamespace, pct: float) -> list[str]:
    bd = {"used_pct": pct, "fresh_at": 0.9, "compact_at": 0.75}
    return [e.level for e in Agent._thresholds(state, bd) if isinstance(e, ev.ThresholdCrossed)]  # type: ignore[arg-type]


def test_past_both_thresholds_only_the_fresh_offer_is_made_and_the_compaction_point_not_after_it() -> None:
    state = SimpleNamespace(_announced=set())
    assert _crossed(state, 95.0) == ["fresh"]
    assert _crossed(state, 96.0) == []
    assert _crossed(state, 97.0) == []


def test_the_compaction_point_alone_is_announced_then_the_fresh_offer() -> None:
    state = SimpleNamespace(_announced=set())
    assert _crossed(state, 80.0) == ["compact"]
    assert _crossed(state, 92.0) == ["fresh"]
    assert _crossed(state, 60.0) == [] and _crossed(state, 80.0) == ["compact"]  # fell below, crossed again
