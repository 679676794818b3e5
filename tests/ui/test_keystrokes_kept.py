"""Pilot tests: a message the user sent is never lost by the flow around it — a model switch under way
(or refused), a cancelled turn, a refusal while a turn runs with new typing in the box."""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual import events

from agent_tui.ui.app import AgentApp
from agent_tui.ui.controller import SessionController
from agent_tui.ui.input_history import MAX_CHARS
from agent_tui.ui.messages import TaskSubmitted, TurnEnded
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, demo_app, ready, turn_done, wait_for

SLOW_OPEN = 1.0
"""Seconds a session takes to open in the switch tests (a real store and model check take a while)."""


def slow_session_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a session reads the store, then takes a while more (assembling, a slow disk)."""
    real_open = SessionController.open.__func__  # type: ignore[attr-defined]

    def slow_open(cls: type[SessionController], *args: Any, **kwargs: Any) -> SessionController:
        ctl = real_open(cls, *args, **kwargs)
        time.sleep(SLOW_OPEN)
        return ctl

    monkeypatch.setattr(SessionController, "open", classmethod(slow_open))


async def test_a_message_sent_while_the_model_switches_goes_to_the_new_session(
        fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """It ran on the old session, which the switch then replaced by one read from the store before
    the turn was written: the message and its answer vanished from the screen and from the model's
    context."""
    fake_llm.script(Reply.text("first answer"), Reply.text("second answer"))
    fake_llm.more_models.append("gpt-4o-mini")
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"hello", "enter")
        await turn_done(pilot)
        slow_session_open(monkeypatch)
        await pilot.press(*"/model openai/gpt-4o-mini", "enter")
        await wait_for(pilot, lambda: app.session_opening, "the switch to start")
        await pilot.press(*"remember me", "enter")
        await wait_for(pilot, lambda: len(recorder.of(TurnEnded)) == 2, "the second turn")
        assert app.controller is not None and app.controller.model == "openai/gpt-4o-mini"
        assert str((fake_llm.requests[-1].body or {}).get("model")).endswith("gpt-4o-mini"), "sent on the new model"
        engine = app.controller.engine
        said = [i.content for i in engine.items.values() if i.role in ("user", "assistant")]
        assert said == ["hello", "first answer", "remember me", "second answer"]
        from agent_tui.ui.widgets.chat_items import UserMessage

        shown = [m.message_text for m in app.main.conversation.query(UserMessage)]
        assert shown == ["hello", "remember me"]


async def test_a_message_waiting_for_a_refused_switch_goes_to_the_current_session(
        fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.ui import model_check

    real_check = model_check.check

    def slow_check(name: str, api_base: str | None) -> Any:
        time.sleep(SLOW_OPEN)
        return real_check(name, api_base)

    monkeypatch.setattr(model_check, "check", slow_check)
    fake_llm.script(Reply.text("the answer"))
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        session = app.controller.session_id if app.controller else ""
        await pilot.press(*"/model openai/no-such-model", "enter")
        await wait_for(pilot, lambda: app.switching, "the model check")
        await pilot.press(*"still here?", "enter")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the turn")
        assert app.controller is not None and app.controller.session_id == session
        assert app.controller.model == "openai/gpt-4o"
        assert [i.content for i in app.controller.engine.items.values() if i.role == "user"] == ["still here?"]


async def test_a_long_message_comes_back_on_up_when_its_turn_is_cancelled(
        fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder) -> None:
    """Esc right after sending, to fix the message, is common: a paste too long for the history
    had no copy left to edit (only a failed turn gave it back)."""
    long = "please read this log:\n" + "a log line that goes on\n" * (MAX_CHARS // 20)
    words = " ".join(f"word{n}" for n in range(600))
    fake_llm.script(Reply.text(words, chunk_size=8, chunk_delay=0.05))
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        app.post_message(events.Paste(long))
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.turn_running and app.main.status.state == "streaming…", "the stream")
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")
        assert recorder.of(TurnEnded)[-1].status == "cut"
        assert prompt.value == ""
        await pilot.press("up")
        assert prompt.value == long.strip("\n")


async def test_a_message_refused_while_a_turn_runs_is_kept_when_the_box_has_new_typing(
        fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder) -> None:
    """The refusal put it back only into an empty box; with new typing there it was dropped (and the
    notice said it was back in the box)."""
    long = "x" * (MAX_CHARS + 10)
    words = " ".join(f"word{n}" for n in range(600))
    fake_llm.script(Reply.text(words, chunk_size=8, chunk_delay=0.05))
    app = fake_app
    async with app.run_test(size=(100, 30), message_hook=recorder, notifications=True) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        await pilot.press(*"tell me a story", "enter")
        await wait_for(pilot, lambda: app.turn_running and app.main.status.state == "streaming…", "the stream")
        await pilot.press(*"typed meanwhile")
        app.post_message(TaskSubmitted(long))  # (sent a moment before: enter, then more keys at once)
        await wait_for(pilot, lambda: any("turn is running" in n.message for n in app._notifications), "the notice")
        assert prompt.value == "typed meanwhile", "the new typing is untouched"
        notice = next(n.message for n in app._notifications if "turn is running" in n.message)
        assert "on ↑" in notice
        await pilot.press("up")
        assert prompt.value == long
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")


@pytest.mark.parametrize("keys, expected", [
    (["x", "backspace", "y"], "draft y"),
    (["backspace", "backspace", "w", "1", "0"], "draftw10"),
    (["a", "b", "left", "c"], "draft acb"),
    (["a", "ctrl+w", "b"], "draft b"),
])
async def test_keys_that_arrive_in_one_read_apply_in_order(demo_workspace: Any, keys: list[str], expected: str) -> None:
    """Over ssh, or typed fast, several keys arrive in one read.  A key the box binds (backspace, arrows,
    ctrl+w) bubbled to the app and ran after the characters that followed it: ``x⌫y`` gave ``x``."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.value = "draft " if keys[0] != "backspace" else "draft x"
        prompt.focus()
        await pilot.pause()
        for key in keys:  # all queued before the app handles the first
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause()
        await pilot.pause()
        assert prompt.text == expected


