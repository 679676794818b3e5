"""A request over its budget gives up the long arguments of calls that already ran before it is sent.

In a small window the task, the latest step and the protected files can be all a request holds; a step
whose call wrote a long heredoc (its result says what it did) put the request past the window, and only a
server's refusal (a wasted round trip; Ollama refuses nothing, it cuts) made the loop shorten it.  The
engine now shortens them itself when a request is over budget; a call not yet answered is never touched."""

from __future__ import annotations

import json

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from tests.core.core_helpers import call, filler


def _heredoc(tag: str, words: int) -> str:
    return f"cat > fix_{tag}.py << 'EOF'\n{filler(tag, words)}\nEOF"


def _session(window: int, task_words: int, heredoc_words: int) -> ContextEngine:
    """A task, then a step whose command wrote a heredoc and succeeded."""
    e = ContextEngine(Settings.default(window=window))
    e.add_user("TASK-MARK " + filler("task", task_words))
    e.add_assistant("Writing the fix.", [call("c1", command=_heredoc("a", heredoc_words))])
    e.add_tool_result("c1", "run_command", "<returncode>0</returncode>")
    return e


def _written(e: ContextEngine) -> str:
    """The command of the engine's one call, as the engine keeps it."""
    (item,) = [it for it in e.items.values() if it.tool_calls]
    return str(json.loads(item.tool_calls[0]["function"]["arguments"])["command"])


def test_an_over_budget_request_shortens_the_calls_that_ran_and_fits() -> None:
    e = _session(8_000, 2_600, 4_000)
    asm = e.assemble()
    sent = [c for m in asm.messages for c in m.get("tool_calls") or []]
    assert [c["id"] for c in sent] == ["c1"]
    assert len(sent[0]["function"]["arguments"]) < len(_heredoc("a", 4_000)) // 4
    assert json.loads(sent[0]["function"]["arguments"])  # still the JSON of a call
    assert not asm.breakdown.over_budget and asm.breakdown.total <= asm.breakdown.window
    assert "TASK-MARK" in json.dumps(asm.messages)  # the task stays


def test_a_request_within_budget_keeps_every_call_as_written() -> None:
    e = _session(64_000, 2_600, 4_000)
    asm = e.assemble()
    sent = [c for m in asm.messages for c in m.get("tool_calls") or []]
    assert json.loads(sent[0]["function"]["arguments"])["command"] == _heredoc("a", 4_000)


def test_a_preview_never_changes_the_history() -> None:
    """The gauge's preview assembly (``log=False``) reports the request as it stands; only the loop's
    assembly (the request that goes out) shortens."""
    e = _session(8_000, 2_600, 4_000)
    preview = e.assemble(log=False)
    assert preview.breakdown.over_budget
    assert _written(e) == _heredoc("a", 4_000)


def test_a_call_whose_result_is_an_error_keeps_its_arguments() -> None:
    """A write that failed (a missing folder) is sent again, mended: the model needs its text (a reviewer's
    finding: it was shortened like any call that ran)."""
    e = ContextEngine(Settings.default(window=8_000))
    e.add_user("TASK-MARK " + filler("task", 2_600))
    body = filler("new", 3_500) + " UNIQUE-END-MARK"
    e.add_assistant("Writing b.py", [call("c1", name="write_file", path="no/such/b.py", content=body)])
    e.add_tool_result("c1", "write_file", "Error: no/such does not exist", provenance={"error": True})
    asm = e.assemble()
    sent = {c["id"]: json.loads(c["function"]["arguments"]) for m in asm.messages for c in m.get("tool_calls") or []}
    assert sent["c1"]["content"] == body
    (failed,) = [it for it in e.items.values() if it.tool_calls and it.tool_calls[0]["id"] == "c1"]
    assert json.loads(failed.tool_calls[0]["function"]["arguments"])["content"] == body


def test_nothing_is_shortened_when_it_would_not_bring_the_request_within_budget() -> None:
    e = _session(8_000, 6_700, 400)
    asm = e.assemble()
    assert asm.breakdown.over_budget
    assert _written(e) == _heredoc("a", 400)
