"""Pilot: the user's own MCP server is listed by the trust dialog of a folder never trusted, and
starts (in the workspace) only after "Trust"; "Don't trust" keeps it stopped."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Label, Static

from agent_tui.core.trust_store import TrustStore
from agent_tui.ui.app import AgentApp, make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.screens.trust import TrustScreen
from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures import FAKE_MODEL

from .conftest import ready, reopened, wait_for

MARKER = "import pathlib; pathlib.Path('mcp-started').write_text('x')"


@pytest.fixture
def app(fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentApp:
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    (xdg / "agent-tui").mkdir(parents=True)
    (xdg / "agent-tui" / "config.toml").write_text(
        f"[mcp.servers.mine]\ncommand = {str(sys.executable)!r}\nargs = [\"-c\", {MARKER!r}]\n")
    project = tmp_path / "project"
    project.mkdir()
    return make_app(UiOptions(workspace=project, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                              theme="textual-dark", preload_llm=False))


async def _asked(app: AgentApp, pilot: object) -> str:
    await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog")  # type: ignore[arg-type]
    await wait_for(pilot, lambda: app.screen.query(".trust-ask"), "the asks listed")  # type: ignore[arg-type]
    assert app.controller is None, "no session (and no server) before the decision"
    why = str(app.screen.query_one("#trust-why", Label).content)
    assert "your own MCP servers do not start" in why
    return " ".join(str(s.content) for s in app.screen.query(".trust-ask").results(Static))


async def test_trust_starts_the_users_own_server(app: AgentApp, tmp_path: Path) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        shown = await _asked(app, pilot)
        assert "mcp.servers.mine" in shown and f"starts `{sys.executable} -c" in shown
        assert "your MCP server would start in this folder" in shown
        assert not (tmp_path / "project" / "mcp-started").exists()
        await pilot.press("t")
        await ready(pilot)
        await wait_for(pilot, lambda: (tmp_path / "project" / "mcp-started").exists(), "the user's MCP server")
    assert TrustStore().entry(tmp_path / "project") is not None
    # remembered: the next start asks nothing
    again = reopened(app, tmp_path / "project")
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert not isinstance(again.screen, TrustScreen)


async def test_dont_trust_keeps_it_stopped(app: AgentApp, tmp_path: Path) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await _asked(app, pilot)
        await pilot.press("n")
        await ready(pilot)
        await wait_for(pilot, lambda: app.main.status.mcp == "waiting for trust", "the MCP start-up")
    assert not (tmp_path / "project" / "mcp-started").exists()
    assert TrustStore().entries() == []
