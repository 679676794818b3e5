"""Shared helpers for the benchmark tests: fixture paths, a word counter, tiny sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_tui.bench.measure import MessageCache
from agent_tui.core.tokens import MESSAGE_OVERHEAD

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]
SHARED_TRACES = REPO.parent / "shared" / "traces"


class WordCounter:
    """A token counter whose answers are easy to work out by hand: one token per word."""

    model = None
    calls = 0

    def count(self, text: str | bytes) -> int:
        if isinstance(text, bytes):
            text = text.decode()
        return len(text.split()) if text else 0

    def count_message(self, content: str, extra: str = "") -> int:
        return self.count(content) + (self.count(extra) if extra else 0) + MESSAGE_OVERHEAD


def word_cache() -> MessageCache:
    """A MessageCache counting words."""
    return MessageCache(WordCounter())  # type: ignore[arg-type]


def engine_requests(session: Any) -> Iterator[tuple[int, Any]]:
    """Drive the agent-tui strategy over a session: (call index, request) at each recorded call."""
    from agent_tui.bench.engine_strategy import AgentTuiStrategy

    strat = AgentTuiStrategy()
    strat.start(session, session.default_window)
    seen = 0
    for k, c in enumerate(session.calls):
        for i in range(seen, c.history_len):
            strat.observe(i, session.messages[i])
        seen = c.history_len
        yield k, strat.build(k)
