"""What a compaction event reports: history tokens before and after, the summary counted on both sides.

The count before left the summary segments out and the count after put them in, so an event that folded
a few rounds into a consolidated summary could read "history 230 → 246 tokens" while it had shrunk."""

from __future__ import annotations

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from tests.core.core_helpers import call, filler


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


def test_an_event_that_finds_nothing_worth_keeping_carries_no_segment() -> None:
    """A segment reading only "(nothing worth keeping was found in the evicted rounds)" went out with every
    later request (a tester saw two of them, identical, after four events)."""
    from agent_tui.core.items import State

    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user("start")
    for n in range(1, 12):  # (exploring: prose with no decision or todo, outputs with no error or result)
        eng.add_assistant(filler(f"a{n}", 80), [call(f"c{n}", name="read_file", path=f"f{n}.txt")])
        eng.add_tool_result(f"c{n}", "read_file", filler(f"o{n}", 40))
    done = eng.compact(force=True)
    assert done is not None and done.summary_id is not None
    segment = eng.items[done.summary_id]
    assert segment.state == State.RELEASED and segment.content.startswith("(nothing worth keeping")
    sent = "\n".join(str(m.get("content")) for m in eng.assemble().messages)
    assert "nothing worth keeping" not in sent and "Summary of earlier conversation" not in sent


def test_a_segment_the_model_wrote_is_not_called_extracted() -> None:
    from agent_tui.core.block import LLM_SUMMARY_HEADER, SECTION_HEADERS, CompactionBlock
    from agent_tui.core.items import Category, ContextItem
    from agent_tui.core.tokens import counter_for

    made = [ContextItem(id=f"sum{n}", category=Category.SUMMARY, content=f"- fact {n}", tokens=4,
                        provenance={"summariser": who, "segment": True}) for n, who in ((1, "extractive"), (2, "llm"))]
    block = CompactionBlock()
    block.rebuild(made, counter_for("openai/gpt-4o"))
    assert block.texts[0].startswith(SECTION_HEADERS[Category.SUMMARY] + "\n") and "extracted" in block.texts[0]
    assert block.texts[1] == f"{LLM_SUMMARY_HEADER}\n- fact 2"
