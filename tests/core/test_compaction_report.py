"""What a compaction event reports: history tokens before and after, the summary counted on both sides.

The count before left the summary segments out and the count after put them in, so an event that folded
a few rounds into a consolidated summary could read "history 230 → 246 tokens" while it had shrunk."""

from __future__ import annotations

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from tests.core.core_helpers import filler


def test_an_events_before_count_holds_the_summary_its_after_count_holds() -> None:
    eng = ContextEngine(Settings.default(window=16_384))
    for n in range(1, 12):
        eng.add_user(f"step {n}")
        eng.add_assistant(f"Done with step {n}. " + filler(f"a{n}", 80))
    first = eng.compact(force=True)
    assert first is not None and first.summary_id is not None and first.tokens_after > 0
    added = eng.add_assistant("One more note. " + filler("b", 40))
    second = eng.compact(force=True)
    assert second is not None and second.summary_id is not None
    assert second.tokens_before == first.tokens_after + added.tokens
