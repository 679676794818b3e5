"""Pilot tests: keys that arrive in one read (tmux send-keys, a paste of keystrokes, a fast typist over ssh) act
in the order they came.  A key that opens a box or a screen takes the keys behind it there: the approval's `r`
its reason, the inspector's `/` its filter text, F2 or F5 what follows them (never the draft in the message box)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import DataTable, Input

from agent_tui.ui.messages import (
    ActionFailed,
    ApprovalAnswered,
    ItemChanged,
    ItemPinned,
    TaskSubmitted,
)
from agent_tui.ui.rows import sort_rows
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.inspector import InspectorScreen
from agent_tui.ui.screens.sessions import SessionsScreen

from .conftest import Recorder, demo_app, demo_until_approval, denied_demo_turn, ready, wait_for
from .test_model_sessions import two_sessions

NAMED = {" ": "space", "/": "slash"}


def at_once(app: Any, *keys: str) -> None:
    """Post ``keys`` back to back: all are queued before the first is handled, as keys that came in one read."""
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(NAMED.get(key, key), key))
        else:
            app.post_message(events.Key(key, None))


@pytest.mark.parametrize("reason", ["always wrong", "no tests first", "you may not", "prefix is too wide"])
async def test_a_reason_typed_with_its_r_goes_into_the_reason_box(demo_workspace: Path, recorder: Recorder,
                                                                  reason: str) -> None:
    """A tester's "ralways wrong" allowed the command ALWAYS: `r` focused the reason box only once it had
    bubbled to the app, and the `a` behind it answered the dialog.  (n denied, y allowed, p allowed the prefix.)"""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.pause()
        at_once(app, "r", *reason)
        box = dialog.query_one("#approval-reason", Input)
        await wait_for(pilot, lambda: box.value == reason or recorder.of(ApprovalAnswered), "the reason typed")
        assert recorder.of(ApprovalAnswered) == [], "nothing is answered before the reason is sent"
        assert app.screen is dialog and dialog.has_class("-reason") and box.value == reason
        assert app.main.prompt.text == "", "no letter of the reason went to the message box"
        await pilot.press("enter")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == [f"deny:{reason}"]


async def test_filter_text_typed_with_its_slash_filters_and_changes_no_item(demo_workspace: Path,
                                                                            recorder: Recorder) -> None:
    """A tester's "/red" restored, evicted and evicted the selected row: `/` focused the filter only once it had
    bubbled to the app, and r, e, d reached the table first."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        states = {r.id: (r.state, r.pinned) for r in app.controller.rows()}
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screen = app.screen
        table = screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count > 0, "the rows")
        table.move_cursor(row=table.get_row_index("m2"))  # a message: restore and evict act on it
        await pilot.pause()
        at_once(app, "/", "r", "e", "d")
        box = screen.query_one("#filter", Input)
        await wait_for(pilot, lambda: box.value == "red" or recorder.of(ItemChanged), "the filter typed")
        await pilot.pause(0.3)
        assert recorder.of(ItemChanged) == [] and recorder.of(ActionFailed) == [] and box.value == "red"
        assert screen.focused is box
        assert {r.id: (r.state, r.pinned) for r in app.controller.rows()} == states, "no item changed"


@pytest.mark.parametrize("keys", [("f5", "down", "enter"), ("f2", "enter"), ("f2", "down", "p"),
                                  ("ctrl+r", "enter")])
async def test_keys_after_a_screen_key_never_send_the_draft(demo_workspace: Path, recorder: Recorder,
                                                            keys: tuple[str, ...]) -> None:
    """With a draft in the box, F5 down enter at once sent the draft to the model: the box took the enter on
    arrival, before F5 had reached the app.  The keys after a screen's key are that screen's."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*"half a thought")
        at_once(app, *keys)
        await wait_for(pilot, lambda: app.screen is not app.main or recorder.of(TaskSubmitted), "the screen")
        await pilot.pause(0.3)
        assert {m.text for m in recorder.of(TaskSubmitted)} == {app.options.demo_task}, "the draft was not sent"
        assert prompt.text == "half a thought", "the draft is in the box, whole"


async def test_the_screen_keys_do_nothing_over_an_approval(demo_workspace: Path, recorder: Recorder) -> None:
    """The main screen's keys act on arrival, but only while it is the screen on top: over an approval dialog
    F2, F5 and ctrl+r open nothing and answer nothing."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        stack = list(app.screen_stack)
        at_once(app, "f2", "f5", "ctrl+r", "f1")
        await pilot.pause(0.3)
        assert app.screen is dialog and isinstance(dialog, ApprovalScreen) and app.screen_stack == stack
        assert recorder.of(ApprovalAnswered) == []


