"""The real `agent-tui` binary, headless: the offline demo, crash safety, and no leaked keys."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_tui.store.store import MemoryStore
from tests.agent.helpers import make_repo
from tests.support.fake_openai import Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))
PLANTED = "sk-test-PLANTED-0123456789abcdef"


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(k, None)
    env.update(extra)
    return env


def test_demo_json_runs_offline_with_budget_memo_and_compaction(tmp_path: Path) -> None:
    ws = tmp_path / "demo"
    proc = subprocess.run([BIN, "run", "--demo", "--json", "--workspace", str(ws)], capture_output=True,
                          text=True, timeout=240, env=_env(), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    types = {e["type"] for e in events}
    assert {"budget", "memo", "compaction", "tool_started", "tool_finished", "turn_finished"} <= types
    budget = next(e for e in events if e["type"] == "budget")
    for key in ("window", "reserve", "total", "categories", "over_budget", "step"):
        assert key in budget
    factors = [e.get("calibration", 1.0) for e in events if e["type"] == "budget"]
    assert all(0.95 <= f <= 1.05 for f in factors), f"the demo reports prompt tokens as the engine counts them: {factors}"
    assert events[-1]["type"] == "turn_finished" and events[-1]["status"] == "done"
    assert "<= threshold" in (ws / "inventory" / "stock.py").read_text()
    assert "cost map" not in proc.stderr, "the offline demo asks no server for litellm's prices"
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ws,
                           capture_output=True, text=True, timeout=120)
    assert "4 passed" in tests.stdout


def test_sigkill_mid_turn_then_resume(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.tool_call("run_command", {"command": "python -m pytest -q test_calc.py"}),
        Reply.hang(seconds=60),
    )
    args = [BIN, "run", "fix add()", "--model", "openai/gpt-4o", "--api-base", fake_llm.base_url, "--yes",
            "--json", "--workspace", str(root)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(OPENAI_API_KEY=PLANTED), stdin=subprocess.DEVNULL)
    try:
        assert fake_llm.wait_for(lambda: len(fake_llm.requests) >= 3, timeout=90)
        time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    store = MemoryStore.open(root / ".agent-tui" / "memory.db")
    sid = store.latest_session()
    before = store.messages(sid)
    store.close()
    assert [m["role"] for m in before] == ["user", "assistant", "tool", "assistant", "tool"]
    fake_llm.clear()
    fake_llm.script(Reply.text("Resumed: I had read calc.py and run the tests."))
    done = subprocess.run([BIN, "run", "continue", "--session", sid, "--model", "openai/gpt-4o", "--api-base",
                           fake_llm.base_url, "--json", "--workspace", str(root)], capture_output=True, text=True,
                          timeout=120, env=_env(OPENAI_API_KEY=PLANTED), stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    resumed = fake_llm.requests[-1].messages if "Write a progress memo" not in json.dumps(
        fake_llm.requests[-1].messages[-1]) else fake_llm.requests[-2].messages
    text = json.dumps(resumed)
    assert "fix add()" in text and "continue" in text
    store = MemoryStore.open(root / ".agent-tui" / "memory.db")
    after = store.messages(sid)
    titles = {r["id"]: r["title"] for r in store.sessions()}
    store.close()
    assert titles[sid] == "fix add()", "a headless session is found in the picker by its task, not by 'continue'"
    assert after[: len(before)] == before
    assert [m["role"] for m in after[len(before):]] == ["user", "assistant"]


def test_planted_key_never_reaches_store_or_logs(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(Reply.tool_call("run_command", {"command": "env | sort"}), Reply.server_error(),
                    Reply.server_error(), Reply.text("done"))
    proc = subprocess.run([BIN, "run", f"check the env; my key is not {PLANTED[:6]}", "--model", "openai/gpt-4o",
                           "--api-base", fake_llm.base_url, "--yes", "--workspace", str(root)],
                          capture_output=True, text=True, timeout=120, env=_env(OPENAI_API_KEY=PLANTED),
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert PLANTED not in proc.stdout and PLANTED not in proc.stderr
    for path in (root / ".agent-tui").rglob("*"):
        if path.is_file():
            assert PLANTED.encode() not in path.read_bytes(), path
    # the key did reach the server as the Authorization header: the test is not vacuous
    assert any(PLANTED in (r.header("authorization") or "") for r in fake_llm.requests)
