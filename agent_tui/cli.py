"""The `agent-tui` entry point: TUI by default, plus headless and store commands.

Each command imports only what it needs, so `agent-tui memory list` answers in
a fraction of a second and the TUI paints before litellm is loaded.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _common(p: argparse.ArgumentParser, top: bool = False) -> None:
    # Flags accepted both before and after the subcommand: the subcommand's copy must not
    # overwrite a value given before it, hence SUPPRESS as its default.
    dflt = None if top else argparse.SUPPRESS
    p.add_argument("--workspace", "-w", type=Path, default=dflt, help="project folder (default: current directory)")


def _dollars(text: str) -> float:
    """A positive amount of dollars for --max-cost / --max-session-cost."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of dollars, got {text!r}")
    return value


def _steps(text: str) -> int:
    """A whole number of model calls >= 1 for --max-steps."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of model calls >= 1, got {text!r}")
    return value


def _model_flags(p: argparse.ArgumentParser, top: bool = False) -> None:
    dflt = None if top else argparse.SUPPRESS
    p.add_argument("--model", default=dflt, help="litellm model string, e.g. openai/gpt-4o")
    p.add_argument("--api-base", default=dflt, help="base URL of an OpenAI-compatible server")
    p.add_argument("--window", type=int, default=dflt, help="override the context window (tokens)")
    p.add_argument("--session", default=dflt, help="continue this session id")
    p.add_argument("--demo", action="store_true", default=False if top else argparse.SUPPRESS,
                   help="offline demo: a scripted model on a sample project")
    p.add_argument("--trust", action="store_true", default=False if top else argparse.SUPPRESS,
                   help="trust this workspace's own config (and remember it), as `agent-tui trust --yes`")


def _limit_flags(p: argparse.ArgumentParser, top: bool = False) -> None:
    """The limits, the same for the TUI and ``run`` (config keys ``max_steps``, ``[budget] max_cost``,
    ``[budget] max_session_cost``)."""
    dflt = None if top else argparse.SUPPRESS
    p.add_argument("--max-steps", type=_steps, default=dflt, help="model calls allowed in one turn (default 200)")
    p.add_argument("--max-cost", type=_dollars, default=dflt, help="dollars one turn may spend ([budget] max_cost)")
    p.add_argument("--max-session-cost", type=_dollars, default=dflt,
                   help="dollars the session may spend over all its runs ([budget] max_session_cost)")


SUBCOMMANDS = ("tui", "run", "init", "memory", "context", "bench", "mcp", "trust")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser; ``only`` names the subcommand being run, so the (slow to import)
    arguments of the others are not loaded — the TUI's first frame does not wait for them."""
    parser = argparse.ArgumentParser(
        prog="agent-tui",
        description="A terminal coding agent that shows and manages every token it sends. With no command it "
                    "opens the TUI (the offline demo when no model is configured).")
    _common(parser, top=True)
    _model_flags(parser, top=True)
    _limit_flags(parser, top=True)
    sub = parser.add_subparsers(dest="command")

    tui = sub.add_parser("tui", help="open the terminal UI (the default)")
    _common(tui)
    _model_flags(tui)
    _limit_flags(tui)

    run = sub.add_parser("run", help="run one task headless")
    _common(run)
    _model_flags(run)
    _limit_flags(run)
    run.add_argument("task", nargs="?", help="the task (omit with --demo)")
    run.add_argument("--yes", "-y", action="store_true", help="allow writes and commands without asking")
    run.add_argument("--json", action="store_true", help="JSON Lines events on stdout")

    init = sub.add_parser("init", help="draft AGENTS.md with the model, shown as a diff to approve")
    _common(init)
    _model_flags(init)
    _limit_flags(init)
    from agent_tui.init_cli import add_init_arguments

    add_init_arguments(init)

    mem = sub.add_parser("memory", help="list, show, pin, unpin, evict, restore items")
    _common(mem)
    ctx = sub.add_parser("context", help="the budget breakdown of the latest assembly")
    _common(ctx)
    if only in (None, "memory", "context"):
        from agent_tui.store.cli import add_context_arguments, add_memory_arguments

        add_memory_arguments(mem)
        add_context_arguments(ctx)

    bench = sub.add_parser("bench", help="replay recorded sessions through context strategies")
    _common(bench)
    if only in (None, "bench"):
        try:
            from agent_tui.bench.cli import add_bench_arguments
        except ImportError:
            add_bench_arguments = None
        if add_bench_arguments is not None:
            add_bench_arguments(bench)

    trust = sub.add_parser("trust", help="show what this workspace's config asks for; trust or forget it")
    _common(trust)
    from agent_tui.trust_cli import add_trust_arguments

    add_trust_arguments(trust)

    mcp = sub.add_parser("mcp", help="MCP servers: list tools and their token cost")
    _common(mcp)
    mcp_sub = mcp.add_subparsers(dest="mcp_cmd", required=True)
    ml = mcp_sub.add_parser("list", help="servers, status, tools, tokens raw and shaped")
    _common(ml)
    ml.add_argument("--json", action="store_true")
    ml.add_argument("--config", type=Path, help="a config file other than the workspace's")
    return parser


