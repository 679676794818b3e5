"""Pilot tests: the approval dialog (a diff for edits, the command for shell) and its answers —
allow once, always, deny — checked in the engine, on disk and on the gauge."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Static

from agent_tui.agent import events as ev
from agent_tui.agent.demo import unittest_command
from agent_tui.ui.app import make_app
from agent_tui.ui.messages import ApprovalAnswered, TurnEnded
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.screens.approval import (
    ApprovalScreen,
    _command_hint,
    command_content,
    first_change,
    rows_before,
    shorten_paths,
    split_command,
)
from agent_tui.ui.widgets.tool_panel import ToolCallPanel

from .conftest import (
    Recorder,
    demo_app,
    demo_until_approval,
    gauge_agrees,
    next_approval,
    ready,
    turn_done,
    wait_for,
)

PREFIX = unittest_command().rsplit(" discover", 1)[0]
"""The prefix the policy offers for the demo's test command (``<interpreter> -m unittest``)."""


async def test_approve_once_and_always_fix_the_bug(demo_workspace: Path, recorder: Recorder) -> None:
    stock = demo_workspace / "inventory" / "stock.py"
    assert "qty < threshold" in stock.read_text()
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        assert dialog.request.kind == "command"
        assert "-m unittest discover -s tests" in str(dialog.query_one("#approval-command", Static).render())
        seen = {dialog.request.call_id}
        await pilot.press("y")

        dialog = await next_approval(pilot, seen)
        assert dialog.request.name == "edit_file"
        diff = str(dialog.query_one("#approval-diff", Static).render())
        assert any(ln.startswith("-") and "if item.qty < threshold" in ln for ln in diff.splitlines())
        assert any(ln.startswith("+") and "if item.qty <= threshold" in ln for ln in diff.splitlines())
        assert "Always, this file (a)" in str(dialog.query_one("#always", Button).label)
        seen.add(dialog.request.call_id)
        await pilot.press("a")

        dialog = await next_approval(pilot, seen)
        assert dialog.request.kind == "command", "'always' for edits does not cover commands"
        await pilot.pause()
        assert await pilot.click("#once"), "the mouse works too"
        await turn_done(pilot)

        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["once", "always", "once"]
        assert ("edit_file", "inventory/stock.py") in app.controller.agent.policy.always_paths
        assert "qty <= threshold" in stock.read_text()
        finished = {e.name: e for e in recorder.events(ev.ToolCallFinished)}
        assert not finished["edit_file"].is_error
        engine = app.controller.engine
        assert not engine.get(finished["edit_file"].item_id).provenance.get("error")
        assert recorder.of(TurnEnded)[-1].status == "done"
        panel = next(p for p in app.main.conversation.query(ToolCallPanel) if p.tool_name == "edit_file")
        assert panel.status == "ok"
        await gauge_agrees(pilot)


async def test_deny_keeps_the_file_and_tells_the_model(demo_workspace: Path, recorder: Recorder) -> None:
    stock = demo_workspace / "inventory" / "stock.py"
    original = stock.read_text()
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        call_id = dialog.request.call_id
        await pilot.press("n")
        await turn_done(pilot)
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny"]
        result = next(e for e in recorder.events(ev.ToolCallFinished) if e.call_id == call_id)
        assert result.is_error and "denied" in result.text
        engine = app.controller.engine
        assert "denied" in engine.get(result.item_id).content
        assert stock.read_text() == original
        panel = app.main.conversation.panel(call_id)
        assert panel is not None and panel.status == "error"
        await gauge_agrees(pilot)


