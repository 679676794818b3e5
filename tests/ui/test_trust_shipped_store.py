"""Pilot test: the trust dialog lists a memory store the repository shipped, and "Don't trust"
opens the session without its pinned rules (they are in no request)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from agent_tui.ui.app import make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.screens.trust import TrustScreen
from tests.store.test_shipped_store import SHIPPED, _sent, _shipping_repo
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import FAKE_MODEL

from .conftest import ready, turn_done, wait_for


def _app_at_the_dialog_of(root: Path, tmp_path: Path, fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The app of the user (their own config dir) on ``root``, its model the fake server answering "hi"."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-xdg"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    fake_llm.default_reply = lambda req: Reply.text("hi")
    return make_app(UiOptions(workspace=root, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                              theme="textual-dark", preload_llm=False, mcp=False))


async def _trust_dialog(pilot: Any) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen) and app.screen.query(".trust-ask"),
                   "the trust dialog")


async def test_dont_trust_keeps_the_shipped_rules_out(fake_llm: FakeOpenAI, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    app = _app_at_the_dialog_of(_shipping_repo(tmp_path), tmp_path, fake_llm, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await _trust_dialog(pilot)
        shown = " ".join(str(s.content) for s in app.screen.query(".trust-ask").results(Static))
        assert ".agent-tui/memory.db" in shown and "1 pinned rule" in shown and "SHIPPED-RULE" in shown
        await pilot.press("n")
        await ready(pilot)
        assert not any(SHIPPED in i.content for i in app.controller.engine.all_items())
        await pilot.click("#prompt")
        await pilot.press(*"hello", "enter")
        await turn_done(pilot)
    assert fake_llm.chat_requests and SHIPPED not in _sent(fake_llm)


async def test_trust_adopts_the_store_and_the_session_has_its_rules(fake_llm: FakeOpenAI, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """"Trust" makes the shipped store the user's own (a new id, so a pull that puts the repository's file back
    is asked about again); the session it opens is trusted for what the dialog showed: the rule is sent."""
    from agent_tui.core import store_owner
    from agent_tui.core.config import load_config

    root = _shipping_repo(tmp_path)
    (root / ".agent-tui" / "config.toml").write_text('[approval]\nallow_commands = ["make test"]\n')
    app = _app_at_the_dialog_of(root, tmp_path, fake_llm, monkeypatch)
    shipped_id = next(a.value["id"] for a in load_config(root).trust.asks if a.key == "memory store")
    async with app.run_test(size=(120, 40)) as pilot:
        await _trust_dialog(pilot)
        await pilot.press("t")
        await ready(pilot)
        assert any(SHIPPED in i.content for i in app.controller.engine.all_items())
        ws = app.controller.ws
        assert ws.trust.trusted and "make test" in str(ws.settings.approval), "the config the dialog listed applies"
        await pilot.click("#prompt")
        await pilot.press(*"hello", "enter")
        await turn_done(pilot)
    assert SHIPPED in _sent(fake_llm)
    report = load_config(root).trust
    assert [a.key for a in report.asks] == ["approval.allow_commands"] and report.trusted, "the store is the user's own"
    assert shipped_id not in store_owner.own_store_ids()


async def test_trusting_adopts_the_store_off_the_ui_thread(fake_llm: FakeOpenAI, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Adoption digests the store and may wait 1 s for its write lock: the dialog's answer runs it in a thread,
    and the app keeps drawing meanwhile."""
    import threading

    from agent_tui.store import trust_grant

    real_grant, ran_in, release = trust_grant.grant, [], threading.Event()

    def slow_grant(report: Any, trusts: Any = None) -> tuple[str, str]:
        ran_in.append(threading.current_thread())
        release.wait(10)
        return real_grant(report, trusts)

    monkeypatch.setattr(trust_grant, "grant", slow_grant)
    app = _app_at_the_dialog_of(_shipping_repo(tmp_path), tmp_path, fake_llm, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await _trust_dialog(pilot)
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(ran_in), "the grant started")
        assert ran_in[0] is not threading.main_thread()
        await pilot.pause(0.2)  # (the event loop runs while the grant waits)
        release.set()
        await ready(pilot)
        assert any(SHIPPED in i.content for i in app.controller.engine.all_items())
