"""Pilot tests: the message box never loses what the user typed — history across runs, tab that never
steals focus, focus back in the box after a button, keys typed elsewhere land in the box, esc that only
closes an overlay, commands that stay to be fixed, and reading back while the answer streams.  Pastes:
``test_prompt_paste``."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from textual import events
from textual.widgets._collapsible import CollapsibleTitle

from agent_tui.agent import events as ev
from agent_tui.ui.app import AgentApp
from agent_tui.ui.commands import COMMANDS
from agent_tui.ui.messages import CompactionSkipped, TaskSubmitted, TurnEnded
from agent_tui.ui.screens.inspector import InspectorScreen
from agent_tui.ui.widgets.chat_items import ThresholdOffer, UserMessage
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import HANG, Recorder, demo_app, denied_demo_turn, ready, turn_done, wait_for


async def test_history_is_kept_across_runs(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"/memos", "enter")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.press(*"/mcp", "enter")
        await pilot.pause()
        await pilot.press("escape")
    from agent_tui.ui.input_history import history_path

    lines = history_path(demo_workspace).read_text().splitlines()
    assert [json.loads(line)["text"] for line in lines] == ["/memos", "/mcp"]
    assert not (demo_workspace / ".agent-tui" / "input_history.jsonl").exists(), "nothing written in the workspace"
    again = demo_app(demo_workspace)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = again.main.prompt
        assert prompt.value == "", "starts empty"
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.value == "/mcp"
        await pilot.press("up")
        assert prompt.value == "/memos"
        await pilot.press("down", "down")
        assert prompt.value == "draft", "past the newest entry the draft comes back"


async def test_tab_with_nothing_to_complete_keeps_focus(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        await pilot.press(*"hello", "tab", "tab", *" world")
        assert app.focused is prompt and prompt.value == "hello world"
        prompt.value = ""
        await pilot.press(*"/comp", "tab")
        assert prompt.value == "/compact " and app.focused is prompt


async def test_repeated_tab_cycles_through_the_matches_as_shells_do(demo_workspace: Path) -> None:
    """`/restore t` + tab gave t1, and more tabs did nothing: the other matches were out of reach."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await denied_demo_turn(pilot)
        prompt = app.main.prompt
        ids = [i for i in app.controller.item_ids() if i.startswith("t")]
        assert len(ids) >= 3
        prompt.value = ""
        await pilot.press(*"/restore t", "tab")
        assert prompt.value == f"/restore {ids[0]}"
        assert all(i in str(prompt.border_subtitle) for i in ids), "the matches are listed"
        seen = []
        for _ in ids:
            await pilot.press("tab")
            seen.append(prompt.value)
        assert seen == [f"/restore {i}" for i in ids[1:]] + [f"/restore {ids[0]}"], "round and back to the first"
        await pilot.press("shift+tab")
        assert prompt.value == f"/restore {ids[-1]}" and app.focused is prompt
        await pilot.press("backspace", *"2", "tab")  # an edit starts over from what is typed
        assert prompt.value == f"/restore {ids[-1][:-1]}2" and not prompt.border_subtitle

        names = [f"/{c.name}{' ' if c.args else ''}" for c in COMMANDS if c.name.startswith("c")]
        assert len(names) >= 2
        prompt.value = ""
        await pilot.press(*"/c", "tab", "tab")
        assert prompt.value == names[1] and app.focused is prompt


