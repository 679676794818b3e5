"""The task statement stays verbatim in place through every compaction event of its task, also when another
user-role message arrives mid-task: a "continue" typed while the agent was still working, or a tool-format error an
agent framework feeds back as a user message.  A bench review: one such message made the task an earlier turn's
message, an event folded it to its first 600 characters, and the rules far down a long task left every request
(rule retention 18 % at an 8K window)."""

from __future__ import annotations

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import State
from agent_tui.core.task_statement import task_statement
from tests.core.core_helpers import call, filler, request_text

RULE = "Never modify the tests under tests/; run pytest -q before you submit."
TASK = "Fix the parser.\n" + filler("spec", 500) + "\n" + RULE


def _work(eng: ContextEngine, steps: int, tag: str) -> list[str]:
    """``steps`` tool steps; the text of every request."""
    texts = []
    for n in range(steps):
        eng.add_assistant(f"Step {n}.", [call(f"{tag}{n}", command="pytest -q")])
        eng.add_tool_result(f"{tag}{n}", "run_command", filler(f"{tag}{n}", 300))
        texts.append(request_text(eng.assemble().messages))
    return texts


def test_a_continue_typed_mid_task_leaves_the_task_in_every_request() -> None:
    eng = ContextEngine(Settings.default(window=8_192))
    task = eng.add_user(TASK)
    _work(eng, 3, "a")
    eng.add_user("continue")  # (the agent was still calling tools: the task goes on)
    texts = _work(eng, 40, "b")
    assert len(eng.compactions) >= 2
    assert all(RULE in text and "spec" in text for text in texts)
    assert task.state == State.IN and eng.task_item == task.id


def test_a_format_error_the_caller_marks_continues_the_task_even_after_a_reply() -> None:
    eng = ContextEngine(Settings.default(window=8_192))
    task = eng.add_user(TASK)
    eng.add_assistant("I think it is done.")  # (no tool call: an agent framework answers with a format error)
    eng.add_user("Please always provide EXACTLY ONE action.", continues=True)
    texts = _work(eng, 40, "c")
    assert eng.compactions and all(RULE in text for text in texts)
    assert eng.task_item == task.id


def test_a_message_after_an_answer_opens_a_new_task_and_the_old_one_may_be_folded() -> None:
    eng = ContextEngine(Settings.default(window=8_192))
    old = eng.add_user(TASK)
    _work(eng, 2, "d")
    eng.add_assistant("Fixed: the parser handles empty input now.")
    new = eng.add_user("Now rename parse() to parse_text() everywhere.")
    assert eng.task_item == new.id
    _work(eng, 2, "e")
    eng.add_assistant("Renamed.")
    newer = eng.add_user("Thanks. Last: add a docstring to parse_text().")
    assert eng.task_item == newer.id
    _work(eng, 40, "h")
    assert old.state == State.SUMMARISED and newer.state == State.IN, "two tasks ago: folded like any message"


def test_the_kept_task_is_named_in_the_trace_and_survives_a_resume() -> None:
    eng = ContextEngine(Settings.default(window=8_192))
    task = eng.add_user(TASK)
    _work(eng, 2, "f")
    eng.add_user("continue")
    _work(eng, 30, "g")
    reasons = {t.item_id: t.reason for t in eng.assemble().trace if t.included}
    assert reasons[task.id].startswith("task statement")
    items = [eng.items[i] for i in eng.order]
    assert task_statement(items) == task.id
    again = ContextEngine(Settings.default(window=8_192))
    again.load(items)
    assert again.task_item == task.id and again.answered is False


def test_a_reply_cut_by_a_failure_is_no_answer_and_a_user_stop_is() -> None:
    """A review: a reply cut short (a broken stream, the output limit, a failed request) is stored with no tool
    call, so it read as an answer and the "continue" after it opened a new task.  When the user stops the turn,
    what they send next is a new request: the old statement, however large, is not kept for it."""
    eng = ContextEngine(Settings.default(window=8_192))
    task = eng.add_user(TASK)
    eng.add_assistant("Half of an answ\n\n[cut: the model's stream broke]", None, provenance={"cut": True})
    eng.add_user("continue")
    assert eng.task_item == task.id
    eng.add_assistant("[no reply: the request failed (HTTP 500)]", None, provenance={"cut": True})
    eng.add_user("continue")
    assert eng.task_item == task.id
    eng.add_assistant("Running.", [call("x1", command="pytest -q")])
    eng.add_tool_result("x1", "run_command", "[stopped before this call finished]", provenance={"cancelled": True})
    new = eng.add_user("Forget that. Rename parse() instead.")
    assert eng.task_item == new.id
    eng.add_assistant("Renaming it" + "\n\n[cut: stopped]", None, provenance={"cut": True, "cancelled": True})
    newer = eng.add_user("No, leave the name.")
    assert eng.task_item == newer.id
    assert task_statement([eng.items[i] for i in eng.order]) == newer.id, "a resume decides alike"


def test_the_tasks_memo_rolls_across_the_turns_that_continue_it() -> None:
    """A review: memos were keyed by turn while a task now spans turns, so in a "continue" turn the copy made at
    an event replaced the model's own memo, and the copy ("Why: continue") seeded /new."""
    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user(TASK)
    _work(eng, 1, "m")
    written = eng.save_memo("Parser fixed for empty input; next: the CLI flag.", kind="manual")
    eng.add_user("continue")  # (the agent had not answered: the same task)
    copied = eng.save_memo("Changed: parser.py\\nWhy: continue", kind="pre-compaction")
    assert copied is written and "next: the CLI flag" in written.content
