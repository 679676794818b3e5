"""Pilot tests against the fake OpenAI server (the real wire path through litellm): the answer
streams into Markdown, the input stays live while it streams, and esc cancels the turn."""

from __future__ import annotations

from types import SimpleNamespace

from agent_tui.agent import events as ev
from agent_tui.agent.loop import CUT_MARK
from agent_tui.ui.app import AgentApp
from agent_tui.ui.messages import ActionFailed, TurnEnded
from agent_tui.ui.widgets.chat_items import EventNote
from agent_tui.ui.widgets.prompt import PromptInput
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import Recorder, gauge_agrees, ready, turn_done, wait_for


async def test_answer_streams_into_markdown(fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder) -> None:
    from agent_tui.ui.widgets.reply import AssistantReply

    fake_llm.script(Reply.tool_call("read_file", {"path": "notes.md"}),
                    Reply.text("The notes say **42**.\n\n- one\n- two", chunk_size=3))
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"what do the notes say?", "enter")
        await turn_done(pilot)
        deltas = recorder.events(ev.TextDelta)
        assert len(deltas) > 5, "the answer arrived in pieces"
        reply = list(fake_app.main.conversation.query(AssistantReply))[-1]
        assert reply.source == "The notes say **42**.\n\n- one\n- two"
        assert fake_app.main.status.cost is None or fake_app.main.status.cost >= 0
        engine = fake_app.controller.engine
        assert engine.items[engine.order[-1]].content == reply.source
        assert recorder.of(TurnEnded)[-1].status == "done"
        sent = fake_llm.requests[-1].messages
        assert any("The answer is 42" in str(m.get("content")) for m in sent), "the file reached the model"
        await gauge_agrees(pilot)


async def test_input_stays_live_and_esc_cancels_the_turn(fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder) -> None:
    words = " ".join(f"word{n}" for n in range(600))
    fake_llm.script(Reply.text(words, chunk_size=8, chunk_delay=0.05))  # ~30 s unless cancelled
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"tell me a long story", "enter")
        await wait_for(pilot, lambda: len(recorder.events(ev.TextDelta)) >= 3, "the stream to start")
        prompt = fake_app.main.query_one(PromptInput)
        await pilot.press("o", "k")
        assert fake_app.turn_running, "typed while the answer was still streaming"
        assert prompt.value == "ok"
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")
        assert recorder.of(TurnEnded)[-1].status == "cut"
        engine = fake_app.controller.engine
        cut = [i for i in engine.items.values() if i.provenance.get("cut")]
        assert len(cut) == 1 and cut[0].content.endswith(CUT_MARK)
        partial = cut[0].content.removesuffix(CUT_MARK)
        assert partial and words.startswith(partial) and len(partial) < len(words)
        notes = [str(n.render()) for n in fake_app.main.conversation.query(EventNote)]
        assert any("cancelled" in n for n in notes)
        assert prompt.value == "ok", "the draft survives the cancel"
        await gauge_agrees(pilot)


async def test_ctrl_c_cancels_a_running_turn_and_copies_a_selection(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                                     recorder: Recorder) -> None:
    """A tester's ctrl+c mid-answer only drew Textual's "ctrl+q quits" and the turn went on spending, where other
    terminal agents stop it.  With text selected in the box, ctrl+c still copies and the turn goes on."""
    words = " ".join(f"word{n}" for n in range(600))
    fake_llm.script(Reply.text(words, chunk_size=8, chunk_delay=0.05))  # ~30 s unless cancelled
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"tell me a long story", "enter")
        await wait_for(pilot, lambda: len(recorder.events(ev.TextDelta)) >= 3, "the stream to start")
        prompt = fake_app.main.query_one(PromptInput)
        await pilot.press(*"keep this", "shift+home", "ctrl+c")
        await pilot.pause()
        assert fake_app.turn_running, "ctrl+c with a selection copies: the turn goes on"
        assert fake_app.clipboard == "keep this"
        await pilot.press("end", "ctrl+c")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")
        assert recorder.of(TurnEnded)[-1].status == "cut"
        assert prompt.value == "keep this", "the draft survives"


async def test_model_switch_keeps_the_session(fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder) -> None:
    fake_llm.script(Reply.text("first answer"))
    fake_llm.more_models.append("gpt-4o-mini")
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"hello", "enter")
        await turn_done(pilot)
        session = fake_app.controller.session_id
        await pilot.press(*"/model openai/gpt-4o-typo", "enter")
        await wait_for(pilot, lambda: any("refused" in m.message for m in recorder.of(ActionFailed)), "the refusal")
        refusal = next(m.message for m in recorder.of(ActionFailed) if "refused" in m.message)
        assert "does not serve openai/gpt-4o-typo" in refusal and "gpt-4o-mini" in refusal
        assert fake_app.controller.model == "openai/gpt-4o", "a name the server does not serve is not taken"
        assert fake_app.main.prompt.value == "/model openai/gpt-4o-typo", "back in the box to fix"
        await pilot.press("ctrl+u")
        fake_app.main.prompt.clear()
        await pilot.press(*"/model openai/gpt-4o-mini", "enter")
        await wait_for(pilot, lambda: fake_app.controller.model == "openai/gpt-4o-mini", "the new model")
        assert fake_app.controller.session_id == session
        assert fake_app.main.status.model == "openai/gpt-4o-mini"
        assert any(i.content == "first answer" for i in fake_app.controller.engine.items.values())
        await gauge_agrees(pilot)
        await pilot.press(*"/quit", "enter")
    assert fake_app.return_value == 0


