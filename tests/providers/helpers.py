"""An agent on a real provider's wire format: the model string and per-model table as a user writes them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tui.agent.session import SessionOptions, build_agent
from agent_tui.core.config import Settings


def provider_agent(root: Path, model: str, api_base: str, table: dict[str, Any] | None = None,
                   window: int | None = 64_000, session: str | None = None) -> Any:
    """An agent for ``model`` at ``api_base`` with ``[models."<model>"]`` = ``table`` (writes allowed),
    resuming stored ``session`` when given (what /model does)."""
    s = replace(Settings(), model=model, api_base=api_base, window=window, models={model: dict(table or {})})
    agent, ws = build_agent(root, SessionOptions(yes=True, interactive=False, session=session), settings=s)
    agent.llm.api_key = agent.llm.api_key or "sk-test-provider-0123456789"
    agent.llm.timeout = 10.0
    agent.llm.backoff_base = 0.01
    agent.llm.backoff_cap = 0.05
    agent.opts.memo_writer = "extractive"
    return agent, ws


def five_step_loop(malformed: tuple[str, dict[str, Any] | str]) -> list[Any]:
    """Read, a malformed call, an edit that fixes ``add``, git_status, a final answer."""
    from tests.support.fake_dialect import Turn

    return [
        Turn(thinking="Read first.", calls=[("read_file", {"path": "calc.py"})]),
        Turn(thinking="Look around.", calls=[malformed]),
        Turn(thinking="Fix it.", calls=[("edit_file", {"path": "calc.py", "old_text": "return a - b",
                                                       "new_text": "return a + b"})]),
        Turn(thinking="Check.", calls=[("git_status", {})]),
        Turn(thinking="Report.", text="Fixed."),
    ]


async def run_loop(root: Path, fake: Any, model: str, base: str, table: dict[str, Any],
                   malformed: tuple[str, dict[str, Any] | str]) -> tuple[list[Any], list[Any]]:
    """The five-step loop as one turn through the real agent, then a one-reply next turn."""
    from tests.agent.helpers import run_turn
    from tests.support.fake_dialect import Turn

    fake.script(*five_step_loop(malformed))
    agent, ws = provider_agent(root, model, base, table)
    try:
        events = await run_turn(agent, "fix add in calc.py")
        fake.script(Turn(text="next turn ok"))
        second = await run_turn(agent, "thanks")
    finally:
        ws.close()
    return events, second


async def turn_without_reasoning(monkeypatch: Any, root: Path, fake: Any, replies: list[Any], model: str,
                                 base: str, table: dict[str, Any] | None = None, task: str = "fix") -> list[Any]:
    """One turn with the reasoning the loop sends back taken out (as before it was kept): a fake
    provider that really checks must refuse step 2."""
    from agent_tui.agent import loop
    from tests.agent.helpers import run_turn

    monkeypatch.setattr(loop.Agent, "_reasoning_map", lambda self: {})
    fake.script(*replies)
    agent, ws = provider_agent(root, model, base, table)
    try:
        return await run_turn(agent, task)
    finally:
        ws.close()


def assert_loop(root: Path, fake: Any, events: list[Any], second: list[Any]) -> None:
    """Nothing refused, six model calls, add fixed, only the malformed call failed, both turns done."""
    from agent_tui.agent import events as ev

    assert fake.rejections == []
    assert len(fake.answered) == 6
    assert "return a + b" in (root / "calc.py").read_text()
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert [e.is_error for e in finished] == [False, True, False, False]
    assert events[-1].status == "done" and events[-1].text == "Fixed."
    assert second[-1].status == "done" and second[-1].text == "next turn ok"