@pytest.mark.parametrize("typed", ["/threshold abc", "/threshold 150", "/tools bogus"])
async def test_a_command_refused_for_its_argument_stays_in_the_box(demo_workspace: Any, typed: str) -> None:
    """An unknown command stayed in the box to fix, but one with a bad argument emptied it."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*typed, "enter")
        await pilot.pause()
        assert prompt.text == typed
        assert any("back in the box" in n.message for n in app._notifications)
        prompt.clear()
        await pilot.press(*"/threshold 70", "enter")
        await pilot.pause()
        assert prompt.text == "" and app.controller.engine.plan.compact_at == pytest.approx(0.70)
        await pilot.press(*"/help", "enter")
        await pilot.pause()
        assert prompt.text == ""


async def test_ctrl_c_with_nothing_selected_in_the_box_still_reaches_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The box runs its own bindings as keys come; one that skips (copy, with nothing selected in the box)
    must still go on to the screen's and app's (copy the transcript text selected with the mouse)."""
    from textual.app import App
    from textual.screen import Screen
    from textual.widgets import Static

    from agent_tui.ui.input_history import InputHistory
    from agent_tui.ui.widgets.prompt import PromptInput

    calls: list[str] = []

    async def copied(self: Screen) -> None:
        calls.append("screen")

    monkeypatch.setattr(Screen, "action_copy_text", copied, raising=False)

    class Box(App[None]):
        def compose(self) -> Any:
            yield Static("some transcript text")
            yield PromptInput(lambda _t: [], InputHistory(None), id="p")

    app = Box()
    async with app.run_test() as pilot:
        app.query_one("#p").focus()
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert calls == ["screen"]
