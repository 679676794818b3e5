"""A restart opens a new session; the earlier one is kept, and the app says which it is and how to open it
(users took their conversation for lost)."""

from __future__ import annotations

from agent_tui.ui.app import AgentApp, make_app
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import ready, turn_done, wait_for


async def test_a_restart_names_the_earlier_session_and_how_to_resume_it(fake_llm: FakeOpenAI,
                                                                       fake_app: AgentApp) -> None:
    fake_llm.script(Reply.text("Forty-two."))
    async with fake_app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        assert not any("Your last session here" in n.message for n in fake_app._notifications), "none yet"
        await pilot.press(*"what is the answer?", "enter")
        await turn_done(pilot)
        first = fake_app.controller.session_id
    again = make_app(fake_app.options)
    again.options.session = again.options.session.resume(None)  # (a fresh start, as the CLI opens one)
    async with again.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: any("Your last session here" in n.message for n in again._notifications),
                       "the hint")
        hint = next(n.message for n in again._notifications if "Your last session here" in n.message)
        assert f"/resume {first}" in hint and "“what is the answer?”" in hint and "messages" in hint, hint
        assert again.controller.session_id != first
