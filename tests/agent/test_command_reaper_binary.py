"""A killed agent takes its running command with it (issue 9, item 9): the real `agent-tui run` binary
runs `sleep 5; touch marker` for a scripted model and is killed mid-command; no marker may appear."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.agent.helpers import make_repo
from tests.support.bwrap import require_bwrap
from tests.support.fake_openai import Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))
COMMAND = "touch started; sleep 5; touch marker"


def start_agent(tmp: Path, name: str, sandbox: str, base_url: str) -> tuple[subprocess.Popen[str], Path]:
    root = make_repo(tmp / name)
    xdg = tmp / f"xdg-{name}"
    (xdg / "agent-tui").mkdir(parents=True)
    (xdg / "agent-tui" / "config.toml").write_text(f'[sandbox]\nmode = "{sandbox}"\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(xdg), OPENAI_API_KEY="sk-test-0123456789")
    proc = subprocess.Popen([BIN, "run", "go", "--model", "openai/gpt-4o", "--api-base", base_url, "--yes", "--json",
                             "--workspace", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, stdin=subprocess.DEVNULL)
    return proc, root


def test_killed_agent_leaves_no_command_running(tmp_path: Path, fake_llm: Any) -> None:
    require_bwrap()
    cases = [("off", signal.SIGTERM), ("off", signal.SIGHUP), ("auto", signal.SIGTERM), ("auto", signal.SIGKILL)]

    def reply(body: dict[str, Any]) -> Reply:
        """Every agent's first call runs the command; anything after it (it never comes) hangs."""
        if body["messages"][-1]["role"] == "user":
            return Reply.tool_call("run_command", {"command": COMMAND})
        return Reply.hang(seconds=60)

    fake_llm.default_reply = reply
    started = [(*start_agent(tmp_path, f"ws{i}", sandbox, fake_llm.base_url), sandbox, sig)
               for i, (sandbox, sig) in enumerate(cases)]
    pending = list(started)
    deadline = time.monotonic() + 480  # a hang guard, not a speed bound: 4 agents start at once on a loaded machine
    while pending:  # kill each agent as soon as its command has started
        for case in list(pending):
            proc, root, _, sig = case
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            if (root / "started").exists():
                proc.send_signal(sig)
                pending.remove(case)
        assert time.monotonic() < deadline, "a command never started"
        time.sleep(0.02)
    for proc, _, _, _ in started:
        proc.wait(timeout=30)
    # each command would have touched its marker 5 s after it started: wait until 7 s after the last start
    last_start = max((root / "started").stat().st_mtime for _, root, _, _ in started)
    time.sleep(max(0.0, last_start + 7 - time.time()))
    for proc, root, sandbox, sig in started:
        assert (root / "started").exists()
        assert not (root / "marker").exists(), f"the command outlived the agent (sandbox {sandbox}, {sig.name})"
        assert proc.returncode == -sig, (sandbox, sig.name, proc.returncode)
        tools = [json.loads(x) for x in (proc.stdout.read() if proc.stdout else "").splitlines() if x.startswith("{")]
        assert any(e["type"] == "tool_started" for e in tools)
