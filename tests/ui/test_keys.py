"""Pilot tests: keyboard-first — help lists every key and command, the palette holds the
commands, the input completes and remembers, the MCP panel says when nothing is configured."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from agent_tui.ui.commands import COMMANDS
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.help import HelpScreen
from agent_tui.ui.screens.inspector import InspectorScreen
from agent_tui.ui.screens.mcp import NONE_CONFIGURED, McpScreen
from agent_tui.ui.widgets.budget import BudgetPanel
from agent_tui.ui.widgets.prompt import PromptInput

from .conftest import Recorder, demo_app, ready, wait_for


async def test_help_palette_completion_history_and_panels(demo_workspace: Path, recorder: Recorder) -> None:
    app = demo_app(demo_workspace)
    async with app.run_test(size=(80, 24), message_hook=recorder) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        text = app.screen.source
        shown = str(app.screen.query_one("#help-text").render())
        assert "/compact" in shown and "ctrl+b" in shown
        for cmd in COMMANDS:
            assert f"`/{cmd.name}" in text
        for key in ("esc", "f2", "ctrl+r", "ctrl+b", "ctrl+p"):
            assert f"`{key}`" in text
        await pilot.press("escape")

        prompt = app.main.query_one(PromptInput)
        prompt.value = ""
        await pilot.press(*"/comp")
        await wait_for(pilot, lambda: prompt.suggestion == "act ", "the suggestion")
        await pilot.press("tab")
        assert prompt.value == "/compact "
        prompt.value = ""
        await pilot.press(*"/context", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        await pilot.press("escape")
        await pilot.press("up")
        assert prompt.value == "/context"

        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP panel")
        await wait_for(pilot, lambda: NONE_CONFIGURED in str(app.screen.query_one("#mcp-summary").render()),
                       "none configured")
        assert app.main.status.mcp == "none configured"
        await pilot.press("escape")

        panel = app.main.query_one(BudgetPanel)
        assert panel.collapsed and panel.has_class("-collapsed"), "one line at 80 columns"
        assert panel.region.height == 1
        await pilot.press("ctrl+b")
        assert not panel.collapsed
        await pilot.press("ctrl+b")
        assert panel.collapsed

        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"/threshold")
        await wait_for(pilot, lambda: "/threshold" in str(app.screen.query_one("CommandList").get_option_at_index(0)
                                                            .prompt) if app.screen.query("CommandList")
                       and app.screen.query_one("CommandList").option_count else False, "the palette entry")
        await pilot.press("escape")


async def test_help_lists_every_key_the_approval_dialog_takes(demo_workspace: Path) -> None:
    """F1 said `y / a / n / r`: `p` (allow the prefix) worked but was not listed, nor were o, d and esc."""
    app = demo_app(demo_workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        rows = [line.split("|") for line in app.screen.source.splitlines() if line.startswith("| Approval |")]
        listed = {key for row in rows for key in row[2].strip(" `").split(" or ")}
        taken = {key for binding in ApprovalScreen.BINDINGS for key in binding.key.split(",")}
        names = {"escape": "esc", "pagedown": "pgdn", "pageup": "pgup"}
        assert {names.get(key, key) for key in taken} <= listed
        prefix = next(row for row in rows if row[2].strip(" `") == "p")
        assert "prefix" in prefix[3]
        shown = str(app.screen.query_one("#help-text").render())
        assert any(line.startswith("  p ") and "prefix" in line for line in shown.splitlines())


def test_the_help_lists_the_trust_sessions_and_mcp_keys_and_paging() -> None:
    """/help missed pgup/pgdn, the trust dialog's t / n / d, the MCP panel's r and the sessions panel's enter."""
    from agent_tui.ui.screens.help import KEYS

    listed = {(where, key) for where, key, _ in KEYS}
    assert ("Main", "pgup / pgdn") in listed
    assert {("Trust", "t"), ("Trust", "n or d or esc"), ("MCP", "r"), ("Sessions", "enter")} <= listed
