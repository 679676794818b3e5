"""A session with no model: the project's config named one, and the user did not trust the project.

The first message used to fail with ``the turn failed: 'NoneType' object has no attribute 'model'``; now
the app says there is no model, why the project's choice does not count, and how to name one, and the
message stays in the box."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.app import make_app
from agent_tui.ui.messages import AgentEventReceived
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.screens.trust import TrustScreen

from .conftest import Recorder, ready, wait_for


async def test_declining_the_projects_model_says_so_and_keeps_the_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorder: Recorder) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = tmp_path / "project"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui" / "config.toml").write_text('model = "openai/gpt-4o"\n')
    app = make_app(UiOptions(workspace=project, session=SessionSpec(), theme="textual-dark", preload_llm=False))
    async with app.run_test(size=(120, 40), message_hook=recorder, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog")
        await pilot.press("n")
        await ready(pilot)
        told = [n.message for n in app._notifications if n.title == "No model"]  # type: ignore[attr-defined]
        assert told and "model = \"openai/gpt-4o\"" in told[0] and "trust" in told[0] and "/model" in told[0]
        await pilot.press(*"hello there", "enter")
        await wait_for(pilot, lambda: len([n for n in app._notifications if n.title == "No model"]) > 1,  # type: ignore[attr-defined]
                       "the notice")
        assert app.main.prompt.value == "hello there", "the message is back in the box"
        assert not app.turn_running and app.controller.engine.turn == 0, "no turn was started"
        shown = " ".join(n.message for n in app._notifications)  # type: ignore[attr-defined]
        assert "NoneType" not in shown and "Not sent" in shown
    events = [m.event for m in recorder.of(AgentEventReceived)]
    assert not any("NoneType" in str(getattr(e, "message", "")) for e in events)
