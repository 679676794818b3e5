"""Pilot tests: what is typed and not yet sent survives a quit, a crash or a kill.

The box's text is written beside the input history a moment after the user stops typing (and at
once when the app closes); the next start puts it back and says so.  Sending clears it; a pasted
key is masked on disk as in the history.
"""

from __future__ import annotations

import json
from pathlib import Path

from textual import events

from agent_tui.ui.input_history import history_path

from .conftest import demo_app, ready, wait_for

DRAFT = "half a thought about the inventory report\nand a second line"


def draft_file(workspace: Path) -> Path:
    path = history_path(workspace)
    return path.with_name(path.stem + ".draft.json")


def restored_notices(app: object) -> list[str]:
    return [n.message for n in app._notifications if n.title == "Draft restored"]  # type: ignore[attr-defined]


async def test_an_unsent_draft_comes_back_after_a_quit(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.main.prompt.clear()
        app.post_message(events.Paste(DRAFT))
        await pilot.pause()
    # closed at once, before the typing pause passed: written on the way out
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        assert again.main.prompt.value == DRAFT
        assert len(restored_notices(again)) == 1


async def test_the_draft_is_on_disk_while_the_app_still_runs(demo_workspace: Path) -> None:
    """What a kill -9 or a crash would leave: the file is written a moment after typing stops."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.main.prompt.clear()
        await pilot.press(*"fix the tax rounding")
        await wait_for(pilot, lambda: draft_file(demo_workspace).is_file(), "the draft on disk")
        assert json.loads(draft_file(demo_workspace).read_text())["text"] == "fix the tax rounding"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not draft_file(demo_workspace).exists(), "the draft cleared by sending")
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        assert again.main.prompt.value == ""
        assert restored_notices(again) == []


async def test_a_folded_paste_is_kept_whole_and_a_key_is_masked_on_disk(demo_workspace: Path) -> None:
    key = "sk-proj-" + "Q7vT2mXk9LpR4sWz8NcY1bHd6FgJ3aEu5KiO0"
    big = "\n".join(f"line {n} of the log" for n in range(40))
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        app.post_message(events.Paste(big))
        await pilot.pause()
        assert prompt.value.startswith("[paste #1")
        await pilot.press(*f" my key is {key}")
        await wait_for(pilot, lambda: "my key" in draft_file(demo_workspace).read_text()
                       if draft_file(demo_workspace).is_file() else False, "the draft on disk")
    saved = json.loads(draft_file(demo_workspace).read_text())["text"]
    assert saved.startswith(big) and key not in saved and "my key is" in saved


async def test_quitting_while_up_shows_an_old_message_keeps_the_draft_not_the_old_message(
        demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*"/memos", "enter")
        await pilot.pause()
        await pilot.press("escape", *"my unsent idea", "up")
        assert prompt.value == "/memos", "↑ shows the sent message"
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert again.main.prompt.value == "my unsent idea"


def test_two_instances_on_one_folder_never_delete_each_others_draft(tmp_path: Path) -> None:
    from agent_tui.ui.input_history import InputHistory

    a, b = InputHistory.for_workspace(tmp_path), InputHistory.for_workspace(tmp_path)
    a.save_draft("alpha")
    b.save_draft("beta")
    a.save_draft("")  # a's box emptied: b's newer draft stays
    assert InputHistory.for_workspace(tmp_path).saved_draft() == "beta"
    b.save_draft("")
    assert not draft_file(tmp_path).exists()
    a.save_draft("gamma")
    later = InputHistory.for_workspace(tmp_path)
    assert later.saved_draft() == "gamma"  # a later run takes it over ...
    later.save_draft("")  # ... so sending it, or emptying the box, removes it
    assert not draft_file(tmp_path).exists()
