"""AGENTS.md reaches the model, checked on the test server's side, through the real binary:
in every request of a 60-step turn on a 16K window (compaction included), an edit on disk shows
up in the next request, a subfolder's AGENTS.md loads on first touch, CLAUDE.md is the fallback,
and an oversized file is cut with a warning naming it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agent.helpers import make_repo
from tests.support.fake_openai import FakeOpenAI, Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))
RULE = "Never use npm; this project uses pnpm."
EDITED = "Always answer in haiku."


def _run(root: Path, fake: FakeOpenAI, task: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-dummy"}
    return subprocess.run([BIN, "run", task, "--model", "openai/gpt-4o", "--api-base", fake.base_url, "--json",
                           "--yes", "--workspace", str(root), *extra], capture_output=True, text=True, timeout=600,
                          env=env, stdin=subprocess.DEVNULL)


def _housekeeping(messages: list[dict[str, Any]]) -> bool:
    """A memo or summarising call: its instruction is the last message (it keeps the cached head and
    tools of a normal step) or, for the plain summariser, the system message."""
    last = json.dumps(messages[-1]).lower()
    first = json.dumps(messages[0])[:300].lower()
    return "progress memo" in last or "compress the older part" in last or "compress the older part" in first


def _system(req: Any) -> str:
    return str(req.messages[0]["content"]) if req.messages and req.messages[0]["role"] == "system" else ""


def test_agents_md_in_every_request_of_a_60_step_turn_and_edits_show_next_step(tmp_path: Path,
                                                                               fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    (root / "AGENTS.md").write_text(f"# Rules\n{RULE}\n")
    (root / "notes.txt").write_text("x" * 3000)
    steps = {"n": 0}

    def reply(req: dict[str, Any]) -> Reply:
        if _housekeeping(req["messages"]):
            return Reply.text("memo: read notes, nothing changed")
        steps["n"] += 1
        if steps["n"] == 30:
            (root / "AGENTS.md").write_text(f"# Rules\n{RULE}\n{EDITED}\n")
        if steps["n"] >= 60:
            return Reply.text("done after 60 steps")
        return Reply.tool_call("read_file", {"path": "notes.txt"})

    fake_llm.default_reply = reply
    proc = _run(root, fake_llm, "read notes.txt sixty times", "--window", "16000")
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[-1]["status"] == "done" and events[-1]["steps"] == 60
    assert any(e["type"] == "compaction" for e in events)  # the window did fill and fold
    turn_requests = [r for r in fake_llm.requests if not _housekeeping(r.messages)]  # the agent's steps
    assert len(turn_requests) >= 60
    for i, req in enumerate(turn_requests):
        assert RULE in _system(req), f"request {i} lost the AGENTS.md rule"
    edited_at = next(i for i, r in enumerate(turn_requests) if EDITED in _system(r))
    assert 29 <= edited_at <= 31  # the edit on disk shows up at the next step
    assert all(EDITED in _system(r) for r in turn_requests[edited_at:])


def test_nested_agents_md_loads_on_first_touch_and_claude_md_is_the_fallback(tmp_path: Path,
                                                                             fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    (root / "CLAUDE.md").write_text("Root rule from CLAUDE.md.\n")
    (root / "web").mkdir()
    (root / "web" / "AGENTS.md").write_text("Web rule: use pnpm in web/.\n")
    (root / "web" / "app.js").write_text("console.log(1)\n")
    fake_llm.script(Reply.text("looked"), Reply.tool_call("read_file", {"path": "web/app.js"}), Reply.text("ok"))
    assert _run(root, fake_llm, "hello").returncode == 0
    first = _system(fake_llm.requests[0])
    assert "Root rule from CLAUDE.md." in first and "Web rule" not in first
    proc = _run(root, fake_llm, "read web/app.js")
    assert proc.returncode == 0, proc.stderr[-2000:]
    after_touch = [_system(r) for r in fake_llm.requests[1:] if r.tools][-1]
    assert "Web rule: use pnpm in web/." in after_touch
    assert after_touch.index("Root rule") < after_touch.index("Web rule")  # nearest last: it wins
    (root / "AGENTS.md").write_text("Root rule from AGENTS.md.\n")
    fake_llm.clear()
    assert _run(root, fake_llm, "again").returncode == 0
    system = _system(fake_llm.requests[0])
    assert "Root rule from AGENTS.md." in system and "CLAUDE.md" not in system


def test_oversized_agents_md_is_cut_with_a_warning_naming_it(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    (root / "AGENTS.md").write_text("First line rule.\n" + "filler line of text\n" * 3000)
    proc = _run(root, fake_llm, "hi")
    assert proc.returncode == 0, proc.stderr[-2000:]
    listing = subprocess.run([BIN, "memory", "list", "--json", "--workspace", str(root)], capture_output=True,
                             text=True, timeout=120)
    row = next(r for r in json.loads(listing.stdout) if r["id"] == "ins:AGENTS.md")
    assert row["pinned"] and row["category"] == "rules"
    system = _system(fake_llm.requests[0])
    assert "First line rule." in system and "cut: AGENTS.md is 60,017 bytes" in system
    text = subprocess.run([BIN, "run", "hi", "--model", "openai/gpt-4o", "--api-base", fake_llm.base_url,
                           "--workspace", str(root)], capture_output=True, text=True, timeout=240,
                          env={**os.environ, "OPENAI_API_KEY": "sk-test-dummy"})
    assert "warning: AGENTS.md is 60,017 bytes" in text.stderr
