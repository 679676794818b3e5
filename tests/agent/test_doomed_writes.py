"""A write or edit that cannot apply is not put to the user: a tester was shown a diff deleting the line
they had just added on disk, approved it, and only then read "Refused: changed on disk since you last read
it".  The refusal now comes before the dialog; a write that can apply is still asked about, and the check
runs again when it runs (the file may change while the dialog is open)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from tests.agent.helpers import make_agent, make_repo, run_turn
from tests.support.fake_openai import FakeOpenAI, Reply


async def _turn(root: Path, fake_llm: FakeOpenAI, calls: list[tuple[str, dict[str, Any]]],
                between: Any = None) -> tuple[list[ev.Event], list[ev.ApprovalRequested]]:
    asked: list[ev.ApprovalRequested] = []

    async def approver(req: ev.ApprovalRequested) -> str:
        asked.append(req)
        if between is not None:
            between()
        return "once"

    fake_llm.script(Reply.tool_calls([("read_file", {"path": "calc.py"})]),
                    *[Reply.tool_calls([c]) for c in calls], Reply.text("done"))
    agent, ws = make_agent(root, fake_llm.base_url, yes=False, approver=approver)
    try:
        agent.policy.default_write = "ask"
        events = await run_turn(agent, "change calc.py")
    finally:
        ws.close()
    return events, asked


def _results(events: list[ev.Event]) -> list[ev.ToolCallFinished]:
    return [e for e in events if isinstance(e, ev.ToolCallFinished)]


async def test_a_write_to_a_stale_or_unread_file_is_refused_without_asking(tmp_path: Path,
                                                                          fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "p")
    calls = [("write_file", {"path": "calc.py", "content": "x = 1\n"}),
             ("write_file", {"path": "test_calc.py", "content": "# gone\n"}),  # never read
             ("write_file", {"path": "notes.txt", "content": "new file\n"})]
    asked: list[ev.ApprovalRequested] = []

    async def approver(req: ev.ApprovalRequested) -> str:
        asked.append(req)
        return "once"

    fake_llm.script(Reply.tool_calls([("read_file", {"path": "calc.py"})]),
                    *[Reply.tool_calls([c]) for c in calls], Reply.text("done"))
    agent, ws = make_agent(root, fake_llm.base_url, yes=False, approver=approver)
    events: list[ev.Event] = []
    try:
        agent.policy.default_write = "ask"
        async for e in agent.run("change calc.py"):
            events.append(e)
            if isinstance(e, ev.ToolCallStarted) and e.name == "write_file" and e.arguments.get("path") == "calc.py":
                with (root / "calc.py").open("a") as fh:  # the user saves calc.py as the agent decides to write
                    fh.write('USER_LINE = "mine, do not lose"\n')
    finally:
        ws.close()
    done = _results(events)
    assert [e.name for e in done] == ["read_file", "write_file", "write_file", "write_file"]
    assert done[1].is_error and "changed on disk since you last read it" in done[1].text
    assert done[2].is_error and "read 'test_calc.py' first" in done[2].text
    assert [r.path for r in asked] == ["notes.txt"], "only the write that can apply was asked about"
    assert (root / "notes.txt").read_text() == "new file\n"
    assert "USER_LINE" in (root / "calc.py").read_text() and "def add" in (root / "calc.py").read_text()


async def test_an_edit_whose_text_is_not_there_is_refused_without_asking(tmp_path: Path,
                                                                        fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "p")
    events, asked = await _turn(root, fake_llm, [
        ("edit_file", {"path": "calc.py", "old_text": "return a * b * c", "new_text": "return 0"}),
        ("edit_file", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"})])
    done = _results(events)
    assert done[1].is_error and "return a * b * c" not in (root / "calc.py").read_text()
    assert "not found" in done[1].text.lower() or "does not occur" in done[1].text.lower(), done[1].text
    assert len(asked) == 1 and "return a + b" in asked[0].preview
    assert "return a + b" in (root / "calc.py").read_text()


async def test_a_file_changed_while_the_dialog_is_open_is_still_refused(tmp_path: Path,
                                                                       fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "p")

    def user_edits() -> None:
        with (root / "calc.py").open("a") as fh:
            fh.write("# edited while the dialog was open\n")

    events, asked = await _turn(root, fake_llm, [
        ("edit_file", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"})], user_edits)
    done = _results(events)
    assert len(asked) == 1 and done[1].is_error and "changed on disk" in done[1].text
    assert "return a - b" in (root / "calc.py").read_text()
