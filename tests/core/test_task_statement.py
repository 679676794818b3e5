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
