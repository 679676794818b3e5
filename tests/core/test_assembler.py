"""The assembler: fixed order, the trace's reasons, valid pairing and roles, the breakdown."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.assembler import SECTION_HEADERS
from agent_tui.core.block import FILE_HEADER
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import Category, State
from agent_tui.core.pairing import CONTINUATION, check_pairing
from tests.core.core_helpers import call, filler, request_text


def engine(window: int = 32_768) -> ContextEngine:
    return ContextEngine(Settings.default(window=window))


def reasons(asm: object, item_id: str) -> list[tuple[bool, str]]:
    return [(t.included, t.reason) for t in asm.trace if t.item_id == item_id]  # type: ignore[attr-defined]


def test_request_order_is_fixed() -> None:
    """head (system prompt, pins) → compaction block (files, summary segments, then memo and recalls)
    → history → tail."""
    eng = engine(window=8_192)
    eng.set_system_prompt("SYSTEM PROMPT HERE")
    eng.pin_rule("RULE: use pnpm, never npm")
    for n in range(1, 30):  # enough history for a rolling summary
        eng.add_user(f"Please implement feature {n}. " + filler(f"u{n}", 60))
        eng.add_assistant(f"I decided to implement feature {n} with a small module.")
        eng.assemble()
    eng.save_memo("MEMO: the parser is done, the CLI is left")
    eng.note_file_read("src/cli.py", "FILE: def cli(): pass\n")
    eng.compact(force=True)  # an event: the block now carries the summary, the memo and the file
    assert eng.summary_item is not None
    eng.add_user("Now the CLI. " + filler("task", 10))
    eng.add_recalled([{"kind": "capsule", "id": 7, "content": "RECALLED: the team prefers tabs", "score": 0.9}])
    eng.add_assistant("Running both.", [call("c1", command="ls"), call("c2", command="git status")])
    eng.add_tool_result("c1", "run_command", "RESULT ONE")
    eng.add_tool_result("c2", "run_command", "RESULT TWO")
    asm = eng.assemble(tools=[{"type": "function", "function": {"name": "ls", "parameters": {}}}])
    msgs = asm.messages
    head, file_msg, summary, block = (m["content"] for m in msgs[:4])
    assert msgs[0]["role"] == msgs[1]["role"] == msgs[2]["role"] == msgs[3]["role"] == "system"
    assert all(m["role"] != "system" for m in msgs[4:])
    order = [head.index(x) for x in ("SYSTEM PROMPT HERE", SECTION_HEADERS[Category.RULES], "RULE: use pnpm")]
    assert order == sorted(order)
    assert file_msg.startswith(FILE_HEADER) and "FILE: def cli()" in file_msg  # the file first, on its own
    assert summary.startswith(SECTION_HEADERS[Category.SUMMARY]) and "feature" in summary  # one segment
    order = [block.index(x) for x in (SECTION_HEADERS[Category.MEMORY], "MEMO: the parser is done")]
    assert order == sorted(order) and "FILE: def cli()" not in block and "feature" not in block
    assert asm.cache_breakpoints[:3] == [0, 2, 3]  # the head, the block's last segment, the memo
    # History after the block; the recalled memory is a note right after the user's message.
    task = next(m for m in msgs if m["role"] == "user" and m["content"].startswith("Now the CLI."))
    assert "RECALLED: the team prefers tabs" in task["content"] and "for reference" in task["content"]
    # This turn's results last, each right after its call.
    assert msgs[-3]["role"] == "assistant" and [c["id"] for c in msgs[-3]["tool_calls"]] == ["c1", "c2"]
    assert [(m["role"], m.get("tool_call_id")) for m in msgs[-2:]] == [("tool", "c1"), ("tool", "c2")]
    assert msgs[-2]["content"] == "RESULT ONE" and msgs[-1]["content"] == "RESULT TWO"
    assert asm.cache_breakpoints[-1] == len(msgs) - 1  # no status line to say: the history ends the request
    # The one-line status (the tail) joins the last message when it has something to say.
    noted = eng.assemble(status_note="NOTE").messages
    assert noted[-1]["content"].startswith("RESULT TWO") and "[context:" in noted[-1]["content"]
    assert check_pairing(msgs) == []

    # The breakdown counts every category it sent.
    cats = asm.breakdown.categories
    for c in ("system", "rules", "tools", "memory", "summary", "files", "history", "results"):
        assert cats[c] > 0, c
    assert sum(cats.values()) == asm.breakdown.total  # the request overhead is system framing
    # The trace explains every item.
    assert reasons(asm, "rule1") == [(True, "pinned")]
    assert (True, "active file (protected)") in reasons(asm, "f:src/cli.py")
    assert (True, "current task") in reasons(asm, task_id(eng, "Now the CLI."))
    assert reasons(asm, "t1")[0][1] == "latest step"
    summarised = [i for i in eng.items.values() if i.state == State.SUMMARISED and i.role]
    assert summarised
    s0 = summarised[0]
    assert reasons(asm, s0.id) == [(False, f"summarised into {s0.summarised_into}")]
    old_sums = [i for i in eng.items.values() if i.category == Category.SUMMARY and i is not eng.summary_item]
    for s in old_sums:
        assert reasons(asm, s.id)[0][0] is False and reasons(asm, s.id)[0][1].startswith("superseded by")
    assert asm.item_ids[0] == "sys"


def task_id(eng: ContextEngine, prefix: str) -> str:
    return next(i for i in eng.order if eng.items[i].role == "user" and eng.items[i].content.startswith(prefix))


def test_older_history_left_out_with_a_reason_when_it_does_not_fit() -> None:
    from tests.core.core_helpers import AlwaysFails

    eng = ContextEngine(Settings.default(window=4_096), summarisers=[AlwaysFails()])
    for n in range(1, 12):
        eng.add_user(filler(f"u{n}", 200))
        eng.add_assistant(filler(f"a{n}", 100))
    asm = eng.assemble()
    assert asm.breakdown.total <= asm.breakdown.input_budget and not asm.breakdown.over_budget
    assert reasons(asm, "m1") == [(False, "over budget (older history)")]
    assert eng.items["m1"].state == State.IN  # left out of this request, not dropped
    kept = [i for i in asm.item_ids if i.startswith("m")]
    # Contiguous from the newest backwards.
    nums = sorted(int(i[1:]) for i in kept)
    assert nums == list(range(nums[0], 23))


def test_orphan_tool_results_are_dropped() -> None:
    eng = engine()
    eng.add_user("hi")
    eng.add_tool_result("ghost", "run_command", "ORPHAN OUTPUT")
    eng.add_assistant("ok")
    asm = eng.assemble()
    assert "ORPHAN OUTPUT" not in request_text(asm.messages)
    assert check_pairing(asm.messages) == []
    assert reasons(asm, "t1") == [(False, "orphan tool result (its call is gone)")]


def test_interrupted_calls_get_a_synthetic_result() -> None:
    eng = engine()
    eng.add_user("run two things")
    eng.add_assistant("", [call("c1", command="sleep 100"), call("c2", command="echo hi")])
    eng.add_tool_result("c2", "run_command", "hi")
    eng.add_user("you were interrupted; go on")
    asm = eng.assemble()
    assert check_pairing(asm.messages) == []
    tools = [m for m in asm.messages if m["role"] == "tool"]
    assert {m["tool_call_id"] for m in tools} == {"c1", "c2"}
    synth = next(m for m in tools if m["tool_call_id"] == "c1")
    assert "interrupted" in synth["content"]
    # An assistant message with only calls has null content, as the APIs expect.
    asst = next(m for m in asm.messages if m["role"] == "assistant")
    assert asst["content"] is None


def test_roles_are_valid_whatever_the_history() -> None:
    eng = engine()
    eng.add_assistant("I start talking first.")  # e.g. a resumed session whose first turn was summarised
    eng.add_user("first")
    eng.add_user("second")  # two user turns in a row (the first got no answer)
    eng.add_assistant("a")
    eng.add_assistant("b")
    asm = eng.assemble()
    msgs = asm.messages
    assert check_pairing(msgs) == []
    assert msgs[1] == {"role": "user", "content": CONTINUATION}
    for a, b in zip(msgs[1:], msgs[2:], strict=False):
        assert not (a["role"] == b["role"] == "user")
        assert not (a["role"] == b["role"] == "assistant" and not a.get("tool_calls"))
    assert {m["role"] for m in msgs} <= {"system", "user", "assistant", "tool"}


def test_turn_scoped_output_is_stubbed_after_its_turn() -> None:
    eng = engine()
    eng.add_user("look")
    eng.add_assistant("", [call("c1", command="cat big.log")])
    big = filler("log", 800)
    eng.add_tool_result("c1", "run_command", big)
    assert big in request_text(eng.assemble().messages)
    eng.add_user("next question")
    assert big in request_text(eng.assemble().messages)  # append-only: it stays until an event...
    eng.compact(force=True)
    asm = eng.assemble()
    text = request_text(asm.messages)  # ...which stubs it; its whole text stays behind a handle
    assert big not in text and "dropped after its turn" in text and "fetch_result" in text
    handle = eng.items["t1"].provenance["handle"]
    assert eng.results.get(handle) == big  # nothing lost: the whole output is behind the handle
    assert check_pairing(asm.messages) == []


def test_user_evicted_and_restored_item_round_trip() -> None:
    eng = engine()
    eng.add_user("one")
    eng.add_assistant("let me check", [call("c1", command="ls")])
    out = eng.add_tool_result("c1", "run_command", filler("listing", 300), scope="session")
    eng.add_user("two")
    eng.evict("m2")
    asm = eng.assemble()
    text = request_text(asm.messages)
    assert "let me check" not in text and out.content not in text
    assert reasons(asm, "m2") == [(False, "evicted")]
    assert check_pairing(asm.messages) == []
    eng.restore("m2")
    asm = eng.assemble()
    text = request_text(asm.messages)
    assert "let me check" in text and out.content in text  # its result came back with it
    assert check_pairing(asm.messages) == []


def test_an_event_keeps_unchanged_files_byte_identical_ahead_of_the_changed_one() -> None:
    """Files whose text did not change keep their block message and place across an event (a
    provider's cache keeps serving them); the changed file and the summary follow."""
    eng = engine(window=16_384)
    for name in ("a", "b", "c"):
        eng.note_file_edit(f"src/{name}.py", f"FILE {name}: " + filler(name, 200))
    eng.add_user("Fix the three modules. " + filler("task", 20))
    eng.add_assistant("Working on it.")
    eng.compact(force=True)
    before = eng.assemble().messages
    files_before = [m["content"] for m in before if m["content"].startswith(FILE_HEADER)]
    assert [f[f.index("FILE "):][:6] for f in files_before] == ["FILE c", "FILE b", "FILE a"]
    eng.note_file_edit("src/c.py", "FILE c: changed " + filler("c2", 200))
    eng.add_assistant("Changed c.")
    eng.compact(force=True)
    after = eng.assemble().messages
    files_after = [m["content"] for m in after if m["content"].startswith(FILE_HEADER)]
    assert files_after[:2] == files_before[1:]  # b and a: the same bytes, now first
    assert "FILE c: changed" in files_after[2]
    assert [m["content"] for m in after[1:3]] == files_before[1:]


def test_a_restored_item_over_the_budget_is_reported_left_out() -> None:
    """A restore the budget cannot honour: the item's state is "in", but the request leaves it out, and
    ``left_out`` says why (the TUI's toast tells the user)."""
    eng = engine(window=4_000)
    eng.add_user("one " + filler("big", 6_000))
    eng.add_assistant("ok")
    eng.add_user("two")
    eng.evict("m1")
    eng.restore("m1")
    asm = eng.assemble()
    assert eng.items["m1"].state == "in"
    assert "m1" not in asm.item_ids
    assert eng.actions.left_out("m1") is not None and "over budget" in eng.actions.left_out("m1")
    assert eng.actions.left_out("m3") is None


def test_the_gauge_counts_each_item_under_the_category_the_inspector_lists(tmp_path: Path) -> None:
    """A tester pinned a tool output (results) and, once its turn was compacted away, the gauge showed it as
    528 tokens of "rules" in a session with no rules; earlier turns' outputs counted as history and file
    notes as history while the inspector listed them under results and files."""
    (tmp_path / "a.py").write_text("x = 1\n")
    eng = ContextEngine(Settings.default(window=16_384), workspace=tmp_path)
    eng.add_user("Fix the parser.")
    eng.add_assistant("run", [call("c0", command="pytest")])
    eng.add_tool_result("c0", "run_command", filler("out0", 300))
    pinned = eng.pin("t1")
    for k in range(1, 8):
        eng.add_assistant(f"step {k}", [call(f"c{k}", command="ls")])
        eng.add_tool_result(f"c{k}", "run_command", filler(f"o{k}", 300))
        eng.assemble()
    eng.add_assistant("Done.")
    eng.add_user("next")
    eng.compact(force=True)
    eng.add_assistant("read", [call("r1", name="read_file", path="a.py")])
    eng.add_tool_result("r1", "read_file", "x = 1\n", provenance={"path": "a.py"})
    eng.note_file_read("a.py", "x = 1\n")
    eng.note_file_edit("a.py", "x = 2\n")
    asm = eng.assemble()
    cats = asm.breakdown.categories
    assert any(t.item_id == "t1" and t.reason == "pinned" for t in asm.trace), "the pin rides in the head"
    assert cats["rules"] == 0, "no rule was pinned"
    assert cats["results"] >= pinned.tokens, "the pinned output is counted as what it is"
    note = next(it for it in eng.all_items() if it.category == Category.FILES and it.role == "user")
    assert cats["files"] >= note.tokens, "a file note is counted under files"
    outputs = [t for t in asm.trace if t.included and t.item_id.startswith("t") and t.item_id != "t1"]
    assert cats["results"] >= pinned.tokens + sum(t.tokens for t in outputs), "earlier turns' outputs too"


def test_an_unpinned_rule_is_no_longer_sent_and_says_so() -> None:
    """An unpinned rule said "waits for the next compaction event" and was never sent again: no event carries a
    rule.  It is left out with that said, across events too, and pinning it again sends it."""
    eng = engine(window=8_192)
    rule = eng.pin_rule("RULE: never touch test_app.py")
    eng.add_user("Go. " + filler("task", 20))
    assert "never touch test_app.py" in request_text(eng.assemble().messages)
    eng.unpin(rule.id)
    for _ in range(2):
        asm = eng.assemble()
        assert "never touch test_app.py" not in request_text(asm.messages)
        assert reasons(asm, rule.id) == [(False, "unpinned: no longer sent (pin it again to send it with every request)")]
        eng.compact(force=True)
        eng.add_user("Next. " + filler("next", 10))
    eng.pin(rule.id)
    assert "never touch test_app.py" in request_text(eng.assemble().messages)


def test_an_unpinned_rule_shows_as_out_and_a_restore_sends_it_again() -> None:
    """A tester: after `/unpin rule6` the inspector and `memory list` still said `in`, while the trace said it was no
    longer sent.  Its state says so now; restoring it (the inspector's action for an item that is out) pins it."""
    from agent_tui.core.items import State

    eng = engine(window=8_192)
    rule = eng.pin_rule("RULE: prefer small commits")
    eng.add_user("Go. " + filler("task", 20))
    eng.unpin(rule.id)
    assert eng.get(rule.id).state == State.EVICTED and not eng.get(rule.id).pinned
    assert "prefer small commits" not in request_text(eng.assemble().messages)
    eng.restore(rule.id)
    assert eng.get(rule.id).state == State.IN and eng.get(rule.id).pinned
    assert "prefer small commits" in request_text(eng.assemble().messages)
    old = eng.get(rule.id)  # a rule an older version unpinned: stored as "in"
    old.pinned, old.state = False, State.IN
    again = engine(window=8_192)
    again.load([old])
    assert again.get(rule.id).state == State.EVICTED, "shown as out, as it is"


def _one_event(eng: ContextEngine) -> None:
    """A compaction event the way the agent makes one (plan, summary, apply), not through ``assemble``."""
    from agent_tui.core.summary import ExtractiveSummariser

    plan = eng.plan_compaction(force=True)
    assert plan is not None
    eng.apply_compaction(plan, ExtractiveSummariser().summarise(plan.summary_items, eng.summary), "extractive")


def test_a_status_line_stays_on_its_message_until_the_agents_compaction_event() -> None:
    """The line joined to a message stays on it in every later request; an event through the agent's path
    (not ``assemble``'s) let the old line ride on after it (found by a review)."""
    eng = engine(window=8_192)
    for n in range(1, 12):
        eng.add_user(f"Please implement feature {n}. " + filler(f"u{n}", 60))
        first = eng.assemble().messages
        eng.add_assistant(f"Feature {n} done.")
        again = eng.assemble().messages
        assert again[:len(first)] == first, "the request only grew at its end"
    assert eng.stuck
    _one_event(eng)
    assert eng.stuck == {}
    assert "[context:" not in request_text(eng.assemble().messages[:-1])


def test_a_status_line_on_a_merged_message_stays_too() -> None:
    """Two user messages in a row are one message on the wire; the line joined it and was gone from it in the
    next request (found by a review)."""
    eng = engine(window=8_192)
    eng.add_user("First thing. " + filler("a", 10))
    eng.add_user("Second thing. " + filler("b", 10))
    first = eng.assemble().messages
    assert "[context:" in first[-1]["content"]
    eng.add_assistant("On it.")
    assert eng.assemble().messages[:len(first)] == first