def slowed(obj: Any, name: str, seconds: float = 0.3) -> None:
    """``obj.name()`` takes ``seconds`` longer (a big store): the keys typed with the key that opened a screen
    surely come before its rows."""
    fast = getattr(obj, name)

    def slow() -> Any:
        time.sleep(seconds)
        return fast()

    setattr(obj, name, slow)


async def test_keys_typed_with_f5_apply_once_the_sessions_are_listed(demo_workspace: Path, recorder: Recorder) -> None:
    """F5 down enter at once reached an empty list (its rows load in a thread): nothing was chosen and the picker
    stayed open.  Keys that come before the rows wait for them, then apply in order."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        first = await two_sessions(pilot, app, recorder)
        slowed(app.controller, "sessions")
        at_once(app, "f5", "down", "enter")
        await wait_for(pilot, lambda: app.controller.session_id == first, "the session below resumed")
        assert not isinstance(app.screen, SessionsScreen)


async def test_keys_typed_with_f2_apply_once_the_items_are_listed(demo_workspace: Path, recorder: Recorder) -> None:
    """F2 down down p at once pinned nothing, and the p went into the message box hidden under the inspector."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        third = sort_rows(app.controller.rows(), "order")[2]
        assert not third.pinned
        slowed(app.controller, "rows")
        at_once(app, "f2", "down", "down", "p")
        await wait_for(pilot, lambda: recorder.of(ItemPinned) or recorder.of(ActionFailed), "the pin")
        assert {m.item_id for m in recorder.of(ItemPinned)} == {third.id}
        assert app.controller.engine.get(third.id).pinned
        assert isinstance(app.screen, InspectorScreen) and app.main.prompt.text == ""


@pytest.mark.parametrize("delay", [0.0, 0.3])
async def test_a_filter_typed_with_f2_filters_once_the_items_are_listed(demo_workspace: Path, recorder: Recorder,
                                                                        delay: float) -> None:
    """`/` typed with F2 is the filter's key, and the keys behind it its text, never restore or evict: whether they
    come before the rows (which wait for them) or as they load (in tmux, the rows came while the `/` was on its
    way, and r, e, d acted on the first row)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        states = {r.id: (r.state, r.pinned) for r in app.controller.rows()}
        slowed(app.controller, "rows", delay)
        at_once(app, "f2", "/", "r", "e", "d")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screen = app.screen
        box = screen.query_one("#filter", Input)
        await wait_for(pilot, lambda: box.value == "red" or recorder.of(ItemChanged), "the filter typed")
        await wait_for(pilot, lambda: screen.rows, "the rows")
        await pilot.pause(0.3)
        assert recorder.of(ItemChanged) == [] and recorder.of(ActionFailed) == [] and box.value == "red"
        assert {r.id: (r.state, r.pinned) for r in app.controller.rows()} == states, "no item changed"
        assert app.main.prompt.text == ""


@pytest.mark.parametrize(("key", "slow", "screen"),
                         [("f2", "rows", InspectorScreen), ("f5", "sessions", SessionsScreen)])
async def test_esc_typed_with_the_screen_key_closes_it_before_its_rows(demo_workspace: Path, key: str, slow: str,
                                                                       screen: type) -> None:
    """Esc does not wait for the rows: the screen closes at once, and the rows read meanwhile harm nothing."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        slowed(app.controller, slow)
        at_once(app, key, "escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the screen closed")
        await pilot.pause(0.5)  # (the rows come after the screen closed)
        assert app.screen is app.main and not any(isinstance(s, screen) for s in app.screen_stack)
        assert app.is_running


@pytest.mark.parametrize(("keys", "answer"), [(("right", "right", "right", "enter"), "deny"),
                                              (("down", "down", "down", "enter"), "deny"), (("right", "enter"), "always"),
                                              (("right", "right", "enter"), "prefix"), (("right", "left", "enter"), "once")])
async def test_arrows_and_enter_in_one_burst_press_the_answer_the_arrows_reached(
        demo_workspace: Path, recorder: Recorder, keys: tuple[str, ...], answer: str) -> None:
    """A tester's → → ⏎ in one burst ran `rm -rf build && git status`: the arrows moved the focus only later, so the
    enter pressed "Allow once", which still had it (and ← ← ⏎ from a held dialog's Deny denied a write)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.pause()
        dialog.shown_at = float("-inf")  # (long on screen: the keys are answers, not typing)
        assert dialog.focused.id == "once" and dialog.request.prefix  # (once, always, prefix, deny, deny+why)
        at_once(app, *keys)
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer.split(":")[0] for m in recorder.of(ApprovalAnswered)] == [answer]
