"""Pilot tests: a draft put back in the box without the user typing it — what was typed before ↑ (the
"stash", given back once the recalled message is sent), or last run's unsent message at start — comes back
*selected*: what the user types next replaces it, and the replaced text stays under ↑.  Nothing is lost,
and new typing is never glued to a draft the user did not mean to go on with.  The notice of a draft
restored at start says where the draft really is."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.app import AgentApp
from agent_tui.ui.messages import TaskSubmitted, TurnEnded
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, demo_app, ready, turn_done, wait_for
from .test_prompt_draft import restored_notices
from .test_prompt_draft_selected import left_draft

SLOW = " ".join(f"word{n}" for n in range(600))
"""A reply that streams for a while: the turn still runs when the next enter comes."""


async def _stash_then_send(pilot: object, app: AgentApp, typed: str) -> None:
    """Send `one` (to its reply), type ``draftX``, ↑ (it is stashed, the box shows `one`), ctrl+u, type
    ``typed`` and press enter: the turn for ``typed`` starts and the stash is given back."""
    await ready(pilot)  # type: ignore[arg-type]
    await pilot.press(*"one", "enter")  # type: ignore[attr-defined]
    await turn_done(pilot)  # type: ignore[arg-type]
    prompt = app.main.prompt
    await pilot.press(*"draftX", "up")  # type: ignore[attr-defined]
    assert prompt.value == "one"
    await pilot.press("ctrl+u")  # type: ignore[attr-defined]
    assert prompt.value == ""
    await pilot.press(*typed, "enter")  # type: ignore[attr-defined]


async def test_typing_right_after_a_send_replaces_the_given_back_stash_which_stays_under_up(
        fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder) -> None:
    """A tester (twice, in tmux): `q1`⏎ then at once `q2`⏎ while the turn ran: the stash `draftX` had come back
    into the box with the cursor at its end, `q2` was glued to it, and the box read `draftXq2` (an enter at the
    turn's end would have sent that)."""
    fake_llm.script(Reply.text("first answer"), Reply.text(SLOW, chunk_size=8, chunk_delay=0.05))
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder, notifications=True) as pilot:
        await _stash_then_send(pilot, app, "q1")
        prompt = app.main.prompt
        await pilot.press(*"q2", "enter")
        await wait_for(pilot, lambda: any("turn is running" in n.message for n in app._notifications), "the refusal")
        assert prompt.value == "q2", "the new typing replaced the given-back stash, it was not glued to it"
        sent = list(dict.fromkeys(m.text for m in recorder.of(TaskSubmitted)))  # (seen once per node it bubbles)
        assert sent == ["one", "q1", "q2"], "`q2` was sent alone"
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(recorder.of(TurnEnded)) == 2, "the cancelled turn")
        seen = []
        for _ in range(4):  # (the refused `q2` is also the newest entry: ↑ shows it first)
            await pilot.press("up")
            seen.append(prompt.value)
        assert "draftX" in seen, f"the replaced stash is under ↑: {seen}"
        assert not any("draftX" in s and s != "draftX" for s in seen), seen


async def test_the_given_back_stash_is_selected_up_down_keep_it_and_right_goes_on_writing_it(
        fake_llm: FakeOpenAI, fake_app: AgentApp) -> None:
    """As a draft restored at start: the stash comes back selected; ↑ then ↓ brings it back (it is not
    pushed into the history by the ↑), and → goes on writing it."""
    fake_llm.script(Reply.text("first answer"), Reply.text("second answer"))
    app = fake_app
    async with app.run_test(size=(100, 30)) as pilot:
        await _stash_then_send(pilot, app, "q1")
        prompt = app.main.prompt
        await pilot.pause()
        assert prompt.value == "draftX"
        assert prompt.selected_text == "draftX", "the stash came back selected (typing replaces it)"
        await turn_done(pilot)
        await pilot.press("up")
        assert prompt.value == "q1"
        await pilot.press("down")
        assert prompt.value == "draftX"
        await pilot.press("up", "up", "down", "down")
        assert prompt.value == "draftX"
        assert prompt.inputs.entries == ["one", "q1"], "browsing did not push the stash into the history"
        prompt.select_all()
        await pilot.press("right", *" more")
        assert prompt.value == "draftX more"


async def test_typing_at_once_over_a_restored_draft_says_it_is_in_up_history(demo_workspace: Path) -> None:
    """A tester left `draft from instance A`, killed the app, started it and typed `typed early` at once: the
    draft went to ↑ (fine), but the notice still said it was back in the box, selected, to type over."""
    draft = "draft from instance A"
    await left_draft(demo_workspace, draft)
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press(*"typed early")  # (straight away: the session is not even open yet)
        await ready(pilot)
        prompt = again.main.prompt
        await wait_for(pilot, lambda: prompt.value == "typed early", "the typing in the box")
        await wait_for(pilot, lambda: draft in prompt.inputs.entries, "the draft under ↑")
        await pilot.pause()
        notices = restored_notices(again)
        assert notices, "the restore is said"
        assert not any("back in the box" in n for n in notices), notices
        assert any("↑ history" in n for n in notices), notices
        prompt.clear()
        await pilot.press("up")
        assert prompt.value == draft


async def test_a_restored_draft_left_alone_still_says_it_is_back_in_the_box(demo_workspace: Path) -> None:
    """(The notice changes only when the draft left the box: kept as it was when it is there.)"""
    draft = "draft from instance A"
    await left_draft(demo_workspace, draft)
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        prompt = again.main.prompt
        assert prompt.value == draft and prompt.selected_text == draft
        await pilot.press("right", *" more")
        await pilot.pause()
        notices = restored_notices(again)
        assert len(notices) == 1 and "back in the box, selected" in notices[0], notices


async def test_letters_typed_on_a_panel_over_a_given_back_stash_replace_it(fake_llm: FakeOpenAI,
                                                                           fake_app: AgentApp) -> None:
    """(A reviewer's case.)  Letters a panel sends on to the box were put at the end of the selected stash, which
    stayed selected with them: the next key typed in the box took both, and the stash was in no ↑ entry."""
    from agent_tui.ui.screens.help import HelpScreen

    fake_llm.script(Reply.text("first answer"), Reply.text("second answer"))
    app = fake_app
    async with app.run_test(size=(100, 30)) as pilot:
        await _stash_then_send(pilot, app, "q1")
        await turn_done(pilot)
        prompt = app.main.prompt
        assert prompt.selected_text == "draftX"
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await pilot.press(*"ab", "escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen")
        await pilot.press("c")
        assert prompt.value == "abc"
        assert "draftX" in prompt.inputs.entries, "the stash typed over is under ↑"
