"""The budget plan: how many tokens each category may use in one request.

The window comes from config, else from litellm's model metadata (read from
the JSON file litellm ships, without importing litellm), else a conservative
fallback with a visible warning.  The plan keeps an output reserve, a safety
margin for tokenizer differences, and headroom for the summarising request so
compaction can always run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.config import Settings
from agent_tui.core.items import CATEGORY_ORDER, Category
from agent_tui.core.model_settings import lookup_model_info

#: Window used when nothing is known about a model.
FALLBACK_WINDOW = 32_768


def model_info(model: str | None) -> dict[str, Any]:
    """litellm's metadata for ``model`` (see :func:`agent_tui.core.model_settings.lookup_model_info`)."""
    return lookup_model_info(model)


@dataclass(frozen=True)
class WindowInfo:
    """The window and where the number came from."""

    tokens: int
    """Context window in tokens."""
    source: str
    """`config`, `model metadata` or `fallback`."""
    warning: str | None = None
    """Shown to the user when the window is a guess."""
    max_output: int | None = None
    """The model's own output cap, when known."""


def resolve_window(settings: Settings) -> WindowInfo:
    """Window from config, else litellm metadata, else the fallback (with a warning); an untrusted workspace's
    ``window_cap`` where it is smaller."""
    found = _window(settings)
    cap = settings.window_cap
    if cap and cap < found.tokens:
        return WindowInfo(int(cap), "workspace config", None, found.max_output)
    return found


def _window(settings: Settings) -> WindowInfo:
    info = model_info(settings.model)
    max_out = info.get("max_output_tokens") if info else None
    if settings.window:
        return WindowInfo(int(settings.window), "config", None, max_out)
    win = info.get("max_input_tokens") or info.get("max_tokens") if info else None
    if win:
        return WindowInfo(int(win), "model metadata", None, max_out)
    name = settings.model or "(no model)"
    return WindowInfo(
        FALLBACK_WINDOW,
        "fallback",
        f"unknown window for {name}: using {FALLBACK_WINDOW:,} tokens; set `window` in config or --window",
        None,
    )


@dataclass(frozen=True)
class BudgetPlan:
    """Token limits for one request."""

    window: int
    """The model's context window."""
    reserve: int
    """Tokens kept free for the answer."""
    margin: int
    """Tokens left unused for tokenizer differences."""
    caps: dict[Category, int] = field(default_factory=dict)
    """Soft cap per category."""
    compact_at: float = 0.75
    """Share of the input budget at which compaction starts."""
    fresh_at: float = 0.90
    """Share at which a fresh session is offered."""
    window_source: str = "config"
    """Where the window number came from."""
    warning: str | None = None
    """A visible warning (unknown model)."""
    calibration: float = 1.0
    """Provider tokens per engine-counted token for this model (learnt from reported usage)."""

    @property
    def input_budget(self) -> int:
        """Engine-counted tokens a request may use: (window - reserve - margin) / calibration."""
        return max(0, int((self.window - self.reserve - self.margin) / (self.calibration or 1.0)))

    def used_share(self, tokens: int) -> float:
        """``tokens`` as a share of the input budget."""
        return tokens / self.input_budget if self.input_budget else 1.0

    def summary_chunk_budget(self, prompt_tokens: int, summary_tokens: int) -> int:
        """Largest chunk of rounds a summarising request can carry and still fit."""
        return max(256, self.input_budget - prompt_tokens - summary_tokens - self.caps[Category.SUMMARY])


def make_plan(settings: Settings, calibration: float = 1.0) -> BudgetPlan:
    """Build the plan for ``settings`` (per-model overrides applied); ``calibration`` scales the
    engine's token counts to the provider's (agent/llm_calibration.py learns it)."""
    s = settings.for_model()
    win = resolve_window(s)
    b = s.budget
    reserve = b.output_reserve if b.output_reserve is not None else int(win.tokens * b.reserve_share)
    if win.max_output and b.output_reserve is None:
        reserve = min(reserve, max(int(win.max_output), 1024))
    reserve = max(0, min(reserve, win.tokens // 2))
    margin = int(win.tokens * b.safety_margin) + 16
    budget = max(0, int((win.tokens - reserve - margin) / (calibration or 1.0)))
    shares = {
        Category.SYSTEM: b.system_share,
        Category.RULES: b.system_share,
        Category.TOOLS: b.system_share,
        Category.MEMORY: b.memory_share,
        Category.SUMMARY: b.summary_share,
        Category.FILES: b.files_share,
        Category.HISTORY: b.history_share,
        Category.RESULTS: b.results_share,
    }
    caps = {c: int(budget * shares[c]) for c in CATEGORY_ORDER}
    return BudgetPlan(
        window=win.tokens,
        reserve=reserve,
        margin=margin,
        caps=caps,
        compact_at=b.compact_at,
        fresh_at=b.fresh_at,
        window_source=win.source,
        warning=win.warning,
        calibration=calibration,
    )


CROWDED_HEAD = 0.5
"""Share of the input budget past which the head (system prompt, rules, tools) leaves the task too little room."""
CHOSEN_WINDOW_PROVIDERS = ("agent-tui-demo/",)
"""Models whose small window agent-tui chose itself (the offline demo's, to show a compaction): not warned about
(``agent.demo.DEMO_PROVIDER``, not imported: the core knows no agent; a test keeps them equal)."""


def crowded_head(model: str | None, window: int, input_budget: int, head: int) -> str | None:
    """The warning for a window whose head (system prompt, rules, tool definitions: ``head`` tokens) takes
    ``CROWDED_HEAD`` of what a request may hold, so what is left makes a compaction due at almost every step;
    None when it does not (or the window is the demo's own)."""
    if not input_budget or head < CROWDED_HEAD * input_budget or (model or "").startswith(CHOSEN_WINDOW_PROVIDERS):
        return None
    return (f"the window ({window:,} tokens) is small for this setup: the system prompt, rules and tool definitions "
            f"take {head:,} tokens, {100 * head / input_budget:.0f} % of what a request may hold, so most steps will "
            "compact; a larger window (--window, or the model's), or fewer tools (`agent-tui mcp`, [tools]), leaves "
            "the task room")