async def test_keys_typed_elsewhere_land_in_the_box(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.main.conversation.focus()
        await pilot.pause()
        await pilot.press(*"hi")
        assert app.main.prompt.value == "hi" and app.focused is app.main.prompt


async def test_a_burst_of_keys_typed_on_a_panel_lands_whole_and_in_order(demo_workspace: Path) -> None:
    """As a terminal delivers typing: keys reach the app faster than a deferred focus change, so the
    box must take the keyboard before the first key is forwarded (tmux lost `r compact`)."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await denied_demo_turn(pilot)
        title = app.main.conversation.query(CollapsibleTitle).last()
        title.focus()
        await wait_for(pilot, lambda: app.focused is title, "a tool panel's title focused")
        for ch in "after compact":
            app.post_message(events.Key("space" if ch == " " else ch, ch))
        await wait_for(pilot, lambda: len(app.main.prompt.value) >= len("after compact"), "the typing")
        assert app.main.prompt.value == "after compact" and app.focused is app.main.prompt
        title.post_message(events.Key("s", "s"))  # a key the panel got before the focus moved
        await wait_for(pilot, lambda: app.main.prompt.value.endswith("s"), "the late key")
        assert app.main.prompt.value == "after compacts"


async def test_after_compact_now_the_next_typed_message_is_sent(demo_workspace: Path, recorder: Recorder) -> None:
    config = demo_workspace / ".agent-tui" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text("[budget]\ncompact_at = 0.3\nfresh_at = 0.95\n")
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await denied_demo_turn(pilot)
        offer = next(o for o in app.main.conversation.query(ThresholdOffer) if o.level == "compact")
        if offer.resolved:  # the engine already compacted at that point and took the button away
            await pilot.press(*"/compact", "enter")
        else:
            offer.query_one("#offer-compact").focus()
            await pilot.pause()
            await pilot.press("enter")
        # The engine compacts by itself at the same point, so by now there may be nothing left to fold:
        # then the click is answered by "nothing to compact" instead of a second compaction.
        await wait_for(pilot, lambda: [c for c in recorder.events(ev.Compacted) if c.reason == "forced"]
                       or recorder.of(CompactionSkipped), "the compaction (or its skip)")
        await wait_for(pilot, lambda: app.focused is app.main.prompt, "focus back in the box")
        await wait_for(pilot, lambda: not app.main.status.busy and app.main.status.state == "ready", "idle")
        await wait_for(pilot, lambda: offer.resolved, "the offer to say what happened")
        assert "Compacted" in offer.message or "below the compaction point" in offer.message
        await pilot.press(*"thanks", "enter")
        await wait_for(pilot, lambda: recorder.of(TaskSubmitted)[1:], "the typed message")
        assert recorder.of(TaskSubmitted)[-1].text == "thanks"
        forced = [c for c in recorder.events(ev.Compacted) if c.reason == "forced"]
        assert len(forced) + len(recorder.of(CompactionSkipped)) == 1, "enter did not compact again"


@pytest.mark.parametrize("later", [False, True])
async def test_esc_with_the_inspector_open_closes_only_it(fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder,
                                                         monkeypatch: pytest.MonkeyPatch, later: bool) -> None:
    """Esc with the inspector open closes only it.  Right after it closed, the first esc only warns (one more
    press meant for the overlay); a while later (the user read on) esc cancels at once, as anywhere else — a
    tester found it still only warning long after an approval."""
    import agent_tui.ui.screens.main as main_screen

    if not later:
        monkeypatch.setattr(main_screen, "ESC_AFTER_OVERLAY", 60.0)  # (a busy machine must not make "right after" late)
    words = " ".join(f"word{n}" for n in range(600))
    fake_llm.script(Reply.text(words, chunk_size=8, chunk_delay=0.05))  # ~30 s unless cancelled
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"tell me a long story", "enter")
        await wait_for(pilot, lambda: len(recorder.events(ev.TextDelta)) >= 3, "the stream to start")
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(fake_app.screen, InspectorScreen), "the inspector")
        await pilot.press("escape")
        await wait_for(pilot, lambda: fake_app.screen is fake_app.main, "the inspector closed")
        assert fake_app.turn_running, "closing the inspector did not cancel the turn"
        if later:
            await pilot.pause(2.0)  # (over ESC_AFTER_OVERLAY, 1.5 s)
        else:
            await pilot.press("escape")
            await pilot.pause()
            assert fake_app.turn_running, "the first esc right after an overlay only warns"
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")
        assert recorder.of(TurnEnded)[-1].status == "cut"


async def test_scroll_follow_stops_when_scrolled_up_and_resumes_at_the_bottom(demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        conv = app.main.conversation
        for n in range(40):
            await conv.note(f"note {n}", "info")
        await pilot.pause()
        assert conv.max_scroll_y > 0 and conv.scroll_y == conv.max_scroll_y, "new content is followed"
        conv.scroll_home(animate=False)
        await pilot.pause()
        await conv.note("while scrolled up", "info")
        await pilot.pause()
        assert conv.scroll_y == 0, "the user's place is kept while they read"
        conv.scroll_end(animate=False)
        await pilot.pause()
        await conv.note("back at the bottom", "info")
        await pilot.pause()
        assert conv.scroll_y == conv.max_scroll_y, "following resumes at the bottom"
        conv.scroll_home(animate=False)
        await pilot.pause()
        await pilot.press(*"/memos", "enter")
        await pilot.press("escape")
        await pilot.press(*"a new question", "enter")
        await wait_for(pilot, lambda: list(conv.query(UserMessage)), "the bubble")
        await pilot.pause()
        assert conv.scroll_y == conv.max_scroll_y, "sending a message brings the flow to the bottom"


async def test_pgup_from_the_box_reads_back_and_keeps_the_place_while_new_lines_arrive(demo_workspace: Path) -> None:
    """The box has the focus nearly always: pgup during a streamed answer moved its cursor, and the view went on
    following each new line.  It scrolls the conversation back now, the place is kept, pgdn to the bottom follows
    again, and the typed text is untouched."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        conv = app.main.conversation
        for n in range(60):
            await conv.note(f"note {n}", "info")
        await pilot.press(*"half a question")
        await pilot.pause()
        assert app.focused is app.main.prompt and conv.scroll_y == conv.max_scroll_y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: conv.scroll_y < conv.max_scroll_y, "a page back")
        place = conv.scroll_y
        assert app.focused is app.main.prompt
        for n in range(10):
            await conv.note(f"streamed {n}", "info")
        await pilot.pause(0.3)
        assert conv.scroll_y == place and not conv.following, "the place is kept while new lines arrive"
        for _ in range(20):
            await pilot.press("pagedown")
            await pilot.pause()
        await wait_for(pilot, lambda: conv.following, "following again at the bottom")
        await conv.note("after", "info")
        await pilot.pause(0.3)
        assert conv.scroll_y == conv.max_scroll_y and conv.following
        assert app.main.prompt.value == "half a question"


