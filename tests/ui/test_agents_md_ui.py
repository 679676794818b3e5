"""Pilot tests for instruction files from the TUI: `# TEXT` at the prompt appends a rule to AGENTS.md
(where is asked once, then remembered) and the rule is in the next request; `/init` has the model
draft AGENTS.md, shown as a diff to approve, and the approved file is sent from the next step on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from agent_tui.ui.app import make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.ask import AskScreen
from tests.support.fake_openai import FakeOpenAI, Reply

from .conftest import FAKE_MODEL, Recorder, demo_app, ready, turn_done, wait_for


async def test_hash_rule_goes_to_agents_md_asked_once(demo_workspace: Path, recorder: Recorder, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # the answer is remembered per user
    agents = demo_workspace / "AGENTS.md"
    assert not agents.exists()
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.click("#prompt")
        await pilot.press(*"# Use pnpm, never npm", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), "the question where rules go")
        assert "this project" in str(app.screen.query_one("#ask-question").render())
        app.screen.query_one(Input).value = "1"
        await pilot.press("enter")
        await wait_for(pilot, lambda: agents.is_file(), "AGENTS.md")
        assert "- Use pnpm, never npm" in agents.read_text()
        engine = app.controller.engine
        await wait_for(pilot, lambda: engine.last is not None and "Use pnpm" in engine.last.messages[0]["content"],
                       "the rule in the next request")
        assert any(i.id.startswith("ins:") and "Use pnpm" in i.content for i in engine.all_items())

        await pilot.click("#prompt")
        await pilot.press(*"# Always run ruff", "enter")
        await wait_for(pilot, lambda: "Always run ruff" in agents.read_text(), "the second rule")
        assert not isinstance(app.screen, AskScreen)  # asked once
        text = agents.read_text()
        assert text.index("Use pnpm") < text.index("Always run ruff")
        assert not app.turn_running and not engine.items.get("m1")  # a rule, not a task for the model
    targets = json.loads((tmp_path / "xdg" / "agent-tui" / "rule-targets.json").read_text())
    assert targets == {str(demo_workspace.resolve()): "project"}


async def test_init_drafts_agents_md_as_a_diff_to_approve(fake_llm: FakeOpenAI, tmp_path: Path, recorder: Recorder,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'calc'\n")
    draft = "# AGENTS.md\n\n## Build and test\n- python -m pytest -q\n"
    fake_llm.script(Reply.tool_call("list_dir", {"path": "."}),
                    Reply.tool_call("write_file", {"path": "AGENTS.md", "content": draft}),
                    Reply.text("Drafted AGENTS.md."))
    app = make_app(UiOptions(workspace=project, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                             theme="textual-dark"))
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.click("#prompt")
        await pilot.press(*"/init", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen)
                       and app.screen.query("#approval-preview Static"), "the AGENTS.md diff")
        diff = str(app.screen.query_one("#approval-diff", Static).render())
        assert "+## Build and test" in diff and app.screen.request.name == "write_file"
        assert not (project / "AGENTS.md").exists()  # nothing written before approval
        await pilot.press("y")
        await turn_done(pilot)
        assert (project / "AGENTS.md").read_text() == draft
    task = next(m["content"] for m in fake_llm.requests[0].messages if m["role"] == "user")
    assert "Write an AGENTS.md" in task and "never invent commands" in task
    assert "python -m pytest -q" in fake_llm.requests[2].messages[0]["content"]  # sent from the next step


async def test_a_warning_raised_mid_turn_shows_in_the_conversation(fake_llm: FakeOpenAI, recorder: Recorder,
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.agent import events as ev
    from agent_tui.ui.widgets.chat_items import EventNote

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    project = tmp_path / "project"
    (project / "web").mkdir(parents=True)
    (tmp_path / "elsewhere.md").write_text("A rule from outside the project.\n")
    (project / "web" / "AGENTS.md").symlink_to(tmp_path / "elsewhere.md")
    (project / "web" / "app.js").write_text("console.log(1)\n")
    fake_llm.script(Reply.tool_call("read_file", {"path": "web/app.js"}), Reply.text("It logs 1."))
    app = make_app(UiOptions(workspace=project, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                             theme="textual-dark"))
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.click("#prompt")
        await pilot.press(*"what does web/app.js do", "enter")
        await turn_done(pilot)
        raised = [e.message for e in recorder.events(ev.WarningRaised)]
        assert len(raised) == 1 and raised[0].startswith("web/AGENTS.md links outside the project"), raised
        notes = [n for n in app.main.conversation.query(EventNote) if n.kind == "warning"]
        assert [str(n.render()) for n in notes] == [f"warning: {raised[0]}"]
        assert not any("from outside the project" in json.dumps(r.messages) for r in fake_llm.requests)


async def test_what_is_typed_into_a_question_box_is_never_lost(demo_workspace: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule typed into `/remember`'s box was dropped by a bad answer to "where do rules go?"; a `/threshold`
    typed wrong, or either box closed with esc, lost what was typed too.  Each comes back into the message box."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        prompt = app.main.prompt

        async def ask(command: str) -> None:
            prompt.clear()
            await pilot.click("#prompt")
            await pilot.press(*command, "enter")
            await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), f"the {command} box")

        async def answer(text: str, key: str = "enter") -> None:
            app.screen.query_one(Input).value = text
            await pilot.press(key)
            await pilot.pause()

        await ask("/remember")
        await answer("Never use tabs in python files")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen) and "Where do" in str(
            app.screen.query_one("#ask-question").render()), "the question where rules go")
        await answer("3")
        await wait_for(pilot, lambda: not isinstance(app.screen, AskScreen), "the box closed")
        assert prompt.text == "/remember Never use tabs in python files"
        assert not (demo_workspace / "AGENTS.md").exists()
        await ask("/threshold")
        await answer("abc")
        assert prompt.text == "/threshold abc"
        await ask("/threshold")
        await answer("55", "escape")
        assert prompt.text == "/threshold 55"
        assert any("back in the box" in n.message for n in app._notifications)
