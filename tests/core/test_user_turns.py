"""Two of the user's messages that end up side by side (a compaction folded the turns between them)
still read as two messages, the latest last, and the merged message keeps the bytes it was first sent
with, so the provider's cache of it survives."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.notes import NEXT_USER_MESSAGE, latest_user_words, user_messages
from agent_tui.core.pairing import check_pairing, normalise
from tests.core.core_helpers import call, filler

SYSTEM = {"role": "system", "content": "s"}


def test_two_user_messages_merged_are_told_apart_and_the_first_keeps_its_bytes() -> None:
    out = normalise([SYSTEM, {"role": "user", "content": "Fix the parser."}, {"role": "user", "content": "continue"}])
    assert len(out) == 2
    text = out[1]["content"]
    assert text.startswith("Fix the parser.")
    assert text == f"Fix the parser.\n\n{NEXT_USER_MESSAGE}\ncontinue"
    assert user_messages(text) == ["Fix the parser.", "continue"]
    assert latest_user_words(text) == "continue"


def test_engine_notes_join_without_the_mark_and_do_not_count_as_the_users_words() -> None:
    note = "[file note: a.py changed on disk]\nx = 2"
    after = normalise([SYSTEM, {"role": "user", "content": "go on"}, {"role": "user", "content": note}])[1]["content"]
    assert after == f"go on\n\n{note}"
    before = normalise([SYSTEM, {"role": "user", "content": note}, {"role": "user", "content": "go on"}])[1]["content"]
    assert before == f"go on\n\n{note}"
    three = normalise([SYSTEM, {"role": "user", "content": "task"}, {"role": "user", "content": note},
                       {"role": "user", "content": "and now the tests"}])[1]["content"]
    assert user_messages(three) == ["task", "and now the tests"]
    assert latest_user_words(three) == "and now the tests"


def test_after_a_compaction_the_kept_task_and_a_later_message_are_two_messages(tmp_path: Path) -> None:
    eng = ContextEngine(Settings.default(window=16_384), workspace=tmp_path)

    def steps(first: int, n: int) -> None:
        for k in range(first, first + n):
            eng.add_assistant(f"step {k}", [call(f"c{k}", command="ls")])
            eng.add_tool_result(f"c{k}", "run_command", filler(f"o{k}", 300))
            eng.assemble()

    eng.add_user("Fix the parser. Never touch setup.py.")
    steps(0, 6)
    eng.add_assistant("Done with the parser.")
    eng.add_user("continue with the lexer")
    steps(6, 3)
    eng.add_assistant("Done.")
    eng.compact(force=True)  # folds the turns between the two messages the engine keeps
    eng.add_user("Now add a test for the parser.")
    msgs = eng.assemble().messages
    assert check_pairing(msgs) == []
    merged = next(m["content"] for m in msgs if m["role"] == "user" and "Fix the parser." in m["content"])
    assert merged.startswith("Fix the parser. Never touch setup.py.")
    assert user_messages(merged) == ["Fix the parser. Never touch setup.py.", "continue with the lexer"]
