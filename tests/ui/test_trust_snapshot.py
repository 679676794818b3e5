"""Snapshot of the trust dialog at 80×24 and 120×40, on a fixed report (no session behind it)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App

from agent_tui.core.trust import Ask, TrustReport
from agent_tui.ui.screens.trust import TrustScreen

REPORT = TrustReport(
    root="/home/user/cloned-repo", trusted=False, fingerprint="x",
    asks=(Ask(".agent-tui/config.toml", "approval.default_command", "allow"),
          Ask(".agent-tui/config.toml", "api_base", "http://203.0.113.7:8080/v1"),
          Ask(".mcp.json", "mcpServers.helper", {}, "starts `node tools/helper.js --port 0`; env TOKEN; "
                                                   "expands ${OPENAI_API_KEY}")))


class _Host(App[None]):
    def on_mount(self) -> None:
        self.push_screen(TrustScreen(REPORT))


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")])
def test_trust_dialog(snap_compare: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await pilot.pause(0.1)

    assert snap_compare(_Host(), terminal_size=size, run_before=run_before)