def _workspace(args: argparse.Namespace) -> Path:
    """The workspace: ``--workspace`` or the current folder.  A ``--workspace`` that is not a folder is
    refused (a typo made a new folder and a store in it), except for the demo, which makes its copy there."""
    if args.workspace is None:
        return Path.cwd().resolve()
    folder = Path(args.workspace).expanduser()
    if not folder.is_dir() and not getattr(args, "demo", False):
        from agent_tui.core.config import ConfigError

        what = "is not a folder" if folder.exists() else "does not exist"
        raise ConfigError(f"--workspace {folder} {what} (nothing was created); give an existing project folder")
    return folder.resolve()


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = build_parser(next((w for w in words if w in SUBCOMMANDS), "tui")).parse_args(argv)
    cmd = args.command or "tui"
    from agent_tui.core.process_guard import keep_private
    from agent_tui.core.redact import install_log_redaction

    keep_private()
    install_log_redaction()
    streams = sys.stdout, sys.stderr
    if cmd != "tui":  # (the TUI filters everything it draws: ui/output_guard)
        from agent_tui.core.terminal import GuardedStream

        sys.stdout, sys.stderr = GuardedStream(sys.stdout), GuardedStream(sys.stderr)
    try:
        return _dispatch(cmd, args)
    except BrokenPipeError:  # `agent-tui memory list | head`: the reader has gone; stop quietly, as git does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, streams[0].fileno())  # the flush at exit must not raise again
        return 141
    finally:
        sys.stdout, sys.stderr = streams


def _dispatch(cmd: str, args: argparse.Namespace) -> int:
    try:
        if cmd == "memory":
            from agent_tui.store.cli import run_memory

            return run_memory(args, _workspace(args))
        if cmd == "context":
            from agent_tui.store.cli import run_context

            return run_context(args, _workspace(args))
        if cmd == "bench":
            from agent_tui.bench.cli import run_bench

            return run_bench(args)
        if cmd == "mcp":
            from agent_tui.mcp.cli import run_mcp_list

            return run_mcp_list(args)
        if cmd == "init":
            from agent_tui.init_cli import run_init

            return run_init(args, _workspace(args))
        if cmd == "trust":
            from agent_tui.trust_cli import run_trust

            return run_trust(args, _workspace(args))
        if cmd in ("run", "tui", "init"):
            from agent_tui.tools.reaper import install_exit_handlers

            install_exit_handlers()  # no command the model started outlives the agent
        if cmd == "run":
            from agent_tui.agent.headless import run_headless

            return run_headless(args, _workspace(args))
        from agent_tui.ui.launch import run_tui

        return run_tui(args, _workspace(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a clear message instead of a traceback; details with AGENT_TUI_DEBUG=1
        from agent_tui.core.config import ConfigError
        from agent_tui.demo_project import DemoWorkspaceError
        from agent_tui.store.db import StoreError

        if isinstance(exc, (StoreError, ConfigError, DemoWorkspaceError)) and not os.environ.get("AGENT_TUI_DEBUG"):
            from agent_tui.core.terminal import printable

            print(f"agent-tui: {printable(str(exc))}", file=sys.stderr)
            return 2
        raise
