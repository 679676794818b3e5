"""Notifications are plain text: a notice quoting an untrusted repository's config, an error or a
tool's output never runs Textual markup (``[@click=…]`` would run an app action on a click; an
unbalanced ``[/x]`` crashed the app)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from textual.widgets._toast import Toast

from agent_tui.ui.app import make_app
from agent_tui.ui.messages import ActionFailed
from agent_tui.ui.options import SessionSpec, UiOptions
from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures import FAKE_MODEL

from .conftest import ready, wait_for

EVIL = "[@click=app.quit]x[/] and [/x] hi"
UI = Path(__file__).resolve().parents[2] / "agent_tui" / "ui"


def _toasts(app: object) -> list[str]:
    return [str(t.render()) for t in app.screen.query(Toast)]  # type: ignore[attr-defined]


async def test_a_config_notice_and_errors_show_markup_literally(
        fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = tmp_path / "project"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui" / "config.toml").write_text(f'api_base = "{EVIL} http://203.0.113.7/v1"\n')
    app = make_app(UiOptions(workspace=project, theme="textual-dark", preload_llm=False, mcp=False,
                             session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url, trust=False)))
    async with app.run_test(size=(200, 60), notifications=True) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: any("Workspace config ignored" in t for t in _toasts(app)), "the notice")
        notice = next(t for t in _toasts(app) if "Workspace config ignored" in t)
        assert "[@click=app.quit]x[/] and [/x] hi" in notice
        app.post_message(ActionFailed(f"opening the session failed: {EVIL}"))
        app.main.notify(EVIL, title="from a widget")  # Widget.notify passes markup=True to the app
        await wait_for(pilot, lambda: sum(EVIL in t for t in _toasts(app)) >= 3, "the error toasts")
        assert all(n.markup is False for n in app._notifications)  # type: ignore[attr-defined]
        for toast in app.screen.query(Toast):
            assert not any(span.style for span in toast.render().spans if "@click" in str(span.style))
        await pilot.click(Toast)
        await pilot.pause()
        assert app.is_running, "a click on the notice ran no action"
        app.action_help_quit()
        await wait_for(pilot, lambda: any("Press ctrl+q to quit the app" in t for t in _toasts(app)), "the quit hint")


def _notify_markup_calls() -> list[str]:
    found = []
    for path in sorted(UI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "notify":
                for kw in node.keywords:
                    if kw.arg == "markup" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                        found.append(f"{path.relative_to(UI)}:{node.lineno}")
    return found


def test_no_notify_call_asks_for_markup() -> None:
    assert (UI / "app.py").exists()
    assert _notify_markup_calls() == [], "notifications are plain text: build styled text another way"


async def test_labels_that_show_item_ids_or_questions_show_markup_literally(
        fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An item id holds a repository's file name (``f:[@click=app.quit]x.py``), and a question can quote a
    model name: the inspector's reason line and the ask dialog show them as text and do not crash."""
    from textual.widgets import Label

    from agent_tui.ui.screens.ask import AskScreen
    from agent_tui.ui.screens.inspector import InspectorScreen

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = tmp_path / "project"
    project.mkdir()
    app = make_app(UiOptions(workspace=project, theme="textual-dark", preload_llm=False, mcp=False,
                             session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url, trust=False)))
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        app.push_screen(AskScreen(f"Switch from {EVIL}?", ""))
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen) and app.screen.query("#ask-question"),
                       "the question")
        assert EVIL in str(app.screen.query_one("#ask-question", Label).render())
        app.pop_screen()
        with app.controller.lock:
            app.controller.engine.note_file_read("[/x]evil.py", "x = 1\n")
        app.push_screen(InspectorScreen())
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen) and app.screen.query("#why"),
                       "the inspector")
        screen = app.screen
        screen.query_one("#why", Label).update(f"f:{EVIL}: in the last request")
        await pilot.pause()
        assert EVIL in str(screen.query_one("#why", Label).render())
        assert app.is_running
