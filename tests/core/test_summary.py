"""The extractive summariser and the rolling summary; decisions reach the store and outlive the window."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.items import Category, ContextItem
from agent_tui.core.summary import ExtractiveSummariser, Summary
from agent_tui.store.recall import recall
from agent_tui.store.workspace import Workspace
from tests.core.core_helpers import call, filler, request_text


def item(i: int, role: str, content: str, **kw: object) -> ContextItem:
    return ContextItem(id=f"m{i}", category=Category.HISTORY, content=content, tokens=len(content) // 4,
                       role=role, **kw)  # type: ignore[arg-type]


def result(i: int, command: str, content: str) -> ContextItem:
    return item(i, "tool", content, name="run_command", tool_call_id=f"c{i}",
                provenance={"command": command})


SESSION = [
    item(1, "user", "Fix the failing date parser. Never change the public API. Use pytest, not unittest."),
    item(2, "assistant", "I will read the parser first. The cause is a missing timezone offset. "
                         "TODO: add a regression test for +05:30.",
         tool_calls=[call("c3", command="pytest -q"), call("e1", name="edit_file", path="src/dates.py")]),
    result(3, "pytest -q", "collecting...\nFAILED tests/test_dates.py::test_tz - AssertionError: 0 != 330\n"
                           "1 failed, 41 passed in 0.8s"),
    item(4, "assistant", "Maybe the offset should be parsed by dateutil? I decided to parse it by hand instead."),
    result(5, "pytest -q", "42 passed in 0.7s"),
    item(6, "user", "Thanks. Please also keep the changelog updated."),
]


def test_facts_land_in_their_role_sections() -> None:
    s = ExtractiveSummariser().summarise(SESSION, None)
    sec = s.sections
    assert any("Never change the public API" in e.text for e in sec["instructions"])
    assert any("Use pytest, not unittest" in e.text for e in sec["instructions"])
    assert any("keep the changelog updated" in e.text for e in sec["instructions"])
    assert any("The cause is a missing timezone offset" in e.text for e in sec["decisions"])
    assert any("decided to parse it by hand" in e.text for e in sec["decisions"])
    assert any("regression test for +05:30" in e.text for e in sec["todos"])
    assert any("AssertionError: 0 != 330" in e.text for e in sec["errors"])
    assert any("edit_file src/dates.py" == e.text for e in sec["files"])
    # Every entry cites the item it was copied from, and the text is copied, not paraphrased.
    by_id = {i.id: i.content for i in SESSION}
    for entries in sec.values():
        for e in entries:
            assert e.source in by_id
    for e in sec["instructions"] + sec["decisions"] + sec["todos"]:
        assert e.text in by_id[e.source]
    rendered = s.render()
    assert rendered.index("User instructions") < rendered.index("Agent decisions") < rendered.index("Errors seen")


def test_newer_result_supersedes_older_for_the_same_command() -> None:
    s = ExtractiveSummariser().summarise(SESSION, None)
    results = [e.text for e in s.sections["results"]]
    assert results == ['run_command:{"command": "pytest -q"}: 42 passed in 0.7s'] or \
        (len(results) == 1 and "42 passed" in results[0])
    assert any("1 failed, 41 passed" in e.text for e in s.superseded)
    # Across compactions too: a later batch's result replaces the one in the rolling summary.
    later = ExtractiveSummariser().summarise([result(9, "pytest -q", "1 failed, 41 passed in 0.9s")], s)
    assert [e.source for e in later.sections["results"]] == ["m9"]
    assert any(e.source == "m5" for e in later.superseded)
    # Different commands do not supersede each other.
    other = ExtractiveSummariser().summarise([result(10, "ruff check", "All checks passed! exit code 0")], later)
    assert {e.source for e in other.sections["results"]} == {"m9", "m10"}


def test_uncertain_statements_are_marked_to_confirm() -> None:
    items = SESSION + [
        item(7, "assistant", "I think the root cause is a race in the cache. The fix is a lock around the writer."),
        item(8, "user", "Maybe we should use sqlite instead of the JSON file?"),
    ]
    s = ExtractiveSummariser().summarise(items, None)
    race = [e for e in s.sections["decisions"] if "race in the cache" in e.text]
    assert race and race[0].uncertain
    lock = [e for e in s.sections["decisions"] if "lock around the writer" in e.text]
    assert lock and not lock[0].uncertain
    sqlite = [e for e in s.sections["instructions"] if "sqlite" in e.text]
    assert sqlite and sqlite[0].uncertain
    sure = [e for e in s.sections["instructions"] if "Never change the public API" in e.text]
    assert sure and not sure[0].uncertain
    rendered = s.render()
    assert "(to confirm) I think the root cause is a race in the cache." in rendered
    assert "(to confirm) Maybe we should use sqlite instead of the JSON file?" in rendered


def test_the_summariser_is_deterministic() -> None:
    a = ExtractiveSummariser().summarise(SESSION, None)
    b = ExtractiveSummariser().summarise(list(SESSION), None)
    assert a.render() == b.render() and a.to_json() == b.to_json()
    assert Summary.from_json(a.to_json()).render() == a.render()


def test_summary_keeps_conclusions_not_exploration() -> None:
    chatter = [item(20 + i, "assistant", f"Let me look at file number {i} to see what is in it",
                    tool_calls=[call(f"r{i}", name="read_file", path=f"f{i}.py")]) for i in range(10)]
    s = ExtractiveSummariser().summarise(chatter, None)
    assert s.render() == ""
    assert s.covers == [i.id for i in chatter]


def test_an_answer_to_the_user_leaves_its_start_and_headings() -> None:
    """An answer (an assistant message with no tool call ends a turn) is what the user's next message refers
    to; folded, it used to leave nothing ("nothing worth keeping") when it held no decision or todo."""
    from agent_tui.core.summary import ANSWER_CHARS

    long = "Here are three options for the cache.\n\n## Option 1: LRU\n" + filler("a", 300) + \
        "\n\n## Option 2: TTL\n" + filler("b", 300) + "\n\n## Option 3: none\n" + filler("c", 300)
    s = ExtractiveSummariser().summarise([item(40, "assistant", long), item(41, "assistant", "All 4 tests pass.")], None)
    answers = [e.text for e in s.sections["answers"]]
    assert answers[0] == "Here are three options for the cache. | Option 1: LRU | Option 2: TTL | Option 3: none"
    assert answers[1] == "All 4 tests pass."
    assert all(len(a) <= ANSWER_CHARS + 4 for a in answers)
    assert "[m40]" in s.render()  # the id the whole answer is recalled by


def test_decisions_reach_the_store_and_outlive_the_window(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=8_192))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Fix the flaky upload test.")
        eng.add_assistant("I decided to switch to the zstandard codec for uploads.")
        for n in range(2, 120):
            eng.add_user(filler(f"u{n}", 40))
            eng.add_assistant(f"I decided to rename helper number {n} for clarity.")
            eng.assemble()
        decisions = [d["content"] for d in ws.store.decisions(eng.session_id)]
        key = "I decided to switch to the zstandard codec for uploads."
        assert key in decisions
        # Out of the window (and out of the summary's newest entries) but not forgotten.
        assert key not in request_text(eng.last.messages)  # type: ignore[union-attr]
        hits = recall(ws.store, "zstandard codec uploads", kinds=("decision",))
        assert hits and hits[0]["content"] == key
        # No duplicates when the same decision is folded again.
        assert len(decisions) == len(set(decisions))
    finally:
        ws.close()


SED = "cd /testbed && sed -i 's/getattr(field, .attname., None) != name:/getattr(field, \"attname\") != name:/' compiler.py"


def test_commands_that_edit_files_in_place_are_kept_verbatim() -> None:
    cmds = {
        "c1": SED,
        "c2": "git checkout -- django/db/models/sql/compiler.py",
        "c3": "perl -pi -e 's/foo/bar/g' setup.cfg",
        "c4": "cp settings.py settings.py.orig",
        "c5": "sed -n '120,160p' compiler.py",  # reads only
        "c6": "grep -rn 'attname' django | head -20",
        "c7": "cat <<'EOF' > repro.py\nprint(1)\nEOF",  # a whole-file write: its text is carried itself
        "c8": "python -m pytest -q 2>/dev/null | tail -3",
    }
    msgs = [item(i, "assistant", "", tool_calls=[call(cid, name="bash", command=c)])
            for i, (cid, c) in enumerate(cmds.items())]
    s = ExtractiveSummariser().summarise(msgs, None)
    kept = [e.text for e in s.sections["changes"]]
    assert kept == [cmds["c1"], cmds["c2"], cmds["c3"], cmds["c4"]]
    assert SED in s.render() and "Commands that changed files" in s.render()
    # A later batch adds to the section; the same command twice is kept once, the newest last.
    later = ExtractiveSummariser().summarise([item(20, "assistant", "", tool_calls=[call("d", name="bash",
                                                                                         command=SED)])], s)
    assert [e.text for e in later.sections["changes"]] == [cmds["c2"], cmds["c3"], cmds["c4"], SED]


def test_a_long_edit_command_keeps_its_start_and_end() -> None:
    long = "sed -i " + " ".join(f"-e 's/name{i}/other{i}/'" for i in range(60)) + " models.py"
    s = ExtractiveSummariser().summarise([item(1, "assistant", "", tool_calls=[call("c", name="bash",
                                                                                      command=long)])], None)
    (entry,) = s.sections["changes"]
    assert len(entry.text) < len(long) and entry.text.startswith("sed -i -e 's/name0/")
    assert entry.text.endswith("models.py") and " … " in entry.text


def test_an_in_place_edit_outlives_the_rounds_that_made_it(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=8_192))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Order by pk must not recurse into the parent's Meta.ordering.")
        eng.add_assistant("Narrowing the condition.", [call("s1", name="bash", command=SED)])
        eng.add_tool_result("s1", "bash", "<returncode>0</returncode>", provenance={"command": SED})
        requests = []
        for n in range(2, 90):
            eng.add_assistant(f"step {n}", [call(f"c{n}", name="bash", command=f"cat notes_{n}.txt")])
            eng.add_tool_result(f"c{n}", "bash", filler(f"out{n}", 120), provenance={"command": f"cat notes_{n}.txt"})
            requests.append(eng.assemble().messages)
        last = eng.last.messages  # type: ignore[union-attr]
        # The round itself has left the history (folded into the summary) ...
        assert not any(c["id"] == "s1" for m in last for c in m.get("tool_calls") or [])
        assert eng.summary is not None and "s1" not in {m.get("tool_call_id") for m in last}
        # ... and the command is still in every request, word for word.
        assert all(_sends(msgs, SED) for msgs in requests)
    finally:
        ws.close()


def _sends(messages: list[dict[str, object]], command: str) -> bool:
    """``command`` is in a message's text or is the command of one of its tool calls."""
    for m in messages:
        if command in str(m.get("content") or ""):
            return True
        for c in m.get("tool_calls") or []:  # type: ignore[attr-defined]
            if json.loads(c["function"]["arguments"]).get("command") == command:
                return True
    return False


def test_user_words_missing_from_a_model_summary_are_added_verbatim_once() -> None:
    from agent_tui.core.summary import VERBATIM_TITLE, Entry, Summary, with_user_words

    s = Summary()
    s.sections["instructions"] = [Entry("Never touch   the migrations folder.", "m1"),
                                  Entry("Use tabs in the Makefile", "m5"), Entry("maybe rename it?", "m9", uncertain=True)]
    text = "Decisions:\n- keep tabs.\n- never touch the migrations folder."
    assert with_user_words(text, s, {"m1"}) == text, "already held word for word (case and spaces aside)"
    assert with_user_words(text, s, {"m1", "m5"}) == f"{text}\n\n{VERBATIM_TITLE}:\n- Use tabs in the Makefile [m5]"
    whole = with_user_words(text, s, None)
    assert whole.endswith("- Use tabs in the Makefile [m5]\n- (to confirm) maybe rename it? [m9]")
