"""Building a ready agent for a workspace: the one factory the TUI, headless mode and tests share.

It merges settings with flags, opens the workspace store, resumes or starts a
session (a new one is seeded by the pinned rules and the latest memo), wires
the built-in tools, the approval policy and — for ``--demo`` — the scripted
offline model.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_tui.agent.llm_provider import family
from agent_tui.agent.llm_settings import ensure_model_info, llm_config, needs_model_info
from agent_tui.agent.loop import Agent, Approver, LoopOptions
from agent_tui.agent.ollama_window import fit_window, show
from agent_tui.agent.permissions import Policy
from agent_tui.agent.toolrun import ToolRunner
from agent_tui.core.config import MemoryConfig, Settings, load_config
from agent_tui.core.results import SessionResults
from agent_tui.core.trust import TrustReport
from agent_tui.store.workspace import Workspace
from agent_tui.tools.git_safe import tracked_by_own_repo


@dataclass
class SessionOptions:
    """Flags that shape one run."""

    model: str | None = None
    """--model."""
    api_base: str | None = None
    """--api-base."""
    window: int | None = None
    """--window."""
    session: str | None = None
    """--session: resume this id."""
    new: bool = False
    """Start a new session even if one exists."""
    demo: bool = False
    """--demo: the scripted offline model."""
    yes: bool = False
    """--yes: allow writes and commands."""
    interactive: bool = True
    """False for headless runs (asks become denials unless --yes)."""
    max_steps: int | None = None
    """--max-steps."""
    max_cost: float | None = None
    """--max-cost: dollars per turn."""
    max_session_cost: float | None = None
    """--max-session-cost: dollars per session (every run of it, resumed ones included)."""
    trust: bool | str | None = None
    """Workspace trust: None asks the trust store, True applies the workspace's asks, False ignores them, a
    fingerprint applies them only if they are still the asks it was taken of (core.config.load_config)."""


def demo_settings(settings: Settings) -> Settings:
    """Settings for the offline demo: the scripted model and a small window."""
    from agent_tui.agent.demo import DEMO_MODEL, DEMO_WINDOW

    # a short verbatim-step window so the eight-step demo shows a compaction
    mem = replace(settings.memory or MemoryConfig(), keep_recent_steps=2, max_steps=4, stub_after_steps=3)
    return replace(settings, model=DEMO_MODEL, api_base=None, window=DEMO_WINDOW, memory=mem)


def resolve_settings(workspace: Path, opts: SessionOptions) -> Settings:
    return resolve_config(workspace, opts)[0]


def resolve_config(workspace: Path, opts: SessionOptions) -> tuple[Settings, TrustReport]:
    """Settings for the flags, and the workspace's trust report."""
    loaded = load_config(workspace, trust=opts.trust)
    settings = loaded.settings.with_overrides(model=opts.model, api_base=opts.api_base, window=opts.window,
                                       max_steps=opts.max_steps)
    caps = {k: v for k, v in (("max_cost", opts.max_cost), ("max_session_cost", opts.max_session_cost)) if v is not None}
    if caps:
        settings = replace(settings, budget=replace(settings.budget, **caps))
    if opts.demo:
        settings = demo_settings(settings)
    return settings, loaded.trust


def build_agent(workspace: Path, opts: SessionOptions, approver: Approver | None = None,
                settings: Settings | None = None, mcp: Any | None = None) -> tuple[Agent, Workspace]:
    """A ready Agent and its Workspace (close the workspace when done)."""
    from agent_tui.tools.builtin import builtin_registry

    report = TrustReport(root=str(workspace.resolve()))
    if settings is None:
        settings, report = resolve_config(workspace, opts)
    window_notes: list[str] = []
    if family(settings.model or "") == "ollama":  # the window the user's Ollama server really gives
        settings, window_notes = fit_window(settings, show(settings.api_base, settings.model or ""))
    elif needs_model_info(settings):
        ensure_model_info(settings.model)  # e.g. anthropic/claude-opus-4-1: 200,000, not the fallback
    ws = Workspace(workspace, settings, trusted=report.trusted if report.asks else None)
    ws.trust = report
    engine = ws.engine(opts.session, new=opts.new or opts.session is None)
    engine.warnings.extend(window_notes)
    tracked = tracked_by_own_repo(ws.root, ws.store.path)
    if tracked is not None:  # the user's sessions would leave with the next commit and push
        engine.warnings.append(f"git tracks the memory store {tracked}: your sessions (redacted) are written to it "
                               f"and would go out with your next commit; untrack it (git rm --cached {tracked}) or "
                               "set store_path")
    policy = Policy.from_config(settings.approval, yes=opts.yes, interactive=opts.interactive, workspace=ws.root)
    runner = ToolRunner(builtin_registry(), mcp=mcp, tool_settings=settings.tools)
    loop_opts = LoopOptions(max_steps=settings.max_steps, max_cost=settings.budget.max_cost,
                            max_session_cost=settings.budget.max_session_cost,
                            recall=ws.memory_trusted)  # a store the user did not make is not recalled from
    llm = llm_config(settings, engine.plan.reserve, engine.plan.window) if settings.model else None
    agent = Agent(engine, llm=llm, runner=runner, policy=policy, approver=approver, workspace=ws.root, store=ws.store, options=loop_opts)
    agent.ctx.store_trusted = ws.memory_trusted  # the recall tool, too, stays out of a store the user did not make
    if isinstance(engine.results, SessionResults):
        engine.results.own_only = not ws.memory_trusted  # and fetch_result reads only this session's outputs
    attach_sandbox(agent, settings, demo=opts.demo)
    from agent_tui.tools.undo_journal import remove_stale

    remove_stale(keep=agent.ctx.undo_journal().folder)  # /undo's journals of sessions untouched for a month
    return agent, ws


def attach_sandbox(agent: Agent, settings: Settings, demo: bool = False) -> None:
    """Run the agent's commands in bubblewrap when ``[sandbox] mode`` allows and it works; else warn (and
    ``--yes`` no longer covers commands, unless the user turned the sandbox off or the demo runs its own)."""
    from agent_tui.tools.sandbox import sandbox_for

    status = sandbox_for(agent.workspace, settings.sandbox.mode, settings.sandbox.network,
                         hide=tuple(settings.sandbox.hide), host_network=settings.sandbox.host_network)
    agent.ctx.sandbox = status.sandbox
    agent.ctx.pass_env = tuple(settings.sandbox.pass_env)
    agent.policy.sandboxed = status.sandbox is not None
    agent.policy.sandbox_missing = status.sandbox is None and settings.sandbox.mode != "off" and not demo
    if status.sandbox is None and settings.sandbox.mode != "off":
        agent.engine.warnings.append(status.message)
    agent.engine.warnings.extend(status.repaired)
