"""Fixtures for the Pilot tests: a demo workspace, the app on it, and helpers to drive a turn
and to check that the gauges agree with the engine and with `agent-tui context --json`."""

from __future__ import annotations

import argparse
import io
import json
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.pilot import Pilot

from agent_tui.demo_project import make_demo_workspace
from agent_tui.ui.app import AgentApp, make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures import FAKE_MODEL, PLANTED_KEY

HANG = 60.0
"""Seconds after which a wait is a hang (a failure), not a slow machine."""


@pytest.fixture(autouse=True)
def _dialogs_answerable_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot presses a dialog's key the moment it opens, as no person does: the settle time that keeps a
    user's typing from answering a dialog they have not seen (``ui/typing_guard.SETTLE``) is off here;
    ``test_typing_guard`` puts it back and tests it."""
    monkeypatch.setattr("agent_tui.ui.typing_guard.SETTLE", 0.0)


@pytest.fixture
def demo_workspace(tmp_path: Path) -> Path:
    return make_demo_workspace(tmp_path / "inventory-app")


class Recorder:
    """A message hook that keeps every message the app dispatched."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def __call__(self, message: Message) -> None:
        self.messages.append(message)

    def of(self, kind: type[Any]) -> list[Any]:
        return [m for m in self.messages if isinstance(m, kind)]

    def events(self, kind: type[Any]) -> list[Any]:
        from agent_tui.ui.messages import AgentEventReceived

        return [m.event for m in self.of(AgentEventReceived) if isinstance(m.event, kind)]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def demo_app(workspace: Path, **kw: Any) -> AgentApp:
    return make_app(UiOptions(workspace=workspace, session=SessionSpec(demo=True), demo_reason="flag",
                              theme="textual-dark", **kw))


async def wait_for(pilot: Pilot[Any], condition: Callable[[], Any], what: str, timeout: float = HANG) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        await pilot.pause(0.02)


async def ready(pilot: Pilot[Any]) -> AgentApp:
    """Wait until the session is open, the model client loaded and the gauge drawn."""
    app = pilot.app
    assert isinstance(app, AgentApp)
    await wait_for(pilot, lambda: app.controller is not None and app.llm_ready.is_set(), "the session")
    await wait_for(pilot, lambda: app.main.budget.gauge is not None, "the first gauge")
    return app


def reopened(app: AgentApp, workspace: Path) -> AgentApp:
    """A fresh app on ``workspace`` with ``app``'s model and server: the next start of the same folder."""
    again = make_app(UiOptions(workspace=workspace, session=app.options.session.fresh(),
                               theme="textual-dark", preload_llm=False, mcp=False))
    again.options.session = SessionSpec(model=FAKE_MODEL, api_base=app.options.session.api_base)
    return again


async def demo_until_approval(pilot: Pilot[Any]) -> Any:
    """Send the demo task (prefilled) and wait for the first approval dialog (the test command)."""
    from agent_tui.ui.screens.approval import ApprovalScreen

    app = await ready(pilot)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#approval-preview Static"),
                   "the approval dialog")
    return app.screen


async def demo_task_approved(pilot: Pilot[Any]) -> None:
    """Send the demo task and approve each of its three calls (test run, edit, test run) to the turn's end."""
    from agent_tui.ui.screens.approval import ApprovalScreen

    dialog = await demo_until_approval(pilot)
    seen = {dialog.request.call_id}
    for _ in range(2):
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen)
                       and pilot.app.screen.request.call_id not in seen
                       and pilot.app.screen.query("#approval-preview Static"), "the next approval")
        seen.add(pilot.app.screen.request.call_id)
    await pilot.press("y")
    await turn_done(pilot)


async def turn_done(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, AgentApp)
    await wait_for(pilot, lambda: app.turn_worker is not None and not app.turn_running, "the turn to end")
    await pilot.pause()


