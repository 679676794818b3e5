"""The status line: what the agent is doing, the model, the session, cache hits and cost, MCP.

On a narrow terminal it shortens on purpose — the session id to its tail, the model to its
name, then drops the least useful parts — instead of being clipped at the edge.  Cache and
cost show only once the model layer has reported them (never as zeros that were not
measured).
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from agent_tui.ui.columns import clip


def cache_cost_text(cache_pct: float | None, cost: float | None) -> str:
    """``cache 91 % · $0.03`` with only the parts that were reported ('' for none)."""
    parts = []
    if cache_pct is not None:
        parts.append(f"cache {cache_pct:.0f} %")
    if cost is not None:
        parts.append(f"${cost:.2f}" if cost >= 0.01 else f"${cost:.4f}")
    return " · ".join(parts)


class StatusLine(Static):
    """``● ready · agent-tui-demo/scripted · session 2025… · cache 91 % · $0.03 · MCP 1/1 up``."""

    state: reactive[str] = reactive("starting")
    model: reactive[str] = reactive("")
    session: reactive[str] = reactive("")
    cost: reactive[float | None] = reactive(None)
    """Session cost so far, once reported."""
    cache_pct: reactive[float | None] = reactive(None)
    """Share of the session's input served from the provider's prompt cache, once reported."""
    mcp: reactive[str] = reactive("none configured")
    busy: reactive[bool] = reactive(False, toggle_class="-busy")

    def parts(self, width: int) -> list[str]:
        """The parts after the state, shortened until they fit ``width`` cells."""
        model, session, mcp = self.model, self.session, self.mcp
        money = cache_cost_text(self.cache_pct, self.cost)
        steps = [
            lambda: (model, f"session {session}" if session else "", money, f"MCP {mcp}"),
            lambda: (model, f"session …{session[-6:]}" if session else "", money, f"MCP {mcp}"),
            lambda: (model.rsplit("/", 1)[-1], f"…{session[-6:]}" if session else "", money,
                     "" if mcp == "none configured" else f"MCP {mcp}"),
            lambda: (model.rsplit("/", 1)[-1], "", money, ""),
            lambda: ("", "", money, ""),
        ]
        head = 2 + len(self.state)
        chosen: list[str] = []
        for step in steps:
            chosen = [p for p in step() if p]
            if head + sum(len(p) + 3 for p in chosen) <= width:
                break
        return chosen

    def render(self) -> Content:
        width = max(10, self.content_size.width)
        colour = "$warning" if self.busy else ("$success" if self.state == "ready" else "$foreground 60%")
        state = clip(self.state, max(5, width - 2))
        parts: list[str | tuple[str, str]] = [("● ", colour), state]
        for text in self.parts(width):
            parts += [(" · ", "$foreground 50%"), text]
        return Content.assemble(*parts)
