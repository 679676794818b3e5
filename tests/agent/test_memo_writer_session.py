"""The extractive memo (the fallback writer, and the demo's) names the files the session changed.

It looked at the last turn only: after a turn that only asked a question it said "Changed: no files
changed", and that memo is what a fresh session (/new) starts from."""

from __future__ import annotations

from agent_tui.agent.memo_writer import extractive_memo
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from tests.core.core_helpers import call, filler


def test_a_memo_after_a_question_still_names_the_files_changed_earlier() -> None:
    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user("fix the restock bug in inventory/stock.py")
    eng.add_assistant("Fixing it.", [call("c1", "edit_file", path="inventory/stock.py", old_text="<", new_text="<=")])
    eng.add_tool_result("c1", "edit_file", "Edited inventory/stock.py: 1 line")
    eng.add_assistant("Fixed.")
    for n in range(8):
        eng.add_user(f"question {n}: " + filler(f"q{n}", 60))
        eng.add_assistant(f"Answer {n}.")
    assert eng.compact(force=True) is not None  # the edit is folded into the summary
    eng.add_user("What does most_valuable do?")
    eng.add_assistant("It returns the item with the highest value.")
    memo = extractive_memo(eng)
    first = memo.splitlines()[0]
    assert "no files changed in this turn" in first and "earlier in this session: inventory/stock.py" in first



def test_a_file_the_user_undid_is_not_reported_changed_until_edited_again() -> None:
    """A tester: after /undo put statkit/core.py back, the next memo (which seeds /new) still said "Changed:
    statkit/core.py"."""
    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user("fix the median in statkit/core.py")
    eng.add_assistant("Fixing.", [call("c1", "edit_file", path="statkit/core.py", old_text="a", new_text="b")])
    eng.add_tool_result("c1", "edit_file", "Edited statkit/core.py: 1 line")
    eng.add_assistant("Fixed.")
    eng.add_note("[Note from agent-tui: the user undid your file changes of turn 1: restored statkit/core.py.]",
                 "undo", undone=["statkit/core.py"])
    first = extractive_memo(eng).splitlines()[0]
    assert "Changed: no files changed" in first and "undone by the user (back as they were): statkit/core.py" in first
    assert "earlier in this session: statkit/core.py" not in first
    eng.add_user("do it again, differently")
    eng.add_assistant("Again.", [call("c2", "edit_file", path="statkit/core.py", old_text="a", new_text="c")])
    eng.add_tool_result("c2", "edit_file", "Edited statkit/core.py: 1 line")
    first = extractive_memo(eng).splitlines()[0]
    assert first.startswith("Changed: statkit/core.py") and "undone" not in first


async def test_a_memo_that_echoes_its_instruction_is_not_saved(tmp_path, fake_llm) -> None:
    """A reply that repeated the prompt ("echo: Write a progress memo…") was saved as the memo the next
    session starts from; the summariser already refused the same."""
    from agent_tui.agent.prompts import render_prompt
    from tests.agent.helpers import make_agent, make_repo
    from tests.support.fake_openai import Reply

    root = make_repo(tmp_path / "p")
    fake_llm.script(Reply.text("echo: " + render_prompt("memo", max_words=150)))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        agent.engine.add_user("fix the restock bug in inventory/stock.py")
        agent.engine.add_assistant("Looking.")
        saved = await agent.write_memo("manual")
    finally:
        ws.close()
    assert fake_llm.requests, "the model was asked"
    assert "echo:" not in saved.text and "fix the restock bug" in saved.text, saved.text


def test_a_copied_memo_at_an_event_leaves_the_memo_written_for_the_task() -> None:
    """A tester: the model's precise `save_memo` was demoted to "replaced" four steps later by the pre-compaction
    copy of the turn's lines, and that copy is what seeded /new."""
    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user("fix the median and add a CLI")
    written = eng.save_memo("Fixed median (even + empty), added statkit/cli.py. Next: docs.", kind="manual")
    copied = eng.save_memo(extractive_memo(eng), kind="pre-compaction")
    assert copied is written and "Next: docs." in written.content and written.provenance["version"] == 1
    later = eng.save_memo("Docs written; next: the variance flag.", kind="manual")
    assert later is written and written.provenance["version"] == 2, "the task's own memos still roll"
    eng.add_assistant("Done: docs written.")
    eng.add_user("now the variance flag")  # (after an answer: a new task)
    fresh = eng.save_memo(extractive_memo(eng), kind="pre-compaction")
    assert fresh is not written, "a new task's copy starts its own memo"


async def test_compact_after_a_finished_task_leaves_the_models_end_of_task_memo(tmp_path, fake_llm) -> None:  # type: ignore[no-untyped-def]
    """A tester: `/compact` after a finished turn replaced the model's end-of-task memo ("Done: counter edits…")
    with the extractive pre-compaction copy of the turn's lines."""
    from agent_tui.agent import events as ev
    from tests.agent.helpers import make_agent, make_repo
    from tests.support.fake_openai import Reply

    root = make_repo(tmp_path / "proj")
    fake_llm.default_reply = lambda req: Reply.text(
        "Done: the restock bug is fixed in inventory/stock.py; next: the audit log." if "progress memo" in
        str(req["messages"][-1].get("content", "")).lower() else "Fixed it.")
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        for n in range(3):
            agent.engine.add_user(f"fix the restock bug in inventory/stock.py, part {n} " + "w " * 200)
            agent.engine.add_assistant(f"Fixed part {n}. " + "v " * 200)
        saved = await agent.write_memo("auto")
        assert "next: the audit log" in saved.text
        events = await agent.compact(force=True)
        assert any(isinstance(e, ev.Compacted) for e in events), events
        memo = agent.engine.items[saved.memo_id]
    finally:
        ws.close()
    assert "next: the audit log" in memo.content, memo.content
    assert memo.provenance.get("kind") == "auto"
