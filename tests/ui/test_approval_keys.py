"""Keys on an approval dialog answer what the user meant: arrows queued faster than the focus moves each take
one step and never wrap from the deny end onto "Allow once"; an enter meant for a draft in the message box does
not approve; ctrl+c stops the turn there as it does everywhere else."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region

from agent_tui.agent import events as ev
from agent_tui.ui.messages import ApprovalAnswered, TurnEnded
from agent_tui.ui.screens.approval import ApprovalScreen

from .conftest import Recorder, demo_app, demo_until_approval, ready, wait_for


async def test_arrows_queued_faster_than_the_focus_moves_each_take_a_step_and_stop_at_the_ends(
        demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.pause()
        assert dialog.focused.id == "once"
        assert dialog.request.prefix, "the demo's command offers a prefix: five answers"
        for _ in range(4):  # (a key repeat: four presses handled back to back)
            dialog.action_move_answer(1)
        await pilot.pause()
        assert dialog.focused.id == "reason"
        dialog.action_move_answer(1)
        dialog.action_move_answer(1)
        await pilot.pause()
        assert dialog.focused.id == "reason", "the arrows do not wrap from the deny end onto allow"
        for _ in range(5):
            dialog.action_move_answer(-1)
        await pilot.pause()
        assert dialog.focused.id == "once"
        await pilot.press("right", "right", "right")
        await pilot.pause()
        assert dialog.focused.id == "deny"
        await pilot.press("enter")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny"]


async def test_an_enter_meant_for_a_draft_in_the_box_does_not_approve(
        demo_workspace: Path, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user sent the task and went on typing the next message; the dialog opened under the draft, and an
    enter pressed after a pause (past the typing guard's window) pressed the focused "Allow once"."""
    import agent_tui.ui.typing_guard as guard

    monkeypatch.setattr(guard, "SETTLE", 0.0)
    monkeypatch.setattr(guard, "TYPING_GAP", 0.0)
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        answers: list[str | None] = []
        for draft, focus, answer in (("", "once", "once"), ("and then also check the", "deny", "deny")):
            app.main.prompt.clear()
            app.main.prompt.insert(draft)  # typed before the dialog came up
            screen = ApprovalScreen(ev.ApprovalRequested(f"c-{answer}", "write_file", "write", "+ x", path="x.txt"))
            app.push_screen(screen, callback=answers.append)
            await wait_for(pilot, lambda s=screen: app.screen is s and s.query("#approval-preview"), "the dialog")
            await pilot.pause(0.1)
            assert screen.focused.id == focus, draft
            if draft:  # (nothing was typed at the dialog: it says why the focus is on deny)
                assert "A message you are writing is in the box" in str(screen.query_one("#typing-held").render())
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is app.main, "the answer")
            assert answers[-1] == answer
            assert app.main.prompt.text == draft, "the draft stays in the box"


async def test_ctrl_c_on_an_approval_stops_the_turn(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await demo_until_approval(pilot)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the stopped turn")
        assert recorder.of(TurnEnded)[-1].status == "cut"
        assert not isinstance(app.screen, ApprovalScreen)
        assert [m.answer for m in recorder.of(ApprovalAnswered)] in ([], ["cancel"], ["cancelled"])


async def test_an_arrow_after_a_tab_steps_from_where_the_tab_put_the_focus(
        demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        dialog.query_one("#deny").focus()
        await pilot.pause()
        dialog.action_move_answer(-1)  # deny → prefix
        await pilot.pause(0.1)
        assert dialog.focused.id == "prefix"
        dialog.query_one("#deny").focus()  # (a tab back, later)
        await pilot.pause(0.1)
        dialog.action_move_answer(-1)
        await pilot.pause()
        assert dialog.focused.id == "prefix", "from deny, not from the earlier arrow's target"


def test_as_sent_finds_the_newest_message_holding_the_item() -> None:
    from types import SimpleNamespace

    from agent_tui.ui.controller import SessionController

    item = SimpleNamespace(content="yes", role="user")
    last = SimpleNamespace(messages=[{"role": "user", "content": "yes, do it"}, {"role": "assistant", "content": "ok"},
                                     {"role": "user", "content": "yes\n\n[context: 3% of 100,000 tokens used]"}])
    ctl = SimpleNamespace(engine=SimpleNamespace(get=lambda _id: item, last=last))
    assert SessionController.sent_text(ctl, "m3") == "yes\n\n[context: 3% of 100,000 tokens used]"  # type: ignore[arg-type]


async def test_backing_out_of_the_reason_box_does_not_land_on_allow(
        demo_workspace: Path, recorder: Recorder) -> None:
    """Esc in the reason box put the focus on "Allow once": the next enter approved what the user had
    been about to deny (a tester)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        dialog.query_one("#reason").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert dialog.has_class("-reason")
        await pilot.press("escape")
        await pilot.pause()
        assert not dialog.has_class("-reason") and dialog.focused.id == "reason"
        await pilot.press("enter", *"no", "enter")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny:no"]


def _placed(screen: Region, region: Region) -> bool:
    return region.area > 0 and screen.contains_region(region)


@pytest.mark.parametrize("size", [(40, 20), (44, 16), (36, 14)])
async def test_every_answer_shows_whole_on_a_narrow_terminal(demo_workspace: Path, size: tuple[int, int]) -> None:
    """At 40 columns "Deny, say why" was cut to "Why" or hidden; at 36x14 no button showed."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=size) as pilot:
        dialog = await demo_until_approval(pilot)
        screen = app.screen.region
        ids = ("once", "always", "deny", "reason")
        # (the dialog fits itself after a refresh or two: on a busy machine 0.1 s was not always enough)
        # (an unplaced button has the empty region at 0,0, which the screen "contains")
        await wait_for(pilot, lambda: all(_placed(screen, dialog.query_one(f"#{b}").region) for b in ids),
                       "the buttons placed")
        for bid in ids:
            button = dialog.query_one(f"#{bid}")
            region = button.region
            label = str(button.label)
            assert region.width >= len(label), (bid, label, region)
            assert screen.contains_region(region) and region.height >= 1, (bid, region)
