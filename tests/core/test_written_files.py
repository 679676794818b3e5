"""Scripts the agent created, only wrote whole and ran leave the block when idle; edited files stay.

A scratch script (``reproduce.py``, ``test_debug.py``) written once and run does not need its text
carried for the rest of the task; a file the task edits does (issue 10 item 4), and so does a file
the agent created and never ran as a program — a new module or a new test is part of the change.  The release happens
only at a block rebuild (a compaction event), so between events the request stays append-only.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent.toolctx import EngineToolContext
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.tools.fs_write import write_file
from tests.core.core_helpers import call, request_text

SCRATCH = "import mod\nprint(mod.check(1))  # scratch-marker\n"
SOURCE = "def check(x):\n    return x + 1  # source-marker\n"
NAMED = "EXPECTED = 2  # named-marker\n"


def steps(eng: ContextEngine, n: int, tag: str) -> None:
    for k in range(n):
        eng.add_assistant(f"{tag} {k}.", [call(f"{tag}{k}", command="pytest -q")])
        eng.add_tool_result(f"{tag}{k}", "run_command", f"{tag} {k}: 1 passed")


def session(tmp_path: Path) -> ContextEngine:
    eng = ContextEngine(Settings.default(window=32_768), workspace=tmp_path)
    eng.add_user("Fix mod.check so that tests/expected.py passes")
    eng.add_assistant("Writing files.", [call("w1", name="write_file", path="reproduce.py")])
    eng.add_tool_result("w1", "write_file", "Created reproduce.py")
    eng.note_file_edit("reproduce.py", SCRATCH, kind="create")
    eng.note_file_edit("mod.py", SOURCE, kind="edit")
    eng.note_file_edit("tests/expected.py", NAMED, kind="create")  # named by the task
    run_script(eng, "r1")
    return eng


def run_script(eng: ContextEngine, cid: str) -> None:
    eng.add_assistant("Running it.", [call(cid, command="cd /w && python3 -u ./reproduce.py 2>&1 | tail -5")])
    eng.add_tool_result(cid, "run_command", "2")


def test_an_idle_scratch_file_leaves_at_the_next_event_and_edited_or_named_files_stay(tmp_path: Path) -> None:
    eng = session(tmp_path)
    after = eng.settings.memory.release_written_after_steps
    steps(eng, after + 2, "a")
    before = request_text(eng.assemble().messages)
    assert "scratch-marker" in before  # no event yet: what was sent stays (append-only)
    eng.compact(force=True)
    asm = eng.assemble()
    text = request_text(asm.messages)
    assert "scratch-marker" not in text
    assert "source-marker" in text and "named-marker" in text
    assert "reproduce.py" not in eng.files.files
    assert any(t.item_id == "f:reproduce.py" and not t.included and "a script the agent wrote and ran" in t.reason
               for t in asm.trace)


def test_a_scratch_file_touched_recently_or_edited_in_part_stays(tmp_path: Path) -> None:
    eng = session(tmp_path)
    after = eng.settings.memory.release_written_after_steps
    steps(eng, after + 2, "a")
    eng.note_file_read("reproduce.py", SCRATCH)  # read again: touched now
    eng.compact(force=True)
    assert "scratch-marker" in request_text(eng.assemble().messages)
    eng.note_file_edit("reproduce.py", SCRATCH.replace("1))", "2))"), kind="edit")  # now worked on
    steps(eng, after + 2, "b")
    eng.compact(force=True)
    assert "print(mod.check(2))" in request_text(eng.assemble().messages)
    assert "reproduce.py" in eng.files.files


def test_a_whole_rewrite_of_the_agents_own_file_keeps_it_releasable(tmp_path: Path) -> None:
    eng = session(tmp_path)
    eng.note_file_edit("reproduce.py", SCRATCH + "# v2\n", kind="write")
    steps(eng, eng.settings.memory.release_written_after_steps + 2, "a")
    eng.compact(force=True)
    assert "reproduce.py" not in eng.files.files


async def test_the_write_tool_tells_the_engine_it_created_the_file(tmp_path: Path) -> None:
    eng = ContextEngine(Settings.default(window=32_768), workspace=tmp_path)
    ctx = EngineToolContext(eng, tmp_path)
    eng.add_user("add a helper script")
    result = await write_file({"path": "scratch.py", "content": SCRATCH}, ctx)
    assert not result.is_error, result.text
    assert [p for p, af in eng.files.files.items() if af.written] == ["scratch.py"]
    (tmp_path / "kept.py").write_text(SOURCE)
    eng.note_file_read("kept.py", SOURCE)
    result = await write_file({"path": "kept.py", "content": SOURCE + "# more\n"}, ctx)
    assert not result.is_error, result.text
    written = [p for p, af in eng.files.files.items() if af.written]
    assert written == ["scratch.py"]  # overwriting a file that existed is not creating it


def test_a_scratch_file_stays_releasable_after_a_resume(tmp_path: Path) -> None:
    from agent_tui.store.workspace import Workspace

    ws = Workspace(tmp_path, settings=Settings.default(window=32_768))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Fix mod.check so that tests/expected.py passes")
        eng.note_file_edit("reproduce.py", SCRATCH, kind="create")
        eng.note_file_edit("mod.py", SOURCE, kind="create")
        eng.note_file_edit("mod.py", SOURCE + "# fixed\n", kind="edit")  # created, then worked on
        run_script(eng, "r1")
        steps(eng, 2, "a")
        eng.assemble()
        again = ws.engine(eng.session_id)  # a restart: the engine is rebuilt from the store
        scratch = again.files.files["reproduce.py"]
        assert scratch.written and scratch.ran and not again.files.files["mod.py"].written
        steps(again, again.settings.memory.release_written_after_steps + 2, "b")
        again.compact(force=True)
        text = request_text(again.assemble().messages)
        assert "scratch-marker" not in text and "reproduce.py" not in again.files.files
        assert "# fixed" in text
    finally:
        ws.close()


def test_a_file_the_agent_created_but_never_ran_stays_protected(tmp_path: Path) -> None:
    """A new module, or a new test its project's runner runs (``pytest tests/test_new.py`` runs
    pytest, not the file), is part of the change: it stays for the task however long it is idle."""
    eng = ContextEngine(Settings.default(window=32_768), workspace=tmp_path)
    eng.add_user("Add a registry module")
    eng.note_file_edit("lib/registry.py", SOURCE, kind="create")
    eng.note_file_edit("tests/test_registry.py", NAMED, kind="create")
    eng.add_assistant("Testing.", [call("t1", command="python -m pytest tests/test_registry.py -q")])
    eng.add_tool_result("t1", "run_command", "1 passed")
    steps(eng, eng.settings.memory.release_written_after_steps + 2, "a")
    eng.compact(force=True)
    text = request_text(eng.assemble().messages)
    assert "source-marker" in text and "named-marker" in text
    assert not eng.files.files["lib/registry.py"].ran and not eng.files.files["tests/test_registry.py"].ran


def test_a_script_run_in_the_command_that_wrote_it_counts_as_run(tmp_path: Path) -> None:
    """``cat > x.py << EOF … EOF`` then ``python x.py`` in one command: the run comes before the
    engine learns of the file; the heredoc's body is not read as commands."""
    eng = ContextEngine(Settings.default(window=32_768), workspace=tmp_path)
    eng.add_user("Fix mod.check")
    command = "cat > reproduce.py << 'EOF'\nimport os\npython other.py\nEOF\npython reproduce.py"
    eng.add_assistant("Reproducing.", [call("w1", command=command)])
    eng.add_tool_result("w1", "run_command", "2")
    eng.note_file_edit("reproduce.py", SCRATCH, kind="create")
    eng.note_file_edit("other.py", SOURCE, kind="create")
    assert eng.files.files["reproduce.py"].ran and not eng.files.files["other.py"].ran
