"""Regions of a big active file survive a compaction event (core/file_regions).

A file too large to carry whole, or read only in ranges, used to be a bare pointer in the
compaction block: once an event evicted the read outputs, nothing in the request held the
lines the model had just read or edited.  These tests fail on the engine without regions.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.core import file_regions
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.file_regions import Region
from agent_tui.core.items import State
from tests.core.core_helpers import call, request_text


def big_file(n: int = 2400) -> str:
    return "".join(f"def handler_{i}(request):\n    return respond(request, {i} * 17)\n\n" for i in range(n))


def numbered(body: str, lo: int, hi: int) -> str:
    lines = body.split("\n")
    return "\n".join(f"{n}| {lines[n - 1]}" for n in range(lo, hi + 1))


def engine(tmp_path: Path, body: str, window: int = 32_768) -> ContextEngine:
    (tmp_path / "big.py").write_text(body, encoding="utf-8")
    return ContextEngine(Settings.default(window=window), workspace=tmp_path)


def read_range(eng: ContextEngine, cid: str, body: str, lo: int, hi: int) -> str:
    """What the agent loop does for read_file(start_line=lo, end_line=hi) (agent/toolrun)."""
    eng.add_assistant("Reading.", [call(cid, name="read_file", path="big.py", start_line=lo, end_line=hi)])
    eng.note_file_read("big.py", body)  # the tool notes the whole text
    out = f"big.py (lines {lo}-{hi} of {body.count(chr(10))})\n{numbered(body, lo, hi)}"
    item = eng.add_tool_result(cid, "read_file", out,
                               provenance={"path": "big.py", "partial": True, "lines": [[lo, hi]]})
    return item.id


def later_steps(eng: ContextEngine, tag: str, n: int = 6) -> None:
    """Steps that do not touch the file (a forced event keeps the latest ones verbatim)."""
    for k in range(n):
        eng.add_assistant(f"Step {k}.", [call(f"{tag}{k}", command="pytest -q")])
        eng.add_tool_result(f"{tag}{k}", "run_command", f"{k} passed")


def test_a_range_read_of_a_too_large_file_survives_an_event(tmp_path: Path) -> None:
    body = big_file()
    eng = engine(tmp_path, body)
    eng.add_user("Fix handler 700 in big.py: it should not multiply by 17")
    rid = read_range(eng, "r1", body, 2098, 2104)  # def handler_699 .. handler_701
    assert "respond(request, 700 * 17)" in request_text(eng.assemble().messages)  # the read shows it
    assert "read in parts" in eng.get("f:big.py").content
    later_steps(eng, "s")
    eng.compact(force=True)  # a compaction event evicts the read output
    asm = eng.assemble()
    text = request_text(asm.messages)
    assert eng.items[rid].state == State.SUMMARISED
    assert "respond(request, 700 * 17)" in text
    assert "  2102\t    return respond(request, 700 * 17)" in text  # with its real line number
    assert "respond(request, 5 * 17)" not in text  # not the file's head
    entry = [t for t in eng.block.texts if "### big.py" in t]
    assert entry and "respond(request, 700 * 17)" in entry[0]  # carried by the compaction block


def test_an_edit_of_a_too_large_file_survives_an_event(tmp_path: Path) -> None:
    body = big_file()
    eng = engine(tmp_path, body)
    eng.add_user("Fix handler 700 in big.py")
    read_range(eng, "r1", body, 2098, 2104)
    new = body.replace("respond(request, 700 * 17)", "respond(request, 700)")
    eng.add_assistant("Editing.", [call("e1", name="edit_file", path="big.py")])
    (tmp_path / "big.py").write_text(new, encoding="utf-8")
    eng.note_file_edit("big.py", new)
    eng.add_tool_result("e1", "edit_file", "edited big.py", provenance={"path": "big.py"})
    assert "respond(request, 700)\n" in request_text(eng.assemble().messages) + "\n"  # the edit's file note
    later_steps(eng, "s")
    eng.compact(force=True)
    text = request_text(eng.assemble().messages)
    assert "  2102\t    return respond(request, 700)" in text
    assert "respond(request, 700 * 17)" not in text


def test_a_region_read_between_events_leaves_the_block_alone(tmp_path: Path) -> None:
    """The block changes only at an event; a later read shows its own lines (no file note)."""
    body = big_file()
    eng = engine(tmp_path, body)
    eng.add_user("Fix handler 700 in big.py")
    read_range(eng, "r1", body, 2098, 2104)
    later_steps(eng, "s")
    eng.compact(force=True)
    first = eng.assemble().messages
    block = list(eng.block.texts)
    read_range(eng, "r2", body, 301, 306)  # handler_100
    second = eng.assemble().messages
    assert eng.block.texts == block
    assert second[:len(first) - 1] == first[:-1]  # append-only (the last message carries the status line)
    notes = [it for it in eng.items.values() if it.provenance.get("note") == "file" and it.state == State.IN]
    assert not notes
    later_steps(eng, "t")
    eng.compact(force=True)  # the next event carries the new region; the old one crossed its event already
    text = request_text(eng.assemble().messages)
    assert "respond(request, 100 * 17)" in text and "respond(request, 700 * 17)" not in text


def test_regions_stay_within_the_files_share_newest_first(tmp_path: Path) -> None:
    body = big_file()
    eng = engine(tmp_path, body, window=16_384)
    eng.add_user("Look at big.py")
    for k, lo in enumerate(range(1, 7000, 300)):
        read_range(eng, f"r{k}", body, lo, lo + 120)
    later_steps(eng, "s")
    eng.compact(force=True)
    eng.assemble()
    entry = next(it.content for it in eng.block.items if it.id == "f:big.py")
    assert eng.counter.count(entry) <= eng.window.token_limit(eng.files.files["big.py"]) + 60
    newest = body.split("\n")[6901 - 1]
    oldest = body.split("\n")[1 - 1]
    assert newest in entry and oldest not in entry


def test_a_small_file_read_in_ranges_keeps_the_ranges_after_an_event(tmp_path: Path) -> None:
    """A range read marks a file as seen in part: after the event the block shows the part, not a bare pointer."""
    body = big_file(60)
    eng = engine(tmp_path, body)
    eng.add_user("Check big.py")
    read_range(eng, "r1", body, 31, 36)
    later_steps(eng, "s")
    eng.compact(force=True)
    text = request_text(eng.assemble().messages)
    assert "respond(request, 10 * 17)" in text and "respond(request, 40 * 17)" not in text


def test_shift_moves_regions_below_an_edit_and_adds_the_changed_lines() -> None:
    before = "\n".join(f"line {i}" for i in range(1, 41))
    after = before.replace("line 5", "line 5a\nline 5b\nline 5c")  # two lines more at line 5
    regions = [Region(2, 3, 1), Region(20, 22, 2), Region(4, 6, 3)]
    moved = file_regions.shift(regions, before, after, edit_seq=9)
    lines = after.split("\n")
    assert [lines[n - 1] for n in range(moved[1].start, moved[1].end + 1)] == ["line 20", "line 21", "line 22"]
    assert moved[0] == Region(2, 3, 1)
    assert moved[2].start <= 5 and moved[2].end >= 7  # the touched region covers the changed lines
    assert moved[-1] == Region(5, 7, 9)


@given(st.lists(st.tuples(st.integers(1, 80), st.integers(0, 30)), max_size=12), st.integers(0, 3000))
def test_selection_is_within_budget_and_merged(spans: list[tuple[int, int]], budget: int) -> None:
    lines = [f"row {i} " + "x" * (i % 13) for i in range(1, 91)]
    regions = [Region(a, a + n, k) for k, (a, n) in enumerate(spans)]
    chosen = file_regions.select(regions, lines, budget)
    cost = sum(len(lines[n - 1]) + file_regions.LINE_OVERHEAD for lo, hi in chosen for n in range(lo, hi + 1))
    assert cost <= budget
    assert all(a <= b for a, b in chosen)
    assert all(chosen[k][1] + 1 < chosen[k + 1][0] for k in range(len(chosen) - 1))  # merged, ordered
    if chosen and regions and regions[-1].start <= len(lines):  # the newest region goes first
        assert any(lo <= regions[-1].start <= hi for lo, hi in chosen)


def test_regions_are_kept_across_a_resume(tmp_path: Path) -> None:
    from agent_tui.store.workspace import Workspace

    body = big_file()
    (tmp_path / "big.py").write_text(body, encoding="utf-8")
    ws = Workspace(tmp_path, settings=Settings.default(window=32_768))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Fix handler 700 in big.py")
        read_range(eng, "r1", body, 2098, 2104)
        eng.assemble()
        sid = eng.session_id
        again = ws.engine(sid)  # a restart: the engine is rebuilt from the store
        assert again.files.files["big.py"].regions == eng.files.files["big.py"].regions
        entry = next(it.content for it in again.block.items if it.id == "f:big.py")
        line = "  2102\t    return respond(request, 700 * 17)"
        assert line in entry
        later_steps(again, "t")  # the resume rebuilt the block; the next real event still carries them
        again.compact(force=True)
        assert line in request_text(again.assemble().messages)
    finally:
        ws.close()


def test_a_memo_between_events_does_not_skip_the_regions_read_before_it(tmp_path: Path) -> None:
    """A user's /memo rebuilds the block without being an event: the next event still carries the
    lines read before it (found in review: it moved the event clock; a resume did too, above)."""
    body = big_file()
    eng = engine(tmp_path, body)
    eng.add_user("Fix handler 700 in big.py: it should not multiply by 17")
    read_range(eng, "r1", body, 2098, 2104)
    eng.save_memo("Remember: the fix is in handler 700", kind="manual")  # shown now: a block rebuild
    later_steps(eng, "s")
    eng.compact(force=True)
    assert "  2102\t    return respond(request, 700 * 17)" in request_text(eng.assemble().messages)


def edit_then_compact(eng: ContextEngine, body: str) -> None:
    """The agent edits big.py to ``body``, works on, and an event rebuilds the block."""
    eng.add_user("Tidy big.py")
    eng.add_assistant("Editing.", [call("e1", name="edit_file", path="big.py")])
    eng.note_file_edit("big.py", body)
    eng.add_tool_result("e1", "edit_file", "big.py edited")
    later_steps(eng, "s")
    eng.compact(force=True)


def test_the_per_file_limit_is_measured_in_tokens_not_guessed_from_characters(tmp_path: Path) -> None:
    """A file of long identifiers packs more than 3.2 characters into a token: one within
    ``max_file_tokens`` stays whole in the block however many characters it has (the limit used
    to be ``max_file_tokens * 3.2`` characters, and a file just over it kept only its regions)."""
    body = "".join(f"    configuration_registry_entry_{i:04d} = resolve_configuration_value(registry, {i})\n"
                   for i in range(400))
    eng = engine(tmp_path, body, window=200_000)
    limit = eng.settings.memory.max_file_tokens
    assert len(body) > limit * 3.2 and eng.counter.count(body) < limit
    edit_then_compact(eng, body)
    entry = next(it.content for it in eng.block.items if it.id == "f:big.py")
    assert "configuration_registry_entry_0000" in entry and "configuration_registry_entry_0399" in entry


def test_a_file_over_its_token_limit_is_cut_within_it(tmp_path: Path) -> None:
    body = big_file(3000)
    eng = engine(tmp_path, body, window=200_000)
    edit_then_compact(eng, body)
    entry = next(it for it in eng.block.items if it.id == "f:big.py")
    limit = eng.window.token_limit(eng.files.files["big.py"])
    assert eng.counter.count(body) > limit
    assert limit * 0.8 <= entry.tokens <= limit + 60
