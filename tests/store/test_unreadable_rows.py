"""A row the store cannot read as written (a state a newer agent-tui wrote, broken JSON from a crash or a
hand edit) no longer stops every later run of its session: the row loads with defaults, nothing in it is
lost, and the user is told once what was repaired."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.items import Category, State
from agent_tui.store.rows import item_from_row
from agent_tui.store.workspace import Workspace
from tests.core.core_helpers import call
from tests.store.test_store_cli import cli


def _session(root: Path) -> str:
    ws = Workspace(root, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Fix the bug in parser.py")
        eng.add_assistant("Running the tests.", [call("c1", command="pytest -q")])
        eng.add_tool_result("c1", "run_command", "1 failed: test_parse_empty", scope="session")
        eng.assemble()
        return eng.session_id
    finally:
        ws.close()


def _corrupt(root: Path, sql: str) -> None:
    conn = sqlite3.connect(root / ".agent-tui" / "memory.db")
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_a_session_with_an_unknown_state_and_broken_json_still_opens_with_a_warning(tmp_path: Path) -> None:
    sid = _session(tmp_path)
    _corrupt(tmp_path, "UPDATE items SET state = 'active' WHERE id = 'm1'")
    _corrupt(tmp_path, "UPDATE items SET tool_calls = '[{broken' WHERE role = 'assistant'")
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(sid)
        task = eng.get("m1")
        assert task.state == State.IN and task.content == "Fix the bug in parser.py"
        text = str(eng.assemble().messages)
        assert "Fix the bug in parser.py" in text and "Running the tests." in text
        warned = [w for w in eng.warnings if "memory store" in w]
        assert any("m1" in w and "unknown state 'active'" in w for w in warned)
        assert any("tool_calls is not JSON" in w for w in warned)
    finally:
        ws.close()
    # the row on disk is as it was: a newer agent-tui reading it again finds its own state
    row = sqlite3.connect(tmp_path / ".agent-tui" / "memory.db").execute(
        "SELECT state FROM items WHERE id = 'm1'").fetchone()
    assert row == ("active",)


def test_memory_list_names_the_repaired_row_instead_of_a_traceback(tmp_path: Path) -> None:
    sid = _session(tmp_path)
    _corrupt(tmp_path, "UPDATE items SET category = 'scratch', provenance = '{x' WHERE id = 't1'")
    out = cli(tmp_path, "--session", sid, "memory", "list")
    assert "Traceback" not in out.stderr
    assert "t1" in out.stdout and "1 failed: test_parse_empty" in out.stdout
    assert "unknown category 'scratch'" in out.stderr and "provenance is not JSON" in out.stderr


def test_each_field_falls_back_to_its_default_and_a_row_with_no_id_is_skipped() -> None:
    item, problem = item_from_row({"id": "t9", "category": "nope", "role": "tool", "state": "x", "scope": "y",
                                   "priority": "z", "tokens": "many", "turn": None, "content": "out",
                                   "provenance": "[1]", "created": "yesterday"})
    assert item is not None and item.category == Category.RESULTS and item.state == State.IN
    assert item.tokens == 0 and item.content == "out" and set(item.provenance) == {"unreadable_row"}
    assert item.provenance["unreadable_row"]["state"] == "x" and item.provenance["unreadable_row"]["provenance"] == "[1]"
    for part in ("unknown category", "unknown state", "unknown scope", "unknown priority", "tokens 'many'",
                 "provenance is not a dict", "created 'yesterday'"):
        assert part in problem
    clean, none = item_from_row({"id": "m1", "category": "history", "role": "user", "content": "hi"})
    assert clean is not None and none == ""
    assert item_from_row({"id": "", "category": "history"})[0] is None


def test_a_repaired_item_saved_later_keeps_what_its_row_held(tmp_path: Path) -> None:
    """A review: any later save (evict, pin) wrote the defaults over the row; the values that could not be
    read now travel with the item."""
    sid = _session(tmp_path)
    _corrupt(tmp_path, "UPDATE items SET state = 'active', provenance = '{broken' WHERE id = 't1'")
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        ws.engine(sid).evict("t1")
    finally:
        ws.close()
    row = sqlite3.connect(tmp_path / ".agent-tui" / "memory.db").execute(
        "SELECT state, provenance FROM items WHERE id = 't1'").fetchone()
    assert row[0] == "evicted"
    kept = json.loads(row[1])["unreadable_row"]
    assert kept == {"state": "active", "provenance": "{broken"}
