"""A file the model wrote whole is in the request once: the write call's arguments show it.

Before, the write's own call carried the text and a file note appended after it carried it again,
so every following request paid for the file twice until the next compaction event.  An edit to
that file later still gets its changed region in a note (what the request shows is the call's text),
and when the call's long arguments are shortened (a context-window retry) the file is shown again.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from tests.core.core_helpers import call, request_text
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn

BODY = "".join(f"def helper_{k}(x):\n    return x * {k}  # written-marker-{k}\n\n" for k in range(40))


def _text(req: object) -> str:
    out = []
    for m in req.messages:  # type: ignore[attr-defined]
        out.append(str(m.get("content") or ""))
        for c in m.get("tool_calls") or []:
            out.append(str((c.get("function") or {}).get("arguments") or ""))
    return "\n".join(out)


async def test_a_written_file_is_sent_once_and_its_later_edit_as_a_region(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("write_file", {"path": "helpers.py", "content": BODY}),
                      Reply.tool_call("run_command", {"command": "echo looked"}),
                      Reply.tool_call("edit_file", {"path": "helpers.py", "old_text": "x * 7  # written-marker-7",
                                                    "new_text": "x * 70  # edited-marker"}),
                      Reply.text("done"))
        agent, ws = make_agent(root, server.base_url, window=64_000)
        try:
            await run_turn(agent, "Add the helpers module")
        finally:
            ws.close()
        after_write, after_run, after_edit = server.chat_requests[1:4]
    assert (root / "helpers.py").read_text() == BODY.replace("x * 7  # written-marker-7", "x * 70  # edited-marker")
    for req in (after_write, after_run):
        assert _text(req).count("written-marker-23") == 1, "the write call shows the text; no note repeats it"
        assert "[file note: current text of helpers.py" not in _text(req)
    edited = _text(after_edit)
    assert "edited-marker" in edited
    assert edited.count("written-marker-23") == 1, "the edit's note shows the changed region, not the file again"


def test_a_write_whose_text_the_file_does_not_hold_gets_its_note(tmp_path: Path) -> None:
    """The tool wrote something else than the call's text (a formatter ran, or the write changed it):
    the request shows what the file holds, in a note."""
    eng = ContextEngine(Settings.default(window=64_000), workspace=tmp_path)
    eng.add_user("Add the helpers module")
    eng.add_assistant("Writing.", [call("w1", name="write_file", path="helpers.py")])
    eng.note_file_edit("helpers.py", BODY + "# changed-by-formatter\n", kind="create")
    eng.add_tool_result("w1", "write_file", "Created helpers.py")
    eng.window.note_written("helpers.py", "w1", BODY)
    assert "changed-by-formatter" in request_text(eng.assemble().messages)
    eng.note_file_edit("helpers.py", BODY, kind="write")
    eng.window.note_written("helpers.py", "w1", BODY.replace("\n", "\r\n"))  # line endings aside, it holds it
    assert eng.files.files["helpers.py"].shown_by == eng.order[1]


async def test_shortened_write_arguments_bring_the_file_back(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("write_file", {"path": "helpers.py", "content": BODY}),
                      Reply.text("done"))
        agent, ws = make_agent(root, server.base_url, window=64_000)
        try:
            await run_turn(agent, "Add the helpers module")
            eng = agent.engine
            assert _text_of(eng).count("written-marker-23") == 1
            agent._shorten_old_calls()
            text = _text_of(eng)
        finally:
            ws.close()
    assert "shortened after the call ran" in text
    assert text.count("written-marker-23") == 1, "the file is shown again, in a note"
    assert "[file note: current text of helpers.py" in text


def _text_of(eng: object) -> str:
    class _Req:
        messages = eng.assemble().messages  # type: ignore[attr-defined]
    return _text(_Req)
