"""Engine warnings reach the user of `agent-tui run`, through the real binary: the opening ones in the
`session` event (JSON) or on stderr (text), and one that arises mid-turn as a `warning` event, once."""

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


def _run(root: Path, fake: FakeOpenAI, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-dummy"}
    return subprocess.run([BIN, "run", "look at web/app.js", "--model", "openai/gpt-4o", "--api-base",
                           fake.base_url, "--yes", "--workspace", str(root), *extra], capture_output=True,
                          text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)


def _linked_rules(tmp_path: Path) -> Path:
    """A project whose root AGENTS.md and web/AGENTS.md both link outside it (neither is loaded)."""
    root = make_repo(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "root.md").write_text("Root rule from outside.\n")
    (outside / "web.md").write_text("Web rule from outside.\n")
    (root / "AGENTS.md").symlink_to(outside / "root.md")
    (root / "web").mkdir()
    (root / "web" / "AGENTS.md").symlink_to(outside / "web.md")
    (root / "web" / "app.js").write_text("console.log(1)\n")
    return root


def _script(fake: FakeOpenAI) -> None:
    calls = {"n": 0}

    def reply(req: dict[str, Any]) -> Reply:
        if "progress memo" in json.dumps(req["messages"][-1]).lower():
            return Reply.text("memo: looked at app.js")
        calls["n"] += 1
        if calls["n"] == 1:
            return Reply.tool_call("read_file", {"path": "web/app.js"})
        return Reply.text("it logs 1")

    fake.default_reply = reply


def test_json_run_reports_opening_and_mid_turn_warnings(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = _linked_rules(tmp_path)
    _script(fake_llm)
    proc = _run(root, fake_llm, "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    types = [e["type"] for e in events]
    opened = next(e for e in events if e["type"] == "session")
    assert types.index("session") < types.index("turn_started")
    assert opened["model"] == "openai/gpt-4o" and opened["window"] > 0 and opened["session"]
    assert [w for w in opened["warnings"] if "AGENTS.md links outside the project" in w
            and "web" not in w.split(" links")[0]], opened["warnings"]
    mid = [e["message"] for e in events if e["type"] == "warning"]
    assert len(mid) == 1 and mid[0].startswith("web/AGENTS.md links outside the project"), mid
    assert types.index("warning") < types.index("turn_finished")
    assert types.index("warning") > types.index("tool_finished")  # raised when it arose, after the read
    assert not any("Web rule from outside" in json.dumps(r.messages) for r in fake_llm.requests)


def test_text_run_prints_both_warnings(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = _linked_rules(tmp_path)
    _script(fake_llm)
    proc = _run(root, fake_llm)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "warning: AGENTS.md links outside the project" in proc.stderr
    assert proc.stdout.count("[warning] web/AGENTS.md links outside the project") == 1, proc.stdout
