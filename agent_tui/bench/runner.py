"""Running every strategy over every session: the benchmark as a function.

Sessions are independent, so they can be replayed in worker processes
(``jobs``); each worker loads its own trace file, calibrates the unrecorded
prefix, and replays the strategies in order with one shared message cache
(so a message is tokenised once per session, whatever the strategy).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.bench.adapters import adapter_for, discover
from agent_tui.bench.measure import MessageCache
from agent_tui.bench.replay import SessionRun, calibrate, checkable_edits, replay
from agent_tui.bench.strategies import DEFAULT_ROUNDS, FullStrategy, Strategy, WindowStrategy
from agent_tui.bench.trace import Session
from agent_tui.core.tokens import TokenCounter

STRATEGIES: tuple[str, ...] = ("full", "window", "masking", "auto-compact", "batch", "agent-tui")


def make_strategy(name: str, rounds: int = DEFAULT_ROUNDS) -> Strategy:
    """A fresh strategy by name (one of ``STRATEGIES``)."""
    from agent_tui.bench import anchors

    if name == "full":
        return FullStrategy()
    if name == "window":
        return WindowStrategy(rounds)
    if name == "masking":
        return anchors.MaskingStrategy()
    if name == "auto-compact":
        return anchors.AutoCompactStrategy()
    if name == "batch":
        return anchors.BatchStrategy()
    if name == "agent-tui":
        from agent_tui.bench.engine_strategy import AgentTuiStrategy

        return AgentTuiStrategy()
    raise ValueError(f"unknown strategy {name!r} (known: {', '.join(STRATEGIES)})")


@dataclass
class SessionInfo:
    """What the report says about one session besides the runs."""

    id: str
    source: str
    model: str
    path: str
    window: int
    calls: int
    messages: int
    prefix_tokens: int
    malformed: int
    edits: int
    recorded: list[int | None] = field(default_factory=list)


@dataclass
class BenchResult:
    """All runs, by strategy, with the sessions they came from."""

    strategies: list[str]
    sessions: list[SessionInfo] = field(default_factory=list)
    runs: dict[str, list[SessionRun]] = field(default_factory=dict)
    seconds: float = 0.0
    window: int | None = None
    rounds: int = DEFAULT_ROUNDS
    skipped_files: int = 0
    malformed: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    """Trace files read but not replayed, with why (e.g. no model call recorded)."""


class WindowTooSmall(ValueError):
    """The session cannot be replayed in the window asked for: reported as skipped, not counted."""


def run_session(session: Session, strategies: Sequence[str], window: int | None,
                rounds: int = DEFAULT_ROUNDS) -> tuple[SessionInfo, dict[str, SessionRun]]:
    """Replay every strategy over one loaded session."""
    # The measuring side counts with a counter of its own: sharing the product's (whose counts are
    # remembered) would count every recorded message before a strategy is timed, and flatter it.
    cache = MessageCache(TokenCounter(session.model or None))
    calibrate(session, cache)
    win = window or session.default_window
    if session.prefix_tokens >= win:
        raise WindowTooSmall(f"the window ({win:,}) is no larger than what the client sent unrecorded on every call "
                             f"({session.prefix_tokens:,} tokens: tool definitions and its own prompt); every "
                             "strategy would overflow on every call")
    checkable = checkable_edits(session, cache)
    runs = {name: replay(session, make_strategy(name, rounds), win, cache, checkable) for name in strategies}
    info = SessionInfo(session.id, session.source, session.model, session.path, win, len(session.calls),
                       len(session.messages), session.prefix_tokens, session.malformed, len(session.edits),
                       [c.recorded_input_tokens for c in session.calls])
    return info, runs


Skipped = tuple[str, str, int]
"""(path, reason, malformed records) of a trace file that was not replayed."""


def _run_file(args: tuple[str, tuple[str, ...], int | None, int]) -> tuple[SessionInfo, dict[str, SessionRun]] | Skipped:
    path, strategies, window, rounds = args
    adapter = adapter_for(Path(path))
    if adapter is None:
        return (path, "no adapter recognises it", 0)
    session = adapter.load(Path(path))
    if not session.calls:
        return (path, "no model call recorded", session.malformed)
    try:
        return run_session(session, strategies, window, rounds)
    except WindowTooSmall as exc:
        return (path, str(exc), session.malformed)


def run_benchmark(paths: Sequence[Path], strategies: Sequence[str] = STRATEGIES, window: int | None = None,
                  rounds: int = DEFAULT_ROUNDS, jobs: int = 1) -> BenchResult:
    """Replay ``strategies`` over every trace under ``paths``."""
    for name in strategies:
        make_strategy(name, rounds)  # fail fast on a bad name
    t0 = time.perf_counter()
    files = sorted((str(p) for p in discover(paths)), key=lambda f: -Path(f).stat().st_size)
    work = [(f, tuple(strategies), window, rounds) for f in files]  # longest first: better balance
    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(_run_file, work))
    else:
        outcomes = [_run_file(w) for w in work]
    result = BenchResult(list(strategies), window=window, rounds=rounds,
                         runs={name: [] for name in strategies})
    for out in outcomes:
        if len(out) == 3:
            path, why, bad = out
            result.skipped_files += 1
            result.malformed += bad
            result.skipped.append({"path": path, "reason": why})
            continue
        info, runs = out  # type: ignore[misc]
        result.sessions.append(info)
        result.malformed += info.malformed
        for name, run in runs.items():
            result.runs[name].append(run)
    order = sorted(range(len(result.sessions)), key=lambda i: (result.sessions[i].source, result.sessions[i].id))
    result.sessions = [result.sessions[i] for i in order]
    result.runs = {name: [runs[i] for i in order] for name, runs in result.runs.items()}
    result.seconds = time.perf_counter() - t0
    return result
