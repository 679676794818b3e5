"""Memos that stay useful: one rolling memo per task, updated in place (every version kept in the
store and searchable), a new task's memo supersedes the last one in the window, and a memo already
in the request is never also recalled into it."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.items import State
from agent_tui.store.recall import recall
from agent_tui.store.workspace import Workspace


def _window_memos(eng: object) -> list[object]:
    return [it for it in eng.all_items() if it.id.startswith("memo") and it.state == State.IN]  # type: ignore[attr-defined]


def test_one_rolling_memo_per_task_and_never_recalled_twice(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("port the parser to tree-sitter")
        first = eng.save_memo("Step 1: grammar vendored under third_party/grammar", "auto")
        for n in range(2, 6):  # an automatic memo per compaction and per event, same task
            again = eng.save_memo(f"Step {n}: parser port {n * 20}% done; the zebra fixture still fails", "compaction")
            assert again.id == first.id
        memos = _window_memos(eng)
        assert [m.id for m in memos] == [first.id]  # six memos would have been six items
        assert "Step 5" in memos[0].content and memos[0].provenance["version"] == 5
        rows = ws.store.memos(eng.session_id)
        assert len(rows) == 5 and {r["item_id"] for r in rows} == {first.id}  # every version kept
        old = recall(ws.store, "grammar vendored third_party", min_score=0.0, touch=False, kinds=("memo",))
        assert any("third_party/grammar" in h["content"] for h in old)  # an old version is searchable

        eng.add_assistant("The parser is ported.")  # (answered: the next message opens a new task)
        eng.add_user("now write the docs")
        second = eng.save_memo("Docs: README section drafted", "auto")
        assert second.id != first.id
        assert [m.id for m in _window_memos(eng)] == [second.id]
        assert eng.get(first.id).state == State.RELEASED and eng.get(first.id).provenance["superseded_by"] == second.id

        hits = recall(ws.store, "README section drafted", min_score=0.0, touch=False, kinds=("memo",))
        assert hits and "README section drafted" in hits[0]["content"]
        assert eng.add_recalled(hits[:1]) == []  # already in the request as the task's memo
        stale = [h for h in old if "third_party/grammar" in h["content"]]
        assert len(eng.add_recalled(stale[:1])) == 1  # a superseded memo may come back as a reference
    finally:
        ws.close()


def test_memo_rows_know_their_version_even_past_the_listed_ones(tmp_path: Path) -> None:
    """The memo panel numbers a rolling memo's texts (memo1 v1, v2, ...): versions count per session
    and item id, also those older than the rows listed, and memo1 of another session is its own memo."""
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("port the parser")
        for n in range(1, 5):
            memo = eng.save_memo(f"Step {n}", "auto")
        other = ws.engine(new=True)  # seeded with its own memo1
        other.add_user("write the docs")
        other.save_memo("Docs drafted", "auto")
        latest = ws.store.memos(limit=3)
        assert [(r["session_id"], r["item_id"]) for r in latest] == [
            (other.session_id, "memo2"), (other.session_id, "memo1"), (eng.session_id, memo.id)]
        versions = ws.store.memo_versions([r["id"] for r in latest])
        assert [versions[r["id"]] for r in latest] == [(1, 1), (1, 1), (4, 4)]
        assert ws.store.memo_versions([]) == {}
    finally:
        ws.close()


def test_a_recalled_memo_is_not_recalled_again_nor_beside_its_seed_copy(tmp_path: Path) -> None:
    """A tester's session: each turn's recall put the same two memos into its user message, three turns in a
    row, and the two were one memo and its seed copy (same text) — paid for twice, on every turn."""
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        body = "Parser port: grammar vendored under third_party/grammar, zebra fixture fails"
        hits = [{"kind": "memo", "id": "memo5", "content": body, "score": 3.0},
                {"kind": "memo", "id": "memo6", "content": body, "score": 2.9},  # the seed copy
                {"kind": "decision", "id": "d2", "content": "Use tree-sitter, not lark", "score": 1.0}]
        eng.add_user("cat big6 please")
        first = eng.add_recalled(hits)
        assert [i.provenance["ref"] for i in first] == ["memo5", "d2"]
        eng.add_user("cat big7 please")
        assert eng.add_recalled(hits) == [], "still in the window from the last turn: not repeated"
        recalled = [it for it in eng.all_items() if it.provenance.get("note") == "recall" and it.state == State.IN]
        assert sum(body in it.content for it in recalled) == 1
    finally:
        ws.close()


def test_a_session_reopened_on_another_model_lists_that_model(tmp_path: Path) -> None:
    """The session list (F5) showed the model a session started with after a /model switch, and a resume went on
    with the current model without saying so."""
    from dataclasses import replace

    ws = Workspace(tmp_path, settings=Settings.default(window=16_384, model="openai/gpt-4o"))
    try:
        sid = ws.engine(new=True).session_id
        ws.settings = replace(ws.settings, model="anthropic/claude-sonnet-4-5")
        ws.engine(sid)
        assert {r["id"]: r["model"] for r in ws.store.sessions()}[sid] == "anthropic/claude-sonnet-4-5"
    finally:
        ws.close()