async def denied_demo_turn(pilot: Pilot[Any]) -> AgentApp:
    """One demo turn whose test command is denied: list, read, read, deny, answer."""
    await demo_until_approval(pilot)
    await pilot.press("n")
    await turn_done(pilot)
    app = pilot.app
    assert isinstance(app, AgentApp)
    return app


def context_json(workspace: Path, session: str) -> dict[str, Any]:
    """What `agent-tui context --json --session S` prints (run in-process)."""
    from agent_tui.store.cli import run_context

    out = io.StringIO()
    with redirect_stdout(out):
        assert run_context(argparse.Namespace(json=True, session=session), workspace) == 0
    return json.loads(out.getvalue())


def shown_gauge(app: AgentApp) -> dict[str, Any]:
    """The numbers the budget panel's widgets display."""
    from agent_tui.ui.widgets.bars import CategoryBar, TotalBar

    panel = app.main.budget
    bar = panel.query_one(TotalBar)
    assert panel.gauge is not None
    return {
        "window": panel.gauge.window, "reserve": panel.gauge.reserve, "input_budget": bar.input_budget,
        "total": bar.total, "used_pct": panel.gauge.used_pct, "over_budget": panel.over_budget,
        "compact_at": bar.compact_at, "fresh_at": bar.fresh_at,
        "categories": {b.category: b.tokens for b in panel.query(CategoryBar)},
        "pct": {b.category: b.pct for b in panel.query(CategoryBar)},
    }


async def gauge_agrees(pilot: Pilot[Any]) -> dict[str, Any]:
    """Wait for the gauge to show the latest logged assembly, then check it against `context --json`."""
    app = pilot.app
    assert isinstance(app, AgentApp) and app.controller is not None
    controller = app.controller
    seen: dict[str, Any] = {}

    def agrees() -> bool:  # the newest logged assembly, read again each time: an action may log one meanwhile
        seen["expected"] = controller.requests(1)[0]["breakdown"]
        seen["shown"] = shown_gauge(app)
        return bool(seen["shown"]["total"] == seen["expected"]["total"]
                    and seen["shown"]["categories"] == seen["expected"]["categories"])

    try:
        await wait_for(pilot, agrees, "the gauge to update")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: shown {seen.get('shown')} logged {seen.get('expected')} "
                             f"(turn running: {app.turn_running})") from exc
    expected = seen["expected"]
    shown = shown_gauge(app)
    cli = context_json(app.controller.root, app.controller.session_id)
    for key in ("window", "reserve", "input_budget", "total", "used_pct", "over_budget", "compact_at", "fresh_at",
                "categories"):
        assert shown[key] == cli[key] == expected[key], key
    for name, n in cli["categories"].items():
        assert shown["pct"][name] == pytest.approx(100.0 * n / cli["input_budget"])
    title = str(app.main.budget.query_one("#budget-title").render())
    assert f"{cli['used_pct']:.1f}%" in title
    return cli


@pytest.fixture
def fake_app(fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentApp:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("# Notes\nThe answer is 42.\n")
    return make_app(UiOptions(workspace=project, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                              theme="textual-dark"))

async def next_approval(pilot: Pilot[Any], seen: set[str]) -> Any:
    """The next approval dialog whose call is not in ``seen``, once its preview shows."""
    from agent_tui.ui.screens.approval import ApprovalScreen

    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen)
                   and pilot.app.screen.request.call_id not in seen
                   and pilot.app.screen.query("#approval-preview Static"), "the next approval")
    return pilot.app.screen


async def sent_then_typed_and_up(pilot: Any, app: Any, typed: str) -> Any:
    """Send ``/memos``, type ``typed`` (not sent), press ↑; the message box."""
    await ready(pilot)
    prompt = app.main.prompt
    prompt.clear()
    await pilot.press(*"/memos", "enter")
    await pilot.pause()
    await pilot.press("escape", *typed, "up")
    return prompt
