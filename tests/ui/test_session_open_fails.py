"""A message sent while the session opens is not lost when opening fails (a store from a newer
agent-tui, a corrupt database): it goes back into the box, its bubble says it was not sent, and
/new or another message opens a session again instead of being refused as 'still opening'."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.store.store import MemoryStore
from agent_tui.ui.app import AgentApp
from agent_tui.ui.controller import SessionController
from agent_tui.ui.widgets.chat_items import UserMessage

from .conftest import ready, turn_done, wait_for


def _future_store(workspace: Path) -> Path:
    db = workspace / ".agent-tui" / "memory.db"
    MemoryStore.open(db).close()
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA user_version = 999")
    return db


def _opening(app: AgentApp) -> bool:
    return any(w.group == "session" and not w.is_finished for w in app.workers)


def _failed(app: AgentApp) -> bool:
    return app.controller is None and not _opening(app) and "no session" in app.main.status.state


def _notices(app: AgentApp) -> str:
    return " ".join(n.message for n in app._notifications)  # type: ignore[attr-defined]


async def _type(pilot: Pilot[Any], text: str) -> None:
    await pilot.click("#prompt")
    await pilot.press(*text, "enter")


def _hold_open(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Opening a session waits until the returned event is set (the test types meanwhile)."""
    gate = threading.Event()
    real_open = SessionController.open

    def held_open(*args: Any, **kw: Any) -> SessionController:
        gate.wait(30)
        return real_open(*args, **kw)

    monkeypatch.setattr(SessionController, "open", held_open)
    return gate


async def test_a_message_queued_while_opening_comes_back_when_opening_fails(
        fake_app: AgentApp, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _future_store(fake_app.options.workspace)
    gate = _hold_open(monkeypatch)
    app = fake_app
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: _opening(app), "the session to start opening")
        await _type(pilot, "fix the restock bug")
        await wait_for(pilot, lambda: app.main.conversation.query(UserMessage), "the pending bubble")
        assert app.main.prompt.text == ""
        await _type(pilot, "second")
        assert app.main.prompt.text == "second" and "still opening" in _notices(app), "not 'a turn is running'"
        app.main.prompt.load_text("")
        gate.set()
        await wait_for(pilot, lambda: _failed(app), "the failed open")
        await pilot.pause()
        assert app.controller is None
        assert app.main.prompt.text == "fix the restock bug", "the queued message is back in the box"
        bubble = app.main.conversation.query(UserMessage).last()
        assert bubble.has_class("-unsent") and "not sent" in str(bubble.border_title)

        app.main.prompt.load_text("")
        app.clear_notifications()
        await _type(pilot, "/memos")
        assert "opening it failed" in _notices(app) and "still opening" not in _notices(app)
        db.unlink()
        app.clear_notifications()
        await _type(pilot, "/new")
        assert "still opening" not in _notices(app)
        await ready(pilot)
        assert app.controller is not None


async def test_a_message_after_a_failed_open_tries_again(fake_app: AgentApp) -> None:
    db = _future_store(fake_app.options.workspace)
    app = fake_app
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: _failed(app), "the failed open")
        assert app.controller is None
        db.unlink()
        await _type(pilot, "hello again")
        await wait_for(pilot, lambda: app.controller is not None, "the session opened by the message")
        await turn_done(pilot)
        assert app.main.prompt.text == ""
        assert not app.main.conversation.query(".-unsent")
        assert "hello again" in [m.content for m in app.controller.transcript() if m.role == "user"]


async def test_a_message_queued_while_opening_that_is_too_large_comes_back_into_the_box(
        fake_app: AgentApp, fake_llm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Typed before the session was open, it was checked only by the loop: refused there, with its text on ↑
    and its bubble looking sent.  It is checked once the session opens, like any other message."""
    from dataclasses import replace

    gate = _hold_open(monkeypatch)
    app = fake_app
    app.options = replace(app.options, session=replace(app.options.session, window=8_000))
    big = "please read all of this " + "lorem ipsum dolor sit amet " * 3_000
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: _opening(app), "the session to start opening")
        app.main.prompt.load_text(big)
        await pilot.click("#prompt")
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: app.main.conversation.query(UserMessage), "the pending bubble")
        gate.set()
        await wait_for(pilot, lambda: "Message too large" in " ".join(
            str(n.title) for n in app._notifications), "the refusal")  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: app.main.conversation.query(UserMessage).last().has_class("-unsent"),
                       "the bubble marked not sent")
        assert app.main.prompt.text == big, "the message is back in the box, whole"
        assert "back in the box" in _notices(app)
        assert fake_llm.chat_requests == [] and not app.turn_running
