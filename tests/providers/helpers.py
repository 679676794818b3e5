"""An agent on a real provider's wire format: the model string and per-model table as a user writes them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tui.agent.session import SessionOptions, build_agent
from agent_tui.core.config import Settings


def provider_agent(root: Path, model: str, api_base: str, table: dict[str, Any] | None = None,
                   window: int | None = 64_000) -> Any:
    """An agent for ``model`` at ``api_base`` with ``[models."<model>"]`` = ``table`` (writes allowed)."""
    s = replace(Settings(), model=model, api_base=api_base, window=window, models={model: dict(table or {})})
    agent, ws = build_agent(root, SessionOptions(yes=True, interactive=False), settings=s)
    agent.llm.api_key = agent.llm.api_key or "sk-test-provider-0123456789"
    agent.llm.timeout = 10.0
    agent.llm.backoff_base = 0.01
    agent.llm.backoff_cap = 0.05
    agent.opts.memo_writer = "extractive"
    return agent, ws
