"""Pilot test: active files come back when the TUI reopens the session — `/model` (same session,
another model) and `/resume ID` keep them with the same ids and text, in the next request."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.messages import SessionOpened

from .conftest import Recorder, demo_app, denied_demo_turn, gauge_agrees, wait_for


def _files(app: object) -> dict[str, str]:
    eng = app.controller.engine  # type: ignore[attr-defined]
    return {i.id: i.content for i in eng.all_items() if i.id.startswith("f:") and str(i.state) == "in"}


async def test_model_switch_and_resume_keep_the_active_files(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        sid = app.controller.session_id
        before = _files(app)
        assert before, "the demo turn reads files"
        await gauge_agrees(pilot)
        # Mid-turn the files ride in file notes (the compaction block is rebuilt only at an event),
        # so they are counted as history there; they are in the request either way.
        assert set(before) <= set(app.controller.engine.last.item_ids)

        opened = len(recorder.of(SessionOpened))
        await pilot.click("#prompt")
        await pilot.press(*"/model gpt-4o-mini", "enter")
        await wait_for(pilot, lambda: len(recorder.of(SessionOpened)) > opened, "the session under the new model")
        assert app.controller.session_id == sid and app.controller.model == "gpt-4o-mini"
        assert _files(app) == before  # same ids, same text
        after_model = await gauge_agrees(pilot)
        assert after_model["categories"]["files"] > 0
        assert set(before) <= set(app.controller.engine.last.item_ids)

        opened = len(recorder.of(SessionOpened))
        app.run_command("resume", sid)
        await wait_for(pilot, lambda: len(recorder.of(SessionOpened)) > opened, "the resumed session")
        assert _files(app) == before
        resumed = await gauge_agrees(pilot)
        assert resumed["categories"]["files"] > 0
