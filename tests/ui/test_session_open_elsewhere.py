"""Opening a session another agent-tui has open says so (each TUI keeps its own copy of the conversation,
and a third that resumed it got two users' messages joined into one); a fresh session says nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent_tui.ui.app import AgentApp
from tests.store.test_session_lock import hold_elsewhere

from .conftest import ready, wait_for


def _notices(app: AgentApp) -> list[Any]:
    return list(app._notifications)  # type: ignore[attr-defined]


async def test_a_session_open_in_another_tui_is_told_when_it_opens(fake_app: AgentApp) -> None:
    app = fake_app
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        sid = app.controller.session_id
        assert not any("open in another" in n.message for n in _notices(app)), "its own session is not 'elsewhere'"
    other = hold_elsewhere(app.options.workspace / ".agent-tui" / "locks" / f"{sid}.lock")
    try:
        again = fake_app.__class__(replace(app.options, session=app.options.session.resume(sid)))
        async with again.run_test(size=(100, 30), notifications=True) as pilot:
            await ready(pilot)
            await wait_for(pilot, lambda: any("open in another agent-tui" in n.message for n in _notices(again)),
                           "the warning")
            note = next(n for n in _notices(again) if "open in another" in n.message)
            assert note.title == "Session open elsewhere" and sid in note.message and "/new" in note.message
    finally:
        other.kill()
        other.wait()
