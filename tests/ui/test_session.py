"""Pilot tests: compact, memo, new session, resume, threshold — each checks the engine,
the store and the gauge (against `agent-tui context --json`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Label, OptionList

from agent_tui.agent import events as ev
from agent_tui.ui.messages import SessionOpened
from agent_tui.ui.screens.memos import MemosScreen
from agent_tui.ui.screens.sessions import SessionsScreen
from agent_tui.ui.widgets.chat_items import EventNote, UserMessage

from .conftest import (
    Recorder,
    demo_app,
    demo_task_approved,
    denied_demo_turn,
    gauge_agrees,
    ready,
    wait_for,
)


async def highlight_session(pilot: Pilot[Any], session_id: str) -> None:
    """In the session picker (two sessions), highlight ``session_id``."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), "the session picker")
    options = app.screen.query_one(OptionList)
    await wait_for(pilot, lambda: options.option_count == 2, "both sessions")
    options.highlighted = next(n for n in range(options.option_count)
                               if options.get_option_at_index(n).id == session_id)


async def pick_session(pilot: Pilot[Any], session_id: str) -> None:
    """In the open session picker (two sessions), choose ``session_id`` and wait until it is the session."""
    await highlight_session(pilot, session_id)
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.controller.session_id == session_id, "the resumed session")


async def type_command(pilot: Pilot[Any], text: str) -> None:
    await pilot.click("#prompt")
    await pilot.press(*text, "enter")


async def test_compact_now_keeps_the_gauge_right(demo_workspace: Path, recorder: Recorder) -> None:
    config = demo_workspace / ".agent-tui" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text("[budget]\nhistory_share = 0.10\nresults_share = 0.10\n")  # a small history cap
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        engine = app.controller.engine
        before = await gauge_agrees(pilot)
        await type_command(pilot, "/compact the restock threshold decision")
        await wait_for(pilot, lambda: recorder.events(ev.Compacted), "the compaction")
        done = recorder.events(ev.Compacted)[0]
        assert done.summary_id is not None and done.evicted > 0
        assert engine.summary_item is not None and engine.summary_item.id == done.summary_id
        assert sum(1 for i in engine.items.values() if i.summarised_into == done.summary_id) == done.evicted
        # the model's end-of-task memo stays: the compaction's copy of the turn's lines does not replace it
        assert [m.kind for m in recorder.events(ev.MemoSaved)][-1:] == ["auto"]
        await wait_for(pilot, lambda: not app.main.status.busy and app.main.status.state == "ready", "idle")
        after = await gauge_agrees(pilot)
        assert after["categories"]["summary"] > 0
        assert after["categories"]["history"] < before["categories"]["history"]
        notes = [str(n.render()) for n in app.main.conversation.query(EventNote)]
        assert any(f"into {done.summary_id}" in n for n in notes)


async def test_write_a_memo_now_from_the_memos_panel(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        store = app.controller.ws.store
        had = len(store.memos())
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, MemosScreen), "the memos panel")
        screen = app.screen
        await wait_for(pilot, lambda: len(screen.memos) == had, "the memo list")
        await pilot.press("w")
        await wait_for(pilot, lambda: any(e.kind == "manual" for e in recorder.events(ev.MemoSaved)), "the memo")
        memo = [e for e in recorder.events(ev.MemoSaved) if e.kind == "manual"][-1]
        assert len(store.memos()) == had + 1
        item = app.controller.engine.get(memo.memo_id)
        assert item.category == "memory" and memo.text in item.content
        await wait_for(pilot, lambda: len(screen.memos) == had + 1, "the list to show it")
        assert screen.query_one(OptionList).option_count == had + 1
        await pilot.press("escape")
        shown = await gauge_agrees(pilot)
        assert shown["categories"]["memory"] >= item.tokens