async def test_a_turn_that_ends_while_the_app_exits_is_not_a_crash(fake_app: AgentApp) -> None:
    """A turn's worker can finish (or be cancelled) after the app began tearing its screen down; the
    status line is gone by then, and updating it raised NoMatches out of the worker handler (seen once in CI
    when a test left while its turn was still running)."""
    from agent_tui.ui.widgets.status_line import StatusLine

    async with fake_app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await fake_app.main.query_one(StatusLine).remove()  # what the teardown does to the main screen
        fake_app._turn_over("done", 1)
        await fake_app._turn_cut(None)  # type: ignore[arg-type]
        for group in ("turn", "session", "model-check", "agent", "mcp"):
            fake_app._worker_failed(SimpleNamespace(group=group, error=RuntimeError("late"), name=group))  # type: ignore[arg-type]
        await pilot.pause()
        assert fake_app._exception is None


async def test_a_switched_model_stays_for_new_and_resume(fake_llm: FakeOpenAI, fake_app: AgentApp) -> None:
    """/model then /new (or /resume) went back to the model agent-tui was started with, silently: the status
    line said so and the next request went to it."""
    fake_llm.more_models.append("gpt-4o-mini")
    fake_llm.script(Reply.text("first answer"), Reply.text("second answer"))
    async with fake_app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        first = fake_app.controller.session_id
        await pilot.press(*"/model openai/gpt-4o-mini", "enter")
        await wait_for(pilot, lambda: fake_app.controller.model == "openai/gpt-4o-mini", "the new model")
        await pilot.press(*"/new", "enter")
        await wait_for(pilot, lambda: fake_app.controller.session_id != first, "the new session")
        assert fake_app.controller.model == "openai/gpt-4o-mini"
        await pilot.press(*"hello", "enter")
        await turn_done(pilot)
        assert [r.body["model"] for r in fake_llm.requests if r.body and "messages" in r.body][-1] == "gpt-4o-mini"
        await pilot.press(*f"/resume {first}", "enter")
        await wait_for(pilot, lambda: fake_app.controller.session_id == first, "the first session again")
        assert fake_app.controller.model == "openai/gpt-4o-mini" and fake_app.main.status.model == "openai/gpt-4o-mini"


LONG_STORY = " ".join(f"word{n}" for n in range(600))
"""An answer that streams for about 4 s (8 characters every 0.05 s)."""


async def _streaming(pilot: object, recorder: Recorder) -> None:
    """Ask for the long story and wait until it streams."""
    await ready(pilot)
    await pilot.press(*"tell me a long story", "enter")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: len(recorder.events(ev.TextDelta)) >= 3, "the stream to start")


async def test_the_turn_is_running_notice_goes_when_the_turn_ends(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                                  recorder: Recorder) -> None:
    """"Send it when the turn ends, or press esc" stayed on screen after the turn had ended."""
    fake_llm.script(Reply.text(LONG_STORY, chunk_size=8, chunk_delay=0.05))
    async with fake_app.run_test(size=(100, 30), message_hook=recorder, notifications=True) as pilot:
        await _streaming(pilot, recorder)
        await pilot.press(*"and then", "enter")
        await wait_for(pilot, lambda: any(n.message.startswith("A turn is running") for n in fake_app._notifications),
                       "the notice")
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")
        await pilot.pause()
        assert not any(n.message.startswith("A turn is running") for n in fake_app._notifications)
        assert fake_app.main.query_one(PromptInput).value == "and then", "the message is still in the box"


async def test_model_from_the_palette_during_a_turn_is_refused_before_the_name_is_asked(
        fake_llm: FakeOpenAI, fake_app: AgentApp, recorder: Recorder) -> None:
    """/model chosen in the palette while a turn ran asked for the name, then refused it, and the typed name
    was gone (a tester)."""
    from agent_tui.ui.screens.ask import AskScreen

    fake_llm.script(Reply.text(LONG_STORY, chunk_size=8, chunk_delay=0.05))
    async with fake_app.run_test(size=(100, 30), message_hook=recorder, notifications=True) as pilot:
        await _streaming(pilot, recorder)
        fake_app.run_command("model", "")
        await pilot.pause()
        assert not isinstance(fake_app.screen, AskScreen)
        assert any("switch models when it ends" in n.message for n in fake_app._notifications)
        await pilot.press("escape")
        await wait_for(pilot, lambda: recorder.of(TurnEnded), "the cancelled turn")


async def test_ctrl_q_during_a_turn_asks_for_a_second_press(fake_llm: FakeOpenAI, fake_app: AgentApp,
                                                            recorder: Recorder) -> None:
    """A tester: one ctrl+q (next to ctrl+w and ctrl+a) ended a long turn at once with nothing asked."""
    words = " ".join(f"word{n}" for n in range(600))
    fake_llm.script(Reply.text(words, chunk_size=8, chunk_delay=0.05))  # ~30 s
    async with fake_app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press(*"tell me a long story", "enter")
        await wait_for(pilot, lambda: len(recorder.events(ev.TextDelta)) >= 3, "the stream to start")
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
        assert fake_app.is_running and fake_app.turn_running, "one press during a turn does not quit"
        assert any("ctrl+q again" in str(n.message) for n in fake_app._notifications)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not fake_app.is_running or fake_app._exit, "the app to quit")
