"""The rolling summary is append-only across events: each event adds one segment after the ones
already sent, which keep their bytes (a cache read, and the summarising call writes only the new
part); past the summary's share, an event consolidates the segments into one."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.block import SECTION_HEADERS
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import Category, State
from agent_tui.core.summary import Entry, Summary
from tests.core.core_helpers import filler

HEADER = SECTION_HEADERS[Category.SUMMARY]


def rounds(eng: ContextEngine, tag: str, n: int = 4) -> None:
    for k in range(n):
        eng.add_user(f"Please handle {tag} part {k}; never touch vendor/. " + filler(f"{tag}{k}", 40))
        eng.add_assistant(f"I decided to handle {tag} part {k} with a helper. " + filler(f"a{tag}{k}", 40))


def segments(messages: list[dict[str, object]]) -> list[str]:
    return [str(m["content"]) for m in messages if str(m["content"]).startswith(HEADER)]


def test_each_event_appends_a_segment_and_earlier_ones_keep_their_bytes_and_place() -> None:
    eng = ContextEngine(Settings.default(window=65_536))
    rounds(eng, "alpha")
    eng.compact(force=True)
    first = eng.assemble().messages
    assert len(segments(first)) == 1 and "alpha part 0" in segments(first)[0]
    rounds(eng, "beta")
    res = eng.compact(force=True)
    assert res is not None and res.summary_id is not None
    second = eng.assemble().messages
    segs = segments(second)
    assert len(segs) == 2
    assert segs[0] == segments(first)[0]  # byte-identical
    assert second.index(next(m for m in second if m["content"] == segs[0])) == \
        first.index(next(m for m in first if m["content"] == segs[0]))  # same place
    assert "beta part 0" in segs[1]
    entries = [{ln for ln in seg.splitlines() if ln.startswith("- ")} for seg in segs]
    assert entries[0] and entries[1] and not entries[0] & entries[1]  # only what the event added
    assert res.summary_tokens == eng.get(res.summary_id).tokens < sum(  # the call writes the new part
        eng.get(s.id).tokens for s in eng.compactor.segments)
    assert [it.state for it in eng.compactor.segments] == [State.IN, State.IN]


def test_past_the_summary_share_an_event_consolidates_every_segment_into_one() -> None:
    eng = ContextEngine(Settings.default(window=8_192))
    cap = eng.compactor.summary_cap()
    tags = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    consolidated = None
    for tag in tags:
        rounds(eng, tag, 3)
        before = list(eng.compactor.segments)
        eng.compact(force=True)
        if before and len(eng.compactor.segments) == 1:
            consolidated = (before, eng.compactor.segments[0])
            break
    assert consolidated is not None, f"segments never outgrew the cap of {cap} tokens"
    old, whole = consolidated
    assert all(it.state == State.SUMMARISED and it.summarised_into == whole.id for it in old)
    text = segments(eng.assemble().messages)
    assert len(text) == 1 and "alpha part" in text[0]  # the oldest facts survive consolidation
    assert "never touch vendor/" in text[0]


def test_a_segment_marks_a_fact_that_replaces_an_older_one() -> None:
    old = Summary(covers=["t1"])
    old.sections["results"] = [Entry("run_command:pytest: 1 failed", "t1", key="res:pytest")]
    new = Summary(covers=["t9"])
    new.sections["results"] = [Entry("run_command:pytest: 3 passed", "t9", key="res:pytest")]
    merged = old.merge(new)
    part = merged.render_since(set(old.covers))
    assert "3 passed" in part and "(replaces the earlier entry)" in part and "1 failed" not in part


def test_a_resumed_session_keeps_its_segments_in_order() -> None:
    eng = ContextEngine(Settings.default(window=65_536))
    rounds(eng, "alpha")
    eng.compact(force=True)
    rounds(eng, "beta")
    eng.compact(force=True)
    before = segments(eng.assemble().messages)
    again = ContextEngine(Settings.default(window=65_536))
    again.load(list(reversed(eng.all_items())))
    assert segments(again.assemble().messages) == before


def test_a_pinned_segment_survives_a_consolidation_is_folded_in_once_unpinned_and_resumes_the_same(
        tmp_path: Path) -> None:
    from agent_tui.store.workspace import Workspace

    ws = Workspace(tmp_path, settings=Settings.default(window=8_192))
    try:
        eng = ws.engine(new=True)
        rounds(eng, "alpha", 3)
        eng.compact(force=True)
        pinned = eng.compactor.segments[0]
        eng.pin(pinned.id)
        for tag in ["beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"]:
            rounds(eng, tag, 3)
            eng.compact(force=True)
            if any(it.state == State.SUMMARISED for it in eng.all_items() if it.id.startswith("sum")):
                break
        else:
            raise AssertionError("no consolidation happened")
        # a pin is never summarised: the segment stays one, in force, its facts in the request
        assert pinned in eng.compactor.segments and pinned.state == State.IN and pinned.summarised_into is None
        assert "alpha part" in "\n".join(str(m["content"]) for m in eng.assemble().messages)
        eng.unpin(pinned.id)
        rounds(eng, "kappa", 3)
        eng.compact(force=True)
        shown = segments(eng.assemble().messages)
        assert "alpha part" in "\n".join(shown)  # back in the block once unpinned, then folded
        again = ws.engine(eng.session_id)
        assert segments(again.assemble().messages) == shown
    finally:
        ws.close()


def test_pinning_unpinning_evicting_a_segment_between_events_sends_it_once_or_not_at_all() -> None:
    eng = ContextEngine(Settings.default(window=16_384))
    rounds(eng, "alpha", 3)
    eng.compact(force=True)
    rounds(eng, "beta", 2)
    seg = eng.compactor.segments[0]

    def copies() -> int:
        return "\n".join(str(m["content"]) for m in eng.assemble().messages).count(seg.content)

    assert copies() == 1  # in the frozen block
    eng.pin(seg.id)
    assert copies() == 1  # moved to the head, out of the block (not both)
    assert seg.id not in {it.id for it in eng.compactor.block.items}
    eng.unpin(seg.id)
    assert copies() == 1  # back in the block at once, not lost until the next event
    eng.evict(seg.id)
    assert copies() == 0  # the user dropped it: gone from the request now
    eng.restore(seg.id)
    assert copies() == 1


def test_an_llm_text_from_an_earlier_event_never_becomes_the_next_segment() -> None:
    """A summary stored by an older version carried the LLM's text; the next extractive event must
    write its own facts, not that text again (found in review)."""
    eng = ContextEngine(Settings.default(window=65_536))
    rounds(eng, "alpha")
    eng.compact(force=True)
    assert eng.compactor.summary is not None
    eng.compactor.summary.text_override = "OLD LLM SUMMARY: alpha done"
    rounds(eng, "beta")
    eng.compact(force=True)
    segs = segments(eng.assemble().messages)
    assert "beta part" in segs[-1] and "OLD LLM SUMMARY" not in segs[-1]
