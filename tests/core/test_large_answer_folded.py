"""A finished answer too large for the window is folded at the next message, not silently left out.

A tester's model answered with more tokens than the window had free.  At the next message the engine kept
that answer as "the latest step", no event ran, and the assembler left it and the question before it out
of the request ("over budget"), with no compaction note: the model answered the follow-up knowing nothing of
the exchange, and the inspector still showed both as in.  Now the answer is folded into the summary (its
start and headings, its id to recall it by) and the question stays."""

from __future__ import annotations

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import State
from tests.core.core_helpers import call, request_text


def _answer(sections: int) -> str:
    return "Here is the plan in detail.\n\n" + "\n\n".join(
        f"## Step {k}\n\nThis part explains step {k} at length, " + "with many words " * 12 for k in range(sections))


def test_an_answer_over_the_window_is_folded_and_the_question_stays() -> None:
    eng = ContextEngine(Settings.default(model="openai/x", window=6000), store=None)
    eng.add_user("Explain the whole plan, long please")
    eng.assemble()
    answer = eng.add_assistant(_answer(120), None)
    assert answer.tokens > eng.plan.input_budget
    eng.end_turn()
    eng.add_user("short follow-up")
    asm = eng.assemble()
    assert asm.compaction is not None and asm.compaction.ok and answer.id in asm.compaction.evicted
    text = request_text(asm.messages)
    assert "Explain the whole plan, long please" in text, "the question the follow-up refers to is sent"
    assert "Here is the plan in detail. | Step 0 | Step 1" in text and f"[{answer.id}]" in text
    assert not [t for t in asm.trace if not t.included and "over budget" in t.reason]
    assert eng.items[answer.id].state == State.SUMMARISED


def test_an_answer_that_fits_stays_verbatim_for_the_next_message() -> None:
    eng = ContextEngine(Settings.default(model="openai/x", window=32_000), store=None)
    eng.add_user("Explain the plan")
    eng.assemble()
    for k in range(3):  # (rounds a forced event may evict: it keeps the latest two steps)
        eng.add_assistant("Reading it.", [call(f"c{k}", name="read_file", path=f"plan{k}.md")])
        eng.add_tool_result(f"c{k}", "read_file", "the plan, read " * 40)
    answer = eng.add_assistant(_answer(6), None)
    eng.end_turn()
    eng.add_user("do step 2")
    done = eng.compact(force=True)  # (an event that evicts all it may: a fitting answer is not among it)
    assert done is not None and done.evicted and answer.id not in done.evicted
    text = request_text(eng.assemble().messages)
    assert answer.content in text and eng.items[answer.id].state == State.IN
