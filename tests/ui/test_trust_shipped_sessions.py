"""Pilot test: a session the repository's shipped store holds is not resumed before the folder is
trusted — `--session` with "Don't trust" opens a new session instead (and says why), /resume asks
through the trust dialog and lists nothing when refused, and after "Trust" the session resumes."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from agent_tui.core.trust_store import TrustStore
from agent_tui.ui.app import make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.screens.sessions import SessionsScreen
from agent_tui.ui.screens.trust import TrustScreen
from tests.store.test_shipped_sessions import PLANTED, shipped_session
from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures import FAKE_MODEL

from .conftest import ready, wait_for
from .test_session import type_command


def _notes(app: object) -> str:
    return " ".join(n.message for n in app._notifications)  # type: ignore[attr-defined]


async def test_resume_waits_for_trust_in_the_tui(fake_llm: FakeOpenAI, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, sid = shipped_session(tmp_path, monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    app = make_app(UiOptions(workspace=root, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url,
                                                                 session=sid),
                             theme="textual-dark", preload_llm=False, mcp=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog")
        await pilot.press("n")
        await ready(pilot)
        assert app.controller.session_id != sid, "--session of an untrusted store opens a new session"
        assert not any(PLANTED in i.content for i in app.controller.engine.all_items())
        assert "not resuming session" in _notes(app) and "agent-tui trust --yes" in _notes(app)
        assert app.controller.sessions() == []

        await type_command(pilot, f"/resume {sid}")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog for /resume")
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, TrustScreen), "the dialog to close")
        await pilot.pause(0.2)
        assert app.controller.session_id != sid and TrustStore().entries() == []

        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog for f5")
        assert not app.screen_stack or not any(isinstance(s, SessionsScreen) for s in app.screen_stack)
        await pilot.press("t")
        await wait_for(pilot, lambda: app.controller is not None and app.controller.ws.memory_trusted,
                       "the session reopened trusted")
        assert [e.path for e in TrustStore().entries()] == [str(root.resolve())]

        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), "the session picker")
        options = app.screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count >= 2, "the shipped session listed")
        options.highlighted = next(n for n in range(options.option_count)
                                   if options.get_option_at_index(n).id == sid)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.controller.session_id == sid, "the resumed session")
        assert any(PLANTED in i.content for i in app.controller.engine.all_items())


async def test_f5_during_a_turn_in_an_untrusted_store_waits_for_the_turn(fake_llm: FakeOpenAI, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A review: f5 during a turn took the store's trust flow, whose Trust reopened the session under the turn."""
    from agent_tui.ui.messages import TurnEnded
    from tests.support.fake_openai import Reply

    from .test_draft_stash import SLOW

    root, sid = shipped_session(tmp_path, monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    fake_llm.script(Reply.text(SLOW, chunk_size=8, chunk_delay=0.05))
    app = make_app(UiOptions(workspace=root, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                             theme="textual-dark", preload_llm=False, mcp=False))
    ended: list[TurnEnded] = []
    async with app.run_test(size=(120, 40), notifications=True,
                            message_hook=lambda m: ended.append(m) if isinstance(m, TurnEnded) else None) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog")
        await pilot.press("n")
        await ready(pilot)
        session = app.controller.session_id
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: app.turn_running, "the slow turn")
        await pilot.press("f5")
        await wait_for(pilot, lambda: "A turn is running" in _notes(app), "the refusal")
        assert not isinstance(app.screen, TrustScreen), "no trust flow under a running turn"
        assert app.controller.session_id == session
        await pilot.press("escape")
        await wait_for(pilot, lambda: ended, "the cancelled turn")
