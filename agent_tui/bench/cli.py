"""``agent-tui bench``: replay recorded agent sessions through the context strategies.

``add_bench_arguments(parser)`` adds the flags to a (sub)parser and
``run_bench(args)`` runs it, so the main CLI hooks it as a subcommand and
``scripts/bench_replay.py`` runs it alone.  Exit codes: 0 done, 2 no traces
found or a bad argument, 3 a plot was asked for without matplotlib (the
report is still printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from agent_tui.bench.report import to_json, to_markdown
from agent_tui.bench.runner import STRATEGIES, run_benchmark
from agent_tui.bench.strategies import DEFAULT_ROUNDS


def default_traces() -> Path:
    """``../shared/traces`` beside the repository (where CI and this machine keep them).

    Looked up beside the source checkout first, then beside the current directory
    (for an installed package run from the repository root).
    """
    beside_repo = Path(__file__).resolve().parents[3] / "shared" / "traces"
    beside_cwd = Path.cwd().resolve().parent / "shared" / "traces"
    return beside_repo if beside_repo.is_dir() or not beside_cwd.is_dir() else beside_cwd


def add_bench_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the bench flags to ``parser`` and return it."""
    parser.add_argument("--traces", type=Path, action="append", metavar="DIR",
                        help="trace folder or file (repeatable; default ../shared/traces)")
    parser.add_argument("--window", type=int, default=None, metavar="N",
                        help="one window in tokens for every session (default: the recorded model's, "
                             "128000 mini-swe-agent, 200000 claude-code)")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, metavar="N",
                        help=f"rounds the `window` strategy keeps (default {DEFAULT_ROUNDS})")
    parser.add_argument("--strategy", action="append", choices=STRATEGIES, dest="strategies",
                        help="run only these strategies (repeatable; default all)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--plot", type=Path, default=None, metavar="FILE",
                        help="write a PNG of tokens per request per session (needs matplotlib)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                        help="worker processes (default: up to 2)")
    return parser


def run_bench(args: argparse.Namespace) -> int:
    """Run the benchmark as ``args`` says; print the report; return an exit code."""
    paths = list(args.traces or [default_traces()])
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"agent-tui bench: no such trace folder or file: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    if args.window is not None and args.window < 1024:
        print("agent-tui bench: --window must be at least 1024 tokens", file=sys.stderr)
        return 2
    if args.rounds < 1:
        print("agent-tui bench: --rounds must be at least 1", file=sys.stderr)
        return 2
    strategies = list(dict.fromkeys(args.strategies or STRATEGIES))
    result = run_benchmark(paths, strategies, window=args.window, rounds=args.rounds, jobs=max(1, args.jobs))
    if not result.sessions:
        print(f"agent-tui bench: no recognised traces under {', '.join(map(str, paths))}", file=sys.stderr)
        return 2
    print(json.dumps(to_json(result), indent=2) if args.json else to_markdown(result))
    if args.plot is not None:
        from agent_tui.bench.plot import PlotUnavailable, plot_series

        try:
            out = plot_series(result, args.plot)
        except PlotUnavailable as exc:
            print(f"agent-tui bench: {exc}", file=sys.stderr)
            return 3
        print(f"plot written to {out}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run ``agent-tui bench`` standalone."""
    parser = add_bench_arguments(argparse.ArgumentParser(prog="agent-tui bench", description=__doc__))
    return run_bench(parser.parse_args(argv))
