"""Pilot tests: keyboard-first — help lists every key and command, the palette holds the
commands, the input completes and remembers, the MCP panel says when nothing is configured."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from agent_tui.ui.commands import COMMANDS
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
