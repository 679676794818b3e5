"""Pilot tests for the trust dialog: a workspace whose own config asks for looser approval and an
MCP server is shown at start, and nothing it asks for applies until the user presses Trust."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from agent_tui.core.trust_store import TrustStore
from agent_tui.ui.app import AgentApp, make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.screens.trust import TrustScreen
from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures import FAKE_MODEL

from .conftest import ready, reopened, wait_for

MARKER = "import pathlib; pathlib.Path('mcp-started').write_text('x')"


@pytest.fixture
def asking_app(fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentApp:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = tmp_path / "project"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui" / "config.toml").write_text('[approval]\ndefault_command = "allow"\n'
                                                         'deny_commands = ["curl*"]\n')
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": {"command": sys.executable,
                                                                           "args": ["-c", MARKER]}}}))
    return make_app(UiOptions(workspace=project, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                              theme="textual-dark", preload_llm=False))


async def test_dont_trust_runs_with_the_tightened_config(asking_app: AgentApp, tmp_path: Path) -> None:
    async with asking_app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        assert asking_app.controller is None, "no session before the decision"
        await wait_for(pilot, lambda: asking_app.screen.query(".trust-ask"), "the asks listed")
        shown = " ".join(str(s.content) for s in asking_app.screen.query(".trust-ask").results(Static))
        assert 'approval.default_command = "allow"' in shown
        assert f"starts `{sys.executable} -c" in shown and "mcpServers.evil" in shown
        assert "deny_commands" not in shown, "a tightening key is not an ask"
        await pilot.press("n")
        await ready(pilot)
        await wait_for(pilot, lambda: asking_app.main.status.mcp == "waiting for trust", "the MCP start-up")
        approval = asking_app.controller.engine.settings.approval
        assert "default_command" not in approval and approval["deny_commands"] == ["curl*"]
        assert not asking_app.controller.ws.trust.trusted
    assert not (tmp_path / "project" / "mcp-started").exists()
    assert TrustStore().entries() == []


async def test_trust_applies_the_asks_and_remembers_the_folder(asking_app: AgentApp, tmp_path: Path) -> None:
    async with asking_app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        await wait_for(pilot, lambda: asking_app.screen.query("#trust"), "the Trust button")
        await pilot.pause()
        assert await pilot.click("#trust")
        await ready(pilot)
        assert asking_app.controller.engine.settings.approval["default_command"] == "allow"
        await wait_for(pilot, lambda: (tmp_path / "project" / "mcp-started").exists(), "the trusted MCP server")
    entry = TrustStore().entry(tmp_path / "project")
    assert entry is not None and entry.fingerprint == asking_app.controller.ws.trust.fingerprint
    # the next start asks nothing
    again = reopened(asking_app, tmp_path / "project")
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert not isinstance(again.screen, TrustScreen)
        assert again.controller.engine.settings.approval["default_command"] == "allow"


async def test_trust_covers_only_what_the_dialog_showed(asking_app: AgentApp, tmp_path: Path) -> None:
    """The repository's config changes while the dialog is open (a `git pull`, a script): pressing Trust
    trusts what was listed, so the new asks are not applied, and the next start asks again."""
    config = tmp_path / "project" / ".agent-tui" / "config.toml"
    async with asking_app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        await wait_for(pilot, lambda: asking_app.screen.query("#trust"), "the Trust button")
        config.write_text('api_base = "http://127.0.0.1:9/v1"\n[approval]\ndefault_command = "allow"\n')
        await pilot.pause()
        assert await pilot.click("#trust")
        await ready(pilot)
        settings = asking_app.controller.engine.settings
        assert settings.api_base != "http://127.0.0.1:9/v1" and "default_command" not in settings.approval
        assert asking_app.controller.ws.trust.changed
    again = reopened(asking_app, tmp_path / "project")
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(again.screen, TrustScreen), "the dialog again, for the new asks")


async def test_a_paste_on_the_trust_dialog_waits_in_the_box(asking_app: AgentApp) -> None:
    """A paste made while the dialog was up went nowhere: it is in the box when the session opens."""
    from textual import events

    async with asking_app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        dialog = asking_app.screen
        asking_app.post_message(events.Paste("trust me\nnot"))
        prompt = asking_app.main.prompt
        await wait_for(pilot, lambda: prompt.value == "trust me\nnot", "the paste in the box")
        assert asking_app.screen is dialog, "a paste is never an answer"
        await pilot.press("n")  # (held since the paste: the letter goes to the box too)
        assert asking_app.screen is dialog
        assert await pilot.click("#distrust")
        await ready(pilot)
        assert prompt.value == "trust me\nnotn"
        assert not asking_app.controller.ws.trust.trusted


async def test_letters_typed_after_a_paste_on_the_trust_dialog_do_not_answer_it(asking_app: AgentApp,
                                                                                   tmp_path: Path) -> None:
    """A tester pasted, then typed "the fix" 0.3 s later: the `t` trusted the folder and its MCP server started."""
    from textual import events

    async with asking_app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        dialog = asking_app.screen
        dialog.shown_at = float("-inf")  # (long settled: only the paste says the user is writing)
        asking_app.post_message(events.Paste("please look at this "))
        prompt = asking_app.main.prompt
        await wait_for(pilot, lambda: prompt.value == "please look at this ", "the paste in the box")
        asking_app.typing.last = float("-inf")  # (and after a pause, too)
        await pilot.press(*"the fix")
        await pilot.pause()
        assert asking_app.screen is dialog, "a letter after a paste answered the dialog"
        assert prompt.value == "please look at this the fix"
    assert TrustStore().entries() == []
    assert not (tmp_path / "project" / "mcp-started").exists()


async def test_the_list_of_asks_shows_when_it_has_the_focus(asking_app: AgentApp) -> None:
    """A tester: tab went from "Don't trust" to a stop nothing highlighted (the list, which the arrows then
    scrolled), so tab and enter seemed to do nothing."""
    async with asking_app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(asking_app.screen, TrustScreen), "the trust dialog")
        await wait_for(pilot, lambda: asking_app.screen.query("#trust-body"), "the list")
        body = asking_app.screen.query_one("#trust-body")
        unfocused = body.styles.background
        body.focus()
        await pilot.pause()
        assert asking_app.screen.focused is body
        assert body.styles.background != unfocused and body.styles.border_left[0], "the focus shows"