async def test_dialog_is_docked_over_the_visible_conversation(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await demo_until_approval(pilot)
        box = dialog.query_one("#approval-dialog")
        await wait_for(pilot, lambda: box.region.height > 0, "the dialog laid out")
        assert box.region.bottom == 30 and box.region.width == 100, "docked at the bottom, full width"
        assert box.region.y > 0
        above = app.screen_stack[0].query_one("#conversation")
        assert above.region.y < box.region.y, "the conversation shows above the dialog"
        assert dialog.styles.background.a == 0, "nothing blanks the screen behind the dialog"


async def test_at_80x24_the_latest_step_stays_visible_above_a_long_command(demo_workspace: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A long install path (CI's venv, a deep home) folds beside the $, is cut to its tail in the lines
    under it, and the conversation's end is lifted above the dialog instead of hidden behind it."""
    long_python = "/opt/ci/checkouts/some/very/deep/directory/for/the/job/.venv/bin/python3"
    monkeypatch.setattr("agent_tui.agent.demo.interpreter", lambda: long_python)
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await demo_until_approval(pilot)
        box = dialog.query_one("#approval-dialog")
        conversation = app.main.conversation

        def latest_visible() -> bool:
            panels = list(conversation.query(ToolCallPanel))
            last = panels[-1] if panels else None
            return bool(last) and last.region.height > 0 and last.region.bottom <= box.region.y

        await wait_for(pilot, latest_visible, "the pending call above the dialog")
        assert box.region.height <= 9, box.region
        why = str(dialog.query_one("#approval-why", Static).render())
        assert "…/bin/python3 -m unittest" in why and long_python not in why
        assert long_python in str(dialog.query_one("#approval-command", Static).render()), "the command is whole"
        await pilot.press("n")
        await turn_done(pilot)
        assert conversation.styles.margin.bottom == 0, "the room is given back when the dialog closes"


def test_only_paths_shown_whole_on_the_command_line_are_shortened() -> None:
    cmd = "/a/rather/long/install/path/.venv/bin/python3 -m unittest"
    assert shorten_paths(f"no allow rule covers `{cmd}`", f"$ {cmd}") == "no allow rule covers `…/bin/python3 -m unittest`"
    assert shorten_paths("writes /a/rather/long/install/elsewhere/x", f"$ {cmd}") == \
        "writes /a/rather/long/install/elsewhere/x", "a path the command line does not show stays whole"
    assert shorten_paths("/usr/bin/python3", "$ /usr/bin/python3") == "/usr/bin/python3", "short paths stay"


async def test_edit_diff_has_real_hunk_header(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    stock = (demo_workspace / "inventory" / "stock.py").read_text().splitlines()
    line = next(n for n, text in enumerate(stock, 1) if "qty < threshold" in text)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.press("y")
        dialog = await next_approval(pilot, {dialog.request.call_id})
        diff = str(dialog.query_one("#approval-diff", Static).render())
        start = max(1, line - 3)
        assert f"@@ -{start}," in diff and "@@ -1 +1 @@" not in diff
        assert stock[line - 2].strip() in diff, "context lines from the file around the change"


async def test_at_80x24_a_long_edit_diff_scrolls_in_a_capped_box(demo_workspace: Path) -> None:
    """The edit's diff made the dialog 16 rows of 24 (the step's explanation hidden): now the preview is
    capped at about a third of the screen and scrolls (page down), the pending edit visible above."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.press("y")
        dialog = await next_approval(pilot, {dialog.request.call_id})
        box = dialog.query_one("#approval-dialog")
        preview = dialog.query_one("#approval-preview")
        panels = list(app.main.conversation.query(ToolCallPanel))
        await wait_for(pilot, lambda: panels[-1].region.height > 0 and panels[-1].region.bottom <= box.region.y,
                       "the pending edit above the dialog")
        assert box.region.height <= 12 and preview.region.height <= 9, [(w, w.region) for w in box.children]
        assert preview.max_scroll_y > 0, "the diff is longer than its box"
        assert "pgup/pgdn scroll it" in str(dialog.query_one("#approval-title", Static).render()), "told it scrolls"
        diff = dialog.request.preview.splitlines()
        changed = first_change(dialog.request.preview)
        assert diff[changed].startswith("-") and preview.scroll_y <= changed < preview.scroll_y + preview.region.height - 1, \
            "the first change is in view"
        start = preview.scroll_y
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: preview.scroll_y > start, "the diff scrolled")
        await pilot.press("pageup")
        await wait_for(pilot, lambda: preview.scroll_y == 0, "back at the top of the diff")


@pytest.mark.parametrize("size", [(60, 15), (50, 14)])
async def test_the_edit_dialog_opens_on_the_change_where_lines_wrap(demo_workspace: Path, size: tuple[int, int]) -> None:
    """At 60x15 the dialog opened on the context lines, the change below: it scrolled by diff lines, and the
    long lines above the change wrap to more rows than that."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=size) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.press("y")
        dialog = await next_approval(pilot, {dialog.request.call_id})
        preview = dialog.query_one("#approval-preview")
        await wait_for(pilot, lambda: preview.region.height > 0 and dialog._fitted, "the preview laid out")
        await pilot.pause()
        width = preview.scrollable_content_region.width
        diff = dialog.request.preview
        row = rows_before(diff, first_change(diff), width)
        assert row > first_change(diff), "(lines above the change wrap at this width)"
        seen = range(int(preview.scroll_y), int(preview.scroll_y) + preview.scrollable_content_region.height)
        assert row in seen, (row, seen)


async def test_deny_with_reason_reaches_the_model(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        call_id = dialog.request.call_id
        await pilot.press("r")
        assert app.screen is dialog, "r opens the reason box, it does not answer"
        await pilot.press(*"use any runner", "enter")
        await turn_done(pilot)
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny:use any runner"]
        result = next(e for e in recorder.events(ev.ToolCallFinished) if e.call_id == call_id)
        assert result.is_error and result.text.startswith("denied by user: use any runner")
        assert app.controller.engine.get(result.item_id).content.startswith("denied by user: use any runner")


async def test_reason_box_escape_goes_back_to_the_choices(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.press("r", "x", "escape")
        assert app.screen is dialog and not dialog.has_class("-reason")
        await pilot.press("y")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert recorder.of(ApprovalAnswered)[0].answer == "once"


async def test_a_reason_survives_going_back_to_the_choices(demo_workspace: Path, recorder: Recorder) -> None:
    """A tester typed a reason, pressed esc to look at the choices again, then r: the reason was gone."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        await demo_until_approval(pilot)
        await pilot.press("r", *"second reason", "escape", "r", "enter")
        await wait_for(pilot, lambda: recorder.of(ApprovalAnswered), "the answer")
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny:second reason"]


async def test_always_on_a_command_remembers_the_exact_line(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        hint = str(dialog.query_one("#approval-why", Static).render())
        shown = shorten_paths(PREFIX, f"$ {unittest_command()}")  # a long interpreter path is cut to …/bin/python3
        assert f"no allow rule covers `{shown}`" in hint
        assert "any command starting with that" in hint and hint.count(shown) == 1, "the prefix is shown once"
        seen = {dialog.request.call_id}
        await pilot.press("a")
        dialog = await next_approval(pilot, seen)
        assert dialog.request.name == "edit_file"
        await pilot.press("y")
        await turn_done(pilot)
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["always", "once"], "the re-run was not asked"
        policy = app.controller.agent.policy
        assert policy.always_commands == {unittest_command()} and not policy.always_prefixes
        runs = [e for e in recorder.events(ev.ToolCallFinished) if e.name == "run_command"]
        assert len(runs) == 2 and "\nOK" in runs[-1].text
        for other in (f"{unittest_command()}; rm -rf inventory", "python -c 'print(1)'", PREFIX):
            assert policy.decide("run_command", "command", {"command": other}) == "ask", other


async def test_prefix_choice_remembers_the_shown_prefix(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        assert dialog.request.prefix == PREFIX
        seen = {dialog.request.call_id}
        await pilot.press("p")
        dialog = await next_approval(pilot, seen)
        await pilot.press("n")
        await turn_done(pilot)
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["prefix", "deny"]
        policy = app.controller.agent.policy
        assert policy.always_prefixes == [tuple(PREFIX.split())] and not policy.always_commands
        assert policy.decide("run_command", "command", {"command": f"{PREFIX} -v tests"}) == "allow"
        assert policy.decide("run_command", "command", {"command": "python -c 'import os'"}) == "ask"
        assert policy.decide("run_command", "command", {"command": f"{PREFIX} && rm x"}) == "ask"


async def test_no_prefix_offered_means_p_does_nothing(demo_workspace: Path, recorder: Recorder) -> None:
    from agent_tui.ui.screens.approval import ApprovalScreen

    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        await demo_until_approval(pilot)
        req = ev.ApprovalRequested("c-x", "run_command", "command", "$ make && ./run", prefix=None,
                                   reason="no allow rule covers `./run`")
        screen = ApprovalScreen(req)
        answers: list[str | None] = []
        app.push_screen(screen, callback=answers.append)
        await wait_for(pilot, lambda: app.screen is screen and screen.query("#approval-why"), "the second dialog")
        assert "starting with" not in str(screen.query_one("#approval-why", Static).render())
        other = ev.ApprovalRequested("c-y", "run_command", "command", "$ make test", prefix="make test",
                                     reason="it writes outside the workspace")
        assert "any command starting with `make test`" in str(_command_hint(other)), "a prefix not in the reason is quoted"
        await pilot.press("p")
        await pilot.pause()
        assert app.screen is screen and answers == [], "p without an offered prefix is ignored"
        await pilot.press("n")
        await wait_for(pilot, lambda: answers == ["deny"], "the deny answer")


def test_blank_runs_and_wide_gaps_are_folded_into_markers() -> None:
    shown = str(command_content("a\n\nb\n   \nc\n\n\n\nd" + " " * 200 + "; rm -rf x"))
    assert shown.splitlines() == ["a", "", "b", "⏎ ×1 blank line", "c", "⏎ ×3 blank lines", "d ␠×200 ; rm -rf x"]
    assert split_command("$ ls  (outside the sandbox)") == ("ls", True)
    assert split_command("$ ls") == ("ls", False)


def test_why_asked_counts_the_commands_it_does_not_list(tmp_path: Path) -> None:
    from agent_tui.agent.permissions import Policy

    verdict = Policy(workspace=tmp_path).verdict("run_command", "command", {"command": "aa; bb; cc; dd; ee"})
    assert verdict.decision == "ask" and "(+2 more)" in verdict.reason


async def test_esc_after_the_cancel_notice_cancels_the_turn_even_when_an_approval_opened_meanwhile(
        demo_workspace: Path, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notice promises that the next esc cancels the turn; it denied the approval that had opened
    in between instead (the agent went on). Esc on the dialog now stops the turn: nothing runs."""
    import agent_tui.ui.screens.main as main_screen

    monkeypatch.setattr(main_screen, "ESC_AFTER_OVERLAY", 60.0)  # (a busy machine must not make "right after" late)
    stock = demo_workspace / "inventory" / "stock.py"
    original = stock.read_text()
    (demo_workspace / "tests" / "test_slow.py").write_text(  # the main screen stays up while the tests run
        "import time\nimport unittest\n\n\nclass Slow(unittest.TestCase):\n"
        "    def test_slow(self) -> None:\n        time.sleep(1.5)\n")
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder, notifications=True) as pilot:
        dialog = await demo_until_approval(pilot)
        seen = {dialog.request.call_id}
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen while the tests run")
        assert app.turn_running
        await pilot.press("escape")  # right after the dialog closed, the first esc only arms
        await wait_for(pilot, lambda: any("press esc again to cancel" in n.message for n in app._notifications),
                       "the notice")
        dialog = await next_approval(pilot, seen)
        assert dialog.request.name == "edit_file"
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")
        assert recorder.of(TurnEnded)[-1].status == "cut"
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["once"], "esc is not a denial"
        assert not isinstance(app.screen, ApprovalScreen)
        assert stock.read_text() == original
        assert not app.turn_running
        panel = next(p for p in app.main.conversation.query(ToolCallPanel) if p.tool_name == "edit_file")
        await wait_for(pilot, lambda: panel.status == "error", "the cut call shown over")
        assert "· cancelled" in str(panel.title), "not '⋯ awaiting approval' for the rest of the session"


async def test_n_still_denies_and_the_turn_goes_on(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        assert dialog.query_one("#approval-dialog").border_title == "esc stops the turn"
        await pilot.press("n")
        await turn_done(pilot)
        assert [m.answer for m in recorder.of(ApprovalAnswered)] == ["deny"]
        assert recorder.of(TurnEnded)[-1].status == "done"


async def test_a_call_cancelled_at_its_approval_shows_as_not_run_also_after_a_restart(
        demo_workspace: Path, recorder: Recorder) -> None:
    """Quitting or stopping at an approval answers the call "cancelled"; the resumed session showed it with
    a green check, as if the command had run."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        dialog = await demo_until_approval(pilot)
        call_id = dialog.request.call_id
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the stopped turn")
        session = app.controller.session_id
        item = next(i for i in app.controller.engine.items.values() if i.tool_call_id == call_id)
        assert item.provenance.get("error") and "cancelled" in item.content
    again = make_app(UiOptions(workspace=demo_workspace, session=SessionSpec(demo=True, session=session),
                               demo_reason="flag", theme="textual-dark"))
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: again.main.conversation.panel(call_id) is not None, "the restored call")
        panel = again.main.conversation.panel(call_id)
        assert panel is not None and panel.status == "error" and panel.has_class("-error")


async def test_an_approved_call_shows_as_running_not_awaiting_approval(demo_workspace: Path) -> None:
    """After 'y' the panel kept saying "awaiting approval" until the command ended (a 40 s one, all along)."""
    (demo_workspace / "tests" / "test_slow.py").write_text(  # still running when the answer is handled, however
        "import time\nimport unittest\n\n\nclass Slow(unittest.TestCase):\n"  # busy the machine
        "    def test_slow(self) -> None:\n        time.sleep(1.5)\n")
    titles: list[str] = []
    app = demo_app(demo_workspace)

    def hook(message: object) -> None:
        if isinstance(message, ApprovalAnswered):
            panel = app.main.conversation.panel(message.call_id)
            titles.append(str(panel.title) if panel is not None else "")

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        dialog = await demo_until_approval(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: titles, "the answer")
        seen = {dialog.request.call_id}
        dialog = await next_approval(pilot, seen)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(titles) == 2, "the second answer")
    assert titles[0].endswith(" · running") and "awaiting" not in titles[0], titles
    assert "awaiting approval" not in titles[1], titles  # denied: its refusal shows at once




async def test_an_approval_clears_the_notices_that_would_lie_over_it(demo_workspace: Path) -> None:
    """The start's "Earlier session kept" hint lay over the dialog's reason and its right-hand buttons for 12 s; every
    other notice stays (a warning, or the input history's trust notice, may say why the dialog came)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        app.notify("your last session is kept: f5 resumes it", title="Earlier session kept", timeout=12)
        app.notify("the sandbox is missing: commands run on the host", severity="warning")
        app.notify("a repository can plant one: trust the folder to load it", title="Input history not loaded")
        await demo_until_approval(pilot)
        said = [n.message for n in app._notifications]
        assert "the sandbox is missing: commands run on the host" in said
        assert "a repository can plant one: trust the folder to load it" in said, "a notice that matters stays"
        assert "your last session is kept: f5 resumes it" not in said
