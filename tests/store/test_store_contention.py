"""The store under contention and failure, through the real binary: six concurrent runs on one
workspace all finish; unknown sessions, unwritable folders and I/O errors get one clear line."""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.store.db import StoreError, store_error
from tests.agent.helpers import make_repo
from tests.support.fake_openai import FakeOpenAI, Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env.update(extra)
    return env


def _write_then_done(req: dict[str, Any]) -> Reply:
    """Each run writes its own file (a task: an automatic memo follows), then answers."""
    msgs = req["messages"]
    if "progress memo" in json.dumps(msgs[-1]).lower():
        return Reply.text("Wrote the file; nothing left.")
    if msgs[-1]["role"] == "tool":
        return Reply.text("done")
    task = next(m["content"] for m in reversed(msgs) if m["role"] == "user")
    n = str(task).split("file ")[-1].split()[0]
    return Reply.tool_call("write_file", {"path": f"out{n}.txt", "content": f"run {n}\n"})


def test_six_concurrent_runs_on_one_workspace_all_finish(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.default_reply = _write_then_done
    procs = [subprocess.Popen([BIN, "run", f"write file {n} now", "--model", "openai/gpt-4o", "--api-base",
                               fake_llm.base_url, "--yes", "--json", "--workspace", str(root)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=_env(OPENAI_API_KEY="sk-test-dummy"), stdin=subprocess.DEVNULL)
             for n in range(6)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err[-3000:]
        assert "Traceback" not in err
        assert json.loads(out.splitlines()[-1])["status"] == "done"
    for n in range(6):
        assert (root / f"out{n}.txt").read_text() == f"run {n}\n"
    con = sqlite3.connect(root / ".agent-tui" / "memory.db")
    assert con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 6
    assert con.execute("SELECT COUNT(*) FROM memos").fetchone()[0] >= 6


def _run(args: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120, env=_env(),
                          stdin=subprocess.DEVNULL, **kw)


@pytest.mark.parametrize("cmd", [["run", "hi", "--model", "openai/gpt-4o", "--session", "nope-123"],
                                 ["memory", "list", "--session", "nope-123"],
                                 ["context", "--session", "nope-123"]])
def test_unknown_session_is_one_clear_line_exit_2(tmp_path: Path, cmd: list[str]) -> None:
    root = make_repo(tmp_path / "proj")
    assert _run(["memory", "pin", "Use pnpm", "--workspace", str(root)]).returncode == 0
    proc = _run([*cmd, "--workspace", str(root)])
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no session 'nope-123'" in lines[0], proc.stderr


def test_zero_byte_database_then_old_session_is_a_clear_error(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    (root / ".agent-tui").mkdir()
    (root / ".agent-tui" / "memory.db").write_bytes(b"")
    proc = _run(["run", "hi", "--model", "openai/gpt-4o", "--session", "20250101-000000-abcdef",
                 "--workspace", str(root)])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no session '20250101-000000-abcdef'" in proc.stderr
    assert "empty" in proc.stderr


def test_unwritable_folder_is_one_clear_line_exit_2(tmp_path: Path) -> None:
    """The workspace is mounted read-only (bubblewrap: read-only even for root, as CI runs)."""
    root = make_repo(tmp_path / "proj")
    proc = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(root), str(root), BIN, "memory", "pin",
                           "Use pnpm", "--workspace", str(root)], capture_output=True, text=True, timeout=120,
                          env=_env(), stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "cannot create" in proc.stderr or "cannot write" in proc.stderr


def test_file_size_limit_is_an_io_error_not_corruption(tmp_path: Path) -> None:
    """RLIMIT_FSIZE = 0: every write of the database fails; the store is healthy, and so says the message."""
    root = make_repo(tmp_path / "proj")
    assert _run(["memory", "pin", "Use pnpm", "--workspace", str(root)]).returncode == 0
    db = root / ".agent-tui" / "memory.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    proc = _run(["memory", "pin", "Use ruff", "--workspace", str(root)],
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "corrupt" not in proc.stderr and "move it aside" not in proc.stderr
    assert "I/O error" in proc.stderr or "cannot write" in proc.stderr


def test_io_errors_are_named_as_such_not_corruption() -> None:
    p = Path("/x/memory.db")
    for text in ("disk I/O error", "database or disk is full"):
        err = store_error(p, sqlite3.OperationalError(text))
        assert isinstance(err, StoreError)
        assert "corrupt" not in str(err) and "move it aside" not in str(err)
        assert "I/O error" in str(err) or "full" in str(err)
    assert "corrupt" in str(store_error(p, sqlite3.DatabaseError("database disk image is malformed")))


def test_tui_with_unknown_session_is_one_clear_line_exit_2(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    assert _run(["memory", "pin", "Use pnpm", "--workspace", str(root)]).returncode == 0
    proc = _run(["--model", "openai/gpt-4o", "--session", "nope-9", "--workspace", str(root)])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "no session 'nope-9'" in proc.stderr
