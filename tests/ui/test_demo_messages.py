"""Pilot tests: the demo plays its fix only when asked for it, and says it is the demo only while it is.

A first message of the user's own gets the demo model's short answer (it used to run the scripted fix
whatever was asked); after `/model` the banner and the box's hint stop offering the demo task."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent import events as ev
from agent_tui.demo_project import SAMPLE
from agent_tui.ui.messages import SessionOpened, TaskSubmitted
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.widgets.chat_items import Banner
from agent_tui.ui.widgets.prompt import PLACEHOLDER

from .conftest import Recorder, demo_app, ready, turn_done, wait_for

QUESTION = "What does this project do? Just explain, do not change anything."


async def test_a_first_question_gets_the_demo_answer_not_the_fix(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*QUESTION, "enter")
        await wait_for(pilot, lambda: recorder.events(ev.TurnFinished) or isinstance(app.screen, ApprovalScreen),
                       "the answer")
        assert not isinstance(app.screen, ApprovalScreen)
        await turn_done(pilot)
        assert recorder.events(ev.ToolCallStarted) == [], "no tool ran"
        answer = recorder.events(ev.AssistantMessage)[-1].text
        assert "offline demo model" in answer and "fix the restock bug" in answer
    assert (demo_workspace / "inventory" / "stock.py").read_bytes() == (SAMPLE / "inventory" / "stock.py").read_bytes()


async def test_after_model_the_banner_and_hint_no_longer_offer_the_demo(demo_workspace: Path,
                                                                         recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        banner = app.main.query_one(Banner)
        assert "Offline demo" in str(banner.render()) and "scripted model" in str(banner.render())
        assert "enter sends the demo task" in str(app.main.prompt.placeholder)
        opened = len(recorder.of(SessionOpened))
        await pilot.press(*"/model gpt-4o-mini", "enter")
        await wait_for(pilot, lambda: len(recorder.of(SessionOpened)) > opened, "the session under the new model")
        await pilot.pause()
        shown = str(banner.render())
        assert "gpt-4o-mini" in shown and "scripted" not in shown and "Offline demo" not in shown
        assert str(app.main.prompt.placeholder) == PLACEHOLDER
        await pilot.press("enter")  # the empty box no longer sends the demo task
        await pilot.pause(0.2)
        assert recorder.of(TaskSubmitted) == []


async def test_a_resumed_demo_session_that_had_its_first_message_no_longer_offers_the_task(
        demo_workspace: Path, recorder: Recorder) -> None:
    """The hint said "enter sends the demo task" in a resumed session where the task was asked already, and
    sending it got the short answer (the demo plays its fix once per session)."""
    from agent_tui.ui.app import make_app
    from agent_tui.ui.options import SessionSpec, UiOptions

    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*QUESTION, "enter")
        await turn_done(pilot)
        session = app.controller.session_id
    again = make_app(UiOptions(workspace=demo_workspace, session=SessionSpec(demo=True, session=session),
                               demo_reason="flag", theme="textual-dark"))
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: again.main.prompt.default_task == "", "the task no longer offered")
        assert str(again.main.prompt.placeholder) == PLACEHOLDER
    fresh = demo_app(demo_workspace)
    async with fresh.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert "enter sends the demo task" in str(fresh.main.prompt.placeholder), "a new session still offers it"
