"""Session cost survives resume: what a session spent is kept in the store, so ``max_session_cost``
counts every run of the session — a resumed session (``run --session ID``, ``agent-tui --session ID``,
``/resume``) does not start again from $0 — and the TUI shows the session's cost as soon as it opens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_tui.cli import build_parser
from agent_tui.store.store import MemoryStore
from agent_tui.ui.app import make_app
from agent_tui.ui.launch import options_from_args
from tests.agent.helpers import make_repo
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import FAKE_MODEL
from tests.ui.conftest import ready, turn_done, wait_for

BIN = str(Path(sys.executable).with_name("agent-tui"))


def _run(root: Path, fake: FakeOpenAI, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-dummy"}
    return subprocess.run([BIN, "run", *args, "--model", FAKE_MODEL, "--api-base", fake.base_url, "--json",
                           "--workspace", str(root)], capture_output=True, text=True, timeout=600, env=env,
                          stdin=subprocess.DEVNULL)


def _events(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _spent(root: Path, sid: str) -> float:
    store = MemoryStore.open(root / ".agent-tui" / "memory.db")
    try:
        return store.session_usage(sid).cost_usd
    finally:
        store.close()


def _walker(steps: int) -> Any:
    """Replies: ``steps - 1`` list_dir calls, then an answer (forever, when ``steps`` is 0)."""
    calls = {"n": 0}

    def reply(req: dict[str, Any]) -> Reply:
        if not req.get("tools"):
            return Reply.text("memo")
        calls["n"] += 1
        return Reply.text("done") if steps and calls["n"] >= steps else Reply.tool_call("list_dir", {"path": "."})

    return reply


def _first_session(root: Path, fake: FakeOpenAI) -> tuple[str, float, float]:
    """One 4-step turn with no limit: its session id, what it cost, and the dearest call."""
    fake.default_reply = _walker(4)
    proc = _run(root, fake, "look around")
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = _events(proc)
    sid = next(e["session"] for e in events if e["type"] == "turn_started")
    usage = [e for e in events if e["type"] == "usage"]
    assert len(usage) >= 4 and usage[-1]["session_cost_usd"] > 0
    spent = _spent(root, sid)
    assert abs(spent - usage[-1]["session_cost_usd"]) < 1e-9, "the store has what the run spent"
    return sid, spent, max(e["cost_usd"] for e in usage)


def test_a_resumed_session_is_stopped_by_the_session_limit(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    sid, spent, dearest = _first_session(root, fake_llm)
    limit = spent * 1.25  # room for about one more call: a fresh budget would allow five
    fake_llm.default_reply = _walker(0)
    proc = _run(root, fake_llm, "keep walking", "--session", sid, "--max-session-cost", f"{limit:.8f}")
    assert proc.returncode == 1, proc.stderr[-2000:]
    events = _events(proc)
    assert events[-1]["status"] == "cost_limit"
    assert events[-1]["steps"] <= 2, "the resumed run counted from what the session had already spent"
    usage = [e for e in events if e["type"] == "usage"]
    assert usage and usage[0]["session_cost_usd"] > spent, "session cost goes on from the first run's"
    msg = next(e for e in events if e["type"] == "error" and "max_session_cost" in e["message"])["message"]
    assert "resumed ones included" in msg and f"{limit:.4f}" in msg
    total = _spent(root, sid)
    assert limit <= total < limit + dearest * 1.5, "stopped at the limit, over both runs"
    # a third run of the session, already past its limit, makes no model call at all
    sent = len(fake_llm.chat_requests)
    proc = _run(root, fake_llm, "and more", "--session", sid, "--max-session-cost", f"{limit:.8f}")
    assert proc.returncode == 1 and _events(proc)[-1]["steps"] == 0, proc.stderr[-2000:]
    assert len(fake_llm.chat_requests) == sent and _spent(root, sid) == total


async def test_resume_in_the_tui_shows_the_cost_and_applies_the_flag(tmp_path: Path, fake_llm: FakeOpenAI,
                                                              monkeypatch: Any) -> None:
    root = make_repo(tmp_path / "proj")
    sid, spent, _ = _first_session(root, fake_llm)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    args = build_parser("tui").parse_args(["--model", FAKE_MODEL, "--api-base", fake_llm.base_url,
                                           "--session", sid, "--max-session-cost", f"{spent * 0.9:.8f}"])
    options = options_from_args(args, root)
    options.theme, options.preload_llm, options.mcp = "textual-dark", False, False
    app = make_app(options)
    before = len(fake_llm.chat_requests)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.main.status.cost is not None, "the session's cost on the status line")
        assert abs(app.main.status.cost - spent) < 1e-9
        await pilot.click("#prompt")
        await pilot.press(*"walk more", "enter")
        await turn_done(pilot)
        shown = " ".join(str(w.render()) for w in app.main.conversation.query("*"))
        assert "max_session_cost" in shown
    assert len(fake_llm.chat_requests) == before, "no model call past the session limit"
