"""Checks on the real recorded sessions in ../shared/traces (skipped when that folder is absent)."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from agent_tui.bench.adapters import discover, load_sessions
from agent_tui.bench.measure import MessageCache
from agent_tui.bench.replay import calibrate, replay
from agent_tui.bench.strategies import FullStrategy
from agent_tui.bench.trace import Session
from agent_tui.core.pairing import check_pairing
from agent_tui.core.tokens import counter_for
from tests.bench.helpers import SHARED_TRACES, engine_requests

pytestmark = pytest.mark.skipif(
    not SHARED_TRACES.is_dir(), reason=f"recorded traces not found at {SHARED_TRACES} (shared/ beside the clone)"
)


@pytest.fixture(scope="module")
def sessions() -> list[Session]:
    return load_sessions([SHARED_TRACES])


def test_every_trace_is_read_without_malformed_records(sessions: list[Session]) -> None:
    files = discover([SHARED_TRACES])
    assert len(files) == len(sessions) >= 20
    assert {s.source for s in sessions} == {"mini-swe-agent", "claude-code"}
    assert all(s.malformed == 0 for s in sessions)
    assert sum(len(s.calls) for s in sessions) > 2000


def test_full_strategy_tracks_recorded_usage(sessions: list[Session]) -> None:
    """Sanity: the `full` token series correlates with the billed input tokens (r > 0.99)."""
    pooled: dict[str, tuple[list[int], list[int]]] = {}
    for s in sessions:
        cache = MessageCache(counter_for(s.model or None))
        calibrate(s, cache)
        run = replay(s, FullStrategy(), s.default_window, cache, checkable={})
        xs = [st.tokens for st in run.steps if st.recorded is not None]
        ys = [st.recorded for st in run.steps if st.recorded is not None]
        px, py = pooled.setdefault(s.source, ([], []))
        px += xs
        py += ys
        if len(xs) >= 10:
            assert statistics.correlation(xs, ys) > 0.99, s.id
    for source, (xs, ys) in pooled.items():
        assert statistics.correlation(xs, ys) > 0.99, source


def test_agent_tui_requests_stay_valid_on_a_real_session(sessions: list[Session]) -> None:
    s = min((x for x in sessions if x.source == "mini-swe-agent"), key=lambda x: len(x.calls))
    cache = MessageCache(counter_for(s.model or None))
    calibrate(s, cache)
    for k, req in engine_requests(s):
        assert check_pairing(req.messages) == [], k
    assert isinstance(s.path, str) and Path(s.path).exists()