async def test_new_session_is_seeded_by_a_memo_and_resume_brings_the_old_one_back(
        demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        old = app.controller.session_id
        old_items = set(app.controller.engine.items)
        await type_command(pilot, "/new")
        await wait_for(pilot, lambda: app.controller.session_id != old, "the new session")
        engine = app.controller.engine
        seeds = [i for i in engine.items.values() if i.category == "memory" and "seed from session" in i.content]
        assert seeds, "a new session starts from the latest memo"
        assert any(e.kind == "before new session" for e in recorder.events(ev.MemoSaved))
        assert not any(i.role for i in engine.items.values()), "no messages in the new session"
        await wait_for(pilot, lambda: not app.main.conversation.query(UserMessage), "the conversation to clear")
        fresh = await gauge_agrees(pilot)
        assert fresh["categories"]["history"] == 0 and fresh["categories"]["memory"] > 0

        await pilot.press("f5")
        await pick_session(pilot, old)
        assert old_items <= set(app.controller.engine.items)
        assert recorder.of(SessionOpened)[-1].session_id == old
        await wait_for(pilot, lambda: app.main.conversation.query(UserMessage), "the replayed conversation")
        resumed = await gauge_agrees(pilot)
        assert resumed["categories"]["history"] > 0


async def test_threshold_moves_the_compaction_mark(demo_workspace: Path, recorder: Recorder) -> None:
    from agent_tui.ui.widgets.bars import TotalBar

    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        await type_command(pilot, "/threshold 60")
        await wait_for(pilot, lambda: app.controller.engine.plan.compact_at == 0.6, "the new threshold")
        shown = await gauge_agrees(pilot)
        assert shown["compact_at"] == 0.6 and app.main.budget.query_one(TotalBar).compact_at == 0.6
        await type_command(pilot, "/threshold +10")
        await wait_for(pilot, lambda: app.controller.engine.plan.compact_at == 0.7, "raised threshold")
        assert (await gauge_agrees(pilot))["compact_at"] == 0.7
        await type_command(pilot, "/threshold 150")
        assert app.controller.engine.plan.compact_at == 0.7


async def test_a_resumed_session_shows_only_what_the_user_typed_as_theirs(demo_workspace: Path) -> None:
    """The engine's file notes are user-role messages in the history; live they were never the user's
    bubbles, so a resumed transcript must not draw them as such."""

    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await demo_task_approved(pilot)
        engine = app.controller.engine
        assert any(i.role == "user" and i.provenance.get("note") for i in engine.items.values()), \
            "the demo task leaves a file note in the history"
        live = [(m.message_text, m.border_title) for m in app.main.conversation.query(UserMessage)]
        old = app.controller.session_id

        await type_command(pilot, "/new")
        await wait_for(pilot, lambda: app.controller.session_id != old, "the new session")
        await type_command(pilot, "/resume")
        await pick_session(pilot, old)
        await wait_for(pilot, lambda: app.main.conversation.query(UserMessage), "the replayed conversation")
        replayed = [m.message_text for m in app.main.conversation.query(UserMessage)]
        assert not any(t.startswith("[file note:") for t in replayed)
        assert replayed == [text for text, _ in live]


async def test_memo_panel_tells_the_versions_of_a_rolling_memo_apart(demo_workspace: Path) -> None:
    """A task has one rolling memo whose text is replaced in place; F3 listed `memo1 · manual` and
    `memo1 · pre-compaction` with nothing saying they are two versions of memo1, nor which is current."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await demo_task_approved(pilot)
        versions = app.controller.engine.get("memo1").provenance["version"]
        assert versions >= 2, "the demo task replaces memo1's text at least once"
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, MemosScreen), "the memos panel")
        screen = app.screen
        options = screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == versions, "the memo list")
        labels = [str(options.get_option_at_index(n).prompt) for n in range(versions)]
        assert len(set(labels)) == versions, labels
        for n, label in enumerate(labels):  # newest first
            assert f"memo1 v{versions - n}" in label
            assert ("current" in label) == (n == 0), label
        head = screen.query_one("#memo-head", Label)
        await wait_for(pilot, lambda: f"version {versions} of {versions}" in str(head.render()), "the shown memo")
        assert "current" in str(head.render())
        await pilot.press("down")
        await wait_for(pilot, lambda: f"version {versions - 1} of {versions}" in str(head.render()), "the older one")
        assert f"replaced by v{versions}" in str(head.render())
        assert app.controller.session_id in str(head.render())


async def test_the_picker_leaves_out_sessions_that_never_got_a_message(demo_workspace: Path,
                                                                       recorder: Recorder) -> None:
    """Every start opens a session; one the user closed without writing cluttered the picker as
    "(no message yet) · 0 messages"."""
    from .conftest import ready, turn_done

    first = demo_app(demo_workspace)
    async with first.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press(*"what is this project?", "enter")
        await turn_done(pilot)
        talked = first.controller.session_id
    idle = demo_app(demo_workspace)
    async with idle.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        empty = idle.controller.session_id
    now = demo_app(demo_workspace)
    async with now.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        current = now.controller.session_id
        assert {r["id"] for r in now.controller.sessions()} >= {talked, empty, current}
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(now.screen, SessionsScreen), "the session picker")
        options = now.screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count >= 2, "the sessions")
        shown = {options.get_option_at_index(n).id for n in range(options.option_count)}
        assert shown == {talked, current}, "the current one stays, even without a message"


async def test_a_call_the_store_has_no_result_for_shows_interrupted_not_running(demo_workspace: Path) -> None:
    """Killed while a command ran, then resumed: the panel said "⋯ run_command" forever while the model was
    told the call was interrupted."""
    from agent_tui.core.config import Settings
    from agent_tui.core.engine import ContextEngine

    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user("run the slow tests")
    call = {"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": '{"command": "sleep 40"}'}}
    eng.add_assistant("Running them.", [call])
    status, title = await _replayed_panel(demo_workspace, eng)
    assert status == "error" and "interrupted: no result recorded" in title


async def test_a_message_the_model_never_answered_says_so_after_a_restart(demo_workspace: Path) -> None:
    """Killed while the reply streamed, then resumed: the message showed with nothing under it and nothing
    said that the answer was lost (a kill keeps no partial answer)."""
    from agent_tui.core.config import Settings
    from agent_tui.core.engine import ContextEngine
    from agent_tui.ui.widgets.conversation import NO_REPLY

    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user("explain the cache")
    eng.add_assistant("It keys on the path.")
    eng.add_user("stream again")  # killed mid-stream: no reply stored
    eng.add_user("draft before kill9")  # sent after the restart, its turn failed
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await app.main.conversation.replay([it for it in eng.all_items() if it.role is not None])
        await pilot.pause()
        flow = [w for w in app.main.conversation.children if isinstance(w, UserMessage | EventNote)]
        shown = [("note" if isinstance(w, EventNote) else "you") for w in flow]
        assert shown == ["you", "you", "note", "you", "note"]
        assert all(str(w.render()).startswith("no reply was recorded") for w in flow if isinstance(w, EventNote))
        assert NO_REPLY.startswith("no reply was recorded")


async def test_evicting_an_active_file_says_where_its_text_still_shows(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await denied_demo_turn(pilot)
        assert "inventory/stock.py" in app.controller.engine.files.files
        app.item_action("evict", "f:inventory/stock.py")
        await wait_for(pilot, lambda: any("still shows in" in n.message for n in app._notifications),
                       "the toast naming the messages")
        said = next(n.message for n in app._notifications if "still shows in" in n.message)
        assert "until the next compaction" in said and "t" in said.split("still shows in", 1)[1]


async def test_a_tasks_memo_written_again_says_updated_not_saved(demo_workspace: Path) -> None:
    """A task has one memo, updated in place: a tester read "memo memo4 saved (auto)" and then "memo memo4 saved
    (pre-compaction)" with other text, and took it for an id given twice."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        conv = app.main.conversation
        await conv.show(ev.MemoSaved("memo4", "auto", "Step 1 done"))
        await conv.show(ev.MemoSaved("memo4", "pre-compaction", "Step 2 done"))
        await conv.show(ev.MemoSaved("memo5", "auto", "Next task"))
        await pilot.pause()
        notes = [str(n.render()) for n in conv.query(EventNote) if "memo" in str(n.render())]
        assert [n.split(" (")[0] for n in notes] == ["memo memo4 saved", "memo memo4 updated", "memo memo5 saved"]


async def test_an_item_action_says_its_state_once(demo_workspace: Path) -> None:
    """The evict notice read "t1 evicted (evicted): …"."""
    from agent_tui.ui.messages import ItemEvicted, ItemPinned

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        app.post_message(ItemEvicted("t1", "evicted", False, effect="next request 4,210 → 3,880 tokens"))
        app.post_message(ItemPinned("m5", "in", True))
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "t1 evicted: next request 4,210 → 3,880 tokens" in said and "m5 pinned (in, pinned)" in said


def test_a_memo_of_another_session_says_which_in_the_list() -> None:
    """A seed from the last session and this session's own memo were both listed as "memo1 v1 · current"."""
    from agent_tui.ui.screens.memos import memo_label

    seed = {"item_id": "memo1", "version": 1, "versions": 1, "kind": "seed", "created": 0,
            "session_id": "20261206-101010-abc123"}
    own = {**seed, "kind": "auto", "session_id": "20261206-121212-def456"}
    assert "session …abc123" in memo_label(seed, "20261206-121212-def456").plain
    assert "session" not in memo_label(own, "20261206-121212-def456").plain.split("\n")[0]


async def test_a_malformed_call_shows_its_arguments_as_received_after_a_restart(demo_workspace: Path) -> None:
    """A tester: live, the failed call read `run_command {"command": "py…`; after a kill and a resume it read
    `run_command {}` (the history sends `{}` for arguments that are not JSON; the record keeps what came)."""
    from agent_tui.core.config import Settings
    from agent_tui.core.engine import ContextEngine

    eng = ContextEngine(Settings.default(window=16_384))
    eng.add_user("run the tests")
    call = {"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": "{}"}}
    eng.add_assistant("", [call], provenance={"raw_arguments": {"c1": '{"command": "python3 -m pytest -q'}})
    eng.add_tool_result("c1", "run_command", "Your arguments for run_command are not valid JSON", provenance={"error": True})
    status, title = await _replayed_panel(demo_workspace, eng)
    assert "run_command {\"command\": \"py" in title and status == "error", title


async def _replayed_panel(demo_workspace: Path, eng: Any) -> tuple[str, str]:
    """(status, title) of the one tool panel a stored transcript is redrawn with."""
    from agent_tui.ui.widgets.tool_panel import ToolCallPanel

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await app.main.conversation.replay([it for it in eng.all_items() if it.role is not None])
        await pilot.pause()
        (panel,) = app.main.conversation.query(ToolCallPanel)
        return panel.status, str(panel.title)
