"""`agent-tui run "TASK"`: one turn without a UI, events as text or JSON Lines.

The same Agent and events as the TUI.  Writes and commands are denied unless
``--yes`` (there is nobody to ask).  The exit code is 0 when the turn
finished, 1 when it ended in an error, the step limit or a cost limit, 2 for bad usage,
130 when interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from agent_tui.agent import events as ev
from agent_tui.core.redact import redact_text, redact_value
from agent_tui.core.terminal import json_text, printable

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.agent.session import SessionOptions
    from agent_tui.store.workspace import Workspace


def print_event(e: ev.Event, as_json: bool, out: TextIO) -> None:
    """One event on ``out``: a JSON line, or text with escape sequences shown, not obeyed."""
    if as_json:
        out.write(json_text(redact_value(e.to_json()), default=str) + "\n")
        out.flush()
        return
    if isinstance(e, ev.TextDelta):
        out.write(printable(e.text))
    elif isinstance(e, ev.AssistantMessage):
        out.write("\n")
    elif isinstance(e, ev.ToolCallStarted):
        args = json.dumps(e.arguments, ensure_ascii=False) if not isinstance(e.arguments, str) else e.arguments
        out.write(f"\n→ {printable(e.name, newlines=False)} {printable(redact_text(args[:200]), newlines=False)}\n")
    elif isinstance(e, ev.ToolCallFinished):
        first = printable(redact_text((e.text.strip().splitlines() or [""])[0][:160]), newlines=False)
        out.write(f"  {'✗' if e.is_error else '✓'} {first} ({e.shaped_tokens:,} tok"
                  f"{f', whole output {e.handle}' if e.handle else ''})\n")
    elif isinstance(e, ev.BudgetUpdated):
        out.write(f"[step {e.step}: {e.total:,}/{e.input_budget:,} tokens, {e.used_pct:.0f}%]\n")
    elif isinstance(e, ev.Compacted):
        out.write(f"[compacted {e.evicted} items ({e.summariser}): {e.tokens_before:,} → {e.tokens_after:,}]\n")
    elif isinstance(e, ev.MemoSaved):
        out.write(f"[memo {e.memo_id} ({e.kind})]\n")
    elif isinstance(e, ev.Retrying):
        when = f"retry {e.attempt} in {e.delay:.1f} s" if e.delay > 0 else f"retry {e.attempt} now"
        out.write(printable(redact_text(f"[retrying] {when}: {e.reason}")) + "\n")
    elif isinstance(e, (ev.ErrorEvent, ev.ThresholdCrossed)):
        out.write(printable(redact_text(f"[{e.type}] {getattr(e, 'message', '') or getattr(e, 'reason', '')}")) + "\n")
    elif isinstance(e, ev.WarningRaised):
        out.write(printable(redact_text(f"[warning] {e.message}")) + "\n")
    elif isinstance(e, ev.TurnFinished):
        out.write(f"\n[turn {e.turn} {e.status} after {e.steps} step{'s' if e.steps != 1 else ''}]\n")
    out.flush()


def session_options(args: argparse.Namespace, *, interactive: bool = False) -> SessionOptions:
    """The SessionOptions of a command-line run (``run``, ``init``) from its parsed flags."""
    from agent_tui.agent.session import SessionOptions

    demo = bool(getattr(args, "demo", False))
    return SessionOptions(model=args.model, api_base=args.api_base, window=args.window, session=args.session,
                          demo=demo, yes=bool(getattr(args, "yes", False)) or demo, interactive=interactive,
                          max_steps=getattr(args, "max_steps", None),
                          trust=True if getattr(args, "trust", False) else None,
                          max_cost=getattr(args, "max_cost", None),
                          max_session_cost=getattr(args, "max_session_cost", None))


async def prepare(agent: Agent, ws: Workspace, opts: SessionOptions, as_json: bool) -> int | None:
    """Before the turn: remember a --trust, report the workspace's trust, check there is a model,
    load the demo model, say which session runs.  An exit code when the run cannot go on."""
    report = ws.trust
    if opts.trust and report.asks:
        from agent_tui.store.trust_grant import grant

        if problem := grant(report)[1]:
            print(f"agent-tui: trusted for this run only: {problem}", file=sys.stderr)
    if report.pending:
        print(f"agent-tui: {report.notice()}", file=sys.stderr)
    for problem in report.problems:
        print(f"agent-tui: {problem}", file=sys.stderr)
    if as_json and (report.asks or report.problems):
        print_event(ev.TrustReported(**report.to_json()), True, sys.stdout)
    if agent.llm is None:
        held = " (the workspace's `model` is ignored until you trust it: --trust)" if any(
            a.key == "model" for a in report.asks) and not report.trusted else ""
        print("agent-tui: no model configured: pass --model (e.g. openai/gpt-4o) or set `model` in "
              f"~/.config/agent-tui/config.toml, or try --demo{held}", file=sys.stderr)
        return 2
    if opts.demo:
        from agent_tui.agent.demo import register_demo_provider

        await asyncio.to_thread(register_demo_provider)
    engine = agent.engine
    if as_json:
        print_event(ev.SessionOpened(session=engine.session_id, model=engine.settings.model,
                                     window=engine.plan.window, warnings=agent.new_warnings()), True, sys.stdout)
    else:
        print(f"session {engine.session_id} · {engine.settings.model} · window {engine.plan.window:,}",
              file=sys.stderr)
        for w in agent.new_warnings():
            print(f"warning: {w}", file=sys.stderr)
    return None


async def _run(task: str, args: argparse.Namespace, workspace: Path) -> int:
    from agent_tui.agent.session import build_agent

    opts = session_options(args)
    agent, ws = build_agent(workspace, opts)
    try:
        code = await prepare(agent, ws, opts, args.json)
        if code is not None:
            return code
        report = ws.trust
        from agent_tui.agent.mcp_setup import make_mcp_manager

        mcp = make_mcp_manager(agent.engine, ws.root, workspace_json=report.trusted)
        if mcp is not None:
            await mcp.start()
            agent.runner.mcp = mcp
            states = [(st.name, st.state, st.error) for st in mcp.status()]
            errors = list(mcp.config.errors)
            if args.json:
                print_event(ev.McpStarted(servers=[{"name": n, "state": s, "error": e} for n, s, e in states],
                                          errors=errors), True, sys.stdout)
            else:
                for name, state, error in states:
                    print(f"mcp {name}: {state}{f' ({error})' if error else ''}", file=sys.stderr)
                for error in errors:
                    print(f"mcp: {error}", file=sys.stderr)
        status = "error"
        ws.store.ensure_title(agent.engine.session_id, task)
        try:
            async for e in agent.run(task):
                print_event(e, args.json, sys.stdout)
                if isinstance(e, ev.TurnFinished):
                    status = e.status
        finally:
            if mcp is not None:
                await mcp.close()
        return 0 if status == "done" else 1
    finally:
        ws.close()


def run_headless(args: argparse.Namespace, workspace: Path) -> int:
    task = args.task
    if getattr(args, "demo", False):
        from agent_tui import demo_project as demo

        workspace = demo.make_demo_workspace(workspace if args.workspace is not None else None)
        if demo.running_elsewhere(workspace):
            print(f"agent-tui: {demo.IN_USE_NOTE}", file=sys.stderr)
        task = task or demo.DEMO_TASK
    if not task:
        print("agent-tui run: give a TASK (or --demo)", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_run(task, args, workspace))
    except KeyboardInterrupt:
        return 130