async def test_bubble_shows_while_the_model_client_loads(demo_workspace: Path, recorder: Recorder,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    import agent_tui.agent.llm as llm

    real = llm.preload_litellm

    def slow_preload() -> None:
        gate.wait(HANG)
        real()

    monkeypatch.setattr(llm, "preload_litellm", slow_preload)
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await wait_for(pilot, lambda: app.controller is not None, "the session")
        assert not app.llm_ready.is_set()
        await pilot.press(*"hello there", "enter")
        await wait_for(pilot, lambda: list(app.main.conversation.query(UserMessage)), "the bubble")
        assert not app.llm_ready.is_set(), "the bubble came before the model client"
        assert "loading model client" in app.main.status.state
        gate.set()
        await wait_for(pilot, lambda: recorder.events(ev.TurnStarted), "the turn")
        await pilot.pause()
        bubbles = [b.message_text for b in app.main.conversation.query(UserMessage)]
        assert bubbles == ["hello there"], "one bubble, not a second one when the turn starts"


async def test_demo_task_is_offered_once(demo_workspace: Path, recorder: Recorder) -> None:
    """The demo's hint and its enter-on-empty task go away once the task was sent: a second enter on an
    empty box sends nothing (no replayed task)."""
    from agent_tui.ui.widgets.prompt import PLACEHOLDER

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        assert "enter sends the demo task" in app.main.prompt.placeholder
        await denied_demo_turn(pilot)
        assert app.main.prompt.placeholder == PLACEHOLDER
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert len({id(m) for m in recorder.of(TaskSubmitted)}) == 1 and not app.turn_running


async def test_a_message_too_long_for_the_history_comes_back_on_up_when_its_turn_fails(
        fake_llm: FakeOpenAI, fake_app: AgentApp) -> None:
    from agent_tui.ui.input_history import MAX_CHARS

    long = "please read this log:\n" + "a log line that goes on\n" * (MAX_CHARS // 20)
    fake_llm.script(*[Reply.error(400, "bad request", type="invalid_request_error")] * 4)
    app = fake_app
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        app.post_message(events.Paste(long))
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.turn_worker is not None, "the turn")
        await turn_done(pilot)
        assert prompt.value == ""
        await pilot.press("up")
        assert prompt.value == long.strip("\n")


async def test_an_unknown_command_stays_in_the_box_to_fix(demo_workspace: Path, recorder: Recorder) -> None:
    """A typo (/modle) or a message that starts with a path (/etc/hosts …) was cleared from the box
    with the error; it stays there now, and the error says how to send a message starting with /."""
    from agent_tui.ui.messages import ActionFailed

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*"/etc/hosts has a typo in line 3", "enter")
        await wait_for(pilot, lambda: recorder.of(ActionFailed), "the error")
        assert "unknown command /etc/hosts" in recorder.of(ActionFailed)[0].message
        assert "//" in recorder.of(ActionFailed)[0].message
        assert prompt.value == "/etc/hosts has a typo in line 3"
        assert not recorder.of(TaskSubmitted)
        await pilot.press("home", "/", "enter")
        await wait_for(pilot, lambda: recorder.of(TaskSubmitted), "the message")
        assert recorder.of(TaskSubmitted)[0].text == "/etc/hosts has a typo in line 3"
        assert prompt.value == ""


async def test_an_unknown_command_recalled_with_up_keeps_what_was_typed_before(
        demo_workspace: Path, recorder: Recorder) -> None:
    """Typed, ↑ to an earlier unknown command, enter: the command stays in the box, and the typing from
    before ↑ was dropped (the history's add cleared its draft, with no copy on disk or on ↑)."""
    from agent_tui.ui.messages import ActionFailed

    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        await pilot.press(*"/etc/hosts x", "enter")
        await wait_for(pilot, lambda: recorder.of(ActionFailed), "the error")
        prompt.clear()
        await pilot.press(*"my unsent idea", "home", "up")
        assert prompt.value == "/etc/hosts x"
        errors = len(recorder.of(ActionFailed))
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(recorder.of(ActionFailed)) > errors, "the second error")
        assert prompt.value == "/etc/hosts x"
        prompt.clear()
        await pilot.press("up")
        assert prompt.value == "my unsent idea"


async def test_ctrl_u_and_ctrl_k_delete_to_the_ends_of_the_line_as_typed_not_of_its_wrapped_row(
        demo_workspace: Path) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        prompt.clear()
        long = " ".join(f"word{i}" for i in range(60))  # wraps over several rows at 80 columns
        prompt.insert(f"keep this\n{long}")
        await pilot.pause()
        assert prompt.wrapped_document.height > 3
        await pilot.press("ctrl+u")
        assert prompt.text == "keep this\n"
        prompt.insert(long)
        prompt.move_cursor((1, 5))
        await pilot.press("ctrl+k")
        assert prompt.text == "keep this\nword0"
