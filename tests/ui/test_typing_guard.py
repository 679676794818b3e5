"""Pilot tests: keys typed for the message box never answer an approval that opened mid-sentence.

The guard's clock is replaced by one the test moves, so "still typing" and "paused" are exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.ui.messages import ApprovalAnswered
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.typing_guard import SETTLE, TYPING_GAP, TypingGuard, is_typing

from .conftest import Recorder, demo_app, demo_until_approval, ready, turn_done, wait_for


@pytest.fixture(autouse=True)
def _settle_as_shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agent_tui.ui.typing_guard.SETTLE", SETTLE)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def _dialog_on_clock(pilot: Any, shown_ago: float | None = None) -> tuple[Any, Clock]:
    """The demo's first approval, with the guard on a test clock: the dialog shown ``shown_ago`` s ago, or (None)
    the clock set before it opened, so it came on screen at the clock's ``now``."""
    clock = Clock()
    if shown_ago is None:
        pilot.app.typing.clock = clock
    dialog = await demo_until_approval(pilot)
    await wait_for(pilot, lambda: dialog.shown_at != float("inf"), "the dialog's screen-resume (its clock reading)")
    pilot.app.typing.clock = clock
    if shown_ago is not None:
        dialog.shown_at = clock.now - shown_ago
    return dialog, clock


def test_a_burst_lasts_while_keys_come_faster_than_the_gap() -> None:
    clock = Clock()
    guard = TypingGuard(clock)
    assert not guard.in_burst()
    guard.typed()
    clock.now += TYPING_GAP * 0.9
    assert guard.in_burst()
    clock.now += TYPING_GAP * 0.2
    assert not guard.in_burst()
    guard.typed()
    guard.finished()
    assert not guard.in_burst(), "sending the message ends the burst"
    assert is_typing("a", True) and is_typing("backspace", False) and not is_typing("enter", False)
    assert not is_typing("escape", False) and not is_typing("pagedown", False)


