"""The floor under the replay benchmark's cost and token aims: what a strategy that remembers
nothing would pay.

The ``floor`` strategy sends, at every recorded call, the system prompt, every user message (the
task and the user's directives, which the issue requires verbatim) and only the latest round — its
tool outputs shaped by the product's shapers — and nothing else: no summary, no file, no earlier
step.  Its request is cached up to the latest round, so its cost is the least any strategy that
keeps the task and the current step can pay.  The unrecorded prefix (Claude Code's tool
definitions and hidden prompt) is counted, as for every strategy.

Usage: ``python scripts/bench_floor.py [TRACES]`` — prints tokens and both costs of ``floor``
and ``agent-tui`` against ``full``, per source and overall.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agent_tui.bench.cli import default_traces
from agent_tui.bench.metrics import compute
from agent_tui.bench.runner import run_benchmark
from agent_tui.bench.shaping import ProductShaper
from agent_tui.bench.strategies import Request, system_message
from agent_tui.bench.trace import COMPACT_SUMMARY, Message, Session


class FloorStrategy:
    """System prompt, every user message, the latest round (shaped); nothing else."""

    name = "floor"

    def __init__(self) -> None:
        self.system: list[dict[str, Any]] = []
        self.users: list[dict[str, Any]] = []
        self.round: list[dict[str, Any]] = []
        self.shaper: ProductShaper | None = None

    def start(self, session: Session, window: int) -> None:
        self.system = system_message(session)
        self.users, self.round = [], []
        self.shaper = ProductShaper(session.model or None)

    def observe(self, index: int, message: Message) -> str | None:
        if message.kind == COMPACT_SUMMARY:
            return None
        if message.role == "user":
            self.users.append(message.to_openai())
            self.round = []
            return None
        if message.role == "assistant":
            self.round = [message.to_openai()]
            return None
        assert self.shaper is not None
        sent = self.shaper.shape(message.name, message.raw_output)
        self.round.append({**message.to_openai(), "content": sent})
        return sent

    def build(self, call_index: int) -> Request:
        return Request([*self.system, *self.users, *self.round])


def main() -> None:
    import agent_tui.bench.runner as runner

    made = runner.make_strategy
    runner.make_strategy = lambda name, rounds=20: FloorStrategy() if name == "floor" else made(name, rounds)
    traces = Path(sys.argv[1]) if len(sys.argv) > 1 else default_traces()
    res = run_benchmark([traces], ["full", "floor", "agent-tui"], jobs=1)
    sources = sorted({s.source for s in res.sessions}) + ["all"]
    for src in sources:
        m = {name: compute([r for r in runs if src in ("all", r.source)]) for name, runs in res.runs.items()}
        f = m["full"]
        for name in ("floor", "agent-tui"):
            x = m[name]
            print(f"{src:15s} {name:10s} tokens {x.total_input_tokens / f.total_input_tokens:.3f}x  "
                  f"cost {x.cache_weighted_cost / f.cache_weighted_cost:.3f}x / "
                  f"{x.cache_write_cost / f.cache_write_cost:.3f}x  (full {f.total_input_tokens:,} tokens)")


if __name__ == "__main__":
    main()
