"""`/model` refuses names the model client cannot resolve (checked against litellm's list or the
server's), completes names, and sessions get a title from their first message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events

from agent_tui.agent import events as ev
from agent_tui.ui.messages import ActionFailed
from agent_tui.ui.model_check import check, litellm_names
from agent_tui.ui.screens.sessions import SessionsScreen, session_label

from .conftest import Recorder, demo_app, ready, wait_for


async def one_turn(pilot: Any, app: Any, recorder: Recorder) -> None:
    """The demo ready, one question asked and answered, the app idle."""
    await ready(pilot)
    await pilot.press(*"why is the sky blue", "enter")
    await wait_for(pilot, lambda: recorder.events(ev.TurnFinished), "the turn")
    await wait_for(pilot, lambda: not app.turn_running, "idle")


async def two_sessions(pilot: Any, app: Any, recorder: Recorder) -> str:
    """A session with one turn, then a new one (open now); the first one's id."""
    await one_turn(pilot, app, recorder)
    first = str(app.controller.session_id)
    await pilot.press(*"/new", "enter")
    await wait_for(pilot, lambda: app.controller.session_id != first, "a new session")
    return first


def test_check_against_litellm_list() -> None:
    assert check("openai/gpt-4o").ok and check("gpt-4o").ok
    typo = check("gpt-4o-typo-xyz")
    assert not typo.ok and "unknown model gpt-4o-typo-xyz" in typo.message and "did you mean gpt-4o," in typo.message
    assert not check("/help").ok and "not a model name" in check("/help").message
    assert not check("two words").ok


def test_a_misspelt_name_litellm_answers_for_is_refused_local_servers_pass() -> None:
    """litellm's get_model_info answers for any claude-* name; only names in its map (or a local
    provider's, which serves what the user pulled) are accepted."""
    typo = check("claude-sonet-4")
    assert not typo.ok and "unknown model claude-sonet-4" in typo.message and "claude-sonnet-4" in typo.message
    assert not check("anthropic/claude-sonet-4").ok
    sonnet = next(n for n in litellm_names() if n.startswith("claude-sonnet-"))  # whichever this map has
    assert check(sonnet).ok and check(f"anthropic/{sonnet}").ok
    assert check("ollama/llama3").ok and check("ollama_chat/qwen2.5-coder:7b").ok


def test_check_an_unreachable_server_refuses() -> None:
    verdict = check("gpt-4o", "http://127.0.0.1:9/v1")
    assert not verdict.ok and "cannot ask" in verdict.message


async def test_model_command_refuses_and_completes(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        before = app.controller.model
        for n, bad in enumerate(("/model gpt-4o-typo-xyz", "/model /help"), 1):
            await pilot.press(*bad, "enter")
            await wait_for(pilot, lambda n=n: len([m for m in recorder.of(ActionFailed) if "refused" in m.message])
                           >= n, f"the refusal of {bad}")
            assert app.main.prompt.value == bad, "a refused name goes back into the box to fix (a tester retyped it)"
            app.main.prompt.clear()
        messages = [m.message for m in recorder.of(ActionFailed) if "refused" in m.message]
        assert "unknown model gpt-4o-typo-xyz" in messages[0] and "not a model name" in messages[1]
        assert all("back in the box" in m for m in messages)
        assert app.controller.model == before and app.main.status.state == "ready"
        prompt = app.main.prompt
        await pilot.press(*"/model gpt-4o-mi")
        await wait_for(pilot, lambda: prompt.suggestion, "a model name to complete")
        await pilot.press("tab")
        assert prompt.value.startswith("/model gpt-4o-mini")


async def test_sessions_get_a_title_from_the_first_message(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"why is the sky blue", "ctrl+j", *"second line", "enter")
        await wait_for(pilot, lambda: recorder.events(ev.TurnFinished), "the turn (the demo's short answer)")
        await wait_for(pilot, lambda: not app.turn_running, "idle")
        rows = {r["id"]: r for r in app.controller.sessions()}
        assert rows[app.controller.session_id]["title"] == "why is the sky blue"
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), "the session list")
        await pilot.pause()
        label = session_label(rows[app.controller.session_id], app.controller.session_id)
        assert label.startswith("why is the sky blue (current)")
        shown = app.screen.query_one("#session-list").get_option_at_index(0).prompt
        assert str(shown).startswith("why is the sky blue")


