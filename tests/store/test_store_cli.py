"""The real `agent-tui` binary on the store: memory pin/list/show/unpin/evict/restore and context."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.items import State
from agent_tui.store.workspace import Workspace
from tests.core.core_helpers import call, filler

BIN = shutil.which("agent-tui", path=str(Path(sys.executable).parent)) or "agent-tui"


def cli(ws: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(ws / ".xdg")}
    proc = subprocess.run([BIN, *args, "--workspace", str(ws)], capture_output=True, text=True, timeout=60,
                          env=env, cwd=ws)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def as_json(proc: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(proc.stdout)


def test_pin_a_rule_then_list_it(tmp_path: Path) -> None:
    out = cli(tmp_path, "memory", "pin", "Use pnpm, never npm")
    assert "rule1" in out.stdout
    rows = as_json(cli(tmp_path, "memory", "list", "--json"))
    assert len(rows) == 1
    row = rows[0]
    assert {"id", "category", "tokens", "pinned", "state", "preview"} <= set(row)
    assert row["category"] == "rules" and row["pinned"] is True and row["state"] == "in"
    assert row["preview"] == "Use pnpm, never npm"
    from agent_tui.core.tokens import counter_for

    assert row["tokens"] == counter_for(None).count("Use pnpm, never npm") > 0
    # It lives in the workspace's database (not the current directory's) and every new session gets it.
    assert (tmp_path / ".agent-tui" / "memory.db").is_file()
    ws = Workspace(tmp_path)
    try:
        eng = ws.engine(new=True)
        assert "Use pnpm, never npm" in eng.assemble().messages[0]["content"]
    finally:
        ws.close()


def make_session(root: Path) -> tuple[str, Any]:
    ws = Workspace(root, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Fix the bug in parser.py")
        eng.add_assistant("Running the tests first.", [call("c1", command="pytest -q")])
        eng.add_tool_result("c1", "run_command", filler("pytest-out", 120) + "\n1 failed", scope="session")
        eng.add_user("And keep the API stable")
        asm = eng.assemble()
        return eng.session_id, asm
    finally:
        ws.close()


def test_show_unpin_evict_restore_by_id(tmp_path: Path) -> None:
    sid, _ = make_session(tmp_path)
    shown = as_json(cli(tmp_path, "memory", "show", "m2", "--json"))
    assert shown["id"] == "m2" and shown["content"] == "Running the tests first."
    assert shown["tool_calls"][0]["id"] == "c1"

    assert as_json(cli(tmp_path, "memory", "pin", "m1", "--json"))["pinned"] is True
    refused = cli(tmp_path, "memory", "evict", "m1", ok=False)
    assert refused.returncode == 2 and "pinned" in refused.stderr
    assert as_json(cli(tmp_path, "memory", "unpin", "m1", "--json"))["pinned"] is False

    ev = as_json(cli(tmp_path, "memory", "evict", "m2", "--json"))
    assert ev["state"] == "evicted"
    rows = {r["id"]: r for r in as_json(cli(tmp_path, "memory", "list", "--all", "--json"))}
    assert rows["m2"]["state"] == "evicted" and rows["t1"]["state"] == "evicted"  # its output went with it

    back = as_json(cli(tmp_path, "memory", "restore", "m2", "--json"))
    assert back["state"] == "in"
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(sid)
        assert eng.items["m2"].state == State.IN and eng.items["t1"].state == State.IN
        assert eng.items["m2"].content == "Running the tests first."
        text = json.dumps(eng.assemble().messages)
        assert "Running the tests first." in text and "1 failed" in text
    finally:
        ws.close()

    missing = cli(tmp_path, "memory", "show", "m99", ok=False)
    assert missing.returncode == 2 and "m99" in missing.stderr and "Traceback" not in missing.stderr


def test_context_json_agrees_with_the_last_assembly(tmp_path: Path) -> None:
    sid, asm = make_session(tmp_path)
    bd = as_json(cli(tmp_path, "context", "--json"))
    for key in ("window", "reserve", "total", "categories", "over_budget"):
        assert key in bd
    want = asm.breakdown
    assert (bd["window"], bd["reserve"], bd["total"], bd["over_budget"]) == \
        (want.window, want.reserve, want.total, want.over_budget)
    assert bd["categories"] == want.categories
    assert bd["session"] == sid
    text = cli(tmp_path, "context").stdout
    assert f"window {want.window:,}" in text and "history" in text


def test_context_on_an_empty_workspace(tmp_path: Path) -> None:
    bd = as_json(cli(tmp_path, "context", "--json"))
    assert bd["total"] > 0 and bd["over_budget"] is False and bd["categories"]["history"] == 0


def test_a_corrupt_database_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    db = tmp_path / ".agent-tui" / "memory.db"
    db.parent.mkdir()
    db.write_bytes(os.urandom(8192))
    before = db.read_bytes()
    proc = cli(tmp_path, "memory", "list", ok=False)
    assert proc.returncode == 2
    assert str(db) in proc.stderr and "Traceback" not in proc.stderr
    assert db.read_bytes() == before


@pytest.mark.parametrize("module", ["agent_tui.core.engine, agent_tui.store.workspace",
                                    "agent_tui.store.cli, agent_tui.store.recall"])
def test_the_engine_and_store_import_neither_litellm_nor_textual(module: str) -> None:
    code = f"import {module}, sys; print('litellm' in sys.modules, 'textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_memory_list_columns_line_up_with_long_ids(tmp_path: Path) -> None:
    """A file's id (``f:src/deep/module_name.py``) is longer than ``m42``: the columns after it broke."""
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("look at the module")
        eng.pin_rule("Use pnpm, never npm")
        eng.note_file_read("src/deep/module_name.py", "x = 1\n")
        eng.assemble()
    finally:
        ws.close()
    lines = [ln for ln in cli(tmp_path, "memory", "list").stdout.splitlines() if ln.strip()]
    assert len(lines) >= 2
    starts = {ln.index(next(w for w in ln.split()[1:2])) for ln in lines}
    assert len(starts) == 1, lines


def test_memory_list_counts_a_tool_calls_arguments_as_context_does(tmp_path: Path) -> None:
    """A tester: `memory list` showed 0 tokens for assistant messages that only call tools (the inspector 56-83),
    so its history rows did not add up to `context`'s history (23 against 371)."""
    ws = Workspace(tmp_path, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("fix it")
        eng.add_assistant("", [call("c1", name="edit_file", path="statkit/report.py", old_text=filler("old", 40),
                                    new_text=filler("new", 40))])
        eng.add_tool_result("c1", "edit_file", "Edited statkit/report.py")
        asm = eng.assemble()
        sent = {t.item_id: t.tokens for t in asm.trace if t.included}
    finally:
        ws.close()
    rows = {r["id"]: r for r in as_json(cli(tmp_path, "memory", "list", "--json"))}
    (call_id,) = [i for i, r in rows.items() if r["role"] == "assistant"]
    assert rows[call_id]["tokens"] > 60, rows[call_id]
    assert abs(rows[call_id]["tokens"] - sent[call_id]) <= 8, "the message's cost less its framing"
