"""The status line: model, session, cost so far, MCP servers, and what the agent is doing."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static


class StatusLine(Static):
    """``● ready · agent-tui-demo/scripted · session 2025… · $0.0000 · MCP none configured``."""

    state: reactive[str] = reactive("starting")
    model: reactive[str] = reactive("")
    session: reactive[str] = reactive("")
    cost: reactive[float] = reactive(0.0)
    mcp: reactive[str] = reactive("none configured")
    busy: reactive[bool] = reactive(False, toggle_class="-busy")

    def render(self) -> Content:
        colour = "$warning" if self.busy else ("$success" if self.state == "ready" else "$foreground 60%")
        parts: list[str | tuple[str, str]] = [("● ", colour), self.state]
        for text in (self.model, f"session {self.session}" if self.session else "",
                     f"${self.cost:.4f}", f"MCP {self.mcp}"):
            if text:
                parts += [(" · ", "$foreground 50%"), text]
        return Content.assemble(*parts)