async def test_keys_typed_on_with_the_pickers_enter_go_to_the_box(demo_workspace: Path, recorder: Recorder) -> None:
    """A tester pressed enter in the /resume picker and typed on in the same burst: the letters were lost, and a `q`
    among them (the picker's cancel key) dismissed it a second time: ScreenStackError, and the app was gone.  Keys
    that reach the picker once it has answered go to the box (a `q` too), and it answers only once."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await one_turn(pilot, app, recorder)
        app.main.prompt.clear()
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), "the session list")
        picker = app.screen
        await wait_for(pilot, lambda: picker.query_one("#session-list").option_count > 0, "the sessions")
        app.post_message(events.Key("enter", None))  # (one burst: the keys are queued before the picker is gone)
        for ch in "quick":
            app.post_message(events.Key(ch, ch))
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen), "the picker to close")
        await pilot.pause()
        assert app.is_running and app.main.prompt.value == "quick"


async def test_down_and_enter_typed_quickly_resume_the_session_below(demo_workspace: Path, recorder: Recorder) -> None:
    """In tmux, down and enter pressed at once resumed the current session: the picker's enter was a priority
    binding, handled before the down queued for the list.  Keys are taken in the order they came."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        first = await two_sessions(pilot, app, recorder)
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), "the session list")
        picker = app.screen
        await wait_for(pilot, lambda: picker.query_one("#session-list").option_count == 2, "both sessions")
        app.post_message(events.Key("down", None))  # (one burst: both queued before either is handled)
        app.post_message(events.Key("enter", None))
        await wait_for(pilot, lambda: app.controller.session_id == first, "the first session resumed")
        assert not isinstance(app.screen, SessionsScreen)


def test_a_server_lists_bare_ids_and_the_suggestion_keeps_the_provider_typed() -> None:
    """A tester: `/model openai/whatevr` suggested "whatever"; `/model whatever` was then accepted, and every
    message failed with "Unknown provider"."""
    from tests.support.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        server.model = "whatever"
        typo = check("openai/whatevr", server.base_url)
        assert not typo.ok and "did you mean openai/whatever?" in typo.message, typo.message
        bare = check("whatever", server.base_url)
        assert not bare.ok and "did you mean openai/whatever" in bare.message, bare.message
        assert check("openai/whatever", server.base_url).ok
        server.more_models.append("Qwen/Qwen2.5-7B-Instruct")  # (a server's own id may hold a slash)
        slash = check("Qwen/Qwen2.5-7B-Instruct", server.base_url)
        assert not slash.ok and "did you mean openai/Qwen/Qwen2.5-7B-Instruct" in slash.message, slash.message
        assert check("openai/Qwen/Qwen2.5-7B-Instruct", server.base_url).ok
        typo = check("openai/Qwen/Qwen2.5-7B-Instruc", server.base_url)
        assert "did you mean openai/Qwen/Qwen2.5-7B-Instruct" in typo.message and "Qwen/Qwen/" not in typo.message


async def test_a_resumed_session_keeps_its_sparkline(demo_workspace: Path, recorder: Recorder) -> None:
    """A tester: after a restart with --session the "tokens per request" sparkline held one bar, where it had held
    about thirty; the session's requests are in the store's log."""
    from agent_tui.ui.widgets.budget import BudgetPanel

    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        first = await two_sessions(pilot, app, recorder)
        logged = app.controller.ws.store.request_totals(first, 40)
        assert len(logged) >= 2
        panel = app.main.query_one(BudgetPanel)
        await pilot.press(*f"/resume {first}", "enter")
        await wait_for(pilot, lambda: app.controller.session_id == first, "the first session again")
        await wait_for(pilot, lambda: len(panel.history) >= len(logged), "the sparkline of the session")
        assert panel.history[:len(logged)] == logged