async def test_keys_typed_on_the_main_screen_start_a_burst_and_enter_ends_it(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        clock = Clock()
        app.typing.clock = clock
        app.main.prompt.clear()
        await pilot.press(*"/mem")
        assert app.typing.in_burst()
        await pilot.press("backspace")
        assert app.typing.last == clock.now
        await pilot.press("o", "s", "enter")
        assert not app.typing.in_burst()


async def test_a_typing_burst_goes_to_the_box_and_a_pause_then_answers(demo_workspace: Path,
                                                                       recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog, clock = await _dialog_on_clock(pilot, SETTLE)  # on screen a while: only the burst holds keys
        app.typing.typed()  # the user was typing for the next turn when the dialog opened
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*"add a test", "backspace", "enter", "y")
        await pilot.pause()
        assert app.screen is dialog, "no key of the burst answered: not 'a' (always), not enter, not 'y'"
        assert recorder.of(ApprovalAnswered) == []
        assert prompt.value == "add a tesy", "every typed key reached the box, in order"
        assert dialog.has_class("-typing") and dialog.query_one("#typing-held").display
        clock.now += TYPING_GAP + SETTLE  # the user stops and reads the dialog
        await pilot.press(*" also")  # ...or goes on with the sentence: once held, letters never answer
        await pilot.pause()
        assert app.screen is dialog and recorder.of(ApprovalAnswered) == [], "not 'a' (always) after a pause"
        assert prompt.value == "add a tesy also", "a tester lost the space and had the 'a' taken as always"
        clock.now += TYPING_GAP + 0.1
        await pilot.press("enter")  # held: the focus moved to Deny
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny"]
        assert not isinstance(app.screen, ApprovalScreen) or app.screen is not dialog
        await turn_done(pilot)
        assert prompt.value == "add a tesy also", "the typed message is still there for the next turn"


async def test_a_key_the_moment_the_dialog_appears_goes_to_the_box(demo_workspace: Path,
                                                                   recorder: Recorder) -> None:
    """A tester sent a message and began the next one ("yep, and then tell me") half a second later, as the
    agent's command asked: the "y" allowed the command and was gone from the box."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog, clock = await _dialog_on_clock(pilot)
        assert not app.typing.in_burst(), "sending the task ended the burst"
        assert dialog.shown_at == clock.now
        prompt = app.main.prompt
        prompt.clear()
        clock.now += SETTLE * 0.5
        await pilot.press(*"yep, and")
        await pilot.pause()
        assert app.screen is dialog and recorder.of(ApprovalAnswered) == []
        assert prompt.value == "yep, and" and dialog.has_class("-typing")
        clock.now += SETTLE + TYPING_GAP
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is dialog and prompt.value == "yep, andn", "held once: a letter goes on to the box"
        clock.now += TYPING_GAP + 0.1
        await pilot.press("enter")  # after a pause: the focused answer, Deny since the dialog held typing
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny"]


async def test_without_recent_typing_the_first_key_answers(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog, clock = await _dialog_on_clock(pilot)
        assert not app.typing.in_burst(), "sending the task ended the burst"
        clock.now += SETTLE  # the user reads the dialog
        await pilot.press("y")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["once"]
        assert not dialog.has_class("-typing")


@pytest.mark.parametrize("typed", ["the cook", "so", "do it", " ok"])
async def test_a_word_begun_long_after_the_dialog_opened_goes_to_the_box(demo_workspace: Path, recorder: Recorder,
                                                                          typed: str) -> None:
    """A tester typed "the cook" four seconds after a dialog opened: the `o` allowed the edit (a hidden alias
    of `y`), `d` of "do" would deny it, a space pressed the focused "Allow once", and the other letters were
    dropped.  A key that is none of the dialog's answers is typing: it and the rest go to the box."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog, clock = await _dialog_on_clock(pilot)
        prompt = app.main.prompt
        prompt.clear()
        clock.now += SETTLE + TYPING_GAP + 3  # on screen for seconds, the user not typing
        await pilot.press(*[" " if c == " " else c for c in typed])
        await pilot.pause()
        assert app.screen is dialog and recorder.of(ApprovalAnswered) == [], "nothing was answered"
        assert prompt.value == typed and dialog.has_class("-typing")


async def test_the_trust_dialog_at_start_never_takes_typing_as_trust(tmp_path: Path) -> None:
    """It opens by itself right after the first frame: 't' of "the tests" must not trust the folder."""
    import json
    import sys

    from agent_tui.core.trust_store import TrustStore
    from agent_tui.ui.app import make_app
    from agent_tui.ui.options import SessionSpec, UiOptions
    from agent_tui.ui.screens.trust import TrustScreen

    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": {"command": sys.executable,
                                                                           "args": ["-c", "pass"]}}}))
    app = make_app(UiOptions(workspace=project, session=SessionSpec(model="openai/gpt-4o",
                                                                    api_base="http://127.0.0.1:9/v1"),
                             theme="textual-dark", preload_llm=False, mcp=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog")
        dialog = app.screen
        clock = Clock()
        app.typing.clock = clock
        dialog.shown_at = clock.now
        app.typing.typed()  # the user started typing as the app opened
        await pilot.press(*"the tests")
        await pilot.pause()
        assert app.screen is dialog and dialog.has_class("-typing")
        assert TrustStore().entry(project) is None, "'t' did not trust the folder"
        assert app.main.prompt.value == "the tests"
        clock.now += max(TYPING_GAP, SETTLE) + 0.1
        await pilot.press("t")  # once held, a letter is typing: not "trust", whenever it comes
        await pilot.pause()
        assert app.screen is dialog and TrustStore().entry(project) is None
        clock.now += TYPING_GAP + 0.1
        await pilot.press("enter")  # the focused "Don't trust"
        await wait_for(pilot, lambda: app.screen is not dialog, "the answer")
        assert TrustStore().entry(project) is None and app.main.prompt.value == "the testst"


async def test_after_typing_was_held_a_reason_is_still_typed_into_its_box(demo_workspace: Path,
                                                                          recorder: Recorder) -> None:
    """Letters go to the message box once a dialog held typing, except into the dialog's own reason box."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog, clock = await _dialog_on_clock(pilot, 0.0)  # it has just opened
        app.main.prompt.clear()
        await pilot.press("y")
        await pilot.pause()
        assert dialog.held() and app.main.prompt.value == "y"
        clock.now += SETTLE + TYPING_GAP
        await pilot.press("right", "enter")  # held: the focus is on "Deny"; → "Deny, say why": the reason box opens
        await pilot.press(*"not now", "enter")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny:not now"]
        assert app.main.prompt.value == "y"


async def test_once_typing_was_held_enter_denies_and_the_arrows_move_between_the_answers(
        demo_workspace: Path, recorder: Recorder) -> None:
    """A tester kept typing as the dialog opened, pressed right (meaning Deny), then enter: the arrows did nothing,
    the focus was still on "Allow once", and the write ran (another time the `n` he pressed went into the box and
    enter ran the command).  Once the dialog held typing, the focus is on Deny, the letters are off the buttons,
    and the arrows move between the answers."""
    from textual.widgets import Button

    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog, clock = await _dialog_on_clock(pilot, 0.0)
        app.main.prompt.clear()
        await pilot.press(*"some text")
        await pilot.pause()
        assert dialog.held() and app.main.prompt.value == "some text"
        assert dialog.focused is not None and dialog.focused.id == "deny"
        labels = [str(b.label) for b in dialog.query(Button).results(Button) if b.display]
        assert labels and not any(label.endswith(("(y)", "(n)", "(a)", "(p)", "(r)")) for label in labels), labels
        clock.now += SETTLE + TYPING_GAP
        await pilot.press("left")
        assert dialog.focused.id == "prefix"
        await pilot.press("right", "right")
        assert dialog.focused.id == "reason"
        await pilot.press("left", "n")  # the letter types into the box; the focus stays on Deny
        await pilot.pause()
        assert app.main.prompt.value == "some textn" and dialog.focused.id == "deny"
        clock.now += TYPING_GAP + 0.1
        await pilot.press("enter")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny"]
