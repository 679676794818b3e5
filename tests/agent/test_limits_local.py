"""Limits and local models through the real binary: a 60-step turn runs to its end with default
settings, max_cost stops a turn with a message naming the limit, and a loopback --api-base works
with no API key in the environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_tui.agent.limits import Limits, check
from tests.agent.helpers import make_repo
from tests.support.fake_openai import FakeOpenAI, Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def _run(root: Path, fake: FakeOpenAI, *args: str, key: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    if key:
        env["OPENAI_API_KEY"] = "sk-test-dummy"
    return subprocess.run([BIN, "run", *args, "--api-base", fake.base_url, "--json", "--workspace", str(root)],
                          capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)


def _events(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def test_a_60_step_turn_runs_to_its_end_with_default_settings(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    calls = {"n": 0}

    def reply(req: dict[str, Any]) -> Reply:
        if not req.get("tools"):
            return Reply.text("memo")
        calls["n"] += 1
        return Reply.text("finished") if calls["n"] >= 60 else Reply.tool_call("list_dir", {"path": "."})

    fake_llm.default_reply = reply
    proc = _run(root, fake_llm, "walk the tree", "--model", "openai/gpt-4o")
    assert proc.returncode == 0, proc.stderr[-2000:]
    last = _events(proc)[-1]
    assert last["status"] == "done" and last["steps"] == 60


def test_max_cost_stops_the_turn_with_a_clear_message(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    (root / ".agent-tui").mkdir()
    (root / ".agent-tui" / "config.toml").write_text("[budget]\nmax_cost = 0.0001\n")
    fake_llm.default_reply = lambda req: (Reply.tool_call("list_dir", {"path": "."}) if req.get("tools")
                                          else Reply.text("memo"))
    proc = _run(root, fake_llm, "walk the tree forever", "--model", "openai/gpt-4o")
    assert proc.returncode == 1, proc.stderr[-2000:]
    events = _events(proc)
    assert events[-1]["status"] == "cost_limit"
    msg = next(e for e in events if e["type"] == "error")["message"]
    assert "max_cost" in msg and "continue" in msg
    assert events[-1]["steps"] < 20


def test_loopback_api_base_needs_no_api_key(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(Reply.text("hello from a local model"))
    proc = _run(root, fake_llm, "hi", "--model", "openai/x", key=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _events(proc)[-1]["status"] == "done"
    assert "Authentication" not in proc.stderr


def test_limits_name_the_limit() -> None:
    assert check(Limits(), steps=199, turn_cost=5.0, session_cost=50.0) is None
    assert check(Limits(), steps=200, turn_cost=0, session_cost=0).status == "step_limit"  # type: ignore[union-attr]
    stop = check(Limits(max_session_cost=1.0), steps=1, turn_cost=0.1, session_cost=1.5)
    assert stop is not None and stop.status == "cost_limit" and "max_session_cost" in stop.message


def test_loopback_is_only_this_machine() -> None:
    from agent_tui.agent.llm_settings import LOCAL_KEY, is_loopback, llm_config
    from agent_tui.core.config import Settings

    assert all(is_loopback(u) for u in ("http://127.0.0.1:11434", "http://localhost:8000/v1", "http://[::1]:1234/v1",
                                        "http://127.5.0.1/v1"))
    assert not any(is_loopback(u) for u in ("https://api.openai.com/v1", "http://10.0.0.5:8000", None, "",
                                            "http://localhost.evil.com/v1"))
    local = Settings(model="openai/x", api_base="http://127.0.0.1:9/v1")
    remote = Settings(model="openai/x", api_base="https://example.com/v1")
    saved = os.environ.pop("OPENAI_API_KEY", None)
    try:
        assert llm_config(local).api_key == LOCAL_KEY
        assert llm_config(remote).api_key is None  # a remote server still needs a real key
        os.environ["OPENAI_API_KEY"] = "sk-real"
        assert llm_config(local).api_key is None  # litellm reads the user's key from the environment
    finally:
        os.environ.pop("OPENAI_API_KEY", None)
        if saved is not None:
            os.environ["OPENAI_API_KEY"] = saved


def test_cost_limits_are_checked_in_config_and_flags(tmp_path: Path) -> None:
    from agent_tui.core.config import ConfigError, settings_from_dict

    assert settings_from_dict({"budget": {"max_cost": 0.5}}).budget.max_cost == 0.5
    for bad in (0, -1, "1$", True):
        try:
            settings_from_dict({"budget": {"max_session_cost": bad}})
        except ConfigError as exc:
            assert "max_session_cost" in str(exc)
        else:
            raise AssertionError(f"accepted max_session_cost = {bad!r}")
    proc = subprocess.run([BIN, "run", "x", "--max-cost", "-2", "--workspace", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "positive number of dollars" in proc.stderr
