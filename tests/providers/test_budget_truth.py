"""The budget tells the truth: token counts calibrate to the provider's, the window is litellm's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent_tui.agent import events as ev
from agent_tui.agent.llm_calibration import Calibration
from tests.agent.helpers import is_agent_request, make_agent, make_repo, request_tokens, run_turn
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn
from tests.support.fake_openai import Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def _inflated(reply: Reply) -> object:
    """A reply whose reported prompt_tokens are 15 % above the request's count."""
    def answer(body: dict) -> Reply:
        req = type("R", (), {"messages": body.get("messages") or [], "tools": body.get("tools")})()
        if is_agent_request(req):
            reply.usage = {"prompt_tokens": round(request_tokens(req) * 1.15), "completion_tokens": 5}
        return reply
    return answer


async def test_token_calibration_converges_within_three_steps_and_persists(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "p")
    steps = [Reply.tool_call("list_dir", {"path": "."}), Reply.tool_call("read_file", {"path": "calc.py"}),
             Reply.tool_call("git_status", {}), Reply.tool_call("read_file", {"path": "test_calc.py"}),
             Reply.text("done")]
    fake_llm.script(*[_inflated(r) for r in steps])
    agent, ws = make_agent(root, fake_llm.base_url, window=60_000)
    try:
        agent.opts.memo_writer = "extractive"
        events = await run_turn(agent, "look at the project")
        session_plan = agent.engine.plan
    finally:
        ws.close()
    budgets = [e for e in events if isinstance(e, ev.BudgetUpdated)]
    reported = [u.prompt_tokens for u in events if isinstance(u, ev.Usage)]
    assert len(budgets) == len(reported) == 5
    errors = [abs(b.estimated_prompt_tokens - r) / r for b, r in zip(budgets, reported, strict=True)]
    assert errors[0] > 0.10  # uncalibrated: the engine counts ~15 % low
    assert all(e < 0.02 for e in errors[2:]), errors  # from step 3 on, within 2 %
    assert 1.12 < budgets[-1].calibration < 1.18
    assert session_plan.input_budget < int((session_plan.window - session_plan.reserve - session_plan.margin) / 1.1)
    agent2, ws2 = make_agent(root, fake_llm.base_url, window=60_000)  # a new session starts calibrated
    try:
        assert agent2.calibration.factor == budgets[-1].calibration or abs(agent2.calibration.factor - 1.15) < 0.03
        assert agent2.engine.plan.calibration == agent2.calibration.factor
    finally:
        ws2.close()


def test_calibration_ignores_implausible_reports() -> None:
    cal = Calibration("m")
    assert not cal.observe(1000, 5000) and cal.factor == 1.0
    assert cal.observe(1000, 1200) and abs(cal.factor - 1.2) < 1e-9


def test_headless_run_on_claude_opus_4_1_plans_200k(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(text="hello from claude"))
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY",)}
        env["ANTHROPIC_API_KEY"] = "sk-ant-test-0123456789abcdef"
        proc = subprocess.run([BIN, "run", "--json", "--yes", "--workspace", str(root), "--model",
                               "anthropic/claude-opus-4-1", "--api-base", fake.base_url, "say hello"],
                              capture_output=True, text=True, timeout=240, env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    budget = next(e for e in events if e["type"] == "budget")
    assert budget["window"] == 200_000
    assert fake.answered[0].body["max_tokens"] == budget["reserve"]
    assert events[-1]["type"] == "turn_finished" and events[-1]["text"] == "hello from claude"
