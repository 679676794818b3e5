"""A turn on a session with no model (the project's config named one the user did not trust) ends with
the clear "no model configured" error, not ``AttributeError: 'NoneType' object has no attribute 'model'``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.session import SessionOptions, build_agent
from tests.agent.helpers import make_repo


async def test_a_turn_with_no_model_fails_with_the_clear_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = make_repo(tmp_path / "p")
    (root / ".agent-tui").mkdir(exist_ok=True)
    (root / ".agent-tui" / "config.toml").write_text('model = "openai/gpt-4o"\n')
    agent, ws = build_agent(root, SessionOptions(yes=True, interactive=False, trust=False))
    try:
        assert agent.llm is None
        events = [e async for e in agent.run("hello")]
    finally:
        ws.close()
    errors = [e.message for e in events if isinstance(e, ev.ErrorEvent)]
    assert any(m.startswith("No model configured") and "--model" in m for m in errors), errors
    assert not any("NoneType" in m for m in errors)
    assert isinstance(events[-1], ev.TurnFinished) and events[-1].status == "error"
