"""The store's contents: recall ranking, the archive, assembly logs, blobs, resuming a session."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.items import State
from agent_tui.store.recall import fts_query, query_terms, recall
from agent_tui.store.store import MemoryStore
from agent_tui.store.workspace import Workspace
from tests.core.core_helpers import call, filler

DAY = 86_400.0


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    s = MemoryStore.open(tmp_path / "memory.db")
    yield s
    s.close()


def test_an_old_memory_ranks_below_a_fresh_equal_one(store: MemoryStore) -> None:
    old = store.add_capsule("The deploy script needs the STAGE variable set", created=time.time() - 120 * DAY)
    fresh = store.add_capsule("The deploy script needs the STAGE variable set")
    hits = recall(store, "deploy script STAGE variable", min_score=0.0, touch=False)
    ids = [int(h["id"]) for h in hits]
    assert ids[:2] == [fresh, old]
    assert hits[0]["score"] > hits[1]["score"]


def test_a_frequently_used_memory_ranks_above_an_equal_one(store: MemoryStore) -> None:
    a = store.add_capsule("Run the integration tests with make itest")
    b = store.add_capsule("Run the integration tests with make itest")
    store.db.execute("UPDATE capsules SET access_count = 40 WHERE id = ?", [b])
    hits = recall(store, "integration tests make itest", touch=False)
    assert [int(h["id"]) for h in hits[:2]] == [b, a]


def test_recall_counts_accesses(store: MemoryStore) -> None:
    cid = store.add_capsule("Postgres runs on port 5433 in the dev container")
    recall(store, "postgres port dev container")
    recall(store, "postgres port")
    row = store.db.execute("SELECT access_count FROM capsules WHERE id = ?", [cid]).fetchone()
    assert row[0] == 2


def test_an_unrelated_query_returns_nothing(store: MemoryStore) -> None:
    store.add_capsule("Use pnpm, never npm", type="preference")
    store.add_capsule("The API server listens on port 8080")
    assert recall(store, "kubernetes helm chart rollout") == []
    assert recall(store, "the and of to") == []  # stop words only
    assert recall(store, "") == []


def test_a_weak_partial_match_is_below_the_minimum_score(store: MemoryStore) -> None:
    store.add_capsule("The frontend is built with vite")
    weak = recall(store, "frontend kubernetes helm terraform ansible grafana prometheus loki", touch=False)
    assert weak == []
    strong = recall(store, "how is the frontend built", touch=False)
    assert strong and strong[0]["content"] == "The frontend is built with vite"


def test_query_syntax_from_user_text_is_neutralised(store: MemoryStore) -> None:
    store.add_capsule('Quote "marks" and NEAR(a b) OR * stay plain text')
    assert fts_query('"marks" NEAR( OR *') .count('"') % 2 == 0
    hits = recall(store, 'marks NEAR( "OR" * AND -plain', min_score=0.0, touch=False)
    assert hits and "plain text" in hits[0]["content"]
    assert query_terms("the THE the npm npm and PNPM") == ["npm", "pnpm"]


def test_evicted_and_summarised_items_are_searchable_in_the_archive(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=8_192))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Find out when the password changes")
        eng.add_assistant("The staging database password rotates every Tuesday " + filler("u1", 30))
        for n in range(2, 60):
            eng.add_user(filler(f"u{n}", 60))
            eng.add_assistant(filler(f"a{n}", 30))
            eng.assemble()
        first = eng.items["m2"]  # (the engine keeps small user messages verbatim; the answer goes)
        assert first.state == State.SUMMARISED
        hits = recall(ws.store, "staging database password rotates Tuesday", kinds=("archive",),
                      session_id=eng.session_id)
        assert hits and hits[0]["id"] == f"m2@{eng.session_id}"
        assert hits[0]["content"] == first.content
        eng.add_user("Remember the quokka migration checklist " + filler("q", 10))
        eng.add_user("next")
        gone = eng.evict(eng.order[-2])
        hits = recall(ws.store, "quokka migration checklist", kinds=("archive",), session_id=eng.session_id)
        assert [h["id"] for h in hits] == [f"{gone.id}@{eng.session_id}"]
    finally:
        ws.close()


def test_assembly_log_round_trips(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("list the files")
        eng.add_assistant("", [call("c1", command="ls")])
        eng.add_tool_result("c1", "run_command", "a.py\nb.py")
        tools = [{"type": "function", "function": {"name": "ls", "parameters": {}}}]
        asm = eng.assemble(tools)
        rows = ws.store.assemblies(eng.session_id, limit=5)
        assert len(rows) == 1
        row = rows[0]
        assert (row["turn"], row["step"]) == (1, 1)
        assert row["breakdown"] == asm.breakdown.to_json()
        assert row["item_ids"] == asm.item_ids
        assert row["request"] == {"messages": asm.messages, "tools": tools}
        assert row["trace"] == [t.__dict__ for t in asm.trace]
        eng.assemble(tools)
        assert [r["step"] for r in ws.store.assemblies(eng.session_id, limit=5)] == [2, 1]
    finally:
        ws.close()


def test_whole_outputs_are_kept_behind_handles(store: MemoryStore) -> None:
    big = "line\n" * 10_000
    h = store.put(big, {"tool": "run_command"}, session_id="s1")
    assert store.get(h) == big
    assert store.get("nope") is None
    # Undecodable bytes (lone surrogates) cannot crash the store; they are kept as U+FFFD.
    odd = store.put("ok \udcff\ud800 odd", session_id="s1")
    assert store.get(odd) == "ok \ufffd\ufffd odd"


def test_text_with_lone_surrogates_goes_through_the_engine_and_the_store(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("read latin-1 \udce9t\udce9")
        eng.add_assistant("", [call("c1", name="read_file", path="x.txt")])
        eng.add_tool_result("c1", "read_file", "caf\udce9", raw="caf\udce9 " * 500)
        eng.note_file_read("x.txt", "caf\udce9\n")
        asm = eng.assemble()
        import json

        json.dumps(asm.messages, ensure_ascii=False).encode("utf-8")  # sendable
        stored = [m["content"] for m in ws.store.messages(eng.session_id)]
        assert stored == [eng.items["m1"].content, "", "caf\ufffd"]
        assert ws.store.assemblies(eng.session_id, limit=1)[0]["request"]["messages"] == asm.messages
    finally:
        ws.close()


def test_a_session_resumes_with_its_items_and_states(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        sid = eng.session_id
        eng.add_user("first")
        eng.add_assistant("reply", [call("c1", command="ls")])
        eng.add_tool_result("c1", "run_command", "out", scope="session")
        eng.pin("m1")
        eng.evict("m2")
        eng.save_memo("half done")
        rule = ws.add_rule("Use pnpm, never npm")
    finally:
        ws.close()
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        again = ws.engine(sid)
        assert again.items["m1"].pinned and again.items["m2"].state == State.EVICTED
        assert again.items["t1"].state == State.EVICTED
        assert rule.id in again.items and again.items[rule.id].pinned
        again.add_user("second")
        assert again.items["m3"].role == "user"  # ids continue, no collision
        # A new session is seeded by the latest memo and has the project rules.
        fresh = ws.engine(new=True)
        assert fresh.session_id != sid
        texts = [i.content for i in fresh.items.values()]
        assert any("half done" in t for t in texts) and "Use pnpm, never npm" in texts
    finally:
        ws.close()
