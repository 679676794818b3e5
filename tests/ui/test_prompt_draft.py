"""Pilot tests: what is typed and not yet sent survives a quit, a crash or a kill.

The box's text is written beside the input history a moment after the user stops typing (and at
once when the app closes); the next start puts it back and says so.  Sending clears it; a pasted
key is masked on disk as in the history.  Each running instance has its own draft file: two on one
folder never overwrite each other, and a start takes over only the drafts of instances that are gone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events

from agent_tui.ui.input_history import history_path

from .conftest import demo_app, ready, sent_then_typed_and_up, wait_for

DRAFT = "half a thought about the inventory report\nand a second line"


def draft_files(workspace: Path) -> list[Path]:
    path = history_path(workspace)
    return sorted(path.parent.glob(path.stem + ".draft*.json"))


def draft_text(workspace: Path) -> str | None:
    """The one draft on disk for ``workspace`` (None when there is none)."""
    files = draft_files(workspace)
    assert len(files) <= 1, files
    return json.loads(files[0].read_text())["text"] if files else None


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
        # (a pause mid-typing on a busy machine writes a part first: the whole follows once typing stops)
        await wait_for(pilot, lambda: draft_text(demo_workspace) == "fix the tax rounding", "the whole draft on disk")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not draft_files(demo_workspace), "the draft cleared by sending")
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
        await wait_for(pilot, lambda: "my key" in (draft_text(demo_workspace) or ""), "the draft on disk")
    saved = draft_text(demo_workspace) or ""
    assert saved.startswith(big) and key not in saved and "my key is" in saved
    again = demo_app(demo_workspace)  # (a tester found the mask in the restored box and no word of it)
    async with again.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        assert "[REDACTED:" in again.main.prompt.expanded()
        assert any("was masked when it was saved" in n for n in restored_notices(again))


async def test_quitting_while_up_shows_an_old_message_keeps_the_draft_not_the_old_message(
        demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await sent_then_typed_and_up(pilot, app, "my unsent idea")
        assert prompt.value == "/memos", "↑ shows the sent message"
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert again.main.prompt.value == "my unsent idea"


def test_two_instances_on_one_folder_keep_their_own_drafts(tmp_path: Path) -> None:
    from agent_tui.ui.input_history import InputHistory

    a, b = InputHistory.for_workspace(tmp_path), InputHistory.for_workspace(tmp_path)
    a.save_draft("alpha")
    b.save_draft("beta")  # b typing never overwrites a's draft
    a.save_draft("")  # a's box emptied: b's draft stays
    assert sorted(json.loads(f.read_text())["text"] for f in draft_files(tmp_path)) == ["beta"]
    a.save_draft("gamma")
    assert InputHistory.for_workspace(tmp_path).saved_draft() == "", "both owners still run: nothing is taken"
    a.close()
    later = InputHistory.for_workspace(tmp_path)
    assert later.saved_draft() == "gamma"  # a is gone: a later run takes its draft over ...
    assert sorted(json.loads(f.read_text())["text"] for f in draft_files(tmp_path)) == ["beta", "gamma"]
    later.save_draft("")  # ... so sending it, or emptying the box, removes it
    b.save_draft("")
    assert draft_files(tmp_path) == []


def test_a_killed_instance_leaves_its_draft_to_the_next_start_and_older_ones_go_to_history(
        tmp_path: Path) -> None:
    """kill -9 gives no chance to clean up: the kernel drops the dead process's lock, so the next
    start sees the draft has no owner.  Two orphans: the newest goes in the box, the other into ↑."""
    from agent_tui.ui.input_history import InputHistory

    script = ("import sys, time; from pathlib import Path; from agent_tui.ui.input_history import InputHistory;"
              "h = InputHistory.for_workspace(Path(sys.argv[1])); h.save_draft(sys.argv[2]); print('saved', flush=True);"
              "time.sleep(60)")
    children: list[subprocess.Popen[str]] = []
    try:
        for text in ("the older unsent idea", "the newest unsent idea"):
            child = subprocess.Popen([sys.executable, "-c", script, str(tmp_path), text], stdout=subprocess.PIPE,
                                     text=True, env=os.environ.copy())
            children.append(child)
            assert child.stdout is not None and child.stdout.readline().strip() == "saved"
        assert InputHistory.for_workspace(tmp_path).saved_draft() == "", "their owners run: not taken"
    finally:
        for child in children:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
            assert child.stdout is not None
            child.stdout.close()
    later = InputHistory.for_workspace(tmp_path)
    assert later.saved_draft() == "the newest unsent idea"
    assert later.older_drafts == 1 and later.entries[-1] == "the older unsent idea"
    assert [json.loads(f.read_text())["text"] for f in draft_files(tmp_path)] == ["the newest unsent idea"]
    again = InputHistory.for_workspace(tmp_path)
    assert again.saved_draft() == "", "later still runs and owns the draft now"
    assert again.entries[-1] == "the older unsent idea", "the older draft stayed in the history"


def test_the_single_draft_file_of_earlier_versions_is_taken_over(tmp_path: Path) -> None:
    from agent_tui.ui.input_history import InputHistory

    old = history_path(tmp_path).with_name(history_path(tmp_path).stem + ".draft.json")
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text(json.dumps({"text": "from before the upgrade", "at": 1.0}))
    later = InputHistory.for_workspace(tmp_path)
    assert later.saved_draft() == "from before the upgrade"
    assert not old.exists() and draft_text(tmp_path) == "from before the upgrade"


def test_an_older_draft_longer_than_a_history_entry_is_kept_whole(tmp_path: Path) -> None:
    """The history drops sent messages past MAX_CHARS; a taken-over draft has no other copy."""
    from agent_tui.ui.input_history import MAX_CHARS, InputHistory

    big = "a pasted log line\n" * (MAX_CHARS // 10)
    first, second = InputHistory.for_workspace(tmp_path), InputHistory.for_workspace(tmp_path)
    first.save_draft(big)
    second.save_draft("the newer short one")
    first.close()
    second.close()
    later = InputHistory.for_workspace(tmp_path)
    assert later.saved_draft() == "the newer short one"
    assert later.older_drafts == 1 and later.entries[-1] == big
    assert InputHistory.for_workspace(tmp_path).entries[-1] == big, "on disk, not only in memory"


def test_a_draft_whose_owner_cannot_be_probed_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """A lock this user cannot open (another user's run, too many open files) counts as a live owner."""
    from agent_tui.ui import drafts as drafts_mod
    from agent_tui.ui.input_history import InputHistory

    owner = InputHistory.for_workspace(tmp_path)
    owner.save_draft("still typing this")
    real_open = os.open

    def refusing(path: object, flags: int, *args: object) -> int:
        if str(path).endswith(".lock") and owner.drafts is not None and owner.drafts.token in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(drafts_mod.os, "open", refusing)
    assert InputHistory.for_workspace(tmp_path).saved_draft() == ""
    assert draft_text(tmp_path) == "still typing this"


def test_an_unwritable_state_folder_never_stops_the_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.ui.input_history import InputHistory

    ended = InputHistory.for_workspace(tmp_path)
    ended.save_draft("left behind")
    ended.close()
    mp = monkeypatch

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    for name in ("unlink", "write_text", "replace"):
        mp.setattr(Path, name, refuse)
    later = InputHistory.for_workspace(tmp_path)
    assert later.saved_draft() == "left behind"  # in the box, and its file stays: no other copy is on disk
    later.save_draft("typed on")
    later.close()
    mp.undo()
    assert [json.loads(f.read_text())["text"] for f in draft_files(tmp_path)] == ["left behind"]
    assert InputHistory.for_workspace(tmp_path).saved_draft() == "left behind", "the next start finds it"


def test_a_draft_claimed_by_a_start_that_crashed_goes_to_the_next_one(tmp_path: Path) -> None:
    """A start claims a draft (renames its file), then dies before keeping the text anywhere else:
    the claim must still look like a draft of a run that ended, so the next start takes it."""
    from agent_tui.ui.input_history import InputHistory

    ended = InputHistory.for_workspace(tmp_path)
    ended.save_draft("claimed, then the start crashed")
    ended.close()
    crashing = InputHistory.for_workspace(tmp_path)
    assert crashing.drafts is not None
    claimed = crashing.drafts.take_over()  # renamed to its claim; neither saved nor dropped yet
    assert [d.text for d in claimed] == ["claimed, then the start crashed"]
    crashing.drafts.close()  # the process dies: the kernel drops its lock
    assert InputHistory.for_workspace(tmp_path).saved_draft() == "claimed, then the start crashed"


async def test_steady_typing_is_written_at_least_every_max_wait(demo_workspace: Path) -> None:
    """Keys that never pause DRAFT_DELAY restarted the write each time: a SIGHUP lost all of it."""
    import asyncio

    from agent_tui.ui.widgets import prompt as prompt_mod

    DRAFT_DELAY, DRAFT_MAX_WAIT = prompt_mod.DRAFT_DELAY, getattr(prompt_mod, "DRAFT_MAX_WAIT", 1.5)  # noqa: N806

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.main.prompt.clear()
        await pilot.pause(DRAFT_DELAY * 2)
        loop = asyncio.get_running_loop()
        started = loop.time()
        typed = ""
        seen: list[str] = []
        while loop.time() - started < DRAFT_MAX_WAIT * 2.5:
            await pilot.press("x")
            typed += "x"
            await asyncio.sleep(DRAFT_DELAY / 4)  # steady typing: never a pause of DRAFT_DELAY
            seen.append(draft_text(demo_workspace) or "")
        on_disk = draft_text(demo_workspace) or ""
        assert on_disk and typed.startswith(on_disk), "a draft was written while typing went on"
        assert len(typed) - len(on_disk) <= len(typed) * 0.75, (len(on_disk), len(typed))
        assert len({s for s in seen if s}) >= 2, "written more than once while typing went on"


def test_sighup_and_sigterm_write_the_draft_and_end_the_app(tmp_path: Path) -> None:
    """A real run in a pseudo-terminal: text typed just before the terminal closes (SIGHUP) or a
    SIGTERM, with no pause for the delayed write, is on disk, and the app exits cleanly."""
    import time

    from agent_tui.demo_project import make_demo_workspace

    from .pty_run import DemoInTerminal

    for sig in (signal.SIGHUP, signal.SIGTERM):
        workspace = make_demo_workspace(tmp_path / f"ws-{sig}")
        with DemoInTerminal(workspace, tmp_path) as app:
            time.sleep(1.5)
            app.type("unsent words typed just before the end")
            time.sleep(0.15)  # under DRAFT_DELAY: the delayed write has not run
            status = app.stopped(sig, within=60)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 128 + sig, status
        assert draft_text(workspace) == "unsent words typed just before the end"


def test_a_draft_typed_a_moment_before_a_kill_9_is_on_disk(tmp_path: Path) -> None:
    """``kill -9`` gives no signal to save on: the draft is what was written before.  A short draft was written
    only after a pause of DRAFT_DELAY (0.4 s), or every DRAFT_MAX_WAIT (1.5 s) while typing went on: what was
    typed in the last moment before the kill was lost.  A short draft is now written within 0.05 s of the change;
    the kill comes 0.3 s after the screen shows the keys."""

    from agent_tui.demo_project import make_demo_workspace
    from agent_tui.ui.widgets import prompt as prompt_mod

    from .pty_run import DemoInTerminal

    workspace = make_demo_workspace(tmp_path / "ws")
    with DemoInTerminal(workspace, tmp_path) as app:
        app.drain(1.5)
        app.type("words typed the moment before the kill")
        app.drain_until("the kill", within=60)  # (the app has the keys: on a busy machine that took over 0.3 s)
        app.drain(0.3)
        assert 0.3 < prompt_mod.DRAFT_DELAY, "the wait is shorter than the pause a long draft waits for"
        status = app.stopped(signal.SIGKILL, within=30)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
    assert draft_text(workspace) == "words typed the moment before the kill"


async def type_a_paste_then_browse_up(pilot: Any, app: Any, typed: str) -> str:
    """Send `/memos`, type ``typed`` and paste a folded 40-line log after it, then ↑ to `/memos`;
    returns the paste."""
    big = "\n".join(f"line {n} of the log" for n in range(40))
    prompt = app.main.prompt
    prompt.clear()
    await pilot.press(*"/memos", "enter")
    await pilot.pause()
    await pilot.press("escape", *typed)
    app.post_message(events.Paste(big))
    await pilot.pause()
    await pilot.press("home", "up")
    assert prompt.value == "/memos"
    return big


async def test_sending_a_recalled_message_gives_back_what_was_typed_before(demo_workspace: Path) -> None:
    """Typed, ↑ to an earlier message, enter: the typing was dropped with no copy anywhere.  It comes back with
    its paste still folded (it came back expanded, 40 lines in the box)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        big = await type_a_paste_then_browse_up(pilot, app, "my unsent idea: ")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("escape")
        assert prompt.value == "my unsent idea: [paste #1 · 40 lines]"
        assert prompt.expanded() == f"my unsent idea: {big}"


async def test_quitting_while_up_keeps_a_folded_paste_of_the_draft_whole(demo_workspace: Path) -> None:
    """The draft written while ↑ showed an old message kept the paste's token, not its text.  It comes back
    whole, and folded as it was typed (it came back expanded)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        big = await type_a_paste_then_browse_up(pilot, app, "see: ")
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert again.main.prompt.value == "see: [paste #1 · 40 lines]"
        assert again.main.prompt.expanded() == f"see: {big}"


async def test_a_draft_that_cannot_be_written_is_said_once_and_leaves_no_half_copy(
        demo_workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk: the typing lived only in the box, unsaid, and every try left an empty ``.tmp`` behind."""
    real_write = Path.write_text

    def full_disk(self: Path, *args: Any, **kwargs: Any) -> int:
        if ".draft." in self.name:
            real_write(self, "")  # what a full disk leaves: the file made, nothing in it
            raise OSError(28, "No space left on device")
        return real_write(self, *args, **kwargs)

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        app.main.prompt.clear()
        monkeypatch.setattr(Path, "write_text", full_disk)
        await pilot.press(*"keep this")
        app.main.prompt.save_draft()
        await pilot.press(*" and this")
        app.main.prompt.save_draft()
        await pilot.pause()
        warned = [n.message for n in app._notifications if n.title == "Draft not saved"]
        assert len(warned) == 1 and "No space left on device" in warned[0], warned
        folder = history_path(demo_workspace).parent
        assert not list(folder.glob("*.draft.*.tmp"))
        monkeypatch.setattr(Path, "write_text", real_write)  # space again: saved, and a new failure is said again
        app.main.prompt.save_draft()
        assert draft_text(demo_workspace) == "keep this and this"
        monkeypatch.setattr(Path, "write_text", full_disk)
        app.main.prompt.save_draft()
        await pilot.pause()
        assert len([n for n in app._notifications if n.title == "Draft not saved"]) == 2
        monkeypatch.setattr(Path, "write_text", real_write)


def test_half_written_copies_of_ended_runs_are_swept(tmp_path: Path) -> None:
    from agent_tui.ui.input_history import InputHistory

    ended = InputHistory.for_workspace(tmp_path)
    ended.save_draft("whole")
    assert ended.drafts is not None
    leftover = ended.drafts._file(ended.drafts.token, ".tmp")
    leftover.write_text("")  # killed between the write and the rename
    ended.close()
    assert InputHistory.for_workspace(tmp_path).saved_draft() == "whole"
    assert not leftover.exists()


async def _typed_then_pasted(pilot: Any, typed: str, pasted: str) -> Any:
    """The ready app's message box after ``typed`` then a paste of ``pasted``."""
    await ready(pilot)
    prompt = pilot.app.main.prompt
    prompt.clear()
    await pilot.press(*typed)
    pilot.app.post_message(events.Paste(pasted))
    await pilot.pause()
    return prompt


async def test_a_folded_paste_comes_back_folded(demo_workspace: Path) -> None:
    """A tester's 2,000-line paste, folded in the box as one token, came back after a restart as 2,000 lines
    to scroll through (and the "too large" refusal put it back so too)."""
    pasted = "\n".join(f"log line {n}: value={n * 7}" for n in range(2000)) + "\n"
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _typed_then_pasted(pilot, "look at this: ", pasted)
        shown = prompt.text
        assert shown == "look at this: [paste #1 · 2,000 lines]"
        whole = prompt.expanded()
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        prompt = again.main.prompt
        assert prompt.text == shown, "folded as it was typed"
        assert prompt.expanded() == whole, "and it still sends every line"
        await wait_for(pilot, lambda: len(again.main.query("#pastes Collapsible")) == 1, "the paste's block")
        prompt.restore("x")  # (not over the box's text)
        assert prompt.text == shown


async def test_a_refused_message_comes_back_with_its_paste_folded(demo_workspace: Path) -> None:
    pasted = "\n".join(f"row {n}" for n in range(40))
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await _typed_then_pasted(pilot, "see ", pasted)
        shown, sent = prompt.text, prompt.expanded()
        prompt.send()
        await pilot.pause()
        assert prompt.text == ""
        assert prompt.restore(sent), "the app gives the message back (too large, a turn running...)"
        assert prompt.text == shown and prompt.expanded() == sent


def test_a_malformed_folded_draft_comes_back_plain() -> None:
    """A foreign or damaged draft file: no pastes, or a key that is a digit only to Unicode ("²"), made the
    start fail (a review)."""
    from agent_tui.ui.drafts import folded_of

    assert folded_of({"text": "hello", "folded": {"text": "hello", "pastes": {}}}) is None
    assert folded_of({"text": "a x", "folded": {"text": "a [paste #2 · 1 line]", "pastes": {"²": "x"}}}) is None
    good = {"text": "a x", "folded": {"text": "a [paste #2 · 1 line]", "pastes": {"2": "x"}}}
    assert folded_of(good) == ("a [paste #2 · 1 line]", {2: "x"})
    assert folded_of({**good, "text": "a y"}) is None, "never a form that would send something else"
